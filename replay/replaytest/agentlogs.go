package replaytest

// Random agents' logs in their own shapes, for the tests that hold a
// replay made while a log is read to one made after (rules.ReadReplay).

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
)

// StepsLog writes a random steps log: repeated actions and outputs (so
// the loop rules fire), errors, exit codes, kinds, gaps, and a score
// from a step chosen by scoreFrom (-1: none; a late score makes
// progress_velocity apply only once it is read).
func StepsLog(rng *rand.Rand, steps, scoreFrom int) []byte {
	var b bytes.Buffer
	actions := []string{"run_tests", "edit auth.py", "ls", "cat main.go", `grep -n "x" *.go`}
	outputs := []string{"FAIL: test_login: expected 200, got 500", "ok", "Error: file not found", strings.Repeat("long output line\n", 40), "1 test failed\nFAIL: test_logout"}
	kinds := []string{"action", "action", "action", "message", "thinking"}
	n, score := 0, 0
	for range steps {
		n += 1 + rng.IntN(8)/7 // a gap now and then
		fmt.Fprintf(&b, `{"step": %d, "action": %q, "output": %q, "kind": %q`, n, actions[rng.IntN(len(actions))], outputs[rng.IntN(len(outputs))], kinds[rng.IntN(len(kinds))])
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, `, "error": true, "exit_code": %d`, 1+rng.IntN(2))
		}
		if scoreFrom >= 0 && n >= scoreFrom {
			if rng.IntN(10) == 0 {
				score++
			}
			fmt.Fprintf(&b, `, "score": %d`, score)
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, `, "location": "repo/%d"`, rng.IntN(3))
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// OpenHandsLog writes a random OpenHands V0 event log (event_to_dict's
// shape, as testdata/steps/openhands/events.jsonl): repeated commands
// and errors so the StuckDetector fires, and the events that come after
// a step's record and still belong to its step (a NullObservation the
// controller asks after, a user message, a state change), an action
// left without its observation now and then, hidden commands first.
func OpenHandsLog(rng *rand.Rand, events int) []byte {
	var b bytes.Buffer
	id := 0
	emit := func(format string, args ...any) {
		fmt.Fprintf(&b, `{"id": %d, "timestamp": "2025-11-10T09:00:00", `, id)
		fmt.Fprintf(&b, format, args...)
		b.WriteString("}\n")
		id++
	}
	commands := []string{"ls tests", "python -m pytest", "cat a.py"}
	// Hidden commands are steps without an event: a log may begin with
	// them, or hold nothing else (the replay then reads its steps).
	hidden := []int{0, 0, 5, events}[rng.IntN(4)]
	for id < events {
		if hidden > 0 {
			hidden--
			emit(`"source": "agent", "action": "run", "args": {"command": "ls", "hidden": true}`)
			emit(`"source": "agent", "cause": %d, "observation": "run", "content": "exit 1", "extras": {"command": "ls", "metadata": {"exit_code": 1}, "hidden": true}`, id-1)
			continue
		}
		switch rng.IntN(8) {
		case 0, 1, 2:
			cmd := commands[rng.IntN(len(commands))]
			emit(`"source": "agent", "action": "run", "args": {"command": %q, "is_input": false, "thought": "", "blocking": false, "hidden": false, "confirmation_state": "confirmed"}`, cmd)
			if rng.IntN(8) == 0 {
				continue // no observation: the next action flushes it
			}
			code := rng.IntN(2)
			emit(`"source": "agent", "cause": %d, "observation": "run", "content": "exit %d", "extras": {"command": %q, "metadata": {"exit_code": %d}, "hidden": false}`, id-1, code, cmd, code)
		case 3:
			emit(`"source": "agent", "cause": %d, "observation": "error", "content": "Error: the same failure", "extras": {}`, max(id-1, 0))
		case 4:
			emit(`"source": "environment", "cause": %d, "observation": "null", "content": "", "extras": {}`, max(id-1, 1))
		case 5:
			emit(`"source": "user", "action": "message", "args": {"content": "go on", "image_urls": null, "wait_for_response": false}`)
		case 6:
			emit(`"source": "agent", "action": "message", "args": {"content": "I am thinking", "image_urls": null, "wait_for_response": %v}`, rng.IntN(2) == 0)
		case 7:
			emit(`"source": "environment", "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "running"}`)
		}
	}
	return b.Bytes()
}

// V1Log writes a random OpenHands V1 event log (the software-agent-sdk's
// shape, as testdata/openhands/v1-stuck.jsonl): terminal calls, some
// in parallel in one response, answered by observations or agent errors
// (the V1 detector's repeats), agent and user messages, state updates,
// rejections and condensations, an action left unanswered now and then.
func V1Log(rng *rand.Rand, events int) []byte {
	var b bytes.Buffer
	id := 0
	emit := func(kind, source, format string, args ...any) {
		id++
		fmt.Fprintf(&b, `{"id":"ev-%d","timestamp":"2026-06-16T05:00:00","source":%q,`, id, source)
		fmt.Fprintf(&b, format, args...)
		fmt.Fprintf(&b, `,"kind":%q}`+"\n", kind)
	}
	// A command and an output of 64 bytes or more: a V1 key read whole
	// names such strings by their Syms (keyed).
	commands := []string{"ls", "python -m pytest", "python -m pytest tests/test_cache.py -x --maxfail=1 -q --tb=short --disable-warnings"}
	outputs := []string{"exit 0", "exit 1", strings.Repeat("FAILED tests/test_cache.py::test_expiry\n", 3)}
	resp, call := 0, 0
	for id < events {
		switch rng.IntN(9) {
		case 0, 1, 2, 3:
			resp++
			var calls []int
			for range 1 + rng.IntN(3)/2 { // a second call in the same response now and then
				call++
				calls = append(calls, call)
				cmd := commands[rng.IntN(len(commands))]
				emit("ActionEvent", "agent", `"thought":[{"type":"text","text":"again"}],"action":{"command":%q,"kind":"TerminalAction"},"tool_name":"terminal","tool_call_id":"call-%d","llm_response_id":"resp-%d"`, cmd, call, resp)
			}
			for _, c := range calls {
				switch rng.IntN(6) {
				case 0:
					continue // unanswered
				case 1:
					emit("AgentErrorEvent", "agent", `"tool_name":"terminal","tool_call_id":"call-%d","error":"Parameter 'x' is required."`, c)
				default:
					code := rng.IntN(2)
					emit("ObservationEvent", "environment", `"tool_name":"terminal","tool_call_id":"call-%d","observation":{"content":[{"type":"text","text":%q}],"is_error":false,"exit_code":%d,"kind":"TerminalObservation"}`, c, outputs[rng.IntN(len(outputs))], code)
				}
			}
		case 4:
			emit("MessageEvent", "agent", `"llm_message":{"role":"assistant","content":[{"type":"text","text":"I will try again"}]}`)
		case 5:
			emit("MessageEvent", "user", `"llm_message":{"role":"user","content":[{"type":"text","text":"go on"}]}`)
		case 6:
			emit("ConversationStateUpdateEvent", "environment", `"key":"execution_status","value":%q`, []string{"running", "idle", "stuck"}[rng.IntN(3)])
		case 7:
			emit("UserRejectObservation", "user", `"tool_name":"terminal","tool_call_id":"call-%d","action_id":"ev-%d","rejection_reason":"no"`, call, id)
		case 8:
			emit("Condensation", "environment", `"summary":"what happened so far","forgotten_event_ids":[]`)
		}
	}
	return b.Bytes()
}
