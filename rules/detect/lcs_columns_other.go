//go:build !amd64 || purego

package detect

// useColumnsAsm is read by no loop here (TestLCSGoLoops sets it).
var useColumnsAsm = false

// columnsAsm is false: columns takes every band through columnsBytesN.
func columnsAsm[T symbol](mt *lcsMatcher, vb []uint64, first int, bs []T) (int, bool) {
	return 0, false
}
