package replay

// A Cline or Roo Code api_conversation_history.json streamed: the array's
// elements held one at a time by jsonStream and validated once (readDocument
// delimited each, checked it with json.Valid, and the reader validated it
// again). The reasons for a broken array are readDocument's.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

func (c *clineReader) readDoc(r io.Reader, add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if peekFirstByte(br) != '[' {
		return readRecordLines(br, c.recordRaw, add, skip) // a task's messages one a line
	}
	js := newJSONStream(br, 0)
	js.expect('[')
	invalid := func(line int) error {
		// A string, object or array the input ends in is cut short
		// (readDocument delimits them before it validates); a scalar is
		// read to its end, which the input's end is.
		reason := "unexpected EOF"
		w := js.buf[js.pos:]
		switch {
		case len(w) == 0:
		case w[0] != '"' && w[0] != '{' && w[0] != '[':
			if i := bytes.IndexAny(w[1:], ",]}[{\" \t\r\n"); i >= 0 {
				w = w[:i+1] // the scalar, as readDocument delimits it
			}
			reason = syntaxReason(w)
		case !js.eof || delimited(w):
			reason = syntaxReason(w)
		}
		return &docError{line: line, reason: "invalid JSON in the array: " + reason}
	}
	for n := 0; ; n++ {
		ch, ok := js.peek()
		if !ok {
			return &docError{line: js.line, reason: "the JSON array is not closed: unexpected EOF"}
		}
		if ch == ']' && n == 0 {
			js.pos++
			break
		}
		raw, line, err := js.valueIx(&c.ix) // validated and indexed in one pass
		if err != nil {
			if js.err != nil {
				return js.err
			}
			return invalid(line)
		}
		recs, reason := c.element(raw)
		if reason != "" {
			if err := skip(line, reason); err != nil {
				return err
			}
		} else if err := add(line, recs); err != nil {
			return err
		}
		ch, ok = js.peek()
		if !ok {
			return &docError{line: js.line, reason: "the JSON array is not closed: unexpected EOF"}
		}
		js.pos++
		if ch == ']' {
			break
		}
		if ch != ',' {
			return &docError{line: js.line, reason: fmt.Sprintf("invalid JSON in the array: invalid character %s after array element", quoteChar(ch))}
		}
	}
	if !js.atEnd() {
		return &docError{line: js.line, reason: "text after the JSON array's closing ]"}
	}
	return nil
}

// element reads an array element validated and indexed (c.ix) by
// jsonStream, as recordRaw reads it.
func (c *clineReader) element(raw []byte) ([]stepRecord, string) {
	switch {
	case bytes.Equal(raw, []byte("null")):
		raw = []byte("{}")
	case raw[0] != '{':
		return nil, errRecordNotObject.Error()
	}
	c.cur = &c.ix
	return c.message(rawValue(raw))
}

// readRecordLines reads records one a line, as readSteps does.
func readRecordLines(br *bufio.Reader, record func(raw []byte, line int) ([]stepRecord, string), add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error {
	// The Cline and Gemini CLI readers keep nothing of a line (strings are
	// copied out; Cline's array elements come from jsonStream's buffer,
	// overwritten as it reads on): lines are read in place.
	src := recordSource{br: br, max: DefaultMaxLineBytes, reuse: true}
	for {
		line, lineNo, tooLong, err := src.nextLine()
		if tooLong {
			if perr := skip(lineNo, fmt.Sprintf("line longer than %d bytes", DefaultMaxLineBytes)); perr != nil {
				return perr
			}
		} else if line != nil {
			recs, reason := record(line, lineNo)
			var perr error
			if reason != "" {
				perr = skip(lineNo, reason)
			} else {
				perr = add(lineNo, recs)
			}
			if perr != nil {
				return perr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", lineNo+1, err)
		}
	}
}
