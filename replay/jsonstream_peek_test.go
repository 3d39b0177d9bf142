package replay

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

// peekPlain is jsonStream.peek a byte at a time, as it was written
// before peekBlank: the reference peek is held to.
func peekPlain(s *jsonStream) (byte, bool) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case '\n':
				s.line++
			case ' ', '\t', '\r':
			default:
				return c, true
			}
			s.pos++
		}
		if !s.fill(0) {
			return 0, false
		}
	}
}

// TestJSONStreamPeek holds peek, which passes a newline's indentation a
// word at a time (peekBlank), to peekPlain: the same byte, line and
// position after every run of white space (blankRuns: spaces from none
// to 41 after a newline, tabs, carriage returns, control bytes in the
// run) followed by each kind of byte or the end, with a run of spaces
// after that, the input read whole or through a buffer of 16 bytes a
// byte at a time (the runs cut at every place by the buffer's end).
func TestJSONStreamPeek(t *testing.T) {
	for _, run := range blankRuns() {
		for _, next := range []string{`{`, `"k"`, `]`, `,`, "\x00", "\x1f", "\x7f", "\xff", ``} {
			for _, pre := range []string{"", "[", "xxxxxxxxxxx"} {
				data := []byte(pre + run + next + strings.Repeat(" ", 20) + "\n" + run + "}")
				for _, oneByte := range []bool{false, true} {
					stream := func() *jsonStream {
						var r = bytes.NewReader(data)
						if oneByte {
							return newJSONStream(bufio.NewReaderSize(iotest.OneByteReader(r), 16), 0)
						}
						return newJSONStream(bufio.NewReader(r), 0)
					}
					got, want := stream(), stream()
					// Each stream passes pre, then peeks on to its end,
					// one byte past each byte it stops at.
					for s := range []*jsonStream{got, want} {
						js := []*jsonStream{got, want}[s]
						for range pre {
							if _, ok := peekPlain(js); !ok {
								t.Fatalf("%q: ended in its first bytes", data)
							}
							js.pos++
						}
					}
					for step := 0; ; step++ {
						gc, gok := got.peek()
						wc, wok := peekPlain(want)
						if gc != wc || gok != wok || got.line != want.line || got.pos != want.pos {
							t.Fatalf("%q (one byte %v), peek %d: %q %v line %d pos %d, want %q %v line %d pos %d",
								data, oneByte, step, gc, gok, got.line, got.pos, wc, wok, want.line, want.pos)
						}
						if !wok {
							break
						}
						got.pos++
						want.pos++
					}
				}
			}
		}
	}
}
