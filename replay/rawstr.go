package replay

// Unescaping a validated JSON string fast, to encoding/json's result.

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// unquoteBody unescapes the body (between the quotes) of a string that
// validValue accepted, as json.Unmarshal into a string does: invalid
// UTF-8 and lone surrogates become U+FFFD.
func unquoteBody(body []byte) string {
	out := appendText(nil, body)
	return unsafe.String(unsafe.SliceData(out), len(out)) // out is not written again
}

// appendText appends the text of a validated string's body, as
// appendUnescaped(out, body, utf8.Valid(body)) does, in one pass where
// the body is ASCII: unescapeRun copies it and its two-byte escapes
// (stopping at a byte over 0x7f), where utf8.Valid, a search for a
// backslash and a search for each next one went over it before the copy
// (a tool's output has a newline escape every 40 bytes or so). Its UTF-8
// is checked from its first byte over 0x7f only: the bytes before are
// ASCII, so the body is valid exactly when the rest is, and the rest
// starts a run, read as appendUnescaped reads it. Like appendUnescaped
// it may write out's room past what it appends (unescapeRun's steps):
// out's spare capacity holds nothing anyone reads.
func appendText(out, body []byte) []byte {
	// Valid UTF-8 unescapes to at most its length (an escape is longer
	// than what it writes); invalid bytes grow to U+FFFD.
	out = slices.Grow(out, len(body))
	for len(body) > 0 {
		w, r := unescapeRun(out[len(out):cap(out)], body, true)
		out, body = out[:len(out)+w], body[r:]
		if len(body) == 0 {
			break
		}
		if body[0] != '\\' {
			return appendUnescaped(out, body, utf8.Valid(body))
		}
		var n int
		out, n = appendUnescape(out, body)
		body = body[n:]
	}
	return out
}

// appendUnescaped appends a validated string's body unescaped to out,
// valid saying whether body is valid UTF-8 (else each invalid byte is
// written as U+FFFD). unescapeRun copies the runs between escapes and
// the two-byte escapes, a \u escape is written here, and so is a run
// with a byte over 0x7f when body is not valid.
func appendUnescaped(out, body []byte, valid bool) []byte {
	out = slices.Grow(out, len(body)) // unescapeRun writes within its room
	for len(body) > 0 {
		w, r := unescapeRun(out[len(out):cap(out)], body, !valid)
		out, body = out[:len(out)+w], body[r:]
		if len(body) == 0 {
			break
		}
		if body[0] == '\\' {
			var n int
			out, n = appendUnescape(out, body)
			body = body[n:]
			continue
		}
		// A byte over 0x7f of a body not valid UTF-8: its run, up to the
		// next escape, from an ASCII byte or an escape on (so decoded
		// from the same byte as the whole run would be).
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			k = len(body)
		}
		out = slices.Grow(appendUTF8(out, body[:k]), len(body)-k)
		body = body[k:]
	}
	return out
}

// copyString is validString of the string at b[i] for a value whose
// text is kept: it writes the text, as appendText writes it, into dst
// (room for len(b)-i bytes) in the same pass, 32 bytes a step
// (copyStringRun, where copyStrings says so). It returns the index after
// the string (-1 when invalid or cut) and the text: in dst, unless
// invalid UTF-8 outgrew it. The rest of the string from where the steps
// stop other than at an escape (32 bytes of b or fewer left, a byte over
// 0x7f, a control byte) is validated by one call and written by
// appendText (the bytes before it are ASCII, as appendText reads them):
// a string ending a line (a Codex tool output, a steps output near its
// line's end) had its last 32 bytes validated and written one at a
// time, some 300 instructions a string.
func copyString(b []byte, i int, dst []byte) (end int, text []byte) {
	j, w := i+1, 0
	for copyStrings && len(b)-j > 32 { // copyStringRun reads while more than 32 are left
		n, r := copyStringRun(dst[w:], b[j:])
		w, j = w+n, j+r
		if len(b)-j <= 32 {
			break // a stop at the length: b[j] may be any byte, an escape's backslash too
		}
		c := b[j]
		if c == '"' {
			return j + 1, dst[:w]
		}
		if c != '\\' {
			break // a control byte (invalid) or a byte over 0x7f
		}
		// Not a two-byte escape (copyStringRun writes those): a \u
		// escape, or invalid.
		if b[j+1] != 'u' || hex4(b[j+2:]) < 0 {
			return -1, nil
		}
		out, k := appendUnescape(dst[:w], b[j:]) // within dst: no longer than what it reads
		w, j = len(out), j+k
	}
	if stringCloses && len(b) >= 32 {
		end, _ = stringClose(b, j)
	} else {
		end, _ = validStringRuns(b, j)
	}
	if end < 0 {
		return -1, nil
	}
	return end, appendText(dst[:w], b[j:end-1])
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
	// Valid UTF-8 unescapes to at most its length (appendText).
	return s.keep(appendText(s.room(len(body)), body)), true
}
