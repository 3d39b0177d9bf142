package replay

// Unescaping a validated JSON string fast, to encoding/json's result.

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// unquoteBody unescapes the body (between the quotes) of a string that
// validValue accepted, as json.Unmarshal into a string does: invalid
// UTF-8 and lone surrogates become U+FFFD. The runs between escapes are
// found with bytes.IndexByte and copied whole when valid UTF-8, so a
// long tool output with a newline escape every line costs about a copy
// (encoding/json went through its scanner byte by byte, twice).
func unquoteBody(body []byte) string {
	// Valid UTF-8 unescapes to at most its length (an escape is longer
	// than what it writes); invalid bytes grow to U+FFFD and append grows.
	// Appending to a []byte, the common escapes written inline, a line's
	// newline escape costs an IndexByte and two appends, not a Builder's
	// three calls.
	return unescape(body, utf8.Valid(body)) // once for the whole string: its runs need no check
}

// unescape is unquoteBody, valid saying whether body is valid UTF-8.
func unescape(body []byte, valid bool) string {
	out := appendUnescaped(make([]byte, 0, len(body)), body, valid)
	return unsafe.String(unsafe.SliceData(out), len(out)) // out is not written again
}

// appendUnescaped appends unescape(body, valid) to out.
func appendUnescaped(out, body []byte, valid bool) []byte {
	for len(body) > 0 {
		run := body
		k := bytes.IndexByte(body, '\\')
		if k >= 0 {
			run = body[:k]
		}
		if valid {
			out = append(out, run...)
		} else {
			out = appendUTF8(out, run)
		}
		if k < 0 {
			break
		}
		if k+1 < len(body) {
			if c := simpleEscape[body[k+1]]; c != 0 {
				out = append(out, c)
				body = body[k+2:]
				continue
			}
		}
		var n int
		out, n = appendUnescape(out, body[k:])
		body = body[k+n:]
	}
	return out
}

// simpleEscape is the byte a two-byte escape \c writes, by c (0: not one).
var simpleEscape = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', '"': '"', '\\': '\\', '/': '/'}

// appendUTF8 appends run, each byte of invalid UTF-8 as U+FFFD.
func appendUTF8(out, run []byte) []byte {
	if utf8.Valid(run) {
		return append(out, run...)
	}
	for len(run) > 0 {
		r, size := utf8.DecodeRune(run)
		out = utf8.AppendRune(out, r)
		run = run[size:]
	}
	return out
}

// appendUnescape appends the escape at the start of s (a backslash, in a
// validated string) and returns the bytes it took.
func appendUnescape(out, s []byte) ([]byte, int) {
	if len(s) < 2 {
		return out, len(s) // not reached: validated
	}
	if c := simpleEscape[s[1]]; c != 0 {
		return append(out, c), 2
	}
	if s[1] != 'u' {
		return out, len(s) // not reached: validated
	}
	r := hex4(s[2:])
	if r < 0 {
		return out, len(s) // not reached: validated
	}
	if utf16.IsSurrogate(r) {
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r1 := hex4(s[8:]); r1 >= 0 {
				if d := utf16.DecodeRune(r, r1); d != utf8.RuneError {
					return utf8.AppendRune(out, d), 12
				}
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(out, r), 6
}

// scratchText holds unescaped strings for as long as their reader needs
// them, one after the other in a block that reset lets be written over:
// a reader whose strings are all copied out (interned by stepTable.add)
// before it resets allocates a block now and then, not a string each.
// A string's bytes are never moved nor written while it is held: a block
// too small for the next string is left to the strings in it (and to the
// collector once they go) and a larger one started.
type scratchText struct{ buf []byte }

const (
	scratchMin  = 4 << 10
	scratchKeep = 1 << 20 // a block grown larger is let go at reset
)

// reset lets the block's strings be written over: none is held any more.
func (s *scratchText) reset() {
	if cap(s.buf) > scratchKeep {
		s.buf = nil
		return
	}
	s.buf = s.buf[:0]
}

// room returns the block's free room, at least n bytes, to append a
// string to; keep takes it.
func (s *scratchText) room(n int) []byte {
	if cap(s.buf)-len(s.buf) < n {
		s.buf = make([]byte, 0, max(n, 2*cap(s.buf), scratchMin))
	}
	return s.buf[len(s.buf):]
}

// keep returns b, room's slice appended to, as a string held until
// reset. An append that outgrew the room moved b to an array of its own,
// whose room is the block's from then on.
func (s *scratchText) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if free := s.buf[len(s.buf):cap(s.buf)]; cap(free) > 0 && unsafe.SliceData(b) == unsafe.SliceData(free) {
		s.buf = s.buf[:len(s.buf)+len(b)]
	} else {
		s.buf = b
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// str is rawString(v), an unescaped string written in s (held until
// reset), not in an allocation of its own.
func (s *scratchText) str(v rawValue) (string, bool) {
	switch v.Kind() {
	case 0, 'n':
		return "", true
	case '"':
	default:
		return "", false
	}
	body := v[1 : len(v)-1]
	// Valid UTF-8 unescapes to at most its length (unquoteBody).
	return s.keep(appendUnescaped(s.room(len(body)), body, utf8.Valid(body))), true
}
