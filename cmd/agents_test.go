package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The committed logs of other agents (written by replay/agentlogs_test.go).
var (
	stepsLog      = "../testdata/steps/agent.jsonl"
	mappedLog     = "../testdata/steps/mapped.jsonl"
	openHandsLog  = "../testdata/steps/openhands/events.jsonl"
	openHandsTraj = "../testdata/steps/openhands/trajectory.json"
	geminiLog     = "../testdata/steps/gemini-cli/session.json"
	attemptsLog   = "../testdata/attempts/autopilot.jsonl"
	mappedFields  = []string{"--field", "step=iteration", "--field", "action=tool.call", "--field", "output=result.text", "--field", "error=result.failed"}
)

// TestAgentLogsGolden pins analyze's text and JSON for each format and
// preset.
func TestAgentLogsGolden(t *testing.T) {
	type tc struct {
		name string
		args []string
	}
	cases := []tc{
		{"steps/agent.txt", []string{"analyze", stepsLog}},
		{"steps/agent.json", []string{"analyze", "--format", "json", stepsLog}},
		{"steps/mapped.txt", append(append([]string{"analyze"}, mappedFields...), mappedLog)},
		{"steps/openhands.txt", []string{"analyze", "--preset", "openhands", openHandsLog}},
		{"steps/openhands.json", []string{"analyze", "--format", "json", openHandsLog}},
		{"steps/openhands-trajectory.txt", []string{"analyze", openHandsTraj}},
		{"steps/gemini-cli.txt", []string{"analyze", "--preset", "gemini-cli", geminiLog}},
		{"steps/gemini-cli.json", []string{"analyze", "--format", "json", geminiLog}},
		{"steps/gemini-cli-jsonl.txt", []string{"analyze", "../testdata/steps/gemini-cli/session-2025-11-12T14-00-3f0c9a7e.jsonl"}},
		{"steps/gemini-cli-jsonl.json", []string{"analyze", "--format", "json", "../testdata/steps/gemini-cli/session-2025-11-12T14-00-3f0c9a7e.jsonl"}},
		{"attempts/autopilot.txt", []string{"analyze", attemptsLog}},
		{"attempts/autopilot.json", []string{"analyze", "--format", "json", attemptsLog}},
		{"attempts/window-30m.txt", []string{"analyze", "--set", "attempt_window=30m", attemptsLog}},
		// The timelines: an attempts log's turns are made from its
		// attempts, not kept as rows (replay.Episode.TurnAt).
		{"steps/agent-chart.txt", []string{"analyze", "--chart", stepsLog}},
		{"attempts/autopilot-chart.txt", []string{"analyze", "--chart", attemptsLog}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
			ios, _, out, errOut := Test()
			if code := Main(c.args, ios); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "analyze/"+c.name, out.String())
		})
	}
}

// firingsOf runs analyze --format json and returns the first episode's
// firings and input.
func firingsOf(t *testing.T, args ...string) ([]map[string]any, map[string]any) {
	t.Helper()
	ios, _, out, errOut := Test()
	if code := Main(append([]string{"analyze", "--format", "json"}, args...), ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Episodes []struct {
			Input   map[string]any   `json:"input"`
			Firings []map[string]any `json:"firings"`
		} `json:"episodes"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Episodes) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	return doc.Episodes[0].Firings, doc.Episodes[0].Input
}

// pick lists "unit rule/kind" of the firings of the given rules.
func pick(fs []map[string]any, unit string, rules ...string) []string {
	var out []string
	for _, f := range fs {
		for _, r := range rules {
			if f["rule"] == r {
				out = append(out, strings.TrimSuffix(strings.TrimSuffix(
					jsonNum(f[unit])+" "+r+"/"+f["kind"].(string)+" "+f["origin"].(string), " "), " "))
			}
		}
	}
	return out
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The firings each log must give, derived by hand from RULES.md.
func TestAgentLogsFirings(t *testing.T) {
	// OpenHands: steps are ls, then pytest ×4 (same command, same exit
	// code 1: the observations are the same whatever the output, but each
	// action carries its own thought, "Attempt 5." …, and _eq_no_pid is
	// dataclass equality, thought included: repeat_action_observation does
	// not fire), then the same message ×3: monologue (3) at the 3rd
	// message, step 8. The real stuck.py, run over both files, fires
	// monologue once, at event 15 (step 8). The event stream and the
	// trajectory are the same events.
	for _, log := range []string{openHandsLog, openHandsTraj} {
		fs, in := firingsOf(t, log)
		if in["format"] != "steps" || in["preset"] != "openhands" || in["detected"] != true {
			t.Errorf("%s: input %v", log, in)
		}
		got := pick(fs, "step", "repeat_action_observation", "repeat_action_error", "monologue", "alternating_pair", "context_window_error")
		want := []string{"8 monologue/stop openhands"}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: OpenHands firings %q, want %q", log, got, want)
		}
	}

	// Gemini CLI: a message (1), make (2), read_file ×6 (3–8). The last 5
	// keys are one call repeated at step 7 (feedback, the first loop) and
	// 8 (stop). signature_repeat (3) fires from the 3rd read_file, step 5.
	fs, _ := firingsOf(t, geminiLog)
	if got, want := pick(fs, "step", "tool_cycle"), []string{"7 tool_cycle/feedback gemini-cli", "8 tool_cycle/stop gemini-cli"}; strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("tool_cycle %q, want %q", got, want)
	}
	if got := pick(fs, "step", "signature_repeat"); len(got) != 4 || got[0] != "5 signature_repeat/loop generic" {
		t.Errorf("signature_repeat %q, want 4 firings from step 5", got)
	}

	// Steps: run_tests gives the same TypeError at steps 4, 5, 6: the
	// signature "run_tests|error:TypeError-auth.ts:45" three times fires at
	// 6; deploy fails the same way at 11–14: fires at 13 and 14.
	fs, _ = firingsOf(t, stepsLog)
	if got, want := pick(fs, "step", "signature_repeat"), []string{"6 signature_repeat/loop generic", "13 signature_repeat/loop generic", "14 signature_repeat/loop generic"}; strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("signature_repeat %q, want %q", got, want)
	}
	for _, f := range fs {
		if f["rule"] == "signature_repeat" && f["step"] == 6.0 && f["signature"] != "run_tests|error:TypeError-auth.ts:45" {
			t.Errorf("signature at step 6: %v", f["signature"])
		}
		if f["rule"] == "fuzzy_repeat" && f["step"] == 5.0 && (f["similarity"] != 1.0 || f["matched_step"] != 4.0) {
			t.Errorf("fuzzy_repeat at step 5: %v, want similarity 1 with step 4", f)
		}
	}

	// Attempts (RULES.md §9 with the defaults; see the log's generator):
	// auth spins at 5 (unblock_authority) and is cleared (attempts_recovery),
	// so its attempt at 8 starts afresh; docs is revisited at 6
	// (force_next); tests repeats at 10 (escalate: 3 < 5).
	fs, _ = firingsOf(t, attemptsLog)
	var got []string
	for _, f := range fs {
		got = append(got, jsonNum(f["attempt"])+" "+f["task_id"].(string)+" "+f["loop_type"].(string)+" "+f["recommendation"].(string))
	}
	want := []string{"5 auth blocked_task_spin unblock_authority", "6 docs completed_task_revisit force_next",
		"10 tests no_progress_repeat escalate"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("task_attempts %q, want %q", got, want)
	}
	// Without recovery auth's attempt at 8 spins again on 4 attempts.
	fs, _ = firingsOf(t, "--set", "attempts_recovery=false", attemptsLog)
	if len(fs) != 4 || jsonNum(fs[2]["attempt"]) != "8" || jsonNum(fs[2]["attempt_count"]) != "4" {
		t.Errorf("attempts_recovery=false: %v, want a 4th firing at attempt 8 counting 4", fs)
	}
	// A 30-minute window: auth's attempts at 0, 10, 20 min still spin at
	// 5, docs' at 2, 12, 22 and tests' at 24, 32, 40 still fire.
	fs, _ = firingsOf(t, "--set", "attempt_window=1800", attemptsLog)
	if len(fs) != 3 {
		t.Errorf("attempt_window=1800: %d firings, want 3", len(fs))
	}
	// A 5-minute window keeps no three attempts of a task.
	fs, _ = firingsOf(t, "--set", "attempt_window=5m", attemptsLog)
	if len(fs) != 0 {
		t.Errorf("attempt_window=5m: %d firings, want 0", len(fs))
	}
}

// A ZorkGPT log's replies are outputs: "open door → The door is locked"
// three times is a signature loop (at turn 3, and again at 4).
func TestZorkGPTOutputLoop(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for turn := 1; turn <= 4; turn++ {
		b.WriteString(`{"event_type": "zork_response", "episode_id": "E", "turn": ` + jsonNum(turn) + `, "action": "open door", "zork_response": "The door is locked."}` + "\n")
		b.WriteString(`{"event_type": "turn_completed", "episode_id": "E", "turn": ` + jsonNum(turn) + `, "action": "open door", "score": 0, "location": "West of House"}` + "\n")
	}
	path := filepath.Join(dir, "episode_log.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, in := firingsOf(t, path)
	if in["format"] != "zorkgpt" {
		t.Errorf("input %v", in)
	}
	got := pick(fs, "turn", "signature_repeat", "repeat_action_observation", "tool_cycle")
	if strings.Join(got, "; ") != "3 signature_repeat/loop generic; 4 signature_repeat/loop generic" {
		t.Errorf("firings %q, want signature_repeat at turns 3 and 4, no peer detector", got)
	}
	// The peer detectors on ZorkGPT logs, when asked: four times the same
	// action and the same reply is OpenHands' repeat_action_observation.
	fs, _ = firingsOf(t, "--set", "openhands_on_zorkgpt=true", "--set", "gemini_cli_on_zorkgpt=true", path)
	if got := pick(fs, "turn", "repeat_action_observation", "tool_cycle"); strings.Join(got, "; ") != "4 repeat_action_observation/stop openhands" {
		t.Errorf("peer firings %q, want repeat_action_observation at turn 4", got)
	}
	// With the output rules off the replies are not read: nothing fires.
	fs, _ = firingsOf(t, "--set", "enable_signature_repeat=false", "--set", "enable_fuzzy_repeat=false", path)
	if len(pick(fs, "turn", "signature_repeat", "fuzzy_repeat")) != 0 {
		t.Errorf("output rules off: %v", fs)
	}
}

// A directory of other agents' logs is searched for *.jsonl and *.json
// when the format is asked for; the preset is recognised per file.
func TestAgentLogsDirectory(t *testing.T) {
	ios, _, out, errOut := Test()
	Main([]string{"analyze", "--format", "jsonl", "--input-format", "steps", "../testdata/steps"}, ios)
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct {
			ID    string         `json:"episode_id"`
			Input map[string]any `json:"input"`
		}
		json.Unmarshal([]byte(line), &e)
		got = append(got, e.ID+":"+jsonNum(e.Input["preset"]))
	}
	want := "agent:null session-2025-11-12T14-00-3f0c9a7e:\"gemini-cli\" session:\"gemini-cli\" events:\"openhands\" trajectory:\"openhands\""
	if strings.Join(got, " ") != want {
		t.Errorf("episodes %q, want %s", got, want)
	}
	// mapped.jsonl needs its --field mapping: a file error, the run goes on.
	if !strings.Contains(errOut.String(), "no steps in ../testdata/steps/mapped.jsonl") {
		t.Errorf("stderr %q", errOut)
	}
}

// Without --input-format, a scan finds every format loopbreak reads by
// the files' first records: the steps, OpenHands, Gemini CLI and attempts
// examples, not mapped.jsonl (it needs --field); ZorkGPT's episode logs by
// their name, not a copy of one under another name.
func TestScanFindsEveryFormat(t *testing.T) {
	dir := t.TempDir()
	copyTo := func(src, dst string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dst, string(b))
	}
	zork := filepath.Join(episodesDir, "2025-11-04T09-35-24", "episode_log.jsonl")
	copyTo(zork, filepath.Join(dir, "zork", "ep1", "episode_log.jsonl"))
	copyTo(zork, filepath.Join(dir, "zork", "all-episodes.jsonl"))
	for _, f := range []string{stepsLog, mappedLog, openHandsLog, openHandsTraj, geminiLog, attemptsLog} {
		copyTo(f, filepath.Join(dir, filepath.Base(filepath.Dir(f)), filepath.Base(f)))
	}
	writeFile(t, filepath.Join(dir, "notes.json"), `{"todo": ["a"]}`)
	ios, _, out, errOut := Test()
	if code := Main([]string{"analyze", "--format", "jsonl", dir}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct {
			Input map[string]any `json:"input"`
		}
		json.Unmarshal([]byte(line), &e)
		got = append(got, jsonNum(e.Input["format"])+"/"+jsonNum(e.Input["preset"]))
	}
	slices.Sort(got)
	want := `"attempts"/null "steps"/"gemini-cli" "steps"/"openhands" "steps"/"openhands" "steps"/null "zorkgpt"/null`
	if strings.Join(got, " ") != want {
		t.Errorf("formats %s, want %s", strings.Join(got, " "), want)
	}
	if errOut.Len() > 0 {
		t.Errorf("stderr %q", errOut)
	}

	// None found: which formats were looked for, what the files are.
	none := t.TempDir()
	copyTo(mappedLog, filepath.Join(none, "m.jsonl"))
	copyTo(zork, filepath.Join(none, "z.jsonl"))
	writeFile(t, filepath.Join(none, "readme.txt"), "hi")
	ios, _, _, errOut = Test()
	if code := Main([]string{"analyze", none}, ios); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, w := range []string{"no logs found in " + none, "OpenHands event streams", "Gemini CLI, Claude Code, Codex and Cline/Roo sessions", "SWE-agent trajectories", "Aider", "episode_log.jsonl",
		"z.jsonl holds ZorkGPT events under another name", "m.jsonl is JSON in no format loopbreak detects", "--field", "readme.txt is not a JSON log"} {
		if !strings.Contains(errOut.String(), w) {
			t.Errorf("no %q in %q", w, errOut)
		}
	}
}

// Bad records are skipped and counted, naming file:line and the reason;
// --strict makes the first fatal (exit 2); bad flags are usage errors.
func TestAgentLogsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"step": 1, "action": "ls", "output": "a"}
not json
{"action": "ls"}
{"step": 1, "action": "ls", "output": "again"}
{"step": "two", "output": "x"}
{"step": 2, "output": "done", "kind": "message"}
`), 0o644)
	ios, _, out, errOut := Test()
	if code := Main([]string{"analyze", "--format", "json", "--input-format", "steps", bad}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		bad + `:2: invalid JSON`, bad + `:3: no step number`, bad + `:4: step 1 does not follow step 1`, bad + `:5: step two is not an integer`,
	} {
		if !strings.Contains(out.String(), jsonEscape(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out.String(), `"skipped":4`) {
		t.Errorf("4 lines not counted as skipped:\n%s", out)
	}
	ios, _, _, errOut = Test()
	if code := Main([]string{"analyze", "--strict", "--input-format", "steps", bad}, ios); code != 2 || !strings.Contains(errOut.String(), bad+":2: invalid JSON") {
		t.Errorf("--strict: exit %d, stderr %q", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--input-format", "csv"}, `--input-format "csv": want one of auto, zorkgpt, steps, attempts`},
		{[]string{"--preset", "autogpt"}, `--preset "autogpt": want openhands or openhands-v1 or gemini-cli`},
		{[]string{"--field", "steps=iteration"}, `--field steps: unknown field`},
		{[]string{"--field", "step"}, `want field=path`},
		{[]string{"--input-format", "attempts", "--preset", "openhands"}, `not --input-format attempts`},
		{[]string{"--set", "attempt_window=soon"}, `attempt_window: must be an integer (seconds) or a duration`},
	} {
		ios, _, _, errOut := Test()
		if code := Main(append(append([]string{"analyze"}, c.args...), stepsLog), ios); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
	// An attempts log with nothing readable is a file error.
	empty := filepath.Join(dir, "attempts.jsonl")
	os.WriteFile(empty, []byte(`{"task_id": "a", "status": 3, "timestamp": 0}`+"\n"), 0o644)
	ios, _, _, errOut = Test()
	Main([]string{"analyze", "--input-format", "attempts", empty}, ios)
	if want := `no attempts in ` + empty + ` (1 line, 1 unreadable; first: ` + empty + `:1: no status (a string))`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
