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

// errArray reports a whole-file document that cannot be read.
type docError struct {
	line   int
	reason string
}

func (e *docError) Error() string { return e.reason }

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
	return readDocumentIx(br, max, reuse, nil, fn, skip)
}

// readDocumentIx is readDocumentBuf; an array's element is indexed into
// ix, when not nil, by the pass that validates it (validValueIx), before
// fn is called with it.
func readDocumentIx(br *bufio.Reader, max int, reuse bool, ix *valueIndex, fn func(line int, raw []byte) error, skip func(line int, reason string) error) error {
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
		if err := d.element(ix, reuse, fn, skip); err != nil {
			return err
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

// element reads the array's element at the next byte (after skipSpace)
// and passes it to fn, or to skip when it is over max bytes: held
// (value), validated and indexed into ix; or, with ix and reuse, an
// object or array that lies whole in the reader's buffer and is valid,
// as it lies there (inPlace). An invalid element is a *docError.
func (d *docScanner) element(ix *valueIndex, reuse bool, fn func(line int, raw []byte) error, skip func(line int, reason string) error) error {
	if ix != nil && reuse && docInPlace {
		if raw, line, ok := d.inPlace(ix); ok {
			return fn(line, raw)
		}
	}
	raw, line, tooLong, err := d.value()
	if err != nil {
		return d.fail(err, line, "invalid JSON in the array")
	}
	switch {
	case tooLong:
		return skip(line, fmt.Sprintf("array element longer than %d bytes", d.max))
	case validValueIx(raw, 0, ix) != len(raw): // json.Valid, NaN and infinities read as null
		// The rest of the array cannot be delimited: keep what was read.
		return &docError{line: line, reason: "invalid JSON in the array: " + syntaxReason(raw)}
	}
	return fn(line, raw)
}

// docInPlace lets element read an element in place (inPlace): a
// variable, which TestDocInPlace turns off to read every element held.
var docInPlace = true

// inPlace validates and indexes into ix the object or array at the next
// byte as it lies in the reader's buffer, and returns it (consumed) with
// the line it starts on, when the whole of it is there, it is valid JSON
// and at most max bytes; else it consumes nothing (ok false). Its white
// space is as written, not made one space as value holds it: a valid
// element's white space lies between its tokens, which a reader walking
// it skips, so an element so read is read as held (for the reader that
// walks it with ix: openHandsReader.recordValueIx). Its lines are its
// newlines, all between tokens (a valid string holds none). A
// trajectory's element was copied token by token, white space made one,
// then validated: the copy was a quarter of the reading.
func (d *docScanner) inPlace(ix *valueIndex) (raw []byte, line int, ok bool) {
	chunk, _ := d.br.Peek(d.br.Buffered())
	if len(chunk) == 0 || chunk[0] != '{' && chunk[0] != '[' {
		return nil, 0, false // a scalar cut at the buffer's end may look whole
	}
	end, lines := validValueLines(chunk, ix)
	if end < 0 || end > d.max {
		return nil, 0, false // cut at the buffer's end, invalid, or too long as written
	}
	line = d.line
	d.line += lines
	d.consume(end)
	return chunk[:end], line, true
}

var newline = []byte{'\n'}

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
//
// What is held is the chunk's bytes with each such run made one space,
// so the bytes between two runs (tokens, strings whole, a single space
// after ':' or ',') are copied at once: a pretty-printed trajectory's
// line is one copy, where a copy a token cost as much as the reading.
// docscan_ref_test.go holds it to the token-wise reading (valueRef).
func (d *docScanner) value() (raw []byte, line int, tooLong bool, err error) {
	line = d.line
	v := docValue{max: d.max}
	if d.reuse {
		v.buf = d.spare[:0]
		defer func() { d.spare = v.buf[:0] }()
	}
	for {
		if _, err := d.br.Peek(1); err != nil {
			if err == io.EOF && v.scalar {
				break // a number or literal ends with the input
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, line, false, err
		}
		chunk, _ := d.br.Peek(d.br.Buffered())
		n, lines, done := v.scan(chunk)
		d.line += lines
		d.consume(n)
		if done {
			break
		}
	}
	if v.tooLong {
		return nil, line, true, nil
	}
	return v.buf, line, false, nil
}

// docValue is a value being delimited, chunk after chunk.
type docValue struct {
	buf                         []byte
	max                         int
	tooLong                     bool
	depth                       int
	started, scalar, inStr, esc bool
	inSpace                     bool // a run of white space is being read (its space held)
}

// hold appends b, and a space after it with space: once over max,
// nothing more is held (what is held only grows, so the value is
// tooLong whenever the whole of it is over max).
func (v *docValue) hold(b []byte, space bool) {
	n := len(b)
	if space {
		n++
	}
	if !v.tooLong && len(v.buf)+n <= v.max {
		v.buf = append(v.buf, b...)
		if space {
			v.buf = append(v.buf, ' ')
		}
		return
	}
	v.tooLong, v.buf = true, nil
}

// scan reads the value's bytes in chunk (not empty): how many are the
// value's, the raw newlines among them (a line each, for what follows;
// escaped ones are not), and whether the value ends there.
func (v *docValue) scan(chunk []byte) (n, lines int, done bool) {
	i, seg := 0, 0 // chunk[seg:i] is still to be held
	if !v.started {
		v.started = true
		switch chunk[0] {
		case '{', '[':
			v.depth = 1
		case '"':
			v.inStr = true
		default:
			v.scalar = true // its first byte is held even if a delimiter: the reason names it
		}
		i = 1
	}
	if v.scalar {
	scalar:
		for ; i < len(chunk); i++ {
			switch chunk[i] {
			case ',', ']', '}', '[', '{', '"', ' ', '\t', '\r', '\n':
				done = true
				break scalar
			}
		}
		v.hold(chunk[:i], false)
		return i, 0, done
	}
	if v.esc {
		v.esc = false
		i++
	}
	depth, inStr, inSpace := v.depth, v.inStr, v.inSpace
scan:
	for i < len(chunk) {
		if inStr {
			var l int
			i, inStr, v.esc, l = stringEnd(chunk, i)
			lines += l
			if !inStr && depth == 0 {
				done = true
				break scan
			}
			continue
		}
		switch c := chunk[i]; c {
		case ' ', '\t', '\r', '\n':
			if c == ' ' && !inSpace && i+1 < len(chunk) && !jsonSpace(chunk[i+1]) {
				i++ // one space, as held: it stays in the copy
				continue
			}
			if !inSpace {
				v.hold(chunk[seg:i], true)
				inSpace = true
			}
			for ; i < len(chunk) && jsonSpace(chunk[i]); i++ {
				if chunk[i] == '\n' {
					lines++
				}
			}
			seg = i
			continue
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				i++
				done = true
				break scan
			}
		}
		inSpace = false
		i++
	}
	v.depth, v.inStr, v.inSpace = depth, inStr, inSpace
	if i > seg {
		v.hold(chunk[seg:i], false)
	}
	return i, lines, done
}

func jsonSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// shortStops is how many stops (an escape, a control byte) stringEnd
// makes in a string before it searches for the closing quote alone:
// most strings (keys, names) end sooner, and a string of tool output
// escapes a newline a line.
const shortStops = 8

// stringEnd reads a string's bytes from b[i] (not an escaped byte) to
// its closing quote or b's end: the index after what it read, whether
// the string is still open, whether b ends in a backslash escaping the
// next byte, and the raw newlines read that no backslash escapes (a line
// each, for what follows; not JSON, but counted).
func stringEnd(b []byte, i int) (end int, open, esc bool, lines int) {
	for range shortStops {
		if i = special(b, i); i == len(b) {
			return i, true, false, lines
		}
		switch b[i] {
		case '"':
			return i + 1, false, false, lines
		case '\\':
			if i+1 == len(b) {
				return i + 1, true, true, lines
			}
			i++ // the escaped byte, a newline too
		case '\n':
			lines++
		}
		i++
	}
	// A long string (tool output): up to the closing quote at once, found
	// with a vectorised search for '"', escaped or not as the
	// backslashes before it say. b[from-1] escapes nothing.
	from, closed := i, false
	end = len(b)
	for k := i; k < len(b); {
		q := bytes.IndexByte(b[k:], '"')
		if q < 0 {
			break
		}
		if q += k; backslashesBefore(b, from, q)%2 == 0 {
			end, closed = q, true
			break
		}
		k = q + 1 // an escaped quote
	}
	for k := from; ; {
		n := bytes.IndexByte(b[k:end], '\n')
		if n < 0 {
			break
		}
		n += k
		if backslashesBefore(b, from, n)%2 == 0 {
			lines++
		}
		k = n + 1
	}
	if !closed {
		// An odd run of backslashes at the end escapes the next chunk's
		// first byte.
		return len(b), true, backslashesBefore(b, from, len(b))%2 == 1, lines
	}
	return end + 1, false, false, lines
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
