package cmd

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes loopbreak with args in dir (for config discovery) and
// returns exit code, stdout and stderr.
func run(t *testing.T, dir string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ios, in, out, errOut := Test()
	in.WriteString(stdin)
	if dir != "" {
		t.Chdir(dir)
	}
	code := Main(args, ios)
	return code, out.String(), errOut.String()
}

// stuckLog writes a small id-keyed episode: score 5 at turn 3, then stuck
// until turn n, walking between two rooms.
func stuckLog(id string, n int) string {
	var b strings.Builder
	rooms := map[int]string{10: "West of House", 11: "North of House"}
	loc := 10
	fmt.Fprintf(&b, `{"timestamp":"2025-11-01T21:48:15.000000","level":"INFO","message":"start","event_type":"episode_initialized","episode_id":%q,"max_turns":500}`+"\n", id)
	score := 0
	for t := 1; t <= n; t++ {
		act := "north"
		if loc == 11 {
			act = "south"
		}
		to := 21 - loc
		fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"m","event_type":"final_action_selection","episode_id":%q,"turn":%d,"agent_action":%q,"critic_confidence":0.9}`+"\n", id, t, act)
		fmt.Fprintf(&b, `{"timestamp":"x","level":"DEBUG","message":"noise line without event"}`+"\n")
		fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"m","event_type":"map_movement_update","episode_id":%q,"turn":%d,"from_room_id":%d,"from_room":%q,"to_room_id":%d,"to_room":%q}`+"\n", id, t, loc, rooms[loc], to, rooms[to])
		loc = to
		if t == 3 {
			score = 5
		}
		fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"m","event_type":"turn_completed","episode_id":%q,"turn":%d,"action":%q,"score":%d,"location":%q}`+"\n", id, t, act, score, rooms[loc])
	}
	fmt.Fprintf(&b, `{"timestamp":"x","level":"INFO","message":"done","event_type":"episode_completed","episode_id":%q,"turn":%d,"final_score":%d,"game_over":false,"reason":"max_turns"}`+"\n", id, n, score)
	return b.String()
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAnalyzeFlags(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), stuckLog("E1", 60))
	cases := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"no args", []string{"analyze"}, 2, "requires at least 1 arg"},
		{"bad format", []string{"analyze", "--format", "yaml", log}, 2, `--format "yaml": want one of text, json, jsonl, parquet`},
		{"bad color", []string{"analyze", "--color", "sometimes", log}, 2, `--color "sometimes"`},
		{"unknown flag", []string{"analyze", "--nope", log}, 2, "unknown flag: --nope"},
		{"missing file", []string{"analyze", filepath.Join(dir, "absent.jsonl")}, 2, "absent.jsonl: no such file"},
		{"bad set key", []string{"analyze", "--set", "max_turns_stuk=30", log}, 2, "--set max_turns_stuk: unknown key (did you mean max_turns_stuck?)"},
		{"bad set value", []string{"analyze", "--set", "max_turns_stuck=abc", log}, 2, `--set max_turns_stuck: must be an integer, got "abc"`},
		{"constraint", []string{"analyze", "--set", "stuck_warning_threshold=50", log}, 2, "--set stuck_warning_threshold: stuck_warning_threshold (50) must be < max_turns_stuck (40)"},
		{"range", []string{"analyze", "--set", "location_revisit_window=30", log}, 2, "--set location_revisit_window: must be in [2, 20], got 30"},
		{"empty dir", []string{"analyze", t.TempDir()}, 2, "no logs found in "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, dir, "", c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.wantErr) {
				t.Errorf("stderr %q does not contain %q", stderr, c.wantErr)
			}
		})
	}
}

func TestAnalyzeRunF(t *testing.T) {
	ios, _, _, _ := Test()
	var got *AnalyzeOptions
	c := NewCmdAnalyze(ios, func(o *AnalyzeOptions) error { got = o; return nil })
	c.SetArgs([]string{"--format", "json", "--set", "max_turns_stuck=30", "--set", "camping_window=8", "--include-tests", "--strict", "-j", "3", "-v", "a", "b"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Format != "json" || !got.Input.IncludeTests || !got.Input.Strict || got.Input.Jobs != 3 || !got.Verbose ||
		strings.Join(got.Paths, ",") != "a,b" || strings.Join(got.Config.Sets, ",") != "max_turns_stuck=30,camping_window=8" {
		t.Errorf("options %+v", got)
	}
}

type analyzeDoc struct {
	SchemaVersion int            `json:"schema_version"`
	Config        map[string]any `json:"config"`
	Episodes      []struct {
		EpisodeID   string `json:"episode_id"`
		Termination *struct {
			Turn int `json:"turn"`
		} `json:"termination"`
		TurnsSaved     int    `json:"turns_saved"`
		LLMCallsSaved  int    `json:"llm_calls_saved"`
		LLMCallsMethod string `json:"llm_calls_method"`
		LocationKey    string `json:"location_key"`
		Diagnostics    struct {
			Lines    int      `json:"lines"`
			Skipped  int      `json:"skipped"`
			Problems []string `json:"problems"`
		} `json:"diagnostics"`
		Firings []map[string]any `json:"firings"`
	} `json:"episodes"`
	Totals map[string]any `json:"totals"`
	Errors []any          `json:"errors"`
}

func decodeAnalyze(t *testing.T, s string) analyzeDoc {
	t.Helper()
	var d analyzeDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, s)
	}
	return d
}

func TestAnalyzeJSONInputs(t *testing.T) {
	dir := t.TempDir()
	content := stuckLog("E1", 60)
	plain := writeFile(t, filepath.Join(dir, "plain", "episode_log.jsonl"), content)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(content))
	zw.Close()
	gzPath := writeFile(t, filepath.Join(dir, "gz", "episode_log.jsonl.gz"), gz.String())

	for _, c := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"file", "", []string{plain}},
		{"gzip", "", []string{gzPath}},
		{"stdin", content, []string{"-"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, dir, c.stdin, append([]string{"analyze", "--format", "json"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			d := decodeAnalyze(t, out)
			if d.SchemaVersion != 1 || len(d.Episodes) != 1 {
				t.Fatalf("doc %+v", d)
			}
			e := d.Episodes[0]
			// Score changes at 3; stuck 37 at 40, 47 at 50: terminated at 50.
			if e.EpisodeID != "E1" || e.Termination == nil || e.Termination.Turn != 50 || e.TurnsSaved != 10 || e.LLMCallsSaved != 40 || e.LLMCallsMethod != "estimated" || e.LocationKey != "room_id" {
				t.Errorf("episode %+v", e)
			}
			if e.Diagnostics.Skipped != 0 || e.Diagnostics.Lines != 60*4+2 {
				t.Errorf("diagnostics %+v", e.Diagnostics)
			}
			if d.Config["max_turns_stuck"] != float64(40) {
				t.Errorf("config %v", d.Config)
			}
		})
	}
}

func TestAnalyzeBadLinesAndStrict(t *testing.T) {
	dir := t.TempDir()
	content := stuckLog("E1", 60)
	lines := strings.Split(content, "\n")
	lines[5] = `{"event_type": "turn_completed", "turn": 2, "score": 0, oops}`
	bad := strings.Join(lines, "\n") + `{"event_type": "turn_comp`
	path := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), bad)

	code, out, stderr := run(t, dir, "", "analyze", "--format", "json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	e := decodeAnalyze(t, out).Episodes[0]
	if e.Diagnostics.Skipped != 2 || len(e.Diagnostics.Problems) != 2 {
		t.Fatalf("diagnostics %+v", e.Diagnostics)
	}
	if want := path + ":6: invalid JSON"; !strings.HasPrefix(e.Diagnostics.Problems[0], want) {
		t.Errorf("problem %q, want prefix %q", e.Diagnostics.Problems[0], want)
	}
	if want := path + ":243: truncated final line"; !strings.HasPrefix(e.Diagnostics.Problems[1], want) {
		t.Errorf("problem %q, want prefix %q", e.Diagnostics.Problems[1], want)
	}

	code, _, stderr = run(t, dir, "", "analyze", "--strict", path)
	if code != 2 || !strings.Contains(stderr, path+":6: invalid JSON") {
		t.Errorf("strict: exit %d, stderr %q", code, stderr)
	}
}

func TestAnalyzeTreeSkipsTests(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "eps", "2025-01-01T00:00:00", "episode_log.jsonl"), stuckLog("A", 20))
	writeFile(t, filepath.Join(dir, "eps", "test_smoke", "episode_log.jsonl"), stuckLog("T", 20))
	writeFile(t, filepath.Join(dir, "eps", "test-other", "episode_log.jsonl"), stuckLog("T2", 20))
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"analyze", "--format", "jsonl", "eps"}, 1},
		{[]string{"analyze", "--format", "jsonl", "--include-tests", "eps"}, 3},
	} {
		code, out, stderr := run(t, dir, "", c.args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		n := strings.Count(out, "\n")
		if n != c.want {
			t.Errorf("%v: %d episodes, want %d:\n%s", c.args, n, c.want, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil || m["episode_id"] == nil {
				t.Errorf("jsonl line %q: %v", line, err)
			}
		}
	}
}

func TestAnalyzeConfigFiles(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), stuckLog("E1", 60))
	pyproject := "[project]\nname = \"zorkgpt\"\n\n[tool.zorkgpt.loop_break]\nmax_turns_stuck = 30\nfuture_knob = 3\n"
	writeFile(t, filepath.Join(dir, "pyproject.toml"), pyproject)

	// Discovered pyproject: unknown keys are warnings with their line.
	code, out, stderr := run(t, dir, "", "analyze", "--format", "json", log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "warning: pyproject.toml:6: unknown key future_knob (ignored)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	if e := decodeAnalyze(t, out).Episodes[0]; e.Termination == nil || e.Termination.Turn != 40 {
		t.Errorf("max_turns_stuck=30 from pyproject not applied: %+v", e.Termination)
	}

	// loopbreak.toml wins over pyproject and is strict about unknown keys.
	writeFile(t, filepath.Join(dir, "loopbreak.toml"), "[loop_break]\nmax_turns_stuck = 40\ncamping_treshold = 4\n")
	code, _, stderr = run(t, dir, "", "analyze", log)
	if code != 2 || !strings.Contains(stderr, "loopbreak.toml:3: unknown key camping_treshold (did you mean camping_threshold?)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	writeFile(t, filepath.Join(dir, "loopbreak.toml"), "[loop_break]\nmax_turns_stuck = \"forty\"\n")
	code, _, stderr = run(t, dir, "", "analyze", log)
	if code != 2 || !strings.Contains(stderr, `loopbreak.toml:2: max_turns_stuck must be an integer, got string "forty"`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	writeFile(t, filepath.Join(dir, "loopbreak.toml"), "[loop_break]\nmax_turns_stuck = 10\nstuck_check_interval = 20\n")
	code, _, stderr = run(t, dir, "", "analyze", log)
	if code != 2 || !strings.Contains(stderr, "loopbreak.toml:2: max_turns_stuck (10) must be >= stuck_check_interval (20)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	// --set overrides the file.
	code, out, stderr = run(t, dir, "", "analyze", "--format", "json", "--set", "max_turns_stuck=60", "--set", "stuck_check_interval=10", log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if e := decodeAnalyze(t, out).Episodes[0]; e.Termination != nil {
		t.Errorf("max_turns_stuck=60 should not terminate a 60-turn episode stuck since 3: %+v", e.Termination)
	}
}

func TestAnalyzeColor(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), stuckLog("E1", 60))
	esc := "\x1b["
	for _, c := range []struct {
		name    string
		tty     bool
		noColor string
		flag    string
		want    bool
	}{
		{"pipe", false, "", "auto", false},
		{"tty", true, "", "auto", true},
		{"tty NO_COLOR", true, "1", "auto", false},
		{"always", false, "", "always", true},
		{"never on tty", true, "", "never", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, _, out, _ := Test()
			ios.StdoutTTY = c.tty
			ios.Getenv = func(k string) string {
				if k == "NO_COLOR" {
					return c.noColor
				}
				return ""
			}
			t.Chdir(dir)
			if code := Main([]string{"analyze", "--color", c.flag, log}, ios); code != 0 {
				t.Fatalf("exit %d", code)
			}
			if got := strings.Contains(out.String(), esc); got != c.want {
				t.Errorf("colour %v, want %v", got, c.want)
			}
		})
	}
}

// An empty file, or one without loop-break events, is a file error naming
// it (reported, exit 0; exit 2 with --strict), not an episode of 0 turns.
func TestAnalyzeNoEvents(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "a", "episode_log.jsonl"), stuckLog("A", 20))
	empty := writeFile(t, filepath.Join(dir, "b", "episode_log.jsonl"), "")
	other := writeFile(t, filepath.Join(dir, "c", "episode_log.jsonl"), `{"level": "INFO", "message": "not ZorkGPT"}`+"\n")
	code, out, stderr := run(t, dir, "", "analyze", "--format", "jsonl", good, empty, other)
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, %d episodes: %s", code, strings.Count(out, "\n"), stderr)
	}
	for _, want := range []string{"no loop-break events in " + empty + " (empty)", "no loop-break events in " + other + " (1 line, none"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if code, _, stderr := run(t, dir, "", "analyze", "--strict", good, empty); code != 2 || !strings.Contains(stderr, "no loop-break events in "+empty) {
		t.Errorf("strict: exit %d, %s", code, stderr)
	}
}

// Several logs are a corpus: its table first and a line saying how to see
// one episode; --detail (or -v) adds each episode in full.
func TestAnalyzeDirSummaryFirst(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		ios, _, out, errOut := Test()
		if code := Main(append([]string{"analyze"}, args...), ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out.String()
	}
	summary := run(episodesDir)
	if strings.Contains(summary, "\nEpisode ") || !strings.HasPrefix(summary, "config: defaults (no config found)") ||
		!strings.Contains(summary, "Corpus: 11 episodes") || !strings.Contains(summary, "every episode: --detail.") {
		t.Errorf("summary:\n%s", summary)
	}
	detail := run("--detail", episodesDir)
	if n := strings.Count(detail, "\nEpisode "); n != 11 || !strings.Contains(detail, "Corpus: 11 episodes") {
		t.Errorf("--detail: %d episodes in full, want 11:\n%s", n, detail)
	}
	if strings.Count(detail, "config: ") != 1 {
		t.Errorf("--detail: the config line once:\n%s", detail)
	}
}

// A log named twice (as is, through another spelling, inside a directory
// also named, or through a link) is read once.
func TestAnalyzeDedupesInputs(t *testing.T) {
	log := filepath.Join(episodesDir, "2025-11-04T09-35-24", "episode_log.jsonl")
	link := filepath.Join(t.TempDir(), "episode_log.jsonl")
	abs, _ := filepath.Abs(log)
	if err := os.Symlink(abs, link); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{
		{log, "./" + log},
		{log, link},
		{episodesDir, log},
	} {
		ios, _, out, errOut := Test()
		if code := Main(append([]string{"analyze", "--format", "json"}, args...), ios); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var doc struct {
			Episodes []struct {
				ID string `json:"episode_id"`
			} `json:"episodes"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range doc.Episodes {
			if seen[e.ID] {
				t.Errorf("%v: %s read twice", args, e.ID)
			}
			seen[e.ID] = true
		}
	}
}
