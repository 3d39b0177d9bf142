package detect

import "testing"

// TestLCSGoLoops runs the tests that hold the LCS loops with the assembly
// switched off (useColumnsAsm, useBuildAsm), so that the Go loops it
// stands in for on amd64 (columnsBytes2 to 12, buildBytes' and buildTo's
// own loops: what a CPU without BMI1 and every other GOARCH runs) stay
// held to the plain code in the default suite, where on amd64 they would
// otherwise run only under -tags purego.
func TestLCSGoLoops(t *testing.T) {
	defer func(c, b bool) { useColumnsAsm, useBuildAsm = c, b }(useColumnsAsm, useBuildAsm)
	useColumnsAsm, useBuildAsm = false, false
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"ColumnsBytesAsLcsColumn", TestColumnsBytesAsLcsColumn},
		{"BitLCSBytesAsPlain", TestBitLCSBytesAsPlain},
		{"BitLCSRunsAsPlain", TestBitLCSRunsAsPlain},
		{"LCSBytesRows", TestLCSBytesRows},
		{"LCSRunesCounted", TestLCSRunesCounted},
		{"LCSExamples", TestLCSExamples},
		{"LCSProperty", TestLCSProperty},
	} {
		t.Run(tc.name, tc.test)
	}
}
