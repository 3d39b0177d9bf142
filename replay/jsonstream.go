package replay

// Reading one JSON document as a stream of values, for the agents that
// write a session as one document (a SWE-agent .traj, a Gemini CLI
// session-*.json): the reader walks the document's outer structure token
// by token and holds one inner value at a time (a step, a message),
// validated by validValue (the ZorkGPT path's pass) and then read in
// place, so a document costs its largest value, not its size, and is read
// in linear time (a value cut by the end of the window is read again
// once, in a window at least twice as large).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// jsonStream reads values from r, counting lines.
type jsonStream struct {
	r    io.Reader
	buf  []byte // buf[pos:] not yet consumed
	pos  int
	eof  bool
	err  error // a read error other than io.EOF
	line int   // the line of buf[pos]
	max  int   // the largest value held

	// br is r when it is a *bufio.Reader (the read's own, which every
	// reader of a document is given), and inBR says buf is br's buffered
	// bytes, read where they lie (fillInPlace), not a copy of them.
	br   *bufio.Reader
	inBR bool
	own  []byte // buf's array when held: a value longer than br's buffer
}

var errStreamEOF = errors.New("unexpected end of the document")

// streamInPlace lets a jsonStream read its bufio.Reader's buffer in
// place (fillInPlace): a variable, which TestJSONStreamInPlace turns off
// to read every byte through a buffer of the stream's own.
var streamInPlace = true

func newJSONStream(r io.Reader, max int) *jsonStream {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	if br, ok := r.(*bufio.Reader); ok && streamInPlace {
		return &jsonStream{r: r, line: 1, max: max, br: br, inBR: true}
	}
	return &jsonStream{r: r, line: 1, max: max, buf: make([]byte, 0, 64<<10)}
}

// fill reads more input, keeping buf[pos:]; it makes room for at least
// want more bytes. It reports false at the end of the input.
func (s *jsonStream) fill(want int) bool {
	if s.eof {
		return false
	}
	if s.br != nil {
		if s.inBR || s.pos == len(s.buf) {
			return s.fillInPlace(want)
		}
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.buf, s.pos = s.buf[:n], 0
	}
	if cap(s.buf)-len(s.buf) < want {
		nb := make([]byte, len(s.buf), 2*cap(s.buf)+want)
		copy(nb, s.buf)
		s.buf = nb
	}
	got := 0
	for {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		got += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			return got > 0
		}
		// Short reads (a pipe, a decompressor) are gathered up to what was
		// asked for, so a value is retried O(log size) times, not per read.
		if got > 0 && (got >= want || len(s.buf) == cap(s.buf)) {
			return true
		}
	}
}

// fillInPlace is fill over br's buffer: buf is the bytes br holds,
// buf[:pos] consumed but not yet discarded from br, so that a document
// is read where the read put it, not copied again into a buffer of the
// stream's own (bufio.Reader.Read copies): the Gemini CLI session
// documents, Cline's tasks and SWE-agent's trajectories were each
// copied whole once more, and a value was cut (and validated again from
// its start) at every fill of the stream's buffer, 64 KiB at first,
// where br holds 1 MiB. A value longer than br's buffer is gathered in
// a buffer of the stream's own (fill), until that is consumed.
func (s *jsonStream) fillInPlace(want int) bool {
	br := s.br
	if s.inBR {
		_, _ = br.Discard(s.pos) // never short: buf is what br buffered
	} else {
		s.own = s.buf[:0] // the held value consumed: its buffer kept, as grown
	}
	kept := len(s.buf) - s.pos
	if kept >= br.Size() {
		// A value longer than br's buffer: held from here on.
		s.own = append(s.own[:0], s.buf[s.pos:]...)
		_, _ = br.Discard(kept)
		s.buf, s.pos, s.inBR = s.own, 0, false
		return s.fill(want)
	}
	s.pos, s.inBR = 0, true
	// Peek reads until it has what is asked or br is full (a read error
	// ends it), gathering short reads as fill does.
	_, err := br.Peek(min(kept+max(want, 1), br.Size()))
	s.buf, _ = br.Peek(br.Buffered())
	if err != nil && err != bufio.ErrBufferFull {
		s.eof = true
		if err != io.EOF {
			s.err = err
		}
	}
	return len(s.buf) > kept
}

// peek skips JSON white space (counting lines) and returns the next byte,
// not consumed; ok is false at the end of the input. A byte that is not
// blank (over ' ') is told here, inline; white space goes to peekBlank.
func (s *jsonStream) peek() (byte, bool) {
	if s.pos < len(s.buf) {
		if c := s.buf[s.pos]; c > ' ' {
			return c, true
		}
	}
	return s.peekBlank()
}

// peekBlank is peek past white space: the buffer and the position held
// in locals, where the loop read and wrote s.pos and s.line at each byte,
// and a newline's indentation passed eight spaces a word, where each
// space went through the loop (a pretty-printed document's, such as a
// SWE-agent .traj's, between every two of the values read).
func (s *jsonStream) peekBlank() (byte, bool) {
	for {
		buf, i, line := s.buf, s.pos, s.line
		for i < len(buf) {
			switch c := buf[i]; c {
			case '\n':
				line++
				// The spaces after it: i is left on the last of them.
				for i+9 <= len(buf) {
					if y := word(buf, i+1) ^ spaces; y != 0 {
						i += bits.TrailingZeros64(y) / 8
						break
					}
					i += 8
				}
			case ' ', '\t', '\r':
			default:
				s.pos, s.line = i, line
				return c, true
			}
			i++
		}
		s.pos, s.line = i, line
		if !s.fill(0) {
			return 0, false
		}
	}
}

// expect consumes the next byte (after white space) if it is c.
func (s *jsonStream) expect(c byte) bool {
	if b, ok := s.peek(); ok && b == c {
		s.pos++
		return true
	}
	return false
}

// value reads the next value whole (after white space) and returns it
// with the line it starts on; its bytes are valid until the next call.
// A value longer than max, invalid (NaN and the infinities included, as
// encoding/json and JSON.parse refuse them), or cut by the end is an
// error.
func (s *jsonStream) value() (raw []byte, line int, err error) {
	return s.valueIx(nil)
}

// valueIx is value that also indexes the value in ix when not nil
// (validValueIx), for a reader that walks it level by level.
func (s *jsonStream) valueIx(ix *valueIndex) (raw []byte, line int, err error) {
	if _, ok := s.peek(); !ok {
		return nil, s.line, errStreamEOF
	}
	line = s.line
	for {
		window := s.buf[s.pos:]
		end, lines, nonFinite := validValueLinesNF(window, ix)
		// A value that reaches the end of the window may go on past it
		// (a number, or an invalid value cut short): read more, unless
		// the input has ended.
		if end > 0 && end < len(window) && !scalarEnd(window, end) {
			end = -1 // a number or literal runs on ("00", "truex"): invalid
		}
		if end > 0 && (end < len(window) || s.eof) {
			raw = window[:end]
			// The walk that validated raw met its NaN and infinities, if
			// any (valueIndex.nonFinite, validValueWalk): no second search
			// of it.
			if nonFinite {
				return nil, line, fmt.Errorf("invalid JSON: NaN or Infinity")
			}
			s.line += lines
			s.pos += end
			return raw, line, nil
		}
		if s.eof || end < 0 && delimited(window) {
			if s.err != nil {
				return nil, line, s.err
			}
			return nil, line, fmt.Errorf("invalid JSON")
		}
		if len(window) > s.max {
			return nil, line, fmt.Errorf("a value longer than %d bytes", s.max)
		}
		s.fill(len(window) + 64<<10)
	}
}

// skip reads past the next value holding one of its inner values at a
// time: an array's elements, an object's members, each read whole and
// validated (so nesting is bounded as validValue bounds it, from there).
func (s *jsonStream) skip() error {
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

// key reads an object key and the ':' after it; ok is false when the
// next token is not a string.
func (s *jsonStream) key() (string, error) {
	if k, ok := s.peek(); !ok || k != '"' {
		return "", fmt.Errorf("invalid JSON: an object key expected")
	}
	raw, _, err := s.value()
	if err != nil {
		return "", err
	}
	key, _ := rawValue(raw).Str()
	if !s.expect(':') {
		return "", fmt.Errorf("invalid JSON: ':' expected")
	}
	return key, nil
}

// atEnd says only white space is left.
func (s *jsonStream) atEnd() bool {
	_, ok := s.peek()
	return !ok
}

// delimited says the value at the start of window ends inside it, as far
// as its brackets and quotes tell: invalid then is invalid, not cut short.
func delimited(window []byte) bool {
	switch window[0] {
	case '{', '[':
		_, closed := SkipComposite(window, 0)
		return closed
	case '"':
		return closingQuote(window, 1) >= 0
	}
	return bytes.ContainsAny(window, ",]} \t\r\n")
}

// scalarEnd says a value ending at window[end] ends where a scalar must:
// at a delimiter (containers and strings end at their closing byte).
func scalarEnd(window []byte, end int) bool {
	switch window[0] {
	case '{', '[', '"':
		return true
	}
	switch window[end] {
	case ',', ']', '}', '[', '{', '"', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}
