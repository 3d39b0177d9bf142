package replay

import (
	"bytes"
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
			output: ep.Str(ep.Outputs[i]), err: s.Error, exit: -1, prompt: s.Prompt, thinking: s.Thinking}
		if s.HasExitCode {
			v.exit = s.ExitCode
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
			var got []string
			for i, tu := range ep.Turns {
				s := ep.Str(tu.Action)
				if s == "" {
					s = ep.Str(ep.Outputs[i])
				}
				got = append(got, ep.Steps[i].Kind.String()+": "+s)
			}
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
	want := []string{claudeCodeFixture, codexFixture, sweAgentFixture}
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
	for _, p := range []string{claudeCodeFixture, codexFixture, sweAgentFixture} {
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
