//go:build !amd64 || purego

package replay

// asciiPlain32 is not here (asciiPlains): plainASCII reads words.
func asciiPlain32(b []byte) bool { return false }

// asciiPlains says asciiPlain32 may be called.
const asciiPlains = false
