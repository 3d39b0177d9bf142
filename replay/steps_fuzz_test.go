package replay

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// problemRE is what every problem must look like: file:line: reason.
var problemRE = regexp.MustCompile(`^in\.jsonl:[1-9][0-9]*: \S`)

// checkAgentRead reads data as format/preset and checks what must hold
// whatever the bytes: no panic, problems naming file:line and a reason,
// every line either used or counted, a contiguous table, and --strict
// failing exactly when a line was skipped.
func checkAgentRead(t *testing.T, data []byte, opts Options) {
	t.Helper()
	eps, err := Read(bytes.NewReader(data), "in.jsonl", "in", opts)
	var ne *NoEventsError
	var le *LineError
	switch {
	case err == nil:
	case errors.As(err, &ne):
		if ne.First != "" && !problemRE.MatchString(ne.First) {
			t.Fatalf("first problem %q does not name file:line", ne.First)
		}
		return
	case errors.As(err, &le):
		t.Fatalf("a line error without Strict: %v", err)
	default:
		if !strings.HasPrefix(err.Error(), "in.jsonl") {
			t.Fatalf("error %q does not name the file", err)
		}
		return
	}
	if len(eps) != 1 && !isOpenHandsEval(peekBytes(data)) { // an evaluation output: one episode a line
		t.Fatalf("%d episodes, want 1", len(eps))
	}
	for _, ep := range eps {
		checkAgentEpisode(t, ep)
	}
	strict := opts
	strict.Strict = true
	_, serr := Read(bytes.NewReader(data), "in.jsonl", "in", strict)
	skipped := 0
	for _, ep := range eps {
		skipped += ep.Diag.Skipped
	}
	if (skipped > 0) != (serr != nil) {
		t.Fatalf("skipped %d lines, but --strict gave %v", skipped, serr)
	}
}

// peekBytes is what detection sees of data.
func peekBytes(data []byte) []byte { return data[:min(len(data), detectBytes)] }

// checkAgentEpisode checks what must hold of every episode read.
func checkAgentEpisode(t *testing.T, ep *Episode) {
	t.Helper()
	for _, p := range ep.Diag.Problems {
		if !problemRE.MatchString(p) {
			t.Fatalf("problem %q does not name file:line: reason", p)
		}
	}
	if ep.NumTurns() == 0 {
		t.Fatal("an episode without a step")
	}
	for i := range ep.NumTurns() {
		if ep.TurnAt(i).N != ep.TurnAt(0).N+i {
			t.Fatalf("table not contiguous at %d", i)
		}
	}
	switch ep.Format {
	case FormatSteps:
		if len(ep.Outputs) != len(ep.Turns) || len(ep.Steps) != len(ep.Turns) {
			t.Fatalf("outputs %d, steps %d, turns %d", len(ep.Outputs), len(ep.Steps), len(ep.Turns))
		}
	case FormatAttempts:
		// Attempt i is turn i+1 and nothing else, kept as no row.
		if ep.NumAttempts() != ep.NumTurns() || len(ep.Turns) != 0 {
			t.Fatalf("attempts %d, turns %d, rows %d", ep.NumAttempts(), ep.NumTurns(), len(ep.Turns))
		}
		for i := range ep.NumTurns() {
			if ep.TurnAt(i) != (Turn{N: i + 1}) || *ep.Turn(i + 1) != (Turn{N: i + 1}) {
				t.Fatalf("turn %d: %+v", i+1, ep.TurnAt(i))
			}
		}
		if ep.RecordedTurns() != ep.NumAttempts() || ep.FinalScore() != 0 || ep.Turn(0) != nil || ep.Turn(ep.NumAttempts()+1) != nil {
			t.Fatalf("recorded %d, final %v", ep.RecordedTurns(), ep.FinalScore())
		}
	}
}

func agentSeeds(f *testing.F) {
	for _, name := range []string{"steps/agent.jsonl", "steps/mapped.jsonl", "steps/openhands/events.jsonl",
		"steps/openhands/trajectory.json", "steps/gemini-cli/session.json", "attempts/autopilot.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", filepath.FromSlash(name)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "\n\n", "[", "[]", "{}", "[1, {\"action\": \"run\"}]", "{\"step\": 1e300, \"output\": \"x\"}",
		"{\"step\": 1, \"output\": \"a\"}\n{\"step\": 100000000, \"output\": \"b\"}\n",
		"{\"step\": -1, \"action\": \"a\"}", "{\"step\": 1, \"action\": {\"name\": \"x\"}, \"error\": \"yes\", \"kind\": \"thought\"}",
		"{\"step\": 2, \"action\": \"a\", \"score\": NaN}\n{\"step\": 3, \"action\": \"a\", \"score\": Infinity",
		"{\"task_id\": 7, \"status\": \"DONE\", \"blockers\": null, \"completed_work\": [1, 2], \"timestamp\": 1731571200000}",
		"{\"task_id\": \"a\", \"status\": \"blocked\", \"blockers\": \"x\", \"timestamp\": \"yesterday\"}",
		"{\"sessionId\": \"s\", \"messages\": [{\"type\": \"gemini\", \"content\": [{\"text\": \"hi\"}], \"toolCalls\": [1, {\"name\": \"x\"}]}]}",
		"{\"id\": 1, \"observation\": \"run\", \"cause\": 9, \"content\": 3, \"extras\": {\"metadata\": {\"exit_code\": \"1\"}}}",
	} {
		f.Add([]byte(s))
	}
}

// FuzzReadSteps: the steps reader, plain, mapped and with each preset,
// never panics and reports every problem as file:line: reason.
func FuzzReadSteps(f *testing.F) {
	agentSeeds(f)
	fields := map[string]string{"step": "iteration", "action": "tool.call", "output": "result.text", "error": "result.failed"}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgentRead(t, data, Options{Format: FormatSteps})
		checkAgentRead(t, data, Options{Format: FormatSteps, Fields: fields})
		checkAgentRead(t, data, Options{Format: FormatSteps, Preset: PresetOpenHands})
		checkAgentRead(t, data, Options{Format: FormatSteps, Preset: PresetGeminiCLI})
	})
}

// FuzzReadAttempts: the attempts reader likewise.
func FuzzReadAttempts(f *testing.F) {
	agentSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgentRead(t, data, Options{Format: FormatAttempts})
	})
}

// FuzzDetectFormat: detection never panics and an auto read reads what
// it detected.
func FuzzDetectFormat(f *testing.F) {
	agentSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		format, preset := DetectFormat(data)
		if format == FormatZorkGPT {
			return // the ZorkGPT reader has its own fuzz tests
		}
		eps, err := Read(bytes.NewReader(data), "in.jsonl", "in", Options{Format: FormatAuto})
		if err == nil && (eps[0].Format != format || eps[0].Preset != preset || !eps[0].Detected) {
			t.Fatalf("detected %s/%s, read %s/%s", format, preset, eps[0].Format, eps[0].Preset)
		}
	})
}

// Hand-checked readings of the steps format.
func TestReadStepsFields(t *testing.T) {
	data := `{"step": 1, "action": "ls", "output": "a b", "score": 2, "location": "Repo  Root"}
{"step": 2, "output": "thinking", "kind": "message"}
{"step": 4, "action": {"name": "run", "args": {"cmd": "make"}}, "output": {"text": "ok"}, "error": 1, "exit_code": "2"}
`
	eps, err := Read(strings.NewReader(data), "in.jsonl", "in", Options{Format: FormatSteps})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if len(ep.Turns) != 4 || ep.Diag.Gaps != 1 || !ep.Turns[2].Filled {
		t.Fatalf("turns %+v, gaps %d", ep.Turns, ep.Diag.Gaps)
	}
	if ep.Str(ep.Turns[0].LocEnd) != "repo root" || ep.RoomName("repo root") != "Repo  Root" || ep.Turns[1].Score != 2 || !ep.HasScore {
		t.Errorf("location/score not read or carried: %+v", ep.Turns[:2])
	}
	if ep.Steps[1].Kind != StepMessage || ep.Turns[1].HasAction || ep.Str(ep.Outputs[1]) != "thinking" {
		t.Errorf("message step: %+v %+v %q", ep.Steps[1], ep.Turns[1], ep.Str(ep.Outputs[1]))
	}
	s := ep.Steps[3]
	code, hasCode := ep.ExitCode(3)
	if ep.Str(ep.Turns[3].Action) != `{"args":{"cmd":"make"},"name":"run"}` || ep.Str(ep.Outputs[3]) != `{"text":"ok"}` || !s.Error || !hasCode || code != 2 {
		t.Errorf("structured step: %q %q %+v", ep.Str(ep.Turns[3].Action), ep.Str(ep.Outputs[3]), s)
	}
}

// Timestamps: RFC 3339, without a zone (UTC), or epoch milliseconds.
func TestParseTimestamp(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"2025-11-14T08:00:00Z", "2025-11-14T08:00:00Z"},
		{"2025-11-14T09:00:00+01:00", "2025-11-14T08:00:00Z"},
		{"2025-11-14T08:00:00.250", "2025-11-14T08:00:00.25Z"},
		{"1763107200000", "2025-11-14T08:00:00Z"},
	} {
		got, reason := rawTimestamp(rawValue(strconv.Quote(c.in)))
		if reason != "" || got.UTC().Format("2006-01-02T15:04:05.999Z07:00") != c.want {
			t.Errorf("%v: %v %q, want %s", c.in, got, reason, c.want)
		}
	}
	if _, reason := rawTimestamp(rawValue(`"soon"`)); reason == "" {
		t.Error("soon parsed")
	}
}

// FuzzReadZorkGPTOutputs: a ZorkGPT log read with its replies has one
// output per turn, and the same turns as without.
func FuzzReadZorkGPTOutputs(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "episodes", "*", "episode_log.jsonl"))
	for _, name := range files[:min(3, len(files))] {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"event_type": "zork_response", "turn": 1, "zork_response": "Locked."}` + "\n" +
		`{"event_type": "turn_completed", "turn": 1, "action": "open door", "score": 0}` + "\n" +
		`{"event_type": "zork_response", "turn": 3, "zork_response": 7}` + "\n" +
		`{"event_type": "turn_completed", "turn": 3, "score": 0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		with, err1 := Read(bytes.NewReader(data), "in.jsonl", "in", Options{Outputs: true})
		without, err2 := Read(bytes.NewReader(data), "in.jsonl", "in", Options{})
		if len(with) != len(without) {
			if (err1 == nil) == (err2 == nil) {
				t.Fatalf("%d episodes with outputs, %d without", len(with), len(without))
			}
			return // a file of replies only is readable with outputs, not without
		}
		for i, ep := range with {
			// Read, the outputs of a table are a Sym per turn, or none
			// (not nil) when no turn has one.
			if len(ep.Turns) > 0 && (ep.Outputs == nil || len(ep.Outputs) != 0 && len(ep.Outputs) != len(ep.Turns)) {
				t.Fatalf("episode %d: %d outputs (nil %v) for %d turns", i, len(ep.Outputs), ep.Outputs == nil, len(ep.Turns))
			}
			if len(ep.Turns) != len(without[i].Turns) {
				t.Fatalf("episode %d: %d turns with outputs, %d without", i, len(ep.Turns), len(without[i].Turns))
			}
		}
	})
}

// Detection, rule by rule (docs/formats.md: Logs of other agents).
func TestDetectFormat(t *testing.T) {
	for _, c := range []struct{ in, format, preset string }{
		{`[{"id": 0, "action": "system"}]`, FormatSteps, PresetOpenHands},
		{"{\"level\": \"INFO\"}\n{\"event_type\": \"turn_completed\", \"turn\": 1}", FormatZorkGPT, ""},
		{`{"task_id": "a", "status": "done", "timestamp": 0}`, FormatAttempts, ""},
		{"{\n  \"sessionId\": \"s\",\n  \"messages\": []\n}", FormatSteps, PresetGeminiCLI},
		{`{"type": "gemini", "content": "hi", "toolCalls": []}`, FormatSteps, PresetGeminiCLI},
		{`{"id": 3, "action": "run", "args": {"command": "ls"}}`, FormatSteps, PresetOpenHands},
		{`{"id": 4, "observation": "run", "cause": 3, "content": ""}`, FormatSteps, PresetOpenHands},
		{`{"step": 1, "action": "ls"}`, FormatSteps, ""},
		{`{"iteration": 1, "tool": {}}`, FormatZorkGPT, ""},
		{"", FormatZorkGPT, ""},
	} {
		if f, p := DetectFormat([]byte(c.in)); f != c.format || p != c.preset {
			t.Errorf("%q: %s/%s, want %s/%s", c.in, f, p, c.format, c.preset)
		}
	}
}
