package replay

// A steps file's records: JSONL lines or one JSON document, with line numbers.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// recordSource yields a file's JSON records with the line each starts on.
// A JSONL file is one record a line; a file whose first byte is '[' is one
// JSON array (an OpenHands trajectory); a file holding a single object
// with a "messages" array is a Gemini CLI session (expanded by the preset).
type recordSource struct {
	br   *bufio.Reader
	max  int
	line int
}

type arrayRecord struct {
	line int
	raw  json.RawMessage
}

// errArray reports a whole-file document that cannot be read.
type docError struct {
	line   int
	reason string
}

func (e *docError) Error() string { return e.reason }

// nextLine returns the next non-blank line (nil at the end) and its number;
// tooLong is set for a line over max bytes (skipped, not held).
func (s *recordSource) nextLine() (line []byte, lineNo int, tooLong bool, err error) {
	for {
		var buf []byte
		n := 0
		for {
			chunk, e := s.br.ReadSlice('\n')
			n += len(chunk)
			if n <= s.max+2 {
				buf = append(buf, chunk...)
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

// readDocument reads a whole-file JSON value: an array of records, or an
// object (a Gemini CLI session), with the line each element starts on.
func readDocument(r io.Reader, max int) ([]arrayRecord, json.RawMessage, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > max {
		return nil, nil, &docError{line: 1, reason: fmt.Sprintf("a JSON document longer than %d bytes", max)}
	}
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if !json.Valid(trimmed) {
			return nil, nil, &docError{line: 1, reason: "not a valid JSON document"}
		}
		return nil, trimmed, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '['
		return nil, nil, &docError{line: 1, reason: "not a JSON array: " + err.Error()}
	}
	var out []arrayRecord
	for dec.More() {
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			// The rest of the array cannot be delimited: keep what was read.
			return out, nil, &docError{line: lineAt(start), reason: "invalid JSON in the array: " + err.Error()}
		}
		// InputOffset points before the separator and spaces: skip them.
		at := start
		for at < int64(len(data)) && (data[at] == ',' || data[at] == ' ' || data[at] == '\n' || data[at] == '\r' || data[at] == '\t') {
			at++
		}
		out = append(out, arrayRecord{line: lineAt(at), raw: raw})
	}
	// The array's closing ']', then nothing but spaces: garbage after it
	// (a second document, a log line appended) is a problem, not ignored.
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		reason := "the JSON array is not closed"
		if err != nil {
			reason = "invalid JSON in the array: " + err.Error()
		}
		return out, nil, &docError{line: lineAt(dec.InputOffset()), reason: reason}
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		at := int64(len(data) - len(rest))
		return out, nil, &docError{line: lineAt(at), reason: "text after the JSON array's closing ]"}
	}
	return out, nil, nil
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
