package replaytest

// Random agents' logs in their own shapes, for the tests that hold a
// replay made while a log is read to one made after (rules.ReadReplay).

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
func V1Log(rng *rand.Rand, events int) []byte { return v1Log(rng, events, false) }

// V1LogDistinct is V1Log whose commands are all distinct (each names its
// call), as an agent's calls with their arguments nearly all are.
func V1LogDistinct(rng *rand.Rand, events int) []byte { return v1Log(rng, events, true) }

func v1Log(rng *rand.Rand, events int, distinct bool) []byte {
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
				if distinct {
					cmd = fmt.Sprintf("%s tests/test_%d.py", cmd, call)
				}
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

// GeminiLog writes a random Gemini CLI chat recording (session-*.jsonl,
// as testdata/steps/gemini-cli/session-2025-11-12T14-00-3f0c9a7e.jsonl):
// prompts, model messages written again as their tool calls complete,
// tool results, repeated calls and text (the CLI's detector fires),
// recovery prompts, "$set" metadata and resumes, "$rewindTo" the latest
// messages, and, with rewrites, a message written again or rewound far
// back now and then (the reader then takes back a message it may have
// handed over); with edge, one rewind some 6-10 messages back followed by
// a recovery prompt instead, about as far back as a reader replaying as it
// reads holds (replay's geminiWindow), so the prompt may follow a message
// it has handed over.
func GeminiLog(rng *rand.Rand, records int, rewrites, edge, replace bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"sessionId":"s-1","projectHash":"p","startTime":"2025-11-12T14:00:00.000Z","lastUpdated":"2025-11-12T14:00:00.000Z","kind":"main"}` + "\n")
	n, ids, edged := 0, []string{}, false
	msg := func(id, typ, rest string) {
		fmt.Fprintf(&b, `{"id":%q,"timestamp":"2025-11-12T14:00:00.000Z","type":%q,%s}`+"\n", id, typ, rest)
	}
	commands := []string{"make", "go test ./...", "ls"}
	outputs := []string{"main.go:12: undefined: cfg", "ok", "FAIL\nexit status 1"}
	for written := 0; written < records; written++ {
		n++
		switch r := rng.IntN(20); {
		case r < 4:
			id := fmt.Sprint("u", n)
			msg(id, "user", `"content":[{"text":"go on"}]`)
			ids = append(ids, id)
		case r < 14:
			id := fmt.Sprint("g", n)
			text := []string{"I'll run the build.", "Let me try again.", ""}[rng.IntN(3)]
			msg(id, "gemini", fmt.Sprintf(`"content":%q`, text))
			ids = append(ids, id)
			if rng.IntN(3) > 0 {
				cmd, out := commands[rng.IntN(len(commands))], outputs[rng.IntN(len(outputs))]
				msg(id, "gemini", fmt.Sprintf(`"content":%q,"toolCalls":[{"id":"c%d","name":"run_shell_command","args":{"command":%q},"result":[{"functionResponse":{"id":"c%d","name":"run_shell_command","response":{"output":%q}}}],"status":%q}]`,
					text, n, cmd, n, out, []string{"success", "error"}[rng.IntN(2)]))
				rid := fmt.Sprint("r-", n)
				msg(rid, "user", fmt.Sprintf(`"content":[{"functionResponse":{"id":"c%d","name":"run_shell_command","response":{"output":%q}}}]`, n, out))
				ids = append(ids, rid)
			}
		case r < 15:
			id := fmt.Sprint("u", n)
			text := fmt.Sprintf(`System: Potential loop detected. Details: Repeated tool call: run_shell_command with arguments {"command":%q}. Please take a step back and confirm you're making forward progress.`, commands[rng.IntN(len(commands))])
			msg(id, "user", fmt.Sprintf(`"content":[{"text":%q}]`, text))
			ids = append(ids, id)
		case r < 16:
			fmt.Fprintf(&b, `{"$set":{"lastUpdated":"2025-11-12T14:00:0%d.000Z"}}`+"\n", n%10)
		case r < 17:
			fmt.Fprintf(&b, `{"$set":{"sessionId":"s-%d"}}`+"\n", n)
		case r < 18 && len(ids) > 0:
			// Rewind to one of the latest messages.
			k := max(0, len(ids)-1-rng.IntN(3))
			fmt.Fprintf(&b, `{"$rewindTo":%q}`+"\n", ids[k])
			ids = ids[:k]
		case replace && r < 19:
			// The messages replaced whole.
			fmt.Fprintf(&b, `{"$set":{"messages":[{"id":"x%d","timestamp":"2025-11-12T14:00:00.000Z","type":"user","content":[{"text":"go on"}]},{"id":"y%d","timestamp":"2025-11-12T14:00:00.000Z","type":"gemini","content":"Starting over."}]}}`+"\n", n, n)
			ids = []string{fmt.Sprint("x", n), fmt.Sprint("y", n)}
		case edge && r < 19 && len(ids) > 10 && !edged:
			edged = true // once: a later one would often hide what this one does
			k := len(ids) - 6 - rng.IntN(5)
			fmt.Fprintf(&b, `{"$rewindTo":%q}`+"\n", ids[k])
			ids = ids[:k]
			text := `System: Potential loop detected. Details: Repeated tool call: run_shell_command with arguments {"command":"make"}. Please take a step back and confirm you're making forward progress.`
			msg(fmt.Sprint("u", n), "user", fmt.Sprintf(`"content":[{"text":%q}]`, text))
			ids = append(ids, fmt.Sprint("u", n))
		case rewrites && r < 19 && len(ids) > 0:
			// A message far back written again, or a rewind far back.
			k := rng.IntN(len(ids))
			if rng.IntN(2) == 0 && ids[k][0] == 'g' {
				msg(ids[k], "gemini", `"content":"written again"`)
			} else {
				fmt.Fprintf(&b, `{"$rewindTo":%q}`+"\n", ids[k])
				ids = ids[:k]
			}
		}
	}
	return b.Bytes()
}

// GeminiDoc writes a random legacy Gemini CLI session document
// (session-*.json, as testdata/steps/gemini-cli/session.json): its
// messages as GeminiLog's (a message that grew written once, as it ended),
// its members in the CLI's order, or with odd set (a mix, by rng) some of
// them after the messages, a message written twice under one id (the
// second replaces the first in its place), or the document cut short.
func GeminiDoc(rng *rand.Rand, messages int, odd bool) []byte {
	var msgs []string
	commands := []string{"make", "go test ./...", "ls"}
	outputs := []string{"main.go:12: undefined: cfg", "ok", "FAIL\nexit status 1"}
	for n := 1; len(msgs) < messages; n++ {
		switch r := rng.IntN(10); {
		case r < 3:
			msgs = append(msgs, fmt.Sprintf(`{"id":"u%d","timestamp":"2025-11-12T14:00:00.000Z","type":"user","content":[{"text":"go on"}]}`, n))
		case r < 9:
			cmd, out := commands[rng.IntN(len(commands))], outputs[rng.IntN(len(outputs))]
			msgs = append(msgs, fmt.Sprintf(`{"id":"g%d","timestamp":"2025-11-12T14:00:00.000Z","type":"gemini","content":"Let me try again.","toolCalls":[{"id":"c%d","name":"run_shell_command","args":{"command":%q},"result":[{"functionResponse":{"id":"c%d","name":"run_shell_command","response":{"output":%q}}}],"status":"success"}]}`, n, n, cmd, n, out))
		default:
			text := `System: Potential loop detected. Details: Repeated tool call: run_shell_command with arguments {"command":"make"}. Please take a step back and confirm you're making forward progress.`
			msgs = append(msgs, fmt.Sprintf(`{"id":"u%d","timestamp":"2025-11-12T14:00:00.000Z","type":"user","content":[{"text":%q}]}`, n, text))
		}
	}
	var tail string
	if odd {
		switch rng.IntN(5) {
		case 0: // a message written twice under one id
			k := rng.IntN(len(msgs))
			msgs = append(msgs, strings.Replace(msgs[k], "Let me try again.", "Written again.", 1))
		case 1: // the session's ids after its messages
			return []byte(`{"startTime":"2025-11-12T14:00:00.000Z","messages":[` + strings.Join(msgs, ",") + `],"sessionId":"s-1","projectHash":"p"}`)
		case 2: // cut short
			doc := `{"sessionId":"s-1","projectHash":"p","messages":[` + strings.Join(msgs, ",") + `]}`
			return []byte(doc[:len(doc)*3/4])
		case 3: // a member that changes how the messages read, after them
			tail = `,"$rewindTo":"u1"`
		case 4: // an id after them: the document read as one message
			tail = `,"id":"doc","type":"gemini","content":"The document as a message."`
		}
	}
	return []byte(`{"sessionId":"s-1","projectHash":"p","startTime":"2025-11-12T14:00:00.000Z","lastUpdated":"2025-11-12T14:00:00.000Z","messages":[` + strings.Join(msgs, ",") + `]` + tail + "}")
}

// CommittedAgentLogs lists every file under testdata's steps, agents,
// agents-live and openhands directories, testdata being the path from
// the calling test's package (usually ../testdata): the committed agent
// and steps logs the tests replay both ways.
func CommittedAgentLogs(testdata string) []string {
	var files []string
	for _, dir := range []string{"steps", "agents", "agents-live", "openhands"} {
		filepath.WalkDir(filepath.Join(testdata, dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
	}
	return files
}
