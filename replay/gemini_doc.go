package replay

// The Gemini CLI reader reads its input itself (docStepReader): a legacy
// session-*.json document is streamed, one message held at a time, where
// it was read whole and parsed into one tree (a 70 MB session took 580 MB:
// the document held, then every value of it parsed at once). JSONL and
// arrays are read as readSteps reads them.

import (
	"bufio"
	"bytes"
	"io"
	"math/bits"
)

func (g *geminiReader) readDoc(r io.Reader, add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	handle := func(line int, raw []byte) error {
		recs, reason := g.recordRaw(raw, line)
		if reason != "" {
			return skip(line, reason)
		}
		return add(line, recs)
	}
	switch first := peekFirstByte(br); {
	case first == '{' && !isJSONL(br):
		return g.readSession(br, add, skip)
	case first == '[':
		return readDocument(br, DefaultMaxLineBytes, handle, skip)
	}
	return readRecordLines(br, g.recordReleased, add, skip)
}

// readSession streams one session document: its messages are parsed and
// reduced one at a time; its other members (a few short ones) are parsed
// whole. It is then read as recordRaw reads a record (readRecord), as one
// record on the line it starts on.
func (g *geminiReader) readSession(br *bufio.Reader, add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error {
	js := newJSONStream(br, 0)
	js.peek()
	line := js.line
	if !js.expect('{') {
		return &docError{line: js.line, reason: "not a valid JSON document"}
	}
	top := &jsValue{kind: jsObject}
	var pending []geminiReduced
	// handing: the messages are handed over as they are read (a session
	// replayed as read, gemini_stream.go): past them, a member that could
	// change how they read, or any problem, has the file read again whole,
	// so js.line is not read again, nor kept (messageTop).
	handing := false
	bad := func(reason string) error {
		if handing {
			return errRereadWhole
		}
		return &docError{line: js.line, reason: reason}
	}
	for first := true; ; first = false {
		if js.expect('}') {
			break
		}
		if !first && !js.expect(',') {
			return bad("not a valid JSON document: ',' or '}' expected after a member")
		}
		key, err := js.key()
		if err != nil {
			return bad("not a valid JSON document: " + err.Error())
		}
		if handing && geminiSessionKeys[key] {
			return errRereadWhole
		}
		if c, _ := js.peek(); key == "messages" && c == '[' {
			js.pos++
			pending = []geminiReduced{}
			handing = g.speculate && geminiSessionSoFar(top)
			// sep: the comma after the first message, the white space
			// after it and the second message's brace, when 8 bytes or
			// fewer, as a word (sepMask its bytes): JSON.stringify
			// writes them alike between every two messages (",\n    {").
			var sep, sepMask uint64 = 1, 0
			for i := 0; ; i++ {
				// Handed over, a message's comma just after the one
				// before and the white space up to the next (its line
				// and indentation) are passed here, by one compare with
				// sep or eight spaces a word, the lines not counted
				// (messageTop), where three calls to peek went a byte
				// at a time; at the window's end, peek reads on.
				if p := js.pos; handing && i > 0 && p < len(js.buf) && js.buf[p] == ',' {
					b := js.buf
					if p+8 <= len(b) && word(b, p)&sepMask == sep {
						js.pos = p + bits.Len64(sepMask)/8 - 1 // at the brace
						goto message
					}
					if q := skipBlank(b, p+1); q < len(b) {
						if l := q + 1 - p; i == 1 && l <= 8 && b[q] == '{' && p+8 <= len(b) {
							sepMask = 1<<(8*l) - 1
							if l == 8 {
								sepMask = ^uint64(0)
							}
							sep = word(b, p) & sepMask
						}
						js.pos = q
						goto message
					}
				}
				if js.expect(']') {
					break
				}
				if i > 0 && !js.expect(',') {
					return bad("not a valid JSON document: ',' or ']' expected in the messages")
				}
			message:
				r, ok := g.messageTop(js, !handing)
				if !ok {
					raw, _, err := js.valueIx(&g.ix)
					if err != nil {
						return bad("not a valid JSON document: " + err.Error())
					}
					r = g.reduceRaw(&g.ix, raw) // validated and indexed by valueIx
				}
				if !handing {
					pending = append(pending, r)
					continue
				}
				if r.isID {
					g.addReduced(r.id, r, line)
				}
				if err := g.handOverRead(); err != nil {
					return err
				}
			}
			top.set(key, &jsValue{kind: jsArray}) // stands for pending
			continue
		}
		raw, _, err := js.value()
		if err != nil {
			return bad("not a valid JSON document: " + err.Error())
		}
		v, err := parseJS(raw)
		if err != nil {
			if handing {
				return errRereadWhole
			}
			return skip(line, err.Error())
		}
		if key == "messages" {
			pending = nil
		}
		top.set(key, v)
	}
	if !js.atEnd() {
		return bad("not a valid JSON document")
	}
	if len(g.msgs) == 0 && len(pending) > 0 {
		// The messages are kept by id, most of them once each: the table
		// is made to their number, not grown (and rehashed) to it.
		g.byID, g.msgs = make(map[string]int, len(pending)), make([]*geminiMsg, 0, len(pending))
	}
	recs, reason := g.readRecord(top, pending, line)
	if reason != "" {
		if handing {
			return errRereadWhole
		}
		return skip(line, reason)
	}
	return add(line, recs)
}

// messageTop reads the message at js's next value as valueIx and
// reduceRaw read it, its own members read as they are validated
// (topMembers, as recordTop reads a record's), when it is an object
// that js holds whole and topMembers reads, of fewer than geminiTopMax
// bytes; ok is false, and nothing read, for any other value, which
// valueIx reads. It counts the message's lines into js.line only with
// lines: readSession, handing its messages over as read, never reads
// js.line again (any problem past them reads the file again whole,
// errRereadWhole, and it took the document's line at its start), and
// the count was a pass over every message's bytes (countbody, ~1.3% of
// a session document's instructions).
func (g *geminiReader) messageTop(js *jsonStream, lines bool) (r geminiReduced, ok bool) {
	if c, ok := js.peek(); !ok || c != '{' {
		return r, false
	}
	window := js.buf[js.pos:]
	var f geminiFields
	end := g.topMembers(window, &f)
	if end < 0 || end >= geminiTopMax {
		return r, false
	}
	if lines {
		js.line += bytes.Count(window[:end], []byte{'\n'})
	}
	js.pos += end
	// Its fields as reduceRaw reads them (geminiMessageKeys), read as a
	// record's: a record's other fields that are objects or arrays
	// ("$set", "messages") are validated, at most one of them indexed
	// (topMembers), and not read.
	id, isID := g.unquoteCopy(f[1]) // held with the message, or by pending (readSession)
	return g.reduceFields(&g.ix, true, id, isID, f[6], f[7], f[8]), true
}
