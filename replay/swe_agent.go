package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// sweAgentReader reads a SWE-agent trajectory, <instance id>.traj, as
// SWE-agent writes it: one pretty-printed JSON object (json.dumps(data,
// indent=2)) holding "trajectory" (one element a step), "history" (the
// messages sent to the model), "info" (exit_status, submission, model
// stats), "replay_config" and "environment":
//
//	{
//	  "trajectory": [
//	    {
//	      "action": "str_replace_editor view /testbed/calc.py",
//	      "observation": "Here's the result of running `cat -n` ...",
//	      "response": "Let me look at calc.py.\n\n...",
//	      "thought": "Let me look at calc.py.",
//	      "execution_time": 0.18, "state": {...}, "query": [...], "extra_info": {}
//	    }, ...
//	  ],
//	  "history": [...], "info": {"exit_status": "submitted", ...}, ...
//	}
//
// Source: SWE-agent/SWE-agent, sweagent/agent/agents.py
// (DefaultAgent.get_trajectory_data and save_trajectory) at commit
// fede1f642d3098af1355e64edcdbda7a97dcb5f8, and sweagent/types.py
// (TrajectoryStep: action, observation, response, state, thought,
// execution_time, query, extra_info) at 05ff843f80d1b7e9a5a142ef3d54e0f5bdd2107a.
//
// Steps: each trajectory element is one action step, as SWE-agent's own
// loaders count them: its action (the command line the model chose,
// executed as written) and its observation as output. The thought is the
// model's reasoning, not part of the call: it is not compared. The
// document is read element by element as it streams in (the history and
// query copies are skipped token by token, never held), so a .traj of
// any size costs the largest step.
type sweAgentReader struct{ n int }

type sweAgentStep struct {
	Action      *string `json:"action"`
	Observation string  `json:"observation"`
}

func (s *sweAgentReader) record(map[string]any) ([]stepRecord, string) {
	return nil, "a SWE-agent trajectory read as records"
}

func (s *sweAgentReader) finish() []stepRecord { return nil }

// readDoc streams a .traj: add is called with each step and the line
// its element starts on; a problem that ends the reading is returned as
// a docError.
func (s *sweAgentReader) readDoc(r io.Reader, add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error {
	lc := &lineCounter{r: r}
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
			if err := skipJSONValue(dec, lc); err != nil {
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

func (s *sweAgentReader) step(raw json.RawMessage) ([]stepRecord, string) {
	var st sweAgentStep
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

// skipJSONValue reads past the next value token by token (holding none of
// it: the history of a long run is as big as its trajectory), letting lc
// drop what the decoder has read.
func skipJSONValue(dec *json.Decoder, lc *lineCounter) error {
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

// lineCounter numbers the lines of a stream at offsets a decoder reports,
// keeping only the bytes read past the last offset asked about.
type lineCounter struct {
	r      io.Reader
	kept   []byte // bytes from keptAt on
	keptAt int64
	lines  int // newlines before keptAt
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.kept = append(l.kept, p[:n]...)
	return n, err
}

// lineAt returns the line (from 1) of offset off; offsets asked about
// must not decrease.
func (l *lineCounter) lineAt(off int64) int {
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
// (which is before the separator and spaces that precede it).
func (l *lineCounter) valueLine(off int64) int {
	line := l.lineAt(off)
	for _, c := range l.kept {
		switch c {
		case '\n':
			line++
		case ' ', '\t', '\r', ',':
		default:
			return line
		}
	}
	return line
}
