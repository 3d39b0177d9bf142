package cmd

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
	"github.com/loopbreak/loopbreak/report"
)

// runCheck runs `loopbreak check args...` in dir ("" = here) and returns
// exit code, stdout and stderr.
func runCheck(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return run(t, dir, "", append([]string{"check"}, args...)...)
}

// checkLog writes an id-keyed episode of n turns walking between two
// rooms (so oscillation, camping and rejected score adjustments fire),
// with the score set to scores[t] from turn t on.
func checkLog(id string, n int, scores map[int]int) string {
	var b strings.Builder
	rooms := map[int]string{10: "West of House", 11: "North of House"}
	loc, score := 10, 0
	fmt.Fprintf(&b, `{"timestamp":"2025-11-01T21:48:15.000000","level":"INFO","message":"start","event_type":"episode_initialized","episode_id":%q,"max_turns":500}`+"\n", id)
	for t := 1; t <= n; t++ {
		act := "north"
		if loc == 11 {
			act = "south"
		}
		to := 21 - loc
		fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"m","event_type":"final_action_selection","episode_id":%q,"turn":%d,"agent_action":%q,"critic_confidence":0.9}`+"\n", id, t, act)
		fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"m","event_type":"map_movement_update","episode_id":%q,"turn":%d,"from_room_id":%d,"from_room":%q,"to_room_id":%d,"to_room":%q}`+"\n", id, t, loc, rooms[loc], to, rooms[to])
		loc = to
		if s, ok := scores[t]; ok {
			score = s
		}
		fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"m","event_type":"turn_completed","episode_id":%q,"turn":%d,"action":%q,"score":%d,"location":%q}`+"\n", id, t, act, score, rooms[loc])
	}
	fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"done","event_type":"episode_completed","episode_id":%q,"turn":%d,"final_score":%d,"reason":"max_turns"}`+"\n", id, n, score)
	return b.String()
}

// checkCorpus writes three episodes under dir/eps and returns dir:
//
//	A  60 turns, stuck from turn 3: terminated at t=50, 10 turns saved
//	B  80 turns, stuck from turn 3, scores again at 70: terminated at
//	   t=50, 30 saved, a false termination forfeiting 5
//	C  40 turns scoring every 10: never terminated
func checkCorpus(t *testing.T, dir string) string {
	t.Helper()
	checkEpisodes(t, filepath.Join(dir, "eps"))
	return dir
}

// checkEpisodes writes the episodes of checkCorpus into dir.
func checkEpisodes(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "A", "episode_log.jsonl"), checkLog("A", 60, map[int]int{3: 5}))
	writeFile(t, filepath.Join(dir, "B", "episode_log.jsonl"), checkLog("B", 80, map[int]int{3: 5, 70: 10}))
	writeFile(t, filepath.Join(dir, "C", "episode_log.jsonl"), checkLog("C", 40, map[int]int{5: 5, 15: 10, 25: 15, 35: 20}))
}

// updatedCorpus is checkCorpus with a baseline written by --update.
func updatedCorpus(t *testing.T) string {
	t.Helper()
	dir := checkCorpus(t, t.TempDir())
	if code, out, errOut := runCheck(t, dir, "--update", "eps"); code != 0 {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}
	return dir
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestCheckUpdateThenCompare(t *testing.T) {
	dir := checkCorpus(t, t.TempDir())
	code, out, errOut := runCheck(t, dir, "--update", "eps/")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if got, want := firstLine(out), "PASS: wrote loopbreak.baseline.json: 3 episodes (0 changed, 3 added, 0 removed)"; got != want {
		t.Errorf("first line %q, want %q", got, want)
	}
	for _, want := range []string{
		"Changes written to the baseline:\n",
		"  A: new episode, not in the baseline (terminates at t=50, turns saved 10)\n",
		"  C: new episode, not in the baseline (never terminates)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, check.DefaultBaseline))
	if err != nil {
		t.Fatal(err)
	}
	b, err := check.ParseBaseline(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Episodes) != 3 || b.Episodes[0].Source != "eps/A/episode_log.jsonl" || *b.Episodes[0].TerminationTurn != 50 ||
		!b.Episodes[1].FalseTermination || b.Episodes[1].ScoreForfeited != 5 || b.Episodes[2].TerminationTurn != nil {
		t.Errorf("baseline:\n%s", data)
	}

	// Again: nothing to write.
	code, out, _ = runCheck(t, dir, "--update", "eps/")
	if code != 0 || firstLine(out) != "PASS: loopbreak.baseline.json is up to date: 3 episodes" || strings.Contains(out, "Changes") {
		t.Errorf("second --update: exit %d\n%s", code, out)
	}
	// Compare: pass.
	code, out, errOut = runCheck(t, dir, "eps/")
	if code != 0 || errOut != "" {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errOut)
	}
	want := "PASS: 3 episodes match loopbreak.baseline.json\n" +
		"config: defaults (no config found) · max_turns_stuck 40 · every 10 turns · warnings from 20\n\n" +
		"Corpus: 3 episodes, 2 terminated (0 censored); 40 of 180 turns saved (22.2%); 1 of 2 terminations false (50.0%); score forfeited 5.\n"
	if out != want {
		t.Errorf("compare output\n%s\nwant\n%s", out, want)
	}
}

// TestCheckThresholdDrift is the regression gate at work: a threshold
// change moves a termination, and check says so and exits 1.
func TestCheckThresholdDrift(t *testing.T) {
	dir := updatedCorpus(t)
	writeFile(t, filepath.Join(dir, "pyproject.toml"), "[tool.zorkgpt.loop_break]\nmax_turns_stuck = 50\n")
	for _, c := range []struct {
		args   []string
		config string // the report's second line: what it assumed
	}{
		{[]string{"--set", "max_turns_stuck=50", "eps"}, "pyproject.toml [tool.zorkgpt.loop_break] · max_turns_stuck 50 (--set)"},
		{[]string{"--config", "pyproject.toml", "eps"}, "pyproject.toml [tool.zorkgpt.loop_break] · max_turns_stuck 50"},
	} {
		args := c.args
		code, out, errOut := runCheck(t, dir, args...)
		if code != ExitFailure {
			t.Fatalf("%v: exit %d, want 1\n%s%s", args, code, out, errOut)
		}
		want := `FAIL: 2 of 3 episodes drifted from loopbreak.baseline.json (2 changed, 0 new, 0 missing); configuration differs from the baseline's (max_turns_stuck)
config: ` + c.config + ` · every 10 turns · warnings from 20

The configuration differs from the baseline's (this explains outcome drift):
  max_turns_stuck 40 → 50

Drift:
  A: termination moved t=50 → t=60 (turns saved 10 → 0)
  A: check points 2 at t=50, 60 → t=60
  A: LLM calls saved 40 → 0
  A: actions that would be rejected 47 → 57
  B: termination moved t=50 → t=60 (turns saved 30 → 20)
  B: check points 2 at t=50, 60 → t=60
  B: LLM calls saved 120 → 80
  B: actions that would be rejected 47 → 57

Corpus: 3 episodes, 2 terminated (0 censored); 20 of 180 turns saved (11.1%); 1 of 2 terminations false (50.0%); score forfeited 5.
`
		if out != want {
			t.Errorf("%v: got\n%s\nwant\n%s", args, out, want)
		}
		if errOut != "" {
			t.Errorf("stderr %q", errOut)
		}
	}
}

// TestCheckBaselineStable: the baseline is byte-identical across runs,
// directories, working directories and job counts, and holds no absolute
// path.
func TestCheckBaselineStable(t *testing.T) {
	d1 := checkCorpus(t, t.TempDir())
	d2 := checkCorpus(t, t.TempDir())
	if code, out, errOut := runCheck(t, d1, "-j", "1", "--update", "eps"); code != 0 {
		t.Fatal(out, errOut)
	}
	// From elsewhere, with absolute paths and another job count.
	b2 := filepath.Join(d2, "loopbreak.baseline.json")
	if code, out, errOut := runCheck(t, t.TempDir(), "-j", "3", "--baseline", b2, "--update", filepath.Join(d2, "eps", "C"), filepath.Join(d2, "eps")); code != 0 {
		t.Fatal(out, errOut)
	}
	one, err := os.ReadFile(filepath.Join(d1, "loopbreak.baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	two, err := os.ReadFile(b2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one, two) {
		t.Fatalf("baselines differ:\n%s\n---\n%s", one, two)
	}
	for _, d := range []string{d1, d2, os.TempDir()} {
		if bytes.Contains(one, []byte(filepath.ToSlash(d))) || bytes.Contains(one, []byte(d)) {
			t.Errorf("baseline holds the path %s", d)
		}
	}
	b, _ := check.ParseBaseline(one)
	for _, e := range b.Episodes {
		if filepath.IsAbs(e.Source) || strings.HasPrefix(e.Source, "/") || strings.Contains(e.Source, `\`) {
			t.Errorf("source %q is not a relative slash path", e.Source)
		}
	}
	// Rewriting keeps the bytes and the file.
	st1, _ := os.Stat(b2)
	if code, out, _ := runCheck(t, d2, "--update", "eps"); code != 0 || !strings.Contains(out, "is up to date") {
		t.Errorf("re-update: %d %s", code, out)
	}
	st2, _ := os.Stat(b2)
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Error("an up-to-date baseline was rewritten")
	}

	// A baseline in another directory names logs relative to itself.
	if code, out, errOut := runCheck(t, d1, "--baseline", "ci/lb.json", "--update", "eps"); code != 0 {
		t.Fatal(out, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(d1, "ci", "lb.json"))
	if !bytes.Contains(data, []byte(`"source": "../eps/A/episode_log.jsonl"`)) {
		t.Errorf("sources not relative to the baseline:\n%s", data)
	}
	if code, out, errOut := runCheck(t, filepath.Join(d1, "ci"), "--baseline", "lb.json", "../eps"); code != 0 {
		t.Errorf("from the baseline's directory: exit %d\n%s%s", code, out, errOut)
	}
}

func TestCheckDriftKinds(t *testing.T) {
	dir := updatedCorpus(t)
	eps := filepath.Join(dir, "eps")
	// New episode D; B gone; A's log gains a line that changes no outcome;
	// C moved to another directory.
	writeFile(t, filepath.Join(eps, "D", "episode_log.jsonl"), checkLog("D", 20, nil))
	if err := os.RemoveAll(filepath.Join(eps, "B")); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(eps, "A", "episode_log.jsonl")
	data, _ := os.ReadFile(a)
	writeFile(t, a, string(data)+`{"timestamp":"x","level":"DEBUG","message":"one more line"}`+"\n")
	if err := os.Rename(filepath.Join(eps, "C"), filepath.Join(eps, "C2")); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCheck(t, dir, "eps")
	if code != ExitFailure {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got, want := firstLine(out), "FAIL: 4 of 4 episodes drifted from loopbreak.baseline.json (2 changed, 1 new, 1 missing)"; got != want {
		t.Errorf("first line %q, want %q", got, want)
	}
	re := regexp.MustCompile(`(?m)^  A: log changed \(sha256:[0-9a-f]{12}… → sha256:[0-9a-f]{12}…\): the recording changed, not the rules$`)
	if !re.MatchString(out) {
		t.Errorf("no log-changed line:\n%s", out)
	}
	for _, want := range []string{
		"  B: missing: in the baseline (terminates at t=50, turns saved 30) but not among the inputs\n",
		"  C: log moved: eps/C/episode_log.jsonl → eps/C2/episode_log.jsonl\n",
		"  D: new episode, not in the baseline (never terminates)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "  A: ") != 1 || strings.Count(out, "  C: ") != 1 {
		t.Errorf("more than the hash and the move reported:\n%s", out)
	}
	// --update takes it all in and reports the same lines as changes.
	code, out, _ = runCheck(t, dir, "--update", "eps")
	if code != 0 || firstLine(out) != "PASS: wrote loopbreak.baseline.json: 3 episodes (2 changed, 1 added, 1 removed)" || !strings.Contains(out, "  D: new episode") {
		t.Errorf("update: exit %d\n%s", code, out)
	}
	if code, out, _ := runCheck(t, dir, "eps"); code != 0 {
		t.Errorf("after update: exit %d\n%s", code, out)
	}
}

func TestCheckUnreadableInput(t *testing.T) {
	dir := updatedCorpus(t)
	// B's log gains a line that is not JSON: still compared, reported.
	b := filepath.Join(dir, "eps", "B", "episode_log.jsonl")
	data, _ := os.ReadFile(b)
	lines := strings.SplitAfter(string(data), "\n")
	writeFile(t, b, strings.Join(slices.Insert(lines, 5, "{not json\n"), ""))
	code, out, _ := runCheck(t, dir, "eps")
	if code != ExitFailure || !strings.Contains(out, "  B: log changed (") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "Unreadable lines:\n  B: 1 unreadable line skipped, the episode is still compared (first: eps/B/episode_log.jsonl:6: ") {
		t.Errorf("unreadable line not reported:\n%s", out)
	}
	if strings.Count(out, "  B: ") != 2 {
		t.Errorf("the outcome of B should not change:\n%s", out)
	}
	if code, _, errOut := runCheck(t, dir, "--strict", "eps"); code != ExitError || !strings.Contains(errOut, "eps/B/episode_log.jsonl:6:") {
		t.Errorf("--strict: exit %d, stderr %q", code, errOut)
	}

	// A's log cannot be read at all (a dangling link): its episode is
	// missing from the comparison.
	a := filepath.Join(dir, "eps", "A", "episode_log.jsonl")
	os.Remove(a)
	if err := os.Symlink(filepath.Join(dir, "nowhere.jsonl"), a); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	code, out, errOut := runCheck(t, dir, "eps")
	if code != ExitFailure {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	const why = "open eps/A/episode_log.jsonl: no such file or directory"
	if !strings.Contains(out, "  A: missing: its log could not be read ("+why+")\n") ||
		!strings.Contains(out, "Unreadable files:\n  eps/A/episode_log.jsonl: "+why+"\n") {
		t.Errorf("unreadable file:\n%s", out)
	}
	if errOut != "loopbreak: "+why+"\n" {
		t.Errorf("stderr %q", errOut)
	}
	if code, _, errOut := runCheck(t, dir, "--strict", "eps"); code != ExitError || !strings.Contains(errOut, why) {
		t.Errorf("--strict: exit %d, stderr %q", code, errOut)
	}
}

func TestCheckGates(t *testing.T) {
	dir := updatedCorpus(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--max-false-rate", "5%"}, 1, "  FAIL  max-false-rate: false terminations 1 of 2 terminated episodes (50.0%) exceed the limit of 5%\n"},
		{[]string{"--max-false-rate", "0.5"}, 0, "  pass  max-false-rate: false terminations 1 of 2 terminated episodes (50.0%), at most 50% allowed\n"},
		{[]string{"--min-saved", "40%"}, 1, "  FAIL  min-saved: turns saved 40 of 180 recorded turns (22.2%), below the required 40%\n"},
		{[]string{"--min-saved", "0.2"}, 0, "  pass  min-saved: turns saved 40 of 180 recorded turns (22.2%), at least 20% required\n"},
		{[]string{"--max-forfeit", "4"}, 1, "  FAIL  max-forfeit: score forfeited 5 in total exceeds the limit of 4\n"},
		{[]string{"--max-forfeit", "5"}, 0, "  pass  max-forfeit: score forfeited 5 in total, at most 5 allowed\n"},
		{[]string{"--fail-on", "progress_velocity/termination"}, 1, "  FAIL  fail-on progress_velocity/termination: progress_velocity/termination fired 2 times in 2 episodes: A (1), B (1)\n"},
		{[]string{"--fail-on", "progress_velocity/termination@C,B"}, 1, "  FAIL  fail-on progress_velocity/termination@C,B: progress_velocity/termination fired 1 time in 1 episode matching C,B: B (1)\n"},
		{[]string{"--fail-on", "progress_velocity/termination@C"}, 0, "  pass  fail-on progress_velocity/termination@C: progress_velocity/termination never fired in episodes matching C\n"},
		// C is the winning episode: no action of it may be rejected.
		{[]string{"--fail-on", "score_adjustment/adjustment:rejected@C"}, 1, "  FAIL  fail-on score_adjustment/adjustment:rejected@C: score_adjustment/adjustment would reject an action 37 times in 1 episode matching C: C (37)\n"},
		{[]string{"--fail-on", "stuck_warnings/warning@C"}, 0, "  pass  fail-on stuck_warnings/warning@C: stuck_warnings/warning never fired in episodes matching C\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			for _, extra := range [][]string{nil, {"--no-baseline"}} {
				args := append(append(append([]string{}, c.args...), extra...), "eps")
				code, out, errOut := runCheck(t, dir, args...)
				if code != c.code {
					t.Errorf("%v: exit %d, want %d\n%s%s", extra, code, c.code, out, errOut)
				}
				if !strings.Contains(out, "Policy gates:\n"+c.want) {
					t.Errorf("%v: output lacks %q:\n%s", extra, c.want, out)
				}
			}
		})
	}
	// All gates at once; the summary counts them.
	code, out, _ := runCheck(t, dir, "--max-false-rate", "5%", "--min-saved", "20%", "--max-forfeit", "10", "--fail-on", "camping/detection", "eps")
	if code != 1 || firstLine(out) != "FAIL: 3 episodes match loopbreak.baseline.json; 2 of 4 policy gates failed" {
		t.Errorf("exit %d\n%s", code, out)
	}
	// A failing gate fails --update too, but the baseline is written.
	os.Remove(filepath.Join(dir, "loopbreak.baseline.json"))
	if code, out, _ := runCheck(t, dir, "--update", "--max-false-rate", "5%", "eps"); code != 1 || !strings.HasPrefix(out, "FAIL: wrote loopbreak.baseline.json: 3 episodes") {
		t.Errorf("update with a failing gate: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "loopbreak.baseline.json")); err != nil {
		t.Error(err)
	}
}

func TestCheckUsageErrors(t *testing.T) {
	dir := updatedCorpus(t)
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no args", nil, "requires at least 1 arg"},
		{"bad format", []string{"--format", "xml", "eps"}, `--format "xml": want one of text, json, junit, github, markdown`},
		{"bad color", []string{"--color", "pink", "eps"}, `--color "pink"`},
		{"ambiguous percent", []string{"--max-false-rate", "5", "eps"}, `invalid argument "5" for "--max-false-rate" flag: ambiguous: write 5% for a percentage, or 0.05 for a fraction`},
		{"percent too big", []string{"--min-saved", "140%", "eps"}, `invalid argument "140%" for "--min-saved" flag: want a percentage from 0% to 100%`},
		{"not a percent", []string{"--min-saved", "lots", "eps"}, `invalid argument "lots" for "--min-saved" flag: want a percentage (5%) or a fraction (0.05)`},
		{"fraction too big", []string{"--min-saved", "140", "eps"}, `invalid argument "140" for "--min-saved" flag: want a percentage from 0% to 100% or a fraction from 0 to 1`},
		{"not a number", []string{"--max-forfeit", "ten", "eps"}, `want a number, got "ten"`},
		{"unknown rule", []string{"--fail-on", "loop/termination", "eps"}, `--fail-on "loop/termination": unknown rule "loop"`},
		{"unknown kind", []string{"--fail-on", "camping/camp", "eps"}, `rule camping has no kind "camp" (kinds: detection)`},
		{"no kind", []string{"--fail-on", "camping", "eps"}, "want RULE/KIND[:rejected][@EPISODES]"},
		{"never rejects", []string{"--fail-on", "camping/detection:rejected", "eps"}, "camping/detection never rejects an action"},
		{"update and no baseline", []string{"--update", "--no-baseline", "eps"}, "--update and --no-baseline: choose one"},
		{"missing baseline", []string{"--baseline", "absent.json", "eps"}, "baseline absent.json does not exist: create it with loopbreak check --update"},
		{"bad set", []string{"--set", "max_turns_stuck=abc", "eps"}, "--set max_turns_stuck: must be an integer"},
		{"missing dir", []string{"nowhere"}, "nowhere: no such file"},
		{"empty dir", []string{"empty"}, "no logs found in "},
	}
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCheck(t, dir, c.args...)
			if code != ExitError {
				t.Errorf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if !strings.Contains(errOut, c.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut, c.wantErr)
			}
		})
	}
	// A corrupt baseline is an error naming the line.
	writeFile(t, filepath.Join(dir, "bad.json"), "{\n  \"schema_version\": 1,\n  \"episodes\": [\n    {,\n")
	if code, _, errOut := runCheck(t, dir, "--baseline", "bad.json", "eps"); code != ExitError || !strings.Contains(errOut, "loopbreak: baseline bad.json: line 4: invalid character ','") {
		t.Errorf("corrupt baseline: exit %d, stderr %q", code, errOut)
	}
}

func TestCheckRunF(t *testing.T) {
	ios, _, _, _ := Test()
	var got *CheckOptions
	c := NewCmdCheck(ios, func(o *CheckOptions) error { got = o; return nil })
	c.SetArgs([]string{"--baseline", "ci/b.json", "--format", "junit", "--set", "max_turns_stuck=30", "--config", "pyproject.toml",
		"--max-false-rate", "5%", "--min-saved", "0.4", "--max-forfeit", "12.5", "--fail-on", "progress_velocity/termination",
		"--fail-on", "score_adjustment/adjustment:rejected@won-*", "--include-tests", "--strict", "-j", "2", "a", "b"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Baseline != "ci/b.json" || got.Format != "junit" || got.Config.Path != "pyproject.toml" || got.Config.Sets[0] != "max_turns_stuck=30" ||
		got.MaxFalseRate != (percentFlag{5, true}) || got.MinSaved != (percentFlag{40, true}) || got.MaxForfeit != (numberFlag{12.5, true}) ||
		len(got.failOn) != 2 || !got.failOn[1].Rejected || got.failOn[1].Episodes != "won-*" ||
		!got.Input.IncludeTests || !got.Input.Strict || got.Input.Jobs != 2 || strings.Join(got.Paths, ",") != "a,b" || got.Update || got.NoBaseline {
		t.Errorf("options %+v", got)
	}
	c = NewCmdCheck(ios, func(o *CheckOptions) error { got = o; return nil })
	c.SetArgs([]string{"x"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Baseline != check.DefaultBaseline || got.Format != "text" || got.MaxFalseRate.Given || got.MaxForfeit.Given || got.failOn != nil {
		t.Errorf("defaults %+v", got)
	}
}

// TestParsePercent: the one parser behind sweep's --max-false-rate and
// check's --max-false-rate and --min-saved.
func TestParsePercent(t *testing.T) {
	good := map[string]float64{"5%": 5, " 12.5 % ": 12.5, "0%": 0, "100%": 100, "0.05": 5, "1": 100, "0": 0, ".4": 40}
	for s, want := range good {
		if got, err := parsePercent(s); err != nil || got != want {
			t.Errorf("parsePercent(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	bad := map[string]string{
		"5":    "ambiguous: write 5% for a percentage, or 0.05 for a fraction",
		"1.5":  "ambiguous: write 1.5% for a percentage, or 0.015 for a fraction",
		"140":  "want a percentage from 0% to 100% or a fraction from 0 to 1",
		"Inf":  "want a percentage from 0% to 100% or a fraction from 0 to 1",
		"-1%":  "want a percentage from 0% to 100%",
		"101%": "want a percentage from 0% to 100%",
		"NaN%": "want a percentage from 0% to 100%",
		"%":    "want a percentage from 0% to 100%",
		"-0.1": "want a percentage (5%) or a fraction (0.05)",
		"NaN":  "want a percentage (5%) or a fraction (0.05)",
		"":     "want a percentage (5%) or a fraction (0.05)",
		"few":  "want a percentage (5%) or a fraction (0.05)",
	}
	for s, want := range bad {
		if got, err := parsePercent(s); err == nil || err.Error() != want {
			t.Errorf("parsePercent(%q) = %v, %v; want error %q", s, got, err, want)
		}
	}
	var p percentFlag
	if p.String() != "" || p.Ptr() != nil {
		t.Errorf("unset flag: %q %v", p.String(), p.Ptr())
	}
	if err := p.Set("0.125"); err != nil || p.String() != "12.5%" || *p.Ptr() != 12.5 {
		t.Errorf("Set(0.125): %v %q", err, p.String())
	}
}

func TestCheckStdinAndDuplicates(t *testing.T) {
	dir := checkCorpus(t, t.TempDir())
	log := checkLog("S", 60, map[int]int{3: 5})
	t.Chdir(dir)
	ios, in, out, errOut := Test()
	in.WriteString(log)
	// The same file named twice is read once.
	if code := Main([]string{"check", "--update", "-", "eps", "eps/A/episode_log.jsonl"}, ios); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile("loopbreak.baseline.json")
	b, _ := check.ParseBaseline(data)
	if len(b.Episodes) != 4 || b.Episodes[3].EpisodeID != "S" || b.Episodes[3].Source != "-" || b.Episodes[3].LogHash != check.HashBytes([]byte(log)) {
		t.Errorf("baseline:\n%s", data)
	}
	ios, in, out, _ = Test()
	in.WriteString(log)
	if code := Main([]string{"check", "-", "eps"}, ios); code != 0 {
		t.Errorf("compare with stdin: exit %d\n%s", code, out)
	}
}

// Two files holding one episode id are two entries, named with their
// source.
func TestCheckDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "eps", "run1", "episode_log.jsonl"), checkLog("E", 60, map[int]int{3: 5}))
	writeFile(t, filepath.Join(dir, "eps", "run2", "episode_log.jsonl"), checkLog("E", 70, map[int]int{3: 5}))
	if code, out, errOut := runCheck(t, dir, "--update", "eps"); code != 0 {
		t.Fatal(out, errOut)
	}
	code, out, _ := runCheck(t, dir, "--set", "max_turns_stuck=50", "eps")
	if code != 1 || !strings.Contains(out, "  E (eps/run1/episode_log.jsonl): termination moved t=50 → t=60 (turns saved 10 → 0)\n") ||
		!strings.Contains(out, "  E (eps/run2/episode_log.jsonl): termination moved t=50 → t=60 (turns saved 20 → 10)\n") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestCheckJSONFormat(t *testing.T) {
	dir := updatedCorpus(t)
	code, out, errOut := runCheck(t, dir, "--format", "json", "--set", "max_turns_stuck=50", "--max-forfeit", "10", "eps")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Result        string                    `json:"result"`
		Summary       string                    `json:"summary"`
		Baseline      string                    `json:"baseline"`
		ConfigChanges []report.ConfigChangeJSON `json:"config_changes"`
		Episodes      []struct {
			EpisodeID string `json:"episode_id"`
			Status    string `json:"status"`
			Path      string `json:"path"`
			Drift     []struct {
				Field             string
				Baseline, Current any
				Message           string
			}
		} `json:"episodes"`
		Gates  []report.GateJSON `json:"gates"`
		Totals analyze.Totals    `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Result != "fail" || doc.Baseline != "loopbreak.baseline.json" || len(doc.Episodes) != 3 || doc.Episodes[0].Status != "changed" ||
		doc.Episodes[0].Drift[0].Field != "termination_turn" || doc.Episodes[0].Drift[0].Baseline != 50.0 || doc.Episodes[0].Drift[0].Current != 60.0 ||
		doc.Episodes[2].Status != "unchanged" || doc.Episodes[0].Path != filepath.Join("eps", "A", "episode_log.jsonl") ||
		len(doc.ConfigChanges) != 1 || string(doc.ConfigChanges[0].Current) != "50" || len(doc.Gates) != 1 || !doc.Gates[0].Passed || doc.Totals.Episodes != 3 {
		t.Errorf("document %+v", doc)
	}
	// The verdict also goes to stderr, for the CI log.
	if errOut != "loopbreak check: "+doc.Summary+"\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestCheckGitHubFormat(t *testing.T) {
	dir := updatedCorpus(t)
	code, out, errOut := runCheck(t, dir, "--format", "github", "--set", "max_turns_stuck=50", "--max-false-rate", "5%", "eps")
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := `::notice title=loopbreak check::FAIL: 2 of 3 episodes drifted from loopbreak.baseline.json (2 changed, 0 new, 0 missing); configuration differs from the baseline's (max_turns_stuck); 1 of 1 policy gate failed
::warning title=loopbreak config::The configuration differs from the baseline's (this explains outcome drift): max_turns_stuck 40 → 50
::error file=eps/A/episode_log.jsonl,title=loopbreak drift::A: termination moved t=50 → t=60 (turns saved 10 → 0)
::error file=eps/A/episode_log.jsonl,title=loopbreak drift::A: check points 2 at t=50, 60 → t=60
::error file=eps/A/episode_log.jsonl,title=loopbreak drift::A: LLM calls saved 40 → 0
::error file=eps/A/episode_log.jsonl,title=loopbreak drift::A: actions that would be rejected 47 → 57
::error file=eps/B/episode_log.jsonl,title=loopbreak drift::B: termination moved t=50 → t=60 (turns saved 30 → 20)
::error file=eps/B/episode_log.jsonl,title=loopbreak drift::B: check points 2 at t=50, 60 → t=60
::error file=eps/B/episode_log.jsonl,title=loopbreak drift::B: LLM calls saved 120 → 80
::error file=eps/B/episode_log.jsonl,title=loopbreak drift::B: actions that would be rejected 47 → 57
::error title=loopbreak policy::max-false-rate: false terminations 1 of 2 terminated episodes (50.0%25) exceed the limit of 5%25
`
	if filepath.Separator != '/' {
		want = strings.ReplaceAll(want, "eps/A/", `eps\A\`)
		want = strings.ReplaceAll(want, "eps/B/", `eps\B\`)
	}
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// Every line is a workflow command.
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !regexp.MustCompile(`^::(notice|warning|error)( [a-z]+=[^:,]*(,[a-z]+=[^:,]*)*)?::[^\r\n]*$`).MatchString(l) {
			t.Errorf("not a workflow command: %q", l)
		}
	}
}

func TestCheckMarkdownFormat(t *testing.T) {
	dir := updatedCorpus(t)
	code, out, _ := runCheck(t, dir, "--format", "markdown", "--set", "max_turns_stuck=50", "eps")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"### ❌ loopbreak check: FAIL\n",
		"| episode | status | change |\n| --- | --- | --- |\n| `A` | changed | termination moved t=50 → t=60 (turns saved 10 → 0) |\n|  |  | check points 2 at t=50, 60 → t=60 |\n",
		"- `max_turns_stuck`: `40` → `50`\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCheck(t, dir, "--format", "markdown", "eps")
	if code != 0 || !strings.HasPrefix(out, "### ✅ loopbreak check: PASS\n\n3 episodes match `loopbreak.baseline.json`.\n") || strings.Contains(out, "| episode") {
		t.Errorf("pass: exit %d\n%s", code, out)
	}
}

// xmlNode is a generic XML element, for schema validation.
type xmlNode struct {
	Name     string
	Attrs    map[string]string
	Children []*xmlNode
	Text     string
}

func parseXML(t *testing.T, data []byte) *xmlNode {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{Name: x.Name.Local, Attrs: map[string]string{}}
			if x.Name.Space != "" {
				t.Errorf("element %s in namespace %s", x.Name.Local, x.Name.Space)
			}
			for _, a := range x.Attr {
				n.Attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root == nil {
				root = n
			} else {
				t.Fatal("two root elements")
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(x)
			}
		}
	}
	if root == nil {
		t.Fatal("no root element")
	}
	return root
}

// junitSchema is the common JUnit XML schema (Jenkins' junit-10.xsd):
// per element, its attributes (required ones marked with !), and its
// children in sequence order with their maximum count (0 = unbounded).
var junitSchema = map[string]struct {
	attrs    []string
	children []string
	max      []int
	text     bool
}{
	"testsuites": {attrs: []string{"name", "time", "tests", "failures", "disabled", "errors"}, children: []string{"testsuite"}, max: []int{0}},
	"testsuite": {attrs: []string{"name!", "tests!", "failures", "errors", "group", "time", "disabled", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url", "version"},
		children: []string{"properties", "testcase", "system-out", "system-err"}, max: []int{1, 0, 1, 1}},
	"properties": {children: []string{"property"}, max: []int{0}},
	"property":   {attrs: []string{"name!", "value!"}},
	"testcase": {attrs: []string{"name!", "assertions", "time", "classname", "status"},
		children: []string{"skipped", "error", "failure", "system-out", "system-err"}, max: []int{1, 0, 0, 0, 0}},
	"skipped":    {attrs: []string{"message"}, text: true},
	"error":      {attrs: []string{"message", "type"}, text: true},
	"failure":    {attrs: []string{"message", "type"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

var (
	junitInt  = regexp.MustCompile(`^[0-9]+$`)
	junitTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$`) // SUREFIRE_TIME
)

func validateJUnit(t *testing.T, n *xmlNode, path string) {
	t.Helper()
	path += "/" + n.Name
	s, ok := junitSchema[n.Name]
	if !ok {
		t.Errorf("%s: element not in the schema", path)
		return
	}
	allowed := map[string]bool{}
	for _, a := range s.attrs {
		name, required := strings.CutSuffix(a, "!")
		allowed[name] = true
		if _, has := n.Attrs[name]; required && !has {
			t.Errorf("%s: required attribute %s missing", path, name)
		}
	}
	for a, v := range n.Attrs {
		switch {
		case !allowed[a]:
			t.Errorf("%s: attribute %s not in the schema", path, a)
		case slices.Contains([]string{"tests", "failures", "errors", "skipped", "disabled"}, a) && !junitInt.MatchString(v):
			t.Errorf("%s: %s=%q is not a non-negative integer", path, a, v)
		case a == "time" && !junitTime.MatchString(v):
			t.Errorf("%s: time=%q is not a SUREFIRE_TIME", path, v)
		}
	}
	if !s.text && strings.TrimSpace(n.Text) != "" {
		t.Errorf("%s: text where the schema allows none: %q", path, n.Text)
	}
	pos, count := 0, 0
	for _, c := range n.Children {
		i := slices.Index(s.children, c.Name)
		switch {
		case i < 0:
			t.Errorf("%s: child %s not allowed", path, c.Name)
			continue
		case i < pos:
			t.Errorf("%s: child %s out of sequence order %v", path, c.Name, s.children)
		case i > pos:
			pos, count = i, 0
		}
		count++
		if s.max[i] > 0 && count > s.max[i] {
			t.Errorf("%s: more than %d %s", path, s.max[i], c.Name)
		}
		validateJUnit(t, c, path)
	}
}

// junitDoc mirrors the schema's structure for the counts.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Time     string `xml:"time,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
		SystemOut string `xml:"system-out"`
	} `xml:"testsuite"`
}

func checkJUnit(t *testing.T, data []byte) junitDoc {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n")) {
		t.Errorf("no XML declaration: %.60q", data)
	}
	validateJUnit(t, parseXML(t, data), "")
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d testsuites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	fails := 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			fails++
			if c.Failure.Message == "" || c.Failure.Type == "" || strings.TrimSpace(c.Failure.Text) == "" {
				t.Errorf("testcase %s: empty failure %+v", c.Name, c.Failure)
			}
		}
		if c.Name == "" || c.Time != "0" || (c.Classname != "loopbreak.episode" && c.Classname != "loopbreak.policy") {
			t.Errorf("testcase %+v", c)
		}
	}
	if s.Name != "loopbreak check" || s.Tests != len(s.Cases) || s.Failures != fails || s.Errors != 0 || s.Skipped != 0 || s.Time != "0" ||
		doc.Tests != s.Tests || doc.Failures != s.Failures || doc.Errors != 0 {
		t.Errorf("counts: testsuites %d/%d/%d, testsuite %q %d/%d/%d/%d, %d cases with %d failures",
			doc.Tests, doc.Failures, doc.Errors, s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), fails)
	}
	return doc
}

func TestCheckJUnitFormat(t *testing.T) {
	dir := updatedCorpus(t)
	code, out, errOut := runCheck(t, dir, "--format", "junit", "--set", "max_turns_stuck=50", "--max-false-rate", "5%", "--min-saved", "1%",
		"--fail-on", "score_adjustment/adjustment:rejected@C", "eps")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	doc := checkJUnit(t, []byte(out))
	s := doc.Suites[0]
	var names []string
	for _, c := range s.Cases {
		status := "ok"
		if c.Failure != nil {
			status = c.Failure.Type + ": " + c.Failure.Message
		}
		names = append(names, c.Classname+" "+c.Name+" "+status)
	}
	want := []string{
		"loopbreak.episode A drift: termination moved t=50 → t=60 (turns saved 10 → 0) (and 3 more)",
		"loopbreak.episode B drift: termination moved t=50 → t=60 (turns saved 30 → 20) (and 3 more)",
		"loopbreak.episode C ok",
		"loopbreak.policy max-false-rate policy: false terminations 1 of 2 terminated episodes (50.0%) exceed the limit of 5%",
		"loopbreak.policy min-saved ok",
		"loopbreak.policy fail-on score_adjustment/adjustment:rejected@C policy: score_adjustment/adjustment would reject an action 37 times in 1 episode matching C: C (37)",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("testcases\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if got := s.Cases[0].Failure.Text; got != "A: termination moved t=50 → t=60 (turns saved 10 → 0)\nA: check points 2 at t=50, 60 → t=60\nA: LLM calls saved 40 → 0\nA: actions that would be rejected 47 → 57" {
		t.Errorf("failure text %q", got)
	}
	if !strings.HasPrefix(s.SystemOut, "FAIL: 2 of 3 episodes drifted") || !strings.Contains(s.SystemOut, "max_turns_stuck 40 → 50") {
		t.Errorf("system-out %q", s.SystemOut)
	}
	if !strings.HasPrefix(errOut, "loopbreak check: FAIL: ") {
		t.Errorf("stderr %q", errOut)
	}
	// Passing, with no gate: one testcase per episode, no failure.
	code, out, _ = runCheck(t, dir, "--format", "junit", "eps")
	if doc := checkJUnit(t, []byte(out)); code != 0 || doc.Tests != 3 || doc.Failures != 0 {
		t.Errorf("pass: exit %d, %d tests, %d failures", code, doc.Tests, doc.Failures)
	}
}

// TestCheckReadmeExamples runs the examples as written.
func TestCheckReadmeExamples(t *testing.T) {
	dir := t.TempDir()
	checkEpisodes(t, filepath.Join(dir, "testdata", "episodes"))
	checkEpisodes(t, filepath.Join(dir, "eps"))
	writeFile(t, filepath.Join(dir, "pyproject.toml"), "[tool.zorkgpt.loop_break]\nmax_turns_stuck = 40\n")
	steps := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--update", "testdata/episodes/"}, 0, "PASS: wrote loopbreak.baseline.json: 3 episodes"},
		{[]string{"testdata/episodes/"}, 0, "PASS: 3 episodes match loopbreak.baseline.json"},
		// eps/ holds the same logs at other paths: every one moved.
		{[]string{"--config", "pyproject.toml", "--max-false-rate", "5%", "--min-saved", "40%", "eps/"}, 1,
			"FAIL: 3 of 3 episodes drifted from loopbreak.baseline.json (3 changed, 0 new, 0 missing); 2 of 2 policy gates failed"},
		{[]string{"--format", "junit", "eps/"}, 1, `<testsuite name="loopbreak check" tests="3" failures="3" errors="0" skipped="0" time="0">`},
		{[]string{"--format", "github", "eps/"}, 1, "::error file=eps/A/episode_log.jsonl,title=loopbreak drift::A: log moved: testdata/episodes/A/episode_log.jsonl → eps/A/episode_log.jsonl"},
	}
	for _, s := range steps {
		code, out, errOut := runCheck(t, dir, s.args...)
		if code != s.code || !strings.Contains(out, s.want) {
			t.Errorf("check %s: exit %d (want %d)\n%s%s\nwant %q", strings.Join(s.args, " "), code, s.code, out, errOut, s.want)
		}
	}
}

// checkBaseline is the committed baseline of the test episodes, which
// .ci/run checks (loopbreak's own regression gate).
const checkBaseline = "../testdata/check/episodes.baseline.json"

// TestCheckGolden pins the committed baseline of testdata/episodes and the
// reports of a threshold change in every format. go test ./cmd -update
// rewrites the baseline and the reports.
func TestCheckGolden(t *testing.T) {
	if *update {
		if code, out, errOut := runCheck(t, "", "--update", "--baseline", checkBaseline, episodesDir); code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
	}
	// The baseline matches the episodes, and this machine writes the same
	// bytes: --update on a copy beside it finds nothing to change.
	code, out, errOut := runCheck(t, "", "--baseline", checkBaseline, episodesDir)
	if code != 0 {
		t.Fatalf("the committed baseline drifted (go test ./cmd -update accepts the change after review): exit %d\n%s%s", code, out, errOut)
	}
	golden(t, "check/pass.txt", out)
	committed, err := os.ReadFile(checkBaseline)
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(checkBaseline), ".baseline-copy-*.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(tmp.Name()) })
	tmp.Write(committed)
	tmp.Close()
	if code, out, _ := runCheck(t, "", "--update", "--baseline", tmp.Name(), episodesDir); code != 0 || !strings.Contains(firstLine(out), "is up to date") {
		t.Errorf("the committed baseline is not what --update writes here: exit %d\n%s", code, out)
	}

	drift := []string{"--baseline", checkBaseline, "--set", "max_turns_stuck=50", "--max-false-rate", "5%", "--min-saved", "40%", "--max-forfeit", "50",
		"--fail-on", "score_adjustment/adjustment:rejected@2025-11-05T*", "--fail-on", "progress_velocity/termination@2025-11-06T*", episodesDir}
	for _, f := range []struct{ format, ext string }{{"text", "txt"}, {"json", "json"}, {"junit", "xml"}, {"github", "github"}, {"markdown", "md"}} {
		t.Run(f.format, func(t *testing.T) {
			code, out, errOut := runCheck(t, "", append([]string{"--format", f.format}, drift...)...)
			if code != ExitFailure {
				t.Fatalf("exit %d, want 1\n%s", code, errOut)
			}
			if f.format == "junit" {
				checkJUnit(t, []byte(out))
			}
			golden(t, "check/drift."+f.ext, out)
		})
	}
}

// TestCheckCommittedBaselineFormat: the committed baseline is what a
// reviewer should see: relative sources, one block per episode, sorted.
func TestCheckCommittedBaselineFormat(t *testing.T) {
	data, err := os.ReadFile(checkBaseline)
	if err != nil {
		t.Fatal(err)
	}
	b, err := check.ParseBaseline(data)
	if err != nil {
		t.Fatal(err)
	}
	b.Sort()
	if !bytes.Equal(b.Encode(), data) {
		t.Error("the committed baseline is not in canonical form")
	}
	for i, e := range b.Episodes {
		if !strings.HasPrefix(e.Source, "../episodes/") || !strings.HasSuffix(e.Source, "/episode_log.jsonl") {
			t.Errorf("episode %d: source %q", i, e.Source)
		}
	}
	if n := strings.Count(string(data), `"episode_id"`); n != len(b.Episodes) || n < 5 {
		t.Errorf("%d episode blocks", n)
	}
	if !strings.Contains(string(data), `"max_turns_stuck": `+strconv.Itoa(40)) {
		t.Error("baseline lacks the deployed configuration")
	}
}

// Each JSON document states its own schema version: check's is 2 since
// its drift values became typed JSON values (strings of JSON in 1); the
// others are still 1 (docs/output.md, "Schema versions").
func TestSchemaVersions(t *testing.T) {
	version := func(args ...string) int {
		t.Helper()
		code, out, errOut := run(t, "", "", args...)
		if code != 0 && code != ExitFailure {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var doc struct {
			V *int `json:"schema_version"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.V == nil {
			t.Fatalf("%v: no schema_version (%v): %.200s", args, err, out)
		}
		return *doc.V
	}
	if v := version("check", "--format", "json", "--baseline", checkBaseline, "--set", "max_turns_stuck=50", episodesDir); v != 2 {
		t.Errorf("check --format json: schema_version %d, want 2", v)
	}
	for _, args := range [][]string{
		{"analyze", "--format", "json", episodesDir},
		{"sweep", "--format", "json", "--max-stuck", "30,40", episodesDir},
		{"config", "--format", "json"},
	} {
		if v := version(args...); v != 1 {
			t.Errorf("%v: schema_version %d, want 1", args, v)
		}
	}
}
