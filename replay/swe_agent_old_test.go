package replay

// The SWE-agent reader as it was before it read a .traj with jsonStream:
// encoding/json's Decoder, token by token. Kept as the reference
// FuzzSWEAgentDoc compares the reader with.

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

type sweAgentReaderOld struct{ n int }

type sweAgentStepOld struct {
	Action      *string `json:"action"`
	Observation string  `json:"observation"`
}

func (s *sweAgentReaderOld) finish() []stepRecord { return nil }

// readDoc streams a .traj: add is called with each step and the line
// its element starts on; a problem that ends the reading is returned as
// a docError.
func (s *sweAgentReaderOld) readDoc(r io.Reader, add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error {
	lc := &lineCounterOld{r: r}
	dec := json.NewDecoder(lc)
	dec.UseNumber()
	bad := func(reason string) error {
		return &docError{line: lc.lineAt(dec.InputOffset()), reason: reason}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return bad("not a SWE-agent trajectory: not a JSON object")
	}
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return bad("not valid JSON: " + err.Error())
		}
		key, _ := t.(string)
		if key != "trajectory" {
			if err := skipJSONValueOld(dec, lc); err != nil {
				return bad("not valid JSON: " + err.Error())
			}
			continue
		}
		found = true
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return bad(`"trajectory" is not an array`)
		}
		for dec.More() {
			start := dec.InputOffset()
			var raw json.RawMessage
			line := lc.valueLine(start)
			if err := dec.Decode(&raw); err != nil {
				return &docError{line: line, reason: "invalid JSON in the trajectory: " + err.Error()}
			}
			recs, reason := s.step(raw)
			if reason != "" {
				if err := skip(line, reason); err != nil {
					return err
				}
				continue
			}
			if err := add(line, recs); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ']'
			return bad("invalid JSON after the trajectory: " + err.Error())
		}
	}
	if !found {
		return bad(`not a SWE-agent trajectory: no "trajectory" array`)
	}
	return nil
}

func (s *sweAgentReaderOld) step(raw json.RawMessage) ([]stepRecord, string) {
	var st sweAgentStepOld
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, "a trajectory step that is not an object of strings: " + err.Error()
	}
	if st.Action == nil {
		return nil, `a trajectory step without "action"`
	}
	s.n++
	action := strings.TrimSpace(*st.Action)
	r := stepRecord{n: s.n, hasStep: true, info: StepInfo{Kind: StepAction}, action: action, canonical: action, hasAction: true, output: st.Observation, hasText: true}
	return []stepRecord{r}, ""
}

// skipJSONValueOld reads past the next value token by token (holding none of
// it: the history of a long run is as big as its trajectory), letting lc
// drop what the decoder has read.
func skipJSONValueOld(dec *json.Decoder, lc *lineCounterOld) error {
	depth := 0
	for i := 1; ; i++ {
		if i%256 == 0 {
			lc.lineAt(dec.InputOffset())
		}
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// lineCounterOld numbers the lines of a stream at offsets a decoder reports,
// keeping only the bytes read past the last offset asked about.
type lineCounterOld struct {
	r      io.Reader
	kept   []byte // bytes from keptAt on
	keptAt int64
	lines  int    // newlines before keptAt
	ahead  []byte // bytes valueLine read past the decoder's, for its next Reads
}

func (l *lineCounterOld) Read(p []byte) (int, error) {
	if len(l.ahead) > 0 {
		n := copy(p, l.ahead)
		l.ahead = l.ahead[n:]
		return n, nil
	}
	n, err := l.r.Read(p)
	l.kept = append(l.kept, p[:n]...)
	return n, err
}

// lineAt returns the line (from 1) of offset off; offsets asked about
// must not decrease.
func (l *lineCounterOld) lineAt(off int64) int {
	k := int(off - l.keptAt)
	if k < 0 {
		k = 0
	}
	k = min(k, len(l.kept))
	l.lines += bytes.Count(l.kept[:k], []byte("\n"))
	l.kept = append(l.kept[:0], l.kept[k:]...)
	l.keptAt += int64(k)
	return l.lines + 1
}

// valueLine is the line of the value the decoder reads next from off
// (which is before the separator and spaces that precede it). Where the
// decoder's reads stop inside those spaces, it reads on (keeping the bytes
// for the decoder): a value after a newline it had not read yet is on the
// next line.
func (l *lineCounterOld) valueLine(off int64) int {
	line := l.lineAt(off)
	for i := 0; ; i++ {
		if i == len(l.kept) {
			var buf [512]byte
			n, _ := l.r.Read(buf[:])
			if n == 0 {
				return line
			}
			l.kept = append(l.kept, buf[:n]...)
			l.ahead = append(l.ahead, buf[:n]...)
		}
		switch l.kept[i] {
		case '\n':
			line++
		case ' ', '\t', '\r', ',':
		default:
			return line
		}
	}
}
