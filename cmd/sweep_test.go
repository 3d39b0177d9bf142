package cmd

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// runSweep runs `loopbreak args...` here and returns exit code, stdout and
// stderr.
func runSweep(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return run(t, "", "", args...)
}

func TestSweepFlags(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), stuckLog("E1", 60))
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no args", []string{"--max-stuck", "30"}, "requires at least 1 arg(s), only received 0"},
		{"nothing to sweep", []string{log}, "nothing to sweep: give --max-stuck, --check-interval, --warning-threshold or --grid key=values"},
		{"bad format", []string{"--max-stuck", "30", "--format", "yaml", log}, `--format "yaml": want one of text, table, json, csv`},
		{"bad color", []string{"--max-stuck", "30", "--color", "sometimes", log}, `--color "sometimes": want auto, always or never`},
		{"unknown flag", []string{"--max-stuk", "30", log}, "unknown flag: --max-stuk"},
		{"bad list", []string{"--max-stuck", "30,abc", log}, `--max-stuck "30,abc": must be an integer, got "abc"`},
		{"empty item", []string{"--check-interval", "5,,10", log}, `--check-interval "5,,10": empty value in the list`},
		{"out of bounds", []string{"--warning-threshold", "-1", log}, `--warning-threshold "-1": must be in [5, 100], got -1`},
		{"bad range", []string{"--max-stuck", "80:20:10", log}, `--max-stuck "80:20:10": range "80:20:10": start is above stop`},
		{"zero step", []string{"--max-stuck", "20:80:0", log}, `--max-stuck "20:80:0": range "20:80:0": step must be positive`},
		{"grid without =", []string{"--grid", "max_turns_stuck", log}, `--grid "max_turns_stuck": want key=values, e.g. max_turns_stuck=30,40,50`},
		{"grid unknown key", []string{"--grid", "max_turns_stuk=30,40", log}, `--grid "max_turns_stuk=30,40": unknown key "max_turns_stuk" (did you mean max_turns_stuck?)`},
		{"grid unknown key, no suggestion", []string{"--grid", "frobnicate=1", log}, `--grid "frobnicate=1": unknown key "frobnicate"`},
		{"grid bad bool", []string{"--grid", "enable_loop_detection=yes", log}, `--grid "enable_loop_detection=yes": must be true or false, got "yes"`},
		{"grid bool range", []string{"--grid", "enable_loop_detection=0:1:1", log}, `--grid "enable_loop_detection=0:1:1": range "0:1:1": enable_loop_detection is a boolean; give true,false`},
		{"grid float bounds", []string{"--grid", "rejection_threshold=0.5,1.5", log}, `--grid "rejection_threshold=0.5,1.5": must be in [0, 1], got 1.5`},
		{"swept twice", []string{"--max-stuck", "30", "--grid", "max_turns_stuck=40", log}, `--grid "max_turns_stuck=40": max_turns_stuck is already swept by --max-stuck`},
		{"swept twice, same flag", []string{"--max-stuck", "30", "--max-stuck", "40", log}, `--max-stuck "40": max_turns_stuck is already swept by --max-stuck`},
		{"false rate ambiguous", []string{"--max-stuck", "30", "--max-false-rate", "5", log}, `invalid argument "5" for "--max-false-rate" flag: ambiguous: write 5% for a percentage, or 0.05 for a fraction`},
		{"false rate not a number", []string{"--max-stuck", "30", "--max-false-rate", "few", log}, `invalid argument "few" for "--max-false-rate" flag: want a percentage (5%) or a fraction (0.05)`},
		{"false rate over 100%", []string{"--max-stuck", "30", "--max-false-rate", "150%", log}, `invalid argument "150%" for "--max-false-rate" flag: want a percentage from 0% to 100%`},
		{"bad set", []string{"--max-stuck", "30", "--set", "max_turns_stuk=30", log}, "--set max_turns_stuk: unknown key (did you mean max_turns_stuck?)"},
		{"base violates", []string{"--max-stuck", "30", "--set", "stuck_check_interval=50", log}, "--set stuck_check_interval: max_turns_stuck (40) must be >= stuck_check_interval (50)"},
		{"all combinations skipped", []string{"--max-stuck", "10,15", log}, "every combination of the grid violates a constraint, e.g. max_turns_stuck=10: stuck_warning_threshold (20) must be < max_turns_stuck (10)"},
		{"too many", []string{"--max-stuck", "20:1000:1", "--check-interval", "1:20:1", log}, "the grid has more than 10000 configurations"},
		{"missing file", []string{"--max-stuck", "30", filepath.Join(dir, "absent.jsonl")}, "absent.jsonl: no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runSweep(t, append([]string{"sweep"}, c.args...)...)
			if code != ExitError {
				t.Errorf("exit %d, want 2", code)
			}
			if out != "" {
				t.Errorf("stdout: %q", out)
			}
			if !strings.Contains(errOut, c.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut, c.wantErr)
			}
		})
	}
}

// TestSweepOptions checks what the flags become: grid flags in command-line
// order whatever their kind, values parsed, the rate in percent.
func TestSweepOptions(t *testing.T) {
	parse := func(args ...string) *SweepOptions {
		t.Helper()
		ios, _, _, errOut := Test()
		var got *SweepOptions
		c := NewCmdSweep(ios, func(o *SweepOptions) error { got = o; return nil })
		c.SetArgs(args)
		c.SetOut(&bytes.Buffer{})
		c.SetErr(&bytes.Buffer{})
		if err := c.Execute(); err != nil {
			t.Fatalf("%v: %v %s", args, err, errOut)
		}
		return got
	}
	o := parse("--grid", "camping_threshold=4:6:1", "--max-stuck", "30,40", "--grid", "enable_loop_detection=true,false",
		"--warning-threshold", "15", "--check-interval", "5,10", "--max-false-rate", "5%", "--by-episode", "-q", "--format", "json", "-j", "3", "eps/", "more/")
	wantArgs := []GridArg{
		{"--grid", "", "camping_threshold=4:6:1"},
		{"--max-stuck", "max_turns_stuck", "30,40"},
		{"--grid", "", "enable_loop_detection=true,false"},
		{"--warning-threshold", "stuck_warning_threshold", "15"},
		{"--check-interval", "stuck_check_interval", "5,10"},
	}
	if !reflect.DeepEqual(o.GridArgs, wantArgs) {
		t.Errorf("GridArgs = %+v", o.GridArgs)
	}
	wantAxes := []sweep.Axis{
		{Key: "camping_threshold", Values: []any{4, 5, 6}},
		{Key: "max_turns_stuck", Values: []any{30, 40}},
		{Key: "enable_loop_detection", Values: []any{true, false}},
		{Key: "stuck_warning_threshold", Values: []any{15}},
		{Key: "stuck_check_interval", Values: []any{5, 10}},
	}
	if !reflect.DeepEqual(o.Axes, wantAxes) {
		t.Errorf("Axes = %+v", o.Axes)
	}
	if o.MaxFalseRate != (percentFlag{5, true}) || !o.ByEpisode || !o.Quiet || o.Format != "json" || o.Input.Jobs != 3 ||
		!reflect.DeepEqual(o.Paths, []string{"eps/", "more/"}) {
		t.Errorf("options = %+v", o)
	}
	o = parse("--max-stuck", "30", "eps/")
	if o.MaxFalseRate.Given || o.MaxFalseRate.Ptr() != nil || o.Format != "table" || o.Color != "auto" || o.ByEpisode || o.Quiet {
		t.Errorf("defaults = %+v", o)
	}
	for spec, want := range map[string]float64{"5%": 5, "0.05": 5, "0": 0, "1": 100, "12.5%": 12.5, " 5 % ": 5} {
		o = parse("--max-stuck", "30", "--max-false-rate", spec, "eps/")
		if p := o.MaxFalseRate.Ptr(); p == nil || *p != want {
			t.Errorf("--max-false-rate %q = %+v, want %v", spec, o.MaxFalseRate, want)
		}
	}
}

// sweepDoc is the JSON document of sweep.
type sweepDoc struct {
	SchemaVersion int                 `json:"schema_version"`
	Base          map[string]any      `json:"base"`
	Grid          map[string][]any    `json:"grid"`
	Skipped       []map[string]any    `json:"skipped"`
	Results       []map[string]any    `json:"results"`
	Recommended   map[string]any      `json:"recommended"`
	Errors        []map[string]string `json:"errors"`
	ByEpisode     []map[string]any    `json:"by_episode"`
}

// sweepTestCorpus writes generated episodes (every ending, names-only and
// id logs, live stops, llm_call events, quirks) and one unreadable file.
func sweepTestCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	eps := filepath.Join(dir, "eps")
	if _, err := replaytest.WriteCorpusCapped(eps, 14, 11, 0, 1<<10); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(eps, "zz-broken", "episode_log.jsonl.gz"), "\x1f\x8b\x00\x00not gzip")
	return eps
}

// TestSweepEqualsAnalyze is the contract: every row of a sweep equals, in
// every aggregate, what analyze --format json reports with that row's
// settings, and unreadable files are excluded alike.
func TestSweepEqualsAnalyze(t *testing.T) {
	eps := sweepTestCorpus(t)
	code, out, errOut := runSweep(t, "sweep", "--format", "json", "--max-stuck", "20:50:30", "--check-interval", "5,10",
		"--grid", "camping_threshold=3,5", "--grid", "enable_objective_based_progress=true,false",
		"--set", "stuck_warning_threshold=15", "--set", "rejection_threshold=0.6", eps)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "zz-broken") {
		t.Errorf("stderr does not report the unreadable file: %q", errOut)
	}
	var doc sweepDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Results) != 1+2*2*2*2 {
		t.Fatalf("%d results", len(doc.Results))
	}
	for i, row := range doc.Results {
		args := []string{"analyze", "--format", "json", "--set", "stuck_warning_threshold=15", "--set", "rejection_threshold=0.6"}
		for k, v := range row["params"].(map[string]any) {
			args = append(args, "--set", fmt.Sprintf("%s=%v", k, v))
		}
		ios, _, aout, aerr := Test()
		if c := Main(append(args, eps), ios); c != 0 {
			t.Fatalf("analyze %v: exit %d\n%s", args, c, aerr)
		}
		var a struct {
			Totals map[string]any      `json:"totals"`
			Errors []map[string]string `json:"errors"`
		}
		if err := json.Unmarshal(aout.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if len(a.Totals) < 14 {
			t.Fatalf("analyze totals has %d fields", len(a.Totals))
		}
		for k, want := range a.Totals {
			if k == "live_disagreements" {
				continue // a sweep does not compare live runs (docs/sweep.md)
			}
			if got, ok := row[k]; !ok || got != want {
				t.Errorf("row %d %v: %s = %v, analyze says %v", i, row["params"], k, got, want)
			}
		}
		if !reflect.DeepEqual(a.Errors, doc.Errors) {
			t.Errorf("errors: sweep %v, analyze %v", doc.Errors, a.Errors)
		}
	}
	if row0 := doc.Results[0]; row0["baseline"] != true || row0["row"] != 0.0 {
		t.Errorf("first row is not the baseline: %v", row0)
	}
	// The baseline is the base configuration: --set applied.
	if doc.Base["stuck_warning_threshold"] != 15.0 || doc.Base["max_turns_stuck"] != 40.0 {
		t.Errorf("base = %v", doc.Base)
	}
}

// TestSweepDeterministic: output does not depend on scheduling.
func TestSweepDeterministic(t *testing.T) {
	eps := sweepTestCorpus(t)
	var first string
	for _, j := range []string{"1", "2", "7"} {
		code, out, errOut := runSweep(t, "sweep", "--format", "json", "--by-episode", "-j", j, "--max-stuck", "20:50:10", "--grid", "camping_window=5,10", eps)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("-j %s gives a different document", j)
		}
	}
}

func TestSweepStrict(t *testing.T) {
	eps := sweepTestCorpus(t)
	// The first problem in input order ends the run, as in analyze.
	code, out, errOut := runSweep(t, "sweep", "--strict", "--max-stuck", "30,40", eps)
	if code != ExitError || out != "" || !strings.HasPrefix(errOut, "loopbreak: ") {
		t.Errorf("--strict: exit %d, %q, %q", code, out, errOut)
	}
	// An unreadable line.
	bad := writeFile(t, filepath.Join(t.TempDir(), "b", "episode_log.jsonl"), stuckLog("B", 50)+"{not json\n")
	if code, _, errOut := runSweep(t, "sweep", "--strict", "--max-stuck", "30,40", bad); code != ExitError || !strings.Contains(errOut, "episode_log.jsonl:") {
		t.Errorf("--strict with a bad line: exit %d, %q", code, errOut)
	}
	if code, _, _ := runSweep(t, "sweep", "--max-stuck", "30,40", bad); code != 0 {
		t.Errorf("a bad line without --strict: exit %d", code)
	}
	// Only the unreadable file.
	code, _, errOut = runSweep(t, "sweep", "--strict", "--max-stuck", "30,40", filepath.Join(eps, "zz-broken", "episode_log.jsonl.gz"))
	if code != ExitError || !strings.Contains(errOut, "zz-broken") {
		t.Errorf("--strict with an unreadable file: exit %d, %q", code, errOut)
	}
}

// TestSweepGolden pins the three formats and --by-episode over the
// committed fixtures.
func TestSweepGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"sweep/table.txt", []string{"--max-stuck", "20:60:10", "--check-interval", "5,10", episodesDir}},
		{"sweep/max-false-rate.txt", []string{"--max-stuck", "30,40,50", "--grid", "enable_objective_based_progress=true,false", "--max-false-rate", "50%", episodesDir}},
		{"sweep/by-episode.txt", []string{"--max-stuck", "30:50:10", "--grid", "enable_objective_based_progress=true,false", "--by-episode", episodesDir}},
		{"sweep/sweep.json", []string{"--format", "json", "--max-stuck", "20:60:10", "--warning-threshold", "15,25", "--max-false-rate", "0.4", episodesDir}},
		{"sweep/by-episode.json", []string{"--format", "json", "--by-episode", "--max-stuck", "30,40", "--grid", "enable_objective_based_progress=true,false", episodesDir}},
		{"sweep/sweep.csv", []string{"--format", "csv", "--max-stuck", "20:60:10", "--check-interval", "5,10", episodesDir}},
		{"sweep/by-episode.csv", []string{"--format", "csv", "--by-episode", "--max-stuck", "30,40,50", episodesDir}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
			code, out, errOut := runSweep(t, append([]string{"sweep"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

func TestSweepCSV(t *testing.T) {
	code, out, errOut := runSweep(t, "sweep", "--format", "csv", "--max-stuck", "20,30", episodesDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][0] != "row" || recs[0][2] != "max_turns_stuck" || recs[1][1] != "true" || recs[2][2] != "30" {
		t.Errorf("csv:\n%s", out)
	}
	// The combination CSV has no room for is reported on stderr.
	if !strings.Contains(errOut, "loopbreak: skipped max_turns_stuck=20: stuck_warning_threshold (20) must be < max_turns_stuck (20)") {
		t.Errorf("stderr: %q", errOut)
	}
}

// TestSweepTableFits hides columns, least useful first, on a narrow
// terminal, and colours the recommended row.
func TestSweepTableFits(t *testing.T) {
	ios, _, out, errOut := Test()
	ios.StdoutTTY = true
	ios.Getenv = func(k string) string {
		if k == "COLUMNS" {
			return "100"
		}
		return ""
	}
	if code := Main([]string{"sweep", "--max-stuck", "30,40,50", "--check-interval", "5,10", episodesDir}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := out.String()
	table := strings.SplitN(s, "\n\n", 2)[0]
	for _, l := range strings.Split(table, "\n") {
		if n := utf8.RuneCountInString(stripANSI(l)); n > 100 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	if !strings.Contains(s, "Hidden to fit 100 columns: would reject, warnings") {
		t.Errorf("no hidden-columns note:\n%s", s)
	}
	if !strings.Contains(s, "\x1b[") {
		t.Error("no colour on a terminal")
	}
	// Not a terminal: every column, no colour.
	_, plain, _ := runSweep(t, "sweep", "--max-stuck", "30,40,50", "--check-interval", "5,10", episodesDir)
	if strings.Contains(plain, "Hidden") || strings.Contains(plain, "\x1b[") || !strings.Contains(plain, "would reject") {
		t.Errorf("plain output:\n%s", plain)
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestSweepProgressBar(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	eps := sweepTestCorpus(t)
	run := func(tty bool, extra ...string) string {
		ios, _, _, errOut := Test()
		ios.StderrTTY = tty
		args := append([]string{"sweep", "--format", "json", "--max-stuck", "30,40"}, extra...)
		if code := Main(append(args, eps), ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return errOut.String()
	}
	s := run(true)
	if !strings.Contains(s, "sweep [") || !strings.Contains(s, "/15 files · ") || !strings.Contains(s, " episodes/s · ETA ") {
		t.Errorf("no progress bar on a terminal: %q", s)
	}
	if !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("the bar is not cleared at the end: %q", s)
	}
	// The unreadable file's message starts on a clean line.
	if !strings.Contains(s, "\r\x1b[Kloopbreak: ") {
		t.Errorf("error not written on a cleared line: %q", s)
	}
	for _, s := range []string{run(true, "--quiet"), run(false)} {
		if strings.Contains(s, "sweep [") || strings.Contains(s, "\r") {
			t.Errorf("progress bar with --quiet or without a terminal: %q", s)
		}
	}
}

func TestProgressBarLine(t *testing.T) {
	p := &progressBar{total: 200, width: 100, files: 50, eps: 60}
	got := p.line(10 * time.Second)
	want := "sweep [=========                             ] 50/200 files · 60 episodes · 6 episodes/s · ETA 30s"
	if got != want || utf8.RuneCountInString(got) >= p.width {
		t.Errorf("line\n got %q\nwant %q (narrower than %d)", got, want, p.width)
	}
	p.width = 40 // too narrow for a bar
	if got := p.line(10 * time.Second); got != "50/200 files · 60 episodes · 6 episodes/s · ETA 30s" {
		t.Errorf("narrow: %q", got)
	}
	for d, want := range map[time.Duration]string{5 * time.Second: "5s", 125 * time.Second: "2m05s", 3*time.Hour + 4*time.Minute: "3h04m"} {
		if got := fmtETA(d); got != want {
			t.Errorf("fmtETA(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestSweepReadmeExamples runs the examples on the fixtures.
func TestSweepReadmeExamples(t *testing.T) {
	for _, args := range [][]string{
		{"--max-stuck", "30,40,50"},
		{"--max-stuck", "20:80:5", "--check-interval", "5,10", "--warning-threshold", "15,20"},
		{"--grid", "max_turns_stuck=30,40,50", "--grid", "camping_threshold=4,5,6"},
		{"--max-stuck", "30:60:10", "--max-false-rate", "5%", "--format", "json"},
	} {
		code, out, errOut := runSweep(t, append(append([]string{"sweep"}, args...), episodesDir)...)
		if code != 0 || out == "" {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
	}
}

// TestSweepJSONSchema checks the documented fields and types.
func TestSweepJSONSchema(t *testing.T) {
	code, out, errOut := runSweep(t, "sweep", "--format", "json", "--max-stuck", "20,30", "--grid", "rejection_threshold=0.4,0.6", episodesDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(doc))
	if want := []string{"base", "errors", "grid", "recommended", "results", "schema_version", "skipped"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("top-level keys %v, want %v (by_episode only with --by-episode)", keys, want)
	}
	var d sweepDoc
	json.Unmarshal([]byte(out), &d)
	if d.SchemaVersion != 1 || len(d.Base) != len(rules.Keys()) {
		t.Errorf("schema_version %d, base has %d keys", d.SchemaVersion, len(d.Base))
	}
	if !reflect.DeepEqual(d.Grid, map[string][]any{"max_turns_stuck": {20.0, 30.0}, "rejection_threshold": {0.4, 0.6}}) {
		t.Errorf("grid = %v", d.Grid)
	}
	if len(d.Skipped) != 2 || d.Skipped[0]["reason"] != "stuck_warning_threshold (20) must be < max_turns_stuck (20)" {
		t.Errorf("skipped = %v", d.Skipped)
	}
	resultKeys := []string{"baseline", "censored", "episodes", "false_alarms", "false_termination_pct", "false_terminations", "lines_skipped",
		"llm_calls_saved", "loops", "low_confidence", "median_turns_saved", "params", "pareto", "recommended", "recorded_turns", "row", "score_forfeited",
		"terminated", "turns_saved", "turns_saved_pct", "warnings", "would_reject"}
	for _, r := range d.Results {
		if got := slices.Sorted(maps.Keys(r)); !reflect.DeepEqual(got, resultKeys) {
			t.Errorf("result keys %v", got)
		}
	}
	if got := slices.Sorted(maps.Keys(d.Recommended)); !reflect.DeepEqual(got, []string{"criterion", "max_false_rate_pct", "params", "reason", "row", "set"}) {
		t.Errorf("recommended keys %v", got)
	}
	if d.Recommended["criterion"] != "frontier" || d.Recommended["max_false_rate_pct"] != 5.0 {
		t.Errorf("recommended = %v", d.Recommended)
	}
	// Exactly the recommended row says so.
	n := 0
	for _, r := range d.Results {
		if r["recommended"] == true {
			n++
			if r["row"] != d.Recommended["row"] {
				t.Errorf("recommended row %v, flagged %v", d.Recommended["row"], r["row"])
			}
		}
	}
	if n != 1 {
		t.Errorf("%d rows flagged recommended", n)
	}
	// Nothing within the limit: row and params are null, the reason says why.
	_, out, _ = runSweep(t, "sweep", "--format", "json", "--max-stuck", "25,30", "--max-false-rate", "0%", "--set", "enable_objective_based_progress=false", episodesDir)
	json.Unmarshal([]byte(out), &d)
	if d.Recommended["row"] != nil || d.Recommended["params"] != nil || !strings.HasPrefix(d.Recommended["reason"].(string), "No configuration keeps false terminations at or below 0%") {
		t.Errorf("recommended with none qualifying: %v", d.Recommended)
	}
}

func TestSweepStdin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(episodesDir, "2025-11-04T09-35-24", "episode_log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ios, in, out, errOut := Test()
	in.Write(data)
	if code := Main([]string{"sweep", "--format", "csv", "--max-stuck", "30,40", "-"}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 4 {
		t.Errorf("stdin sweep:\n%s", out)
	}
}

// Issue 13 item 8: warnings and would_reject measure what they say. Both
// count up to each cut, so a sweep over max_turns_stuck moves the
// warnings count; would_reject is the score_adjustment firings that
// reject their action, nothing else, as analyze lists them.
func TestSweepWarningsAndWouldReject(t *testing.T) {
	code, out, errOut := runSweep(t, "sweep", "--format", "json", "--max-stuck", "30,40,50", episodesDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Results []struct {
			Params      map[string]any `json:"params"`
			Warnings    int            `json:"warnings"`
			WouldReject int            `json:"would_reject"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	warnings := map[float64]int{}
	reject := map[float64]int{}
	for _, r := range doc.Results {
		m := r.Params["max_turns_stuck"].(float64)
		warnings[m], reject[m] = r.Warnings, r.WouldReject
	}
	if len(warnings) != 3 || warnings[30] == warnings[40] || warnings[40] == warnings[50] {
		t.Errorf("warnings do not move with max_turns_stuck: %v", warnings)
	}
	for _, m := range []float64{30, 40, 50} {
		ios, _, aout, aerr := Test()
		if code := Main([]string{"analyze", "--format", "json", "--set", fmt.Sprintf("max_turns_stuck=%v", m), episodesDir}, ios); code != 0 {
			t.Fatalf("analyze: exit %d: %s", code, aerr)
		}
		var adoc struct {
			Episodes []struct {
				Firings []struct {
					Rule     string `json:"rule"`
					Rejected bool   `json:"rejected"`
					AfterCut bool   `json:"after_cut"`
				} `json:"firings"`
			} `json:"episodes"`
		}
		if err := json.Unmarshal(aout.Bytes(), &adoc); err != nil {
			t.Fatal(err)
		}
		want, other := 0, 0
		for _, e := range adoc.Episodes {
			for _, f := range e.Firings {
				switch {
				case f.AfterCut:
				case f.Rule == "score_adjustment" && f.Rejected:
					want++
				case f.Rejected:
					other++
				}
			}
		}
		if reject[m] != want {
			t.Errorf("max_turns_stuck=%v: would_reject %d, want the %d rejecting score adjustments up to the cut", m, reject[m], want)
		}
		if other != 0 {
			t.Errorf("max_turns_stuck=%v: %d rejections by other rules", m, other)
		}
	}
}

// A grid that changes no termination (a detector's key; any grid on logs
// without a score) is ranked by loops and false alarms: the
// recommendation says so (here the baseline stays: under Ralph's
// detect_loop 0.95 catches what 0.9 does), the varied key is never cut,
// and nothing speaks of turns saved.
func TestSweepDetectorGrid(t *testing.T) {
	for _, width := range []int{120, 80, 60} {
		ios, _, out, errOut := Test()
		ios.StdoutTTY, ios.Width = true, width
		if code := Main([]string{"sweep", "-q", "--color", "never", "--grid", "fuzzy_threshold=0.8:0.95:0.05", stepsLog}, ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		got := out.String()
		flat := " " + strings.Join(strings.Fields(got), " ") + " " // wrapped prose as one line
		for _, want := range []string{" fuzzy_threshold ", " loops ", "Recommended: baseline (keeps the base configuration)", "ranked by the detectors", "7 (12 loops, 5 false alarms"} {
			if !strings.Contains(flat, want) {
				t.Errorf("at %d columns, no %q in\n%s", width, want, got)
			}
		}
		for _, not := range []string{"…", "saves the most turns", "0 of 0"} {
			if strings.Contains(got, not) {
				t.Errorf("at %d columns, %q in\n%s", width, not, got)
			}
		}
		for _, l := range strings.Split(got, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("%d columns over %d: %q", n, width, l)
			}
		}
	}
	code, out, _ := runSweep(t, "sweep", "-q", "--max-stuck", "30:50:10", openHandsLog)
	if code != 0 || !strings.Contains(out, "the baseline stays") || strings.Contains(out, "saves the most turns") {
		t.Errorf("a grid on a log without a score: exit %d\n%s", code, out)
	}
}
