package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The agents' fixtures, written in the shape each agent writes.
var (
	claudeCodeFixture = filepath.Join("..", "testdata", "agents", "claude-code", "projects", "-home-dev-calc", "3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37.jsonl")
	codexFixture      = filepath.Join("..", "testdata", "agents", "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T11-00-00-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl")
	sweAgentFixture   = filepath.Join("..", "testdata", "agents", "swe-agent", "run", "calc__calc-1.traj")
)

// stepView is a step as the tests compare it.
type stepView struct {
	kind      string
	action    string
	canonical string
	output    string // a prefix of the output
	err       bool
	exit      int // -1: none
	prompt    bool
	thinking  bool
}

func viewSteps(ep *Episode) []stepView {
	var out []stepView
	for i, t := range ep.Turns {
		s := ep.Steps[i]
		v := stepView{kind: s.Kind.String(), action: ep.Str(t.Action), canonical: ep.Str(s.Canonical),
			output: ep.Str(ep.Outputs[i]), err: s.Error, exit: -1, prompt: s.NewPrompt, thinking: s.Thinking}
		if c, ok := ep.ExitCode(i); ok {
			v.exit = c
		}
		out = append(out, v)
	}
	return out
}

func readOne(t *testing.T, path string, opts Options) *Episode {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := Read(bytes.NewReader(data), path, "d", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 {
		t.Fatalf("%d episodes, want 1", len(eps))
	}
	return eps[0]
}

func checkSteps(t *testing.T, ep *Episode, want []stepView) {
	t.Helper()
	got := viewSteps(ep)
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("%+v", g)
		}
		t.Fatalf("%d steps, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !strings.HasPrefix(g.output, w.output) {
			t.Errorf("step %d output %q, want it to start with %q", i+1, g.output, w.output)
		}
		g.output, w.output = "", ""
		if w.canonical == "" {
			w.canonical = w.action
		}
		if g != w {
			t.Errorf("step %d:\n got %+v\nwant %+v", i+1, g, w)
		}
		if ep.Turns[i].N != i+1 {
			t.Errorf("step %d numbered %d", i+1, ep.Turns[i].N)
		}
	}
	if ep.Diag.Skipped != 0 {
		t.Errorf("%d lines skipped: %v", ep.Diag.Skipped, ep.Diag.Problems)
	}
}

func TestClaudeCodeReader(t *testing.T) {
	const bash = `Bash {"command":"go test ./...","description":"Run the tests"}`
	const bashSwapped = `Bash {"description":"Run the tests","command":"go test ./..."}`
	want := []stepView{
		{kind: "message", output: "Run the tests first", exit: -1, prompt: true, thinking: true},
		{kind: "action", action: bash, output: "--- FAIL: TestDivide", err: true, exit: -1},
		{kind: "message", output: "Divide does not check", exit: -1},
		{kind: "action", action: `Read {"file_path":"/home/dev/calc/calc.go"}`, output: "package calc", exit: -1},
		// Parallel calls keep their order, their results the other way.
		{kind: "action", action: `Edit {"file_path":"/home/dev/calc/calc.go","old_string":"return a / b, nil","new_string":"if b == 0 {\n\t\treturn 0, ErrDivZero\n\t}\n\treturn a / b, nil"}`,
			canonical: `Edit {"file_path":"/home/dev/calc/calc.go","new_string":"if b == 0 {\n\t\treturn 0, ErrDivZero\n\t}\n\treturn a / b, nil","old_string":"return a / b, nil"}`,
			output:    "The file /home/dev/calc/calc.go has been updated.", exit: -1},
		{kind: "action", action: `Grep {"pattern":"ErrDivZero","path":"/home/dev/calc"}`, canonical: `Grep {"path":"/home/dev/calc","pattern":"ErrDivZero"}`, output: "No matches found", exit: -1},
		{kind: "action", action: bash, output: "# calc", err: true, exit: -1},
		{kind: "action", action: bash, output: "# calc", err: true, exit: -1},
		// The same call with its keys in another order: the same canonical form.
		{kind: "action", action: bashSwapped, canonical: bash, output: "# calc", err: true, exit: -1},
		{kind: "action", action: `Edit {"file_path":"/home/dev/calc/calc.go","old_string":"package calc\n","new_string":"package calc\n\nimport \"errors\"\n\nvar ErrDivZero = errors.New(\"divide by zero\")\n"}`,
			canonical: `Edit {"file_path":"/home/dev/calc/calc.go","new_string":"package calc\n\nimport \"errors\"\n\nvar ErrDivZero = errors.New(\"divide by zero\")\n","old_string":"package calc\n"}`,
			output:    "The file", exit: -1, prompt: true},
		{kind: "action", action: bash, output: "ok", exit: -1},
		{kind: "message", output: "Divide now returns ErrDivZero", exit: -1},
	}
	ep := readOne(t, claudeCodeFixture, Options{Format: FormatAuto})
	if ep.Preset != PresetClaudeCode || !ep.Detected {
		t.Errorf("preset %q detected %v, want claude-code detected", ep.Preset, ep.Detected)
	}
	checkSteps(t, ep, want)
	forced := readOne(t, claudeCodeFixture, Options{Format: PresetClaudeCode})
	if forced.Preset != PresetClaudeCode || len(forced.Turns) != len(want) {
		t.Errorf("--input-format claude-code: preset %q, %d steps", forced.Preset, len(forced.Turns))
	}
}

func TestCodexReader(t *testing.T) {
	const shell = `shell {"command":["bash","-lc","go test ./..."],"workdir":"/home/dev/calc"}`
	want := []stepView{
		{kind: "message", output: "**Running the tests**", exit: -1, prompt: true, thinking: true},
		{kind: "action", action: shell, output: "--- FAIL: TestDivide", exit: 1},
		{kind: "message", output: "Divide does not guard", exit: -1},
		{kind: "action", action: "apply_patch *** Begin Patch\n*** Update File: calc.go\n@@\n-\treturn a / b, nil\n+\tif b == 0 {\n+\t\treturn 0, ErrDivZero\n+\t}\n+\treturn a / b, nil\n*** End Patch\n", output: "Success.", exit: 0},
		{kind: "action", action: shell, output: "# calc", exit: 1},
		{kind: "action", action: shell, output: "# calc", exit: 1},
		{kind: "action", action: `shell {"workdir":"/home/dev/calc","command":["bash","-lc","go test ./..."]}`, canonical: shell, output: "# calc", exit: 1},
		{kind: "action", action: "apply_patch *** Begin Patch\n*** Update File: calc.go\n@@\n package calc\n+\n+import \"errors\"\n+\n+var ErrDivZero = errors.New(\"divide by zero\")\n*** End Patch\n", output: "Success.", exit: 0, prompt: true},
		{kind: "action", action: shell, output: "ok", exit: 0},
		{kind: "condensation", output: "The user asked", exit: -1},
		{kind: "message", output: "Fixed:", exit: -1},
	}
	ep := readOne(t, codexFixture, Options{Format: FormatAuto})
	if ep.Preset != PresetCodex || !ep.Detected {
		t.Errorf("preset %q detected %v, want codex detected", ep.Preset, ep.Detected)
	}
	checkSteps(t, ep, want)
}

// Records that are not steps, results without calls, calls without
// results, and lines that are not the agent's.
func TestAgentReadersEdges(t *testing.T) {
	cases := []struct {
		name, preset, log string
		steps             []string // kind: action or output
		skipped           int
	}{
		{"claude: call never answered", PresetClaudeCode,
			`{"type":"assistant","parentUuid":null,"uuid":"a","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"sleep 99"}},{"type":"text","text":"waiting"}]}}`,
			[]string{`action: Bash {"command":"sleep 99"}`, "message: waiting"}, 0},
		{"claude: a subagent's file is its sidechain records", PresetClaudeCode,
			`{"type":"user","parentUuid":null,"isSidechain":true,"uuid":"s1","message":{"role":"user","content":"find callers"}}` + "\n" +
				`{"type":"assistant","parentUuid":"s1","isSidechain":true,"uuid":"s2","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Grep","input":{"pattern":"Divide"}}]}}` + "\n" +
				`{"type":"assistant","parentUuid":null,"isSidechain":false,"uuid":"m1","message":{"role":"assistant","content":[{"type":"text","text":"main"}]}}` + "\n" +
				`{"type":"user","parentUuid":"s2","isSidechain":true,"uuid":"s3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"calc.go:3"}]}}`,
			[]string{`action: Grep {"pattern":"Divide"}`}, 0},
		{"claude: result of no call", PresetClaudeCode,
			`{"type":"user","parentUuid":null,"uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"zz","content":"orphan","is_error":true}]}}`,
			[]string{"action: orphan"}, 0},
		{"claude: a record read twice is one step", PresetClaudeCode,
			`{"type":"assistant","parentUuid":null,"uuid":"a","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}` + "\n" +
				`{"type":"assistant","parentUuid":null,"uuid":"a","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}`,
			[]string{"message: hi"}, 0},
		{"claude: unknown type and broken line", PresetClaudeCode,
			`{"type":"assistant","parentUuid":null,"uuid":"a","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}` + "\n" +
				`{"type":"telemetry","parentUuid":null}` + "\n" + `{"type":`,
			[]string{"message: hi"}, 2},
		{"claude: no message", PresetClaudeCode,
			`{"type":"assistant","parentUuid":null,"uuid":"a","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}` + "\n" +
				`{"type":"user","parentUuid":"a","uuid":"b"}`,
			[]string{"message: hi"}, 1},
		{"codex: output of no call; local shell", PresetCodex,
			`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":"lost"}}` + "\n" +
				`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":null,"status":"completed","action":{"type":"exec","command":["ls"]}}}`,
			[]string{"action: lost", `action: local_shell {"type":"exec","command":["ls"]}`}, 0},
		{"codex: a legacy rollout", PresetCodex,
			`{"id":"0199","timestamp":"2025-06-01T10:00:00Z","instructions":null,"git":{"branch":"main"}}` + "\n" +
				`{"record_type":"state"}` + "\n" +
				`{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"fix it"}]}` + "\n" +
				`{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}` + "\n" +
				`{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"a.go\\n\",\"metadata\":{\"exit_code\":0}}"}` + "\n" +
				`{"record_type":"state"}`,
			[]string{`action: shell {"command":["ls"]}`}, 0},
		{"codex: unknown line type", PresetCodex,
			`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}}` + "\n" +
				`{"timestamp":"t","type":"mystery","payload":{}}`,
			[]string{"message: ok"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eps, err := Read(strings.NewReader(c.log), "log.jsonl", "d", Options{Format: FormatAuto})
			if err != nil {
				t.Fatal(err)
			}
			ep := eps[0]
			if ep.Preset != c.preset {
				t.Errorf("detected %q, want %q", ep.Preset, c.preset)
			}
			got := stepWords(ep)
			if strings.Join(got, "|") != strings.Join(c.steps, "|") {
				t.Errorf("steps %q, want %q", got, c.steps)
			}
			if ep.Diag.Skipped != c.skipped {
				t.Errorf("skipped %d, want %d: %v", ep.Diag.Skipped, c.skipped, ep.Diag.Problems)
			}
		})
	}
}

func TestDetectAgents(t *testing.T) {
	for _, c := range []struct{ path, preset string }{
		{claudeCodeFixture, PresetClaudeCode},
		{codexFixture, PresetCodex},
		{sweAgentFixture, PresetSWEAgent},
		{clineFixture, PresetCline},
		{aiderFixture, PresetAider},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if f, p := DetectFormat(data); f != FormatSteps || p != c.preset {
			t.Errorf("%s: detected %s/%s, want steps/%s", c.path, f, p, c.preset)
		}
	}
}

// The records a Claude Code session may open with.
func TestDetectClaudeCodeOpenings(t *testing.T) {
	user := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u"}`
	for _, first := range []string{
		`{"type":"summary","summary":"Fix the test","leafUuid":"x"}`,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{"messageId":"m","trackedFileBackups":{}},"isSnapshotUpdate":false}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-20T10:00:00Z","content":"next","sessionId":"s"}`,
		user,
	} {
		if f, p := DetectFormat([]byte(first + "\n" + user + "\n")); f != FormatSteps || p != PresetClaudeCode {
			t.Errorf("%s: detected %s/%s, want steps/claude-code", first, f, p)
		}
	}
}

func TestAgentSessionName(t *testing.T) {
	for name, want := range map[string]bool{
		"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37.jsonl":                             true,
		"agent-32335b9b.jsonl":                                                   true,
		"rollout-2026-11-20T11-00-00-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl": true,
		"rollout-x.jsonl.zst":                                                    true,
		"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b3.jsonl":                              false,
		"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37.json":                              false,
		"notes.jsonl":    false,
		"rollout-.jsonl": false,
	} {
		if got := AgentSessionName(name); got != want {
			t.Errorf("AgentSessionName(%q) = %v, want %v", name, got, want)
		}
	}
	files, _, err := Find([]string{filepath.Join("..", "testdata", "agents")}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{claudeCodeFixture, codexFixture, sweAgentFixture, clineFixture, rooFixture, aiderFixture}
	n := 0
	for _, w := range want {
		for _, f := range files {
			if f == w {
				n++
			}
		}
	}
	if n != len(want) {
		t.Errorf("Find found %q, want %q among them", files, want)
	}
}

// The agents' readers never panic, number their steps 1, 2, 3… and
// fail only with Strict.
func FuzzAgentReaders(f *testing.F) {
	clineLive := filepath.Join("..", "testdata", "agents-live", "cline", "tasks", "1763650000000", "api_conversation_history.json")
	rooLive := filepath.Join("..", "testdata", "agents-live", "roo", "tasks", "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f", "api_conversation_history.json")
	for _, p := range []string{claudeCodeFixture, codexFixture, sweAgentFixture, clineFixture, rooFixture, aiderFixture, clineLive, rooLive} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, uint8(0))
			f.Add(data, uint8(1))
		}
	}
	f.Add([]byte(`{"type":"user","parentUuid":null,"message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}`), uint8(0))
	f.Add([]byte(`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","arguments":"{\"a\":1","call_id":"c"}}`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		preset := agentPresets[int(which)%len(agentPresets)]
		eps, err := Read(bytes.NewReader(data), "fuzz.jsonl", "d", Options{Format: preset})
		if err != nil {
			return
		}
		for _, ep := range eps {
			if len(ep.Steps) != len(ep.Turns) || len(ep.Outputs) != len(ep.Turns) {
				t.Fatalf("%d steps, %d outputs, %d turns", len(ep.Steps), len(ep.Outputs), len(ep.Turns))
			}
			for i, tu := range ep.Turns {
				if tu.N != i+1 {
					t.Fatalf("step %d numbered %d", i+1, tu.N)
				}
			}
		}
	})
}

func TestSWEAgentReader(t *testing.T) {
	tb := "Traceback (most recent call last):"
	want := []stepView{
		{kind: "action", action: `find_file "calc.py"`, output: "Found 1 matches", exit: -1},
		{kind: "action", action: "open src/calc.py", output: "[File: /testbed/src/calc.py (4 lines total)]", exit: -1},
		{kind: "action", action: "edit 2:2\n    if b == 0:\n        raise ValueError(\"divide by zero\")\n    return a / b\nend_of_edit", output: "[File: /testbed/src/calc.py (6 lines total)]", exit: -1},
		{kind: "action", action: "python reproduce.py", output: tb, exit: -1},
		{kind: "action", action: "python reproduce.py", output: tb, exit: -1},
		{kind: "action", action: "python reproduce.py", output: tb, exit: -1},
		{kind: "action", action: "submit", output: "diff --git", exit: -1},
	}
	ep := readOne(t, sweAgentFixture, Options{Format: FormatAuto})
	if ep.Preset != PresetSWEAgent || !ep.Detected {
		t.Errorf("preset %q detected %v, want swe-agent detected", ep.Preset, ep.Detected)
	}
	checkSteps(t, ep, want)
}

// A .traj is one document: problems name the line an element starts on.
func TestSWEAgentReaderProblems(t *testing.T) {
	cases := []struct {
		name, doc string
		steps     int
		problems  []string
	}{
		{"bad element", "{\n  \"info\": {\"a\": [1, 2]},\n  \"trajectory\": [\n    {\"action\": \"ls\", \"observation\": \"a\"},\n    {\"observation\": \"b\"},\n    {\"action\": 5}\n  ]\n}\n",
			1, []string{`t.traj:5: a trajectory step without "action"`, "t.traj:6: a trajectory step that is not an object of strings"}},
		{"cut short", "{\n  \"trajectory\": [\n    {\"action\": \"ls\", \"observation\": \"a\"},\n    {\"action\": \"pwd\", \"obs",
			1, []string{"t.traj:4: invalid JSON in the trajectory"}},
		{"no trajectory", "{\n  \"history\": []\n}", 0, []string{`no "trajectory" array`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eps, err := Read(strings.NewReader(c.doc), "t.traj", "d", Options{Format: PresetSWEAgent})
			var problems []string
			steps := 0
			if err != nil {
				problems = []string{err.Error()}
			} else {
				steps, problems = len(eps[0].Turns), eps[0].Diag.Problems
			}
			if steps != c.steps || len(problems) != len(c.problems) {
				t.Fatalf("%d steps, problems %q; want %d, %q", steps, problems, c.steps, c.problems)
			}
			for i := range c.problems {
				if !strings.Contains(problems[i], c.problems[i]) {
					t.Errorf("problem %q, want %q in it", problems[i], c.problems[i])
				}
			}
			if _, err := Read(strings.NewReader(c.doc), "t.traj", "d", Options{Format: PresetSWEAgent, Strict: true}); err == nil {
				t.Error("--strict: no error")
			}
		})
	}
}

var (
	clineFixture = filepath.Join("..", "testdata", "agents", "cline", "tasks", "1763632800000", "api_conversation_history.json")
	rooFixture   = filepath.Join("..", "testdata", "agents", "roo", "tasks", "0b7c9e2a-4f1d-4a8e-9c3b-5d6e7f8a9b0c", "api_conversation_history.json")
)

func TestClineReader(t *testing.T) {
	ep := readOne(t, clineFixture, Options{Format: FormatAuto})
	if ep.Preset != PresetCline || !ep.Detected || ep.ID != "1763632800000" {
		t.Errorf("preset %q detected %v id %q, want cline detected 1763632800000", ep.Preset, ep.Detected, ep.ID)
	}
	npm := func(try int) string {
		return `execute_command {"command":"npm test","requires_approval":"false","task_progress":"- [x] Fix divide\n- [ ] Verify (try ` + string(rune('0'+try)) + `)"}`
	}
	npmSwapped := `execute_command {"requires_approval":"false","command":"npm test","task_progress":"- [x] Fix divide\n- [ ] Verify (try 4)"}`
	fail := "Command executed.\nOutput:\nFAIL src/calc.test.ts\n  ● divide › throws on zero\n    expect(received).toThrow(RangeError)"
	want := []stepView{
		{kind: "message", output: "I'll run the tests", exit: -1, prompt: true},
		{kind: "action", action: `execute_command {"command":"npm test","requires_approval":"false"}`, output: "Command executed.\nOutput:\nFAIL", exit: -1},
		{kind: "action", action: `read_file {"path":"src/calc.ts"}`, output: "export function divide", exit: -1},
		{kind: "message", output: "Divide must throw", exit: -1},
		{kind: "action", action: `replace_in_file {"path":"src/calc.ts","diff":"------- SEARCH\n  return a / b\n=======\n  if (b === 0) throw new RangeError(\"divide by zero\")\n  return a / b\n+++++++ REPLACE","task_progress":"- [x] Run tests\n- [x] Fix divide\n- [ ] Verify"}`,
			canonical: `replace_in_file {"diff":"------- SEARCH\n  return a / b\n=======\n  if (b === 0) throw new RangeError(\"divide by zero\")\n  return a / b\n+++++++ REPLACE","path":"src/calc.ts","task_progress":"- [x] Run tests\n- [x] Fix divide\n- [ ] Verify"}`,
			output:    "The content was successfully saved", exit: -1},
		{kind: "message", output: "Running the tests again.", exit: -1},
		{kind: "action", action: npm(1), output: fail, exit: -1},
		{kind: "message", output: "Running the tests again.", exit: -1},
		{kind: "action", action: npm(2), output: fail, exit: -1},
		{kind: "message", output: "Running the tests again.", exit: -1},
		{kind: "action", action: npm(3), output: fail, exit: -1},
		{kind: "message", output: "Running the tests again.", exit: -1},
		{kind: "action", action: npmSwapped, canonical: npm(4), output: fail, exit: -1},
		{kind: "message", output: "Running the tests again.", exit: -1},
		// The user's answer to the mistake limit replaces the result.
		{kind: "action", action: npm(5), output: "", exit: -1},
		// The user's feedback comes before the next step.
		{kind: "action", action: `write_to_file {"path":"src/errors.ts","content":"export class DivideByZeroError extends RangeError {}"}`,
			canonical: `write_to_file {"content":"export class DivideByZeroError extends RangeError {}","path":"src/errors.ts"}`, output: "The content was successfully saved", exit: -1, prompt: true},
		{kind: "action", action: `attempt_completion {"result":"divide now throws DivideByZeroError on a zero divisor."}`, exit: -1},
	}
	checkSteps(t, ep, want)
	if out := ep.Str(ep.Outputs[10]); strings.Contains(out, "consecutively") {
		t.Errorf("Cline's own warning read as the tool's output: %q", out)
	}
	checkLive(t, ep, []LiveEvent{
		{Kind: LiveClineWarning, Turn: 11, Rule: "cline_repeated_tool/feedback"},
		{Kind: LiveClineStop, Turn: 15, Rule: "mistake_limit_reached"},
	})
}

func checkLive(t *testing.T, ep *Episode, want []LiveEvent) {
	t.Helper()
	if len(ep.Live) != len(want) {
		t.Fatalf("live events %+v, want %+v", ep.Live, want)
	}
	for i := range want {
		if ep.Live[i] != want[i] {
			t.Errorf("live event %d: %+v, want %+v", i, ep.Live[i], want[i])
		}
	}
}

func TestRooReader(t *testing.T) {
	ep := readOne(t, rooFixture, Options{Format: PresetRoo})
	if ep.Preset != PresetRoo || ep.Detected || ep.ID != "0b7c9e2a-4f1d-4a8e-9c3b-5d6e7f8a9b0c" {
		t.Errorf("preset %q detected %v id %q", ep.Preset, ep.Detected, ep.ID)
	}
	test := `read_file {"files":[{"path":"src/calc.test.ts"}]}`
	want := []stepView{
		{kind: "message", output: "Run the tests first.", exit: -1, prompt: true, thinking: true},
		{kind: "action", action: `execute_command {"command":"npm test","cwd":"/home/dev/calc"}`, output: "Command executed in terminal", exit: 1},
		{kind: "action", action: `read_file {"files":[{"path":"src/calc.ts"}]}`, output: "<files><file><path>src/calc.ts</path>", exit: -1},
		{kind: "action", action: test, output: "<files>", exit: -1},
		{kind: "action", action: test, output: "<files>", exit: -1},
		{kind: "action", action: test, output: "<files>", exit: -1},
		{kind: "action", action: test, output: `{"status":"error","message":"The tool execution failed"`, err: true, exit: -1},
	}
	checkSteps(t, ep, want)
	checkLive(t, ep, []LiveEvent{{Kind: LiveRooRefusal, Turn: 7, Rule: "roo_tool_repetition/stop"}})
	if auto := readOne(t, rooFixture, Options{Format: FormatAuto}); auto.Preset != PresetCline {
		t.Errorf("a Roo Code task detected as %q: its content is Cline's shape, read as cline unless told", auto.Preset)
	}
}

func TestParseClineText(t *testing.T) {
	cases := []struct {
		in   string
		want []clinePart
	}{
		{"just text", []clinePart{{text: "just text"}}},
		{"<read_file>\n<path> a.ts </path>\n</read_file>", []clinePart{{tool: "read_file", action: "read_file " + `{"path":"a.ts"}`}}},
		{"see <b>bold</b> <unknown_tool><x>1</x></unknown_tool>", []clinePart{{text: "see <b>bold</b> <unknown_tool><x>1</x></unknown_tool>"}}},
		// write_to_file content runs to the last </content>: it may hold the tags.
		{"<write_to_file><path>x.xml</path><content><content>in</content></write_to_file></content></write_to_file>",
			[]clinePart{{tool: "write_to_file", action: "write_to_file " + `{"path":"x.xml","content":"<content>in</content></write_to_file>"}`}}},
		// A tool use cut short is kept, its open value to the end.
		{"<execute_command><command>ls -l", []clinePart{{tool: "execute_command", action: "execute_command " + `{"command":"ls -l"}`}}},
		{"<thinking>hmm</thinking>ok", []clinePart{{text: "hmm", thinking: true}, {text: "ok"}}},
	}
	for _, c := range cases {
		got := parseClineText(nil, &scratchText{}, nil, c.in)
		if len(got) != len(c.want) {
			t.Errorf("%q: %d parts %+v, want %+v", c.in, len(got), got, c.want)
			continue
		}
		for i := range got {
			if got[i].text != c.want[i].text || got[i].tool != c.want[i].tool || got[i].thinking != c.want[i].thinking || got[i].action != c.want[i].action {
				t.Errorf("%q part %d: %+v, want %+v", c.in, i, got[i], c.want[i])
			}
		}
	}
}

var aiderFixture = filepath.Join("..", "testdata", "agents", "aider", "calc", ".aider.chat.history.md")

func TestAiderReader(t *testing.T) {
	ep := readOne(t, aiderFixture, Options{Format: FormatAuto})
	if ep.Preset != PresetAider || !ep.Detected || ep.ID != "calc" {
		t.Errorf("preset %q detected %v id %q, want aider detected calc", ep.Preset, ep.Detected, ep.ID)
	}
	want := []stepView{
		{kind: "message", output: "I'll make divide check its divisor.\ncalc.py\n```python\n<<<<<<< SEARCH", exit: -1, prompt: true},
		// /run's output is Aider's; the next user line is the prompt.
		{kind: "message", output: "The test expects the message \"division by zero\".", exit: -1, prompt: true},
		// A new session is a prompt too.
		{kind: "message", output: "calc.py\n```python", exit: -1, prompt: true},
	}
	checkSteps(t, ep, want)
	if !strings.Contains(ep.Str(ep.Outputs[0]), ">>>>>>> REPLACE\n```") {
		t.Errorf("a fenced edit's \">\" lines are the reply's: %q", ep.Str(ep.Outputs[0]))
	}
	if len(ep.Diag.Notes) == 0 || !strings.Contains(ep.Diag.Notes[0], "messages only") {
		t.Errorf("notes %q do not say the history is messages only", ep.Diag.Notes)
	}
}

func TestJoinTexts(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`: "plain",
		`[{"type":"text","text":"a"},{"type":"text","text":"b"}]`:                    "ab",
		`[{"type":"text","text":"see "},{"type":"image","source":{"data":"iVBOR"}}]`: "see [image]",
		`[1, 2]`:        "[1,2]",
		`{"k": "v"}`:    `{"k":"v"}`,
		`null`:          "",
		`[{"x": 1}]`:    `[{"x":1}]`,
		`[]`:            "",
		`"unterminated`: `"unterminated`,
	} {
		if got := joinTexts(json.RawMessage(in)); got != want {
			t.Errorf("joinTexts(%s) = %q, want %q", in, got, want)
		}
	}
}

// parseClineText never panics, and every tool use's parameters are a
// JSON object.
func FuzzParseClineText(f *testing.F) {
	f.Add("<read_file>\n<path>a.ts</path>\n</read_file>")
	f.Add("<write_to_file><path>x</path><content>a</content></write_to_file></content></write_to_file>")
	f.Add("<thinking>hmm<execute_command><command>ls")
	f.Add("<<<<>>><read_file><<path>></path>")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range parseClineText(nil, &scratchText{}, nil, s) {
			if p.tool == "" {
				continue
			}
			var m map[string]string
			if err := json.Unmarshal([]byte(p.params()), &m); err != nil {
				t.Fatalf("%q: tool %s params %s: %v", s, p.tool, p.params(), err)
			}
		}
	})
}

// A folder holding one session of each agent: a directory scan finds each
// session once, and each is read auto-detected, with no problem, as one
// episode of its agent (a Roo Code task's content is Cline's shape).
func TestAgentsFolder(t *testing.T) {
	files, skipped, err := Find([]string{filepath.Join("..", "testdata", "agents")}, false)
	if err != nil || len(skipped) > 0 {
		t.Fatal(err, skipped)
	}
	want := map[string]string{
		claudeCodeFixture: PresetClaudeCode, codexFixture: PresetCodex, sweAgentFixture: PresetSWEAgent,
		clineFixture: PresetCline, rooFixture: PresetCline, aiderFixture: PresetAider,
	}
	if len(files) != len(want) {
		t.Errorf("found %q, want the %d sessions", files, len(want))
	}
	for _, f := range files {
		eps, err := ReadFile(f, nil, Options{Format: FormatAuto})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(eps) != 1 {
			t.Errorf("%s: %d episodes, want 1", f, len(eps))
			continue
		}
		if eps[0].Preset != want[f] || !eps[0].Detected || eps[0].Diag.Skipped != 0 || len(eps[0].Turns) == 0 {
			t.Errorf("%s: %d episodes, preset %q (want %q), detected %v, %d skipped", f, len(eps), eps[0].Preset, want[f], eps[0].Detected, eps[0].Diag.Skipped)
		}
	}
}
