package replay

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Views of a record's strings, for the readers that compare or copy a
// value while the record is read (the OpenHands V0 and V1 readers,
// rawStringView): a string whose body is its decoded text is not copied.

// strView is v.Str() not copied when the string is its bytes (no
// escape, valid UTF-8): a view of the record, for a value only compared
// or copied while the record is read, never kept.
func strView(v rawValue) (string, bool) {
	if v.Kind() == '"' {
		if body := v[1 : len(v)-1]; plainASCII(body) || bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			return bytesString(body), true
		}
	}
	return v.Str()
}

// plainASCII says b holds no backslash and no byte over 0x7f: a
// string's body then is its decoded string (no escape, valid UTF-8).
// An event's kind, source, ids and tool name are such, and are told in
// one pass of eight-byte words (the last overlapping the one before),
// where bytes.IndexByte and utf8.Valid made two calls and two passes.
// A word is flagged as verbatimStop flags it, for the backslash alone.
// A string of 32 bytes or more (a text block) goes 32 bytes a step where
// the CPU has AVX2 (asciiPlain32).
func plainASCII(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if len(b) < 8 {
		for _, c := range b {
			if c >= utf8.RuneSelf || c == '\\' {
				return false
			}
		}
		return true
	}
	if asciiPlains && len(b) >= 32 {
		return asciiPlain32(b)
	}
	var m uint64
	for i := 0; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		m |= (x ^ ones*'\\' - ones) | x
	}
	x := binary.LittleEndian.Uint64(b[len(b)-8:])
	m |= (x ^ ones*'\\' - ones) | x
	return m&highs == 0
}

// textView is v.Text(), a string not copied as strView.
func textView(v rawValue) string {
	if v.Kind() == '"' {
		s, _ := strView(v)
		return s
	}
	return v.Text()
}
