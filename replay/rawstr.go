package replay

// Unescaping a validated JSON string fast, to encoding/json's result.

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unquoteBody unescapes the body (between the quotes) of a string that
// validValue accepted, as json.Unmarshal into a string does: invalid
// UTF-8 and lone surrogates become U+FFFD. The runs between escapes are
// found with bytes.IndexByte and copied whole when valid UTF-8, so a
// long tool output with a newline escape every line costs about a copy
// (encoding/json went through its scanner byte by byte, twice).
func unquoteBody(body []byte) string {
	var b strings.Builder
	b.Grow(len(body))
	valid := utf8.Valid(body) // once for the whole string: its runs need no check
	for len(body) > 0 {
		run := body
		k := bytes.IndexByte(body, '\\')
		if k >= 0 {
			run = body[:k]
		}
		if valid {
			b.Write(run)
		} else {
			writeUTF8(&b, run)
		}
		if k < 0 {
			break
		}
		body = body[k+unescapeOne(&b, body[k:]):]
	}
	return b.String()
}

// writeUTF8 writes run, each byte of invalid UTF-8 as U+FFFD.
func writeUTF8(b *strings.Builder, run []byte) {
	if utf8.Valid(run) {
		b.Write(run)
		return
	}
	for len(run) > 0 {
		r, size := utf8.DecodeRune(run)
		b.WriteRune(r)
		run = run[size:]
	}
}

// unescapeOne writes the escape at the start of s (a backslash, in a
// validated string) and returns the bytes it took.
func unescapeOne(b *strings.Builder, s []byte) int {
	if len(s) < 2 {
		return len(s) // not reached: validated
	}
	switch s[1] {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r := hex4(s[2:])
		if r < 0 {
			return len(s) // not reached: validated
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r1 := hex4(s[8:]); r1 >= 0 {
					if d := utf16.DecodeRune(r, r1); d != utf8.RuneError {
						b.WriteRune(d)
						return 12
					}
				}
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
		return 6
	default: // '"', '\\', '/'
		b.WriteByte(s[1])
	}
	return 2
}
