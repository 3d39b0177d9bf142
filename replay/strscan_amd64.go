//go:build amd64 && !purego

package replay

// asciiPlain32 is plainASCII for a b of at least 32 bytes, 32 bytes a
// step (strscan_amd64.s). AVX2 only (asciiPlains).
//
//go:noescape
func asciiPlain32(b []byte) bool

// asciiPlains says asciiPlain32 may be called.
var asciiPlains = useAVX2
