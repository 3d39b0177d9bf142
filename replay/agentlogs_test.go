package replay_test

// The committed logs of other agents (testdata/steps, testdata/attempts)
// are written by this file: `go test ./replay -update` rewrites them, and
// without -update the test fails when a committed file is not what this
// file writes. Each log is in the shape its source writes (see the
// comments of replay/openhands.go and replay/gemini_cli.go for the OpenHands and Gemini CLI shapes).

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the committed logs under testdata/steps and testdata/attempts")

// jsonl writes one compact JSON object per line, keys in the given order.
func jsonl(records ...[]kv) []byte {
	var b bytes.Buffer
	for _, r := range records {
		b.Write(object(r))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

type kv struct {
	k string
	v any
}

// object marshals an ordered object (Python's json.dumps keeps insertion
// order; so do these logs).
func object(r []kv) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(f.k)
		b.Write(k)
		b.WriteString(": ")
		switch v := f.v.(type) {
		case []kv:
			b.Write(object(v))
		case kvList:
			b.Write(object(v))
		case rawJSON:
			b.WriteString(string(v))
		default:
			enc, err := json.Marshal(v)
			if err != nil {
				panic(err)
			}
			b.Write(enc)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

type rawJSON string

// genericSteps is a coding agent's log in loopbreak's own steps format:
// it fixes a test, then goes round the same failing command until the end.
func genericSteps() []byte {
	step := func(n int, kind, action, output string, isErr bool, score int) []kv {
		r := []kv{{"step", n}}
		if action != "" {
			r = append(r, kv{"action", action})
		}
		r = append(r, kv{"output", output}, kv{"error", isErr}, kv{"kind", kind}, kv{"score", score}, kv{"location", "repo/auth"})
		return r
	}
	return jsonl(
		step(1, "action", "run_tests", "3 tests failed\nFAIL: test_login: expected 200, got 500", true, 0),
		step(2, "action", "edit auth.py", "Fixed auth.py - updated validation", false, 0),
		step(3, "action", "run_tests", "1 test failed\nFAIL: test_logout: expected 200, got 401", true, 1),
		step(4, "action", "run_tests", "Error: TypeError - Cannot read property 'id' of null at auth.ts:45", true, 1),
		step(5, "action", "run_tests", "Error: TypeError - Cannot read property 'id' of null at auth.ts:45", true, 1),
		step(6, "action", "run_tests", "Error: TypeError - Cannot read property 'id' of null at auth.ts:45", true, 1),
		step(7, "message", "", "The session token is null; I will look at how it is created.", false, 1),
		// step 8 is missing from the log: a gap, filled with a step that changes nothing
		step(9, "action", "cat auth.ts", "export function login(user) { return session(user.id) }", false, 1),
		step(10, "action", "edit auth.ts", "Updated auth.ts - fixed null session", false, 3),
		step(11, "action", "deploy", "Deploy failed: registry unreachable", true, 3),
		step(12, "action", "deploy", "Deploy failed: registry unreachable", true, 3),
		step(13, "action", "deploy", "Deploy failed: registry unreachable", true, 3),
		step(14, "action", "deploy", "Deploy failed: registry unreachable", true, 3),
	)
}

// mappedSteps is the same kind of log under another agent's own names,
// read with --field step=iteration --field action=tool.call
// --field output=result.text --field error=result.failed.
func mappedSteps() []byte {
	rec := func(i int, call, text string, failed bool) []kv {
		return []kv{{"iteration", i}, {"tool", []kv{{"call", call}}}, {"result", []kv{{"text", text}, {"failed", failed}}}}
	}
	return jsonl(
		rec(1, `search {"q": "flaky test"}`, "no results", false),
		rec(2, `search {"q": "flaky test"}`, "no results", false),
		rec(3, `search {"q": "flaky test"}`, "no results", false),
		rec(4, `open {"path": "ci.yml"}`, "jobs: test: runs-on: ubuntu-latest", false),
	)
}

// openHandsEvents is an OpenHands (V0) event stream as event_to_dict
// writes it: the system prompt and the user's task (not steps), four runs
// of the same failing pytest (repeat_action_observation at the fourth),
// then the agent repeating one message three times (monologue).
func openHandsEvents() [][]kv {
	t0 := time.Date(2025, 11, 10, 9, 0, 0, 0, time.UTC)
	id := 0
	ts := func() string { return t0.Add(time.Duration(id) * 7 * time.Second).Format("2006-01-02T15:04:05.000000") }
	var evs [][]kv
	add := func(r []kv) int {
		evs = append(evs, append([]kv{{"id", id}, {"timestamp", ts()}}, r...))
		id++
		return id - 1
	}
	add([]kv{{"source", "agent"}, {"message", "You are OpenHands agent..."}, {"action", "system"},
		{"args", []kv{{"content", "You are OpenHands agent, a helpful AI assistant..."}, {"tools", []any{}}}}})
	add([]kv{{"source", "user"}, {"message", "Fix the failing test in tests/test_api.py"}, {"action", "message"},
		{"args", []kv{{"content", "Fix the failing test in tests/test_api.py"}, {"image_urls", nil}, {"wait_for_response", false}}}})
	add([]kv{{"source", "environment"}, {"message", "No observation"}, {"cause", 1}, {"observation", "null"}, {"content", ""}, {"extras", []kv{}}})
	run := func(cmd, out string, code int) {
		a := add([]kv{{"source", "agent"}, {"message", "Running command: " + cmd}, {"action", "run"},
			{"tool_call_metadata", []kv{{"function_name", "execute_bash"}, {"tool_call_id", fmt.Sprintf("toolu_%02d", id)},
				{"model_response", []kv{{"id", fmt.Sprintf("chatcmpl-%02d", id)}}}, {"total_calls_in_response", 1}}},
			{"args", []kv{{"command", cmd}, {"is_input", false}, {"thought", fmt.Sprintf("Attempt %d.", id)}, {"blocking", false},
				{"hidden", false}, {"confirmation_state", "confirmed"}}}})
		add([]kv{{"source", "agent"}, {"message", fmt.Sprintf("Command `%s` executed with exit code %d.", cmd, code)}, {"cause", a},
			{"observation", "run"}, {"content", out},
			{"extras", []kv{{"command", cmd}, {"metadata", []kv{{"exit_code", code}, {"pid", -1}, {"username", "openhands"},
				{"hostname", "runtime"}, {"working_dir", "/workspace"}, {"py_interpreter_path", "/usr/bin/python"},
				{"prefix", ""}, {"suffix", fmt.Sprintf("\n[The command completed with exit code %d.]", code)}}}, {"hidden", false}}},
			{"success", code == 0}})
	}
	run("ls tests", "test_api.py\ntest_models.py", 0)
	for i := 0; i < 4; i++ {
		// The output differs each time (timing); the observations are
		// still the same by action and exit code, as StuckDetector compares them.
		run("python -m pytest tests/test_api.py", fmt.Sprintf("FAILED tests/test_api.py::test_get - AssertionError\n1 failed in 0.%02ds", 31+i), 1)
	}
	for i := 0; i < 3; i++ {
		add([]kv{{"source", "agent"}, {"message", "I am not sure how to proceed."}, {"action", "message"},
			{"args", []kv{{"content", "I am not sure how to proceed."}, {"image_urls", nil}, {"wait_for_response", false}}}})
	}
	add([]kv{{"source", "environment"}, {"message", ""}, {"observation", "agent_state_changed"}, {"content", ""},
		{"extras", []kv{{"agent_state", "stopped"}, {"reason", ""}}}})
	return evs
}

// geminiSession is a Gemini CLI chat recording
// (~/.gemini/tmp/<project_hash>/chats/session-*.json): the model reads the
// same file six times in a row (tool_cycle: feedback at the fifth call,
// stop at the sixth).
func geminiSession() []byte {
	t0 := time.Date(2025, 11, 12, 14, 0, 0, 0, time.UTC)
	n := 0
	ts := func() string {
		n++
		return t0.Add(time.Duration(n) * 3 * time.Second).Format("2006-01-02T15:04:05.000Z")
	}
	call := func(id, name string, args []kv, output string) kvList {
		return kvList{{"id", id}, {"name", name}, {"args", args},
			{"result", []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": name, "response": map[string]any{"output": output}}}}},
			{"status", "success"}, {"timestamp", ts()}, {"resultDisplay", output}, {"displayName", name}, {"description", ""},
			{"renderOutputAsMarkdown", false}}
	}
	msgs := []any{
		kvList{{"id", "m1"}, {"timestamp", ts()}, {"type", "user"}, {"content", "Why does `make` fail?"}},
		kvList{{"id", "m2"}, {"timestamp", ts()}, {"type", "gemini"}, {"content", "Let me run the build first."},
			{"toolCalls", []any{call("c1", "run_shell_command", []kv{{"command", "make"}}, "main.go:12: undefined: cfg\nmake: *** [all] Error 1")}},
			{"thoughts", []any{}}, {"model", "gemini-2.5-pro"}},
	}
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("c%d", i+2)
		msgs = append(msgs, kvList{{"id", fmt.Sprintf("m%d", i+3)}, {"timestamp", ts()}, {"type", "gemini"}, {"content", ""},
			{"toolCalls", []any{call(id, "read_file", []kv{{"absolute_path", "/src/main.go"}}, "package main\n\nfunc main() { run(cfg) }")}},
			{"thoughts", []any{}}, {"model", "gemini-2.5-pro"}})
	}
	doc := []kv{{"sessionId", "5f1c2d3e-8a9b-4c0d-9e1f-2a3b4c5d6e7f"}, {"projectHash", "9c1e0a7b"},
		{"startTime", t0.Format("2006-01-02T15:04:05.000Z")}, {"lastUpdated", ts()}, {"messages", msgs}}
	return indentJSON(object(doc))
}

// object for nested []any of []kv.
func (v kvList) MarshalJSON() ([]byte, error) { return object(v), nil }

type kvList []kv

func indentJSON(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		panic(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// autopilotAttempts is an autopilot's attempts log (seed 003's records),
// tasks interleaved as a scheduler would run them. What task_attempts
// does with it (RULES.md §9, defaults: 3 attempts, 1 h):
//   - auth: blocked on the same key at attempts 1, 3, 5, 8: a spin at 5
//     (unblock_authority) and at 8 (escalate: it went on);
//   - docs: done at 2, 4, 6: completed_task_revisit at 6 (force_next);
//   - tests: the same work at 7, 9, 10: no_progress_repeat at 10
//     (escalate: 3 attempts < 5), then new work at 11 (progress: a false
//     alarm), which is no loop;
//   - deploy: blocked at 12, 13, 14, but 90 minutes apart: never 3 in the
//     window, no loop.
func autopilotAttempts() []byte {
	t0 := time.Date(2025, 11, 14, 8, 0, 0, 0, time.UTC)
	at := func(min int) string { return t0.Add(time.Duration(min) * time.Minute).Format(time.RFC3339) }
	ms := func(min int) int64 { return t0.Add(time.Duration(min) * time.Minute).UnixMilli() }
	a := func(task, status string, blockers, work []string, session string, ts any) []kv {
		if blockers == nil {
			blockers = []string{}
		}
		if work == nil {
			work = []string{}
		}
		return []kv{{"task_id", task}, {"status", status}, {"blockers", blockers}, {"completed_work", work}, {"session_id", session}, {"timestamp", ts}}
	}
	key := []string{"missing STRIPE_API_KEY"}
	return jsonl(
		a("auth", "blocked", key, nil, "s1", at(0)),                                      // 1
		a("docs", "done", nil, []string{"README updated"}, "s1", at(2)),                  // 2
		a("auth", "blocked", key, nil, "s2", at(10)),                                     // 3
		a("docs", "done", nil, []string{"README updated"}, "s2", ms(12)),                 // 4
		a("auth", "blocked", key, nil, "s3", at(20)),                                     // 5
		a("docs", "done", nil, []string{"README updated"}, "s3", ms(22)),                 // 6
		a("tests", "in_progress", nil, []string{"wrote fixtures"}, "s3", at(24)),         // 7
		a("auth", "blocked", key, nil, "s4", at(30)),                                     // 8
		a("tests", "in_progress", nil, []string{"wrote fixtures"}, "s4", at(32)),         // 9
		a("tests", "in_progress", nil, []string{"wrote fixtures"}, "s5", at(40)),         // 10
		a("tests", "done", nil, []string{"wrote fixtures", "fixed flake"}, "s6", at(50)), // 11
		a("deploy", "blocked", []string{"staging down"}, nil, "s6", at(60)),              // 12
		a("deploy", "blocked", []string{"staging down"}, nil, "s7", at(150)),             // 13
		a("deploy", "blocked", []string{"staging down"}, nil, "s8", at(240)),             // 14
	)
}

// agentLogs are the committed files and their contents.
func agentLogs() map[string][]byte {
	evs := openHandsEvents()
	var arr []any
	for _, e := range evs {
		arr = append(arr, kvList(e))
	}
	traj, err := json.Marshal(arr)
	if err != nil {
		panic(err)
	}
	return map[string][]byte{
		"steps/agent.jsonl":               genericSteps(),
		"steps/mapped.jsonl":              mappedSteps(),
		"steps/openhands/events.jsonl":    jsonl(evs...),
		"steps/openhands/trajectory.json": indentJSON(traj),
		"steps/gemini-cli/session.json":   geminiSession(),
		"attempts/autopilot.jsonl":        autopilotAttempts(),
	}
}

func TestAgentLogFixtures(t *testing.T) {
	for name, want := range agentLogs() {
		path := filepath.Join("..", "testdata", filepath.FromSlash(name))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./replay -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what agentlogs_test.go writes (go test ./replay -update rewrites it)", path)
		}
	}
}
