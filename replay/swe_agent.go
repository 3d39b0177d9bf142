package replay

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
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
type sweAgentReader struct {
	n int
	// ix indexes the element being read: its validating pass notes the
	// element's members, so step reads them without scanning the element
	// again (its "query" copies are most of it), and meets NaN and the
	// infinities, so no second search of it looks for them.
	ix valueIndex
	// A step's observation decoded (text), and the step handed to add:
	// the step table copies what it keeps of a step before the next
	// element is read.
	scratch []byte
	// actScratch is scratch for the action (textIn): the step table
	// interns the action (actionSym) and its canonical form before the
	// next element is read, as it copies the observation.
	actScratch []byte
	recs       [1]stepRecord
}

func (s *sweAgentReader) finish() []stepRecord { return nil }

// readDoc streams a .traj (jsonStream): add is called with each step and
// the line its element starts on; a problem that ends the reading is
// returned as a docError. Only "trajectory" is read; the other members
// are walked past one inner value at a time.
func (s *sweAgentReader) readDoc(r io.Reader, add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error {
	js := newJSONStream(r, 0)
	bad := func(reason string) error { return &docError{line: js.line, reason: reason} }
	if !js.expect('{') {
		return bad("not a SWE-agent trajectory: not a JSON object")
	}
	found, history := false, false
	for first := true; ; first = false {
		if js.expect('}') {
			break
		}
		if !first && !js.expect(',') {
			return bad("not valid JSON: ',' or '}' expected after an object member")
		}
		key, err := js.key()
		if err != nil {
			return bad("not valid JSON: " + err.Error())
		}
		if key != "trajectory" {
			history = history || key == "history"
			if err := js.skip(); err != nil {
				return bad("not valid JSON: " + err.Error())
			}
			continue
		}
		found = true
		if !js.expect('[') {
			return bad(`"trajectory" is not an array`)
		}
		for i := 0; ; i++ {
			if js.expect(']') {
				break
			}
			if i > 0 && !js.expect(',') {
				return bad("invalid JSON after the trajectory: ',' or ']' expected")
			}
			raw, line, err := js.valueIx(&s.ix)
			if err != nil {
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
	}
	if !found && history {
		return &docError{line: 1, reason: `not a SWE-agent trajectory: no "trajectory" array, only "history": a SWE-agent demonstration (the messages SWE-agent puts in a prompt as an example), not a run`}
	}
	if !found {
		return bad(`not a SWE-agent trajectory: no "trajectory" array`)
	}
	if !js.atEnd() {
		return bad("text after the trajectory's JSON object")
	}
	return nil
}

// isSWEAgentDemo says a JSON document is a SWE-agent demonstration, as
// SWE-agent keeps them in trajectories/demonstrations/ and loads them
// (DefaultAgent._append_demonstrations, sweagent/agent/agents.py, reads
// only its "history"): a pretty-printed object (json.dumps with indent,
// so not a JSONL record cut at the look's limit) whose first member is
// "history", a list of messages whose first opens with "role".
func isSWEAgentDemo(trimmed []byte) bool {
	rest, ok := bytes.CutPrefix(trimmed, []byte("{"))
	ws := func(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n") }
	if !ok || !bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r"), []byte("\n")) {
		return false
	}
	for _, tok := range []string{`"history"`, ":", "[", "{", `"role"`} {
		if rest, ok = bytes.CutPrefix(ws(rest), []byte(tok)); !ok {
			return false
		}
	}
	return true
}

// step reads a trajectory element: an object whose action is a string
// (observation a string or null); null is an element without action.
// raw is the element s.ix indexes.
func (s *sweAgentReader) step(raw []byte) ([]stepRecord, string) {
	v := rawValue(raw)
	var action, observation rawValue
	switch v.Kind() {
	case 'n':
	case '{':
		action, observation = s.fields(v)
	default:
		return nil, "a trajectory step that is not an object of strings"
	}
	obs, ok := s.text(observation)
	if k := action.Kind(); k != 0 && k != 'n' && k != '"' || !ok {
		return nil, "a trajectory step that is not an object of strings"
	}
	if action.Kind() != '"' {
		return nil, `a trajectory step without "action"`
	}
	s.n++
	act, _ := s.textIn(&s.actScratch, action) // not copied: Str allocated each step's action
	act = strings.TrimSpace(act)
	s.recs[0] = stepRecord{n: s.n, hasStep: true, info: StepInfo{Kind: StepAction}, action: act, canonical: act, hasAction: true, output: obs, hasText: true}
	return s.recs[:], ""
}

// sweStepKeys are the members fields reads of a step object.
var sweStepKeys = newJSKeys("action", "observation")

// fields returns the values of the step object v's "action" and
// "observation" members (the last of each, as members reads them; nil
// when absent), by jsFields: from the members the pass noted, a key
// compared as written unless it holds an escape, where a call of
// members' func a member was a third of a step's reading. The names are
// ASCII, so JavaScript's reading of a key (jsFields') and members' agree
// on which keys spell them.
func (s *sweAgentReader) fields(v rawValue) (action, observation rawValue) {
	var f [2]rawValue
	jsFields(&s.ix, v, sweStepKeys, f[:])
	return f[0], f[1]
}

// text is rawString(v) not copied: a view of the element, or of the
// reader's scratch when the string holds an escape (an observation's
// lines are \n-escaped: a string allocated and cleared for each step
// was a tenth of the read). Valid until the next call.
func (s *sweAgentReader) text(v rawValue) (string, bool) {
	return s.textIn(&s.scratch, v)
}

// textIn is text unescaping into *scratch.
func (s *sweAgentReader) textIn(scratch *[]byte, v rawValue) (string, bool) {
	if v.Kind() != '"' {
		return rawString(v)
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return bytesString(body), true
	}
	// A body with an escape (not first read for UTF-8), or not UTF-8:
	// the unescaping stops at a byte over 0x7f and decodes its run there
	// (valid false), as it writes a valid body's.
	*scratch = appendUnescaped((*scratch)[:0], body, false)
	return bytesString(*scratch), true
}
