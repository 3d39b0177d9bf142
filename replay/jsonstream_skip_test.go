package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
)

// skipPlain is jsonStream.skip as it was written before skipIx: each
// inner value read by value (validValue, then bytes.Count for its lines
// and hasNonFinite for its NaN and infinities).
func skipPlain(s *jsonStream) error {
	c, ok := s.peek()
	if !ok {
		return errStreamEOF
	}
	if c != '[' && c != '{' {
		_, _, err := s.value()
		return err
	}
	s.pos++
	close := byte(']')
	if c == '{' {
		close = '}'
	}
	if s.expect(close) {
		return nil
	}
	for {
		if c == '{' {
			if k, ok := s.peek(); !ok || k != '"' {
				return fmt.Errorf("invalid JSON: an object key expected")
			}
			if _, _, err := s.value(); err != nil {
				return err
			}
			if !s.expect(':') {
				return fmt.Errorf("invalid JSON: ':' expected")
			}
		}
		if _, _, err := s.value(); err != nil {
			return err
		}
		if s.expect(',') {
			continue
		}
		if s.expect(close) {
			return nil
		}
		return fmt.Errorf("invalid JSON: ',' or %q expected", close)
	}
}

// skipDocs are values for skip to pass: arrays and objects of the
// elements TestJSONStreamLines reads (white space at each place JSON
// allows it), with NaN and infinities, invalid and cut-short elements
// among them, and scalars.
func skipDocs() []string {
	odd := []string{`NaN`, `{"a": [1, -Infinity]}`, `"NaN Infinity"`, `[Infinity]`, `{"a": tru}`, `00`, `[1,]`, `{"a" 1}`, `"\u00zz"`, `{"a": [1, 2`, `-`, `1e5`, `"x`}
	var docs []string
	for _, r := range []string{"", " ", "\n", "\n  ", "\n    \t", "\r\n        "} {
		elems := append(lineElems(r), odd...)
		for i, e := range elems {
			docs = append(docs, e, "["+r+e+r+"]", "{"+r+`"k"`+r+":"+r+e+r+"}")
			next := elems[(i+1)%len(elems)]
			docs = append(docs, "["+r+e+","+r+next+r+"]", "{"+r+`"a":`+r+e+","+r+`"b": `+next+r+"}")
		}
	}
	return append(docs, "[", "{", `{"a"`, `{"a":`, "[1", "[1 2]", `{"a": 1 "b": 2}`, `{1: 2}`, "[]", "{}", "[\n]", "{\n  }")
}

// TestJSONStreamSkip holds skip, whose inner values skipIx's pass
// validates and counts the lines of, to skipPlain: the same error, the
// same line and the same bytes left after it, for each value read
// whole and a byte at a time, with a document's text after it.
func TestJSONStreamSkip(t *testing.T) {
	for _, doc := range skipDocs() {
		for _, tail := range []string{"", "\n  , 1]", " \n\n}"} {
			data := []byte("\n  " + doc + tail)
			for _, oneByte := range []bool{false, true} {
				stream := func() *jsonStream {
					// Read in place (a bufio.Reader's buffer), whole or
					// a byte at a time through a buffer of 16 bytes
					// (values longer than it held in the stream's own).
					if oneByte {
						return newJSONStream(bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(data)), 16), 0)
					}
					return newJSONStream(bufio.NewReader(bytes.NewReader(data)), 0)
				}
				got, want := stream(), stream()
				gerr, werr := got.skip(), skipPlain(want)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("%q: error %v, want %v", data, gerr, werr)
				}
				if got.line != want.line {
					t.Fatalf("%q: line %d after it, want %d", data, got.line, want.line)
				}
				if werr != nil {
					continue
				}
				rest := func(s *jsonStream) string {
					var b strings.Builder
					for {
						c, ok := s.peek()
						if !ok {
							return b.String()
						}
						b.WriteByte(c)
						s.pos++
					}
				}
				if g, w := rest(got), rest(want); g != w {
					t.Fatalf("%q: %q left after it, want %q", data, g, w)
				}
			}
		}
	}
}
