package replay

// A steps file's records: JSONL lines or one JSON document, with line numbers.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// recordSource yields a file's JSON records with the line each starts on.
// A JSONL file is one record a line; a file whose first byte is '[' is one
// JSON array (an OpenHands trajectory); a file holding a single object
// with a "messages" array is a Gemini CLI session (expanded by the preset).
type recordSource struct {
	br   *bufio.Reader
	max  int
	line int
	// reuse says the caller is done with a line before it asks for the
	// next: a line is then read in place in br's buffer when it fits,
	// else into a buffer kept from line to line, not copied afresh.
	reuse bool
	spare []byte
}

// errArray reports a whole-file document that cannot be read.
type docError struct {
	line   int
	reason string
}

func (e *docError) Error() string { return e.reason }

// nextLine returns the next non-blank line (nil at the end) and its number;
// tooLong is set for a line over max bytes, its leading white space not
// counted (skipped, not held).
func (s *recordSource) nextLine() (line []byte, lineNo int, tooLong bool, err error) {
	for {
		var buf []byte
		n := 0
		for {
			chunk, e := s.br.ReadSlice('\n')
			if len(buf) == 0 && !tooLong {
				// Leading white space is neither held nor counted: a line
				// of padding costs nothing, as between a document's tokens.
				if len(chunk) > 0 && (chunk[0] == ' ' || chunk[0] == '\t' || chunk[0] == '\r') {
					chunk = bytes.TrimLeft(chunk, " \t\r") // not called a line: it builds its byte set each time
				}
			}
			n += len(chunk)
			if n <= s.max+2 {
				switch {
				case s.reuse && len(buf) == 0 && e != bufio.ErrBufferFull:
					buf = chunk // the whole line, in place
				case s.reuse:
					buf = append(s.spare[:len(buf)], chunk...)
					s.spare = buf
				default:
					buf = append(buf, chunk...)
				}
			} else {
				tooLong = true
				buf = nil
			}
			if e == bufio.ErrBufferFull {
				continue
			}
			err = e
			break
		}
		if n == 0 && err != nil {
			return nil, s.line, false, err
		}
		s.line++
		if tooLong {
			return nil, s.line, true, err
		}
		line = bytes.TrimSpace(buf)
		if len(line) == 0 {
			if err != nil {
				return nil, s.line, false, err
			}
			continue
		}
		return line, s.line, false, err
	}
}

// readDocument reads a whole-file JSON value as a stream: each element
// of an array (an OpenHands trajectory), or the one object (a Gemini CLI
// session), is passed to fn with the line it starts on, one at a time, so
// a trajectory costs its largest element, not its size. An element over
// max bytes is scanned past without being held and passed to skip;
// white space between tokens is not held (a run of it is one space), so
// padding costs nothing wherever it is. The structure's problems (not an
// array, invalid JSON in an element, the array not closed, text after it)
// are a *docError; the elements before it have been passed on.
func readDocument(br *bufio.Reader, max int, fn func(line int, raw []byte) error, skip func(line int, reason string) error) error {
	return readDocumentBuf(br, max, false, fn, skip)
}

// readDocumentBuf is readDocument; reuse says fn keeps nothing of an
// element: each is then held in one buffer kept from element to element.
func readDocumentBuf(br *bufio.Reader, max int, reuse bool, fn func(line int, raw []byte) error, skip func(line int, reason string) error) error {
	d := &docScanner{br: br, max: max, line: 1, reuse: reuse}
	first, err := d.skipSpace()
	if err != nil {
		return d.fail(err, d.line, "not a JSON array")
	}
	if first == '{' { // one whole object: the element is the document
		raw, line, tooLong, err := d.value()
		if err != nil {
			return d.fail(err, line, "not a valid JSON document")
		}
		if tooLong {
			return &docError{line: line, reason: fmt.Sprintf("a JSON document longer than %d bytes", max)}
		}
		if _, err := d.skipSpace(); err != io.EOF || validValue(raw, 0) != len(raw) {
			if err != nil && err != io.EOF {
				return err
			}
			return &docError{line: 1, reason: "not a valid JSON document"}
		}
		return fn(line, raw)
	}
	if first != '[' {
		return &docError{line: d.line, reason: "not a JSON array: " + syntaxReason([]byte{first})}
	}
	d.consume(1)
	for n := 0; ; n++ {
		c, err := d.skipSpace()
		if err != nil {
			return d.fail(err, d.line, "the JSON array is not closed")
		}
		if c == ']' && n == 0 {
			d.consume(1)
			break
		}
		raw, line, tooLong, err := d.value()
		if err != nil {
			return d.fail(err, line, "invalid JSON in the array")
		}
		switch {
		case tooLong:
			if err := skip(line, fmt.Sprintf("array element longer than %d bytes", max)); err != nil {
				return err
			}
		case validValue(raw, 0) != len(raw): // json.Valid, NaN and infinities read as null
			// The rest of the array cannot be delimited: keep what was read.
			return &docError{line: line, reason: "invalid JSON in the array: " + syntaxReason(raw)}
		default:
			if err := fn(line, raw); err != nil {
				return err
			}
		}
		c, err = d.skipSpace()
		if err != nil {
			return d.fail(err, d.line, "the JSON array is not closed")
		}
		d.consume(1)
		if c == ']' {
			break
		}
		if c != ',' {
			return &docError{line: d.line, reason: fmt.Sprintf("invalid JSON in the array: invalid character %s after array element", quoteChar(c))}
		}
	}
	// The array's closing ']', then nothing but spaces: garbage after it
	// (a second document, a log line appended) is a problem, not ignored.
	if _, err := d.skipSpace(); err != io.EOF {
		if err != nil {
			return err
		}
		return &docError{line: d.line, reason: "text after the JSON array's closing ]"}
	}
	return nil
}

var oneSpace = []byte{' '}

// docScanner delimits JSON values in a stream, counting lines.
type docScanner struct {
	br    *bufio.Reader
	max   int
	line  int // the line of the next byte
	reuse bool
	spare []byte
}

// fail turns the end of the input into a docError with reason (a read
// error stays an error of the file).
func (d *docScanner) fail(err error, line int, reason string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &docError{line: line, reason: reason + ": unexpected EOF"}
	}
	return err
}

func (d *docScanner) consume(n int) { _, _ = d.br.Discard(n) }

// skipSpace consumes JSON white space and returns the next byte, not
// consumed (io.EOF at the end).
func (d *docScanner) skipSpace() (byte, error) {
	for {
		if _, err := d.br.Peek(1); err != nil {
			return 0, err
		}
		chunk, _ := d.br.Peek(d.br.Buffered())
		for i, c := range chunk {
			switch c {
			case '\n':
				d.line++
			case ' ', '\t', '\r':
			default:
				d.consume(i)
				return c, nil
			}
		}
		d.consume(len(chunk))
	}
}

// value reads the JSON value at the next byte (after skipSpace): an
// object or array to its matching bracket, a string to its closing quote,
// anything else to the next delimiter. It is delimited, not validated. A
// run of white space between tokens is held as one space; a value over
// max bytes so held is read to its end and returned as tooLong.
func (d *docScanner) value() (raw []byte, line int, tooLong bool, err error) {
	line = d.line
	var buf []byte
	if d.reuse {
		buf = d.spare[:0]
		defer func() { d.spare = buf[:0] }()
	}
	hold := func(b []byte) {
		if !tooLong && len(buf)+len(b) <= d.max {
			buf = append(buf, b...)
			return
		}
		tooLong, buf = true, nil
	}
	depth, inStr, esc, space, scalar, started := 0, false, false, false, false, false
	for {
		if _, err := d.br.Peek(1); err != nil {
			if err == io.EOF && scalar {
				break // a number or literal ends with the input
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, line, false, err
		}
		chunk, _ := d.br.Peek(d.br.Buffered())
		i, done := 0, false
	scan:
		for i < len(chunk) {
			c := chunk[i]
			switch {
			case !started:
				started = true
				switch c {
				case '{', '[':
					depth = 1
				case '"':
					inStr = true
				default:
					scalar = true // its first byte is held even if a delimiter: the reason names it
				}
				hold(chunk[i : i+1])
				i++
			case inStr:
				if esc {
					esc = false
					hold(chunk[i : i+1])
					i++
					continue
				}
				// Copy up to the closing quote, or the chunk's end, at
				// once: found with a vectorised search for '"', escaped
				// or not as the backslashes before it say, where a
				// string of tool output stopped at every escape.
				end, closed := len(chunk), false
				for k := i; k < len(chunk); {
					q := bytes.IndexByte(chunk[k:], '"')
					if q < 0 {
						break
					}
					if q += k; backslashesBefore(chunk, i, q)%2 == 0 {
						end, closed = q, true
						break
					}
					k = q + 1 // an escaped quote
				}
				// A raw newline (not JSON, but the lines of what follows
				// count it) is a line, unless a backslash escapes it.
				for {
					n := bytes.IndexByte(chunk[i:end], '\n')
					if n < 0 {
						break
					}
					n += i
					if backslashesBefore(chunk, i, n)%2 == 0 {
						d.line++
					}
					hold(chunk[i : n+1])
					i = n + 1
				}
				if !closed {
					hold(chunk[i:])
					// An odd run of backslashes at the end escapes the
					// next chunk's first byte.
					esc = backslashesBefore(chunk, i, len(chunk))%2 == 1
					i = len(chunk)
					continue
				}
				hold(chunk[i : end+1])
				i, inStr = end+1, false
				if depth == 0 {
					done = true
					break scan
				}
			case scalar:
				switch c {
				case ',', ']', '}', '[', '{', '"', ' ', '\t', '\r', '\n':
					done = true
					break scan
				}
				hold(chunk[i : i+1])
				i++
			default:
				start := i
				i++
				switch c {
				case ' ', '\t', '\r', '\n':
					if c == '\n' {
						d.line++
					}
					space = true
					for i < len(chunk) && chunk[i] == ' ' {
						i++ // a pretty-printed document's indentation
					}
					continue
				case '"':
					inStr = true
				case '{', '[':
					depth++
				case '}', ']':
					depth--
				default:
					// A run of other bytes (a number, a literal, ':' and
					// ',') is held at once.
				run:
					for i < len(chunk) {
						switch chunk[i] {
						case ' ', '\t', '\r', '\n', '"', '{', '[', '}', ']':
							break run
						}
						i++
					}
				}
				if space {
					hold(oneSpace)
					space = false
				}
				hold(chunk[start:i])
				if depth == 0 {
					done = true
					break scan
				}
			}
		}
		d.consume(i)
		if done {
			break
		}
	}
	if tooLong {
		return nil, line, true, nil
	}
	return buf, line, false, nil
}

// syntaxReason is encoding/json's word on why raw is not JSON.
func syntaxReason(raw []byte) string {
	var v json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil {
		return err.Error()
	}
	return "not JSON"
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(c))
	return "'" + s[1:len(s)-1] + "'"
}

func peekFirstByte(br *bufio.Reader) byte {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) < n || err != nil {
			return 0
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			if n >= 4096 {
				return 0
			}
			continue
		default:
			return c
		}
	}
}

// isJSONL says the buffered start of the input holds a complete object on
// its first line followed by more: JSONL rather than one pretty-printed
// document.
func isJSONL(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Size())
	b = bytes.TrimLeft(b, " \t\r\n")
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return false
	}
	return json.Valid(b[:i]) && len(bytes.TrimSpace(b[i:])) > 0
}
