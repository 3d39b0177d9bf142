package sweep

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

func TestParseAxis(t *testing.T) {
	cases := []struct {
		key, spec string
		want      []any
	}{
		{"max_turns_stuck", "30,40,50", []any{30, 40, 50}},
		{"max_turns_stuck", " 30 , 40 ", []any{30, 40}},
		{"max_turns_stuck", "20:80:20", []any{20, 40, 60, 80}},
		{"max_turns_stuck", "20:70:20", []any{20, 40, 60}}, // stop off the step
		{"max_turns_stuck", "30:30:5", []any{30}},
		{"max_turns_stuck", "10,20:40:10,40,50", []any{10, 20, 30, 40, 50}}, // mixed, deduplicated
		{"max_turns_stuck", "40.0", []any{40}},                              // integral float, as --set
		{"rejection_threshold", "0.1:0.5:0.1", []any{0.1, 0.2, 0.3, 0.4, 0.5}},
		{"rejection_threshold", "0.25,0.5", []any{0.25, 0.5}},
		{"rejection_threshold", "0:1:0.25", []any{0.0, 0.25, 0.5, 0.75, 1.0}},
		{"oscillation_return_penalty", "-0.8:-0.2:0.3", []any{-0.8, -0.5, -0.2}},
		{"enable_loop_detection", "true,false", []any{true, false}},
		{"enable_loop_detection", "false", []any{false}},
		{"enable_loop_detection", "true,true", []any{true}},
	}
	for _, c := range cases {
		ax, err := ParseAxis(c.key, c.spec)
		if err != nil {
			t.Errorf("ParseAxis(%s, %q): %v", c.key, c.spec, err)
			continue
		}
		if ax.Key != c.key || !reflect.DeepEqual(ax.Values, c.want) {
			t.Errorf("ParseAxis(%s, %q) = %#v, want %#v", c.key, c.spec, ax.Values, c.want)
		}
	}
}

func TestParseAxisErrors(t *testing.T) {
	cases := []struct{ key, spec, want string }{
		{"max_turns_stuk", "30", `unknown key "max_turns_stuk" (did you mean max_turns_stuck?)`},
		{"zzzzzzzzzzzz", "30", `unknown key "zzzzzzzzzzzz"`},
		{"max_turns_stuck", "", "no values"},
		{"max_turns_stuck", "30,,40", "empty value in the list"},
		{"max_turns_stuck", "abc", `must be an integer, got "abc"`},
		{"max_turns_stuck", "30.5", "must be an integer, got 30.5"},
		{"max_turns_stuck", "0,10", "must be in [1, 1000], got 0"},
		{"max_turns_stuck", "20:80", `range "20:80": want start:stop:step`},
		{"max_turns_stuck", "20:80:5:1", `range "20:80:5:1": want start:stop:step`},
		{"max_turns_stuck", "80:20:5", `range "80:20:5": start is above stop`},
		{"max_turns_stuck", "20:80:0", `range "20:80:0": step must be positive`},
		{"max_turns_stuck", "20:80:-5", `range "20:80:-5": step must be positive`},
		{"max_turns_stuck", "20:x:5", `range "20:x:5": "x" is not a number`},
		{"max_turns_stuck", "20:80:2.5", `range "20:80:2.5": max_turns_stuck is an integer key, got 2.5`},
		{"max_turns_stuck", "0:20:10", "must be in [1, 1000], got 0"},
		{"max_turns_stuck", "1:100000:1", `range "1:100000:1": more than 1000 values`},
		{"rejection_threshold", "0.5:1.5:0.5", "must be in [0, 1], got 1.5"},
		{"location_revisit_window", "1", "must be in [2, 20], got 1"},
		{"enable_loop_detection", "yes", `must be true or false, got "yes"`},
		{"enable_loop_detection", "0:1:1", `range "0:1:1": enable_loop_detection is a boolean; give true,false`},
	}
	for _, c := range cases {
		_, err := ParseAxis(c.key, c.spec)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseAxis(%s, %q) error = %v, want %q", c.key, c.spec, err, c.want)
		}
	}
}

func mustAxis(t testing.TB, key, spec string) Axis {
	t.Helper()
	ax, err := ParseAxis(key, spec)
	if err != nil {
		t.Fatal(err)
	}
	return ax
}

func TestExpandGrid(t *testing.T) {
	base := rules.Default()
	points, skipped, err := ExpandGrid(base, []Axis{
		mustAxis(t, "max_turns_stuck", "20,30"),
		mustAxis(t, "stuck_warning_threshold", "10,20"),
		mustAxis(t, "enable_loop_detection", "true,false"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range points {
		var s []string
		for _, kv := range p.Params {
			s = append(s, kv.String())
			if p.Config.Value(kv.Key) != kv.Value {
				t.Errorf("%v: config has %s=%v", p.Params, kv.Key, p.Config.Value(kv.Key))
			}
		}
		got = append(got, strings.Join(s, " "))
	}
	want := []string{ // first axis slowest
		"max_turns_stuck=20 stuck_warning_threshold=10 enable_loop_detection=true",
		"max_turns_stuck=20 stuck_warning_threshold=10 enable_loop_detection=false",
		"max_turns_stuck=30 stuck_warning_threshold=10 enable_loop_detection=true",
		"max_turns_stuck=30 stuck_warning_threshold=10 enable_loop_detection=false",
		"max_turns_stuck=30 stuck_warning_threshold=20 enable_loop_detection=true",
		"max_turns_stuck=30 stuck_warning_threshold=20 enable_loop_detection=false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(skipped) != 2 {
		t.Fatalf("skipped = %v, want the 2 combinations with threshold 20 and max 20", skipped)
	}
	for _, s := range skipped {
		if s.Params[0].Value != 20 || s.Params[1].Value != 20 || s.Reason != "stuck_warning_threshold (20) must be < max_turns_stuck (20)" {
			t.Errorf("skipped %+v", s)
		}
	}
	if rules.MaxTurnsStuck.Get(base) != 40 {
		t.Error("ExpandGrid changed the base configuration")
	}

	for _, c := range []struct {
		axes []Axis
		want string
	}{
		{nil, "no key to sweep"},
		{[]Axis{mustAxis(t, "max_turns_stuck", "30"), mustAxis(t, "max_turns_stuck", "40")}, "max_turns_stuck is swept twice"},
		{[]Axis{mustAxis(t, "max_turns_stuck", "20:1000:1"), mustAxis(t, "stuck_check_interval", "1:20:1")}, "the grid has more than 10000 configurations"},
	} {
		if _, _, err := ExpandGrid(base, c.axes); err == nil || err.Error() != c.want {
			t.Errorf("ExpandGrid error = %v, want %q", err, c.want)
		}
	}
}

// sweepCorpus is the committed fixtures (quirks, gaps, restarts, live
// stops, llm_call events, names-only) plus generated episodes, parsed.
var sweepCorpus = sync.OnceValue(func() []*replay.Episode {
	var eps []*replay.Episode
	// The ZorkGPT fixtures with their replies (the output rules), and the
	// other agents' logs, each in its detected format.
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "episodes", "*", "episode_log.jsonl"))
	for _, pattern := range []string{"steps/agent.jsonl", "steps/*/*.json*", "attempts/*.jsonl"} {
		more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", filepath.FromSlash(pattern)))
		files = append(files, more...)
	}
	if len(files) < 10 {
		panic(fmt.Sprintf("sweepCorpus: only %d committed logs found", len(files)))
	}
	for _, f := range files {
		e, err := replay.ReadFile(f, nil, replay.Options{Format: replay.FormatAuto, Outputs: true})
		if err != nil {
			panic(err)
		}
		eps = append(eps, e...)
	}
	start := time.Date(2025, 10, 1, 8, 0, 0, 0, time.UTC)
	for i := range 40 {
		s := replaytest.RandomScenario(uint64(7000+i), start.Add(time.Duration(i)*3*time.Hour))
		s.NoiseBytes = 0
		var buf bytes.Buffer
		if err := replaytest.Write(&buf, s); err != nil {
			panic(err)
		}
		e, err := replay.Read(&buf, "gen", s.EpisodeID, replay.Options{})
		if err != nil {
			panic(err)
		}
		eps = append(eps, e...)
	}
	return eps
})

// sweepValues are values to sweep for every key; a key added to the
// registry must be added here so its sweep is held equal to analyze.
var sweepValues = map[string]string{
	"enable_velocity_detection":       "true,false",
	"max_turns_stuck":                 "25,40,60",
	"stuck_check_interval":            "5,10,15",
	"enable_objective_based_progress": "true,false",
	"enable_stuck_warnings":           "true,false",
	"stuck_warning_threshold":         "5,20,35",
	"enable_location_penalty":         "true,false",
	"location_revisit_penalty":        "-0.5,-0.2,0",
	"location_revisit_window":         "2,5,12",
	"enable_loop_detection":           "true,false",
	"oscillation_return_penalty":      "-0.8,-0.3",
	"oscillation_exploration_bonus":   "0,0.5,1",
	"camping_threshold":               "2,5,8",
	"camping_window":                  "3,10,20",
	"camping_return_penalty":          "-1,-0.6,0",
	"rejection_threshold":             "0.1,0.5,0.9",
	"enable_exploration_hints":        "true,false",
	"action_novelty_window":           "5,15,50",

	"enable_signature_repeat":         "true,false",
	"signature_threshold":             "2,3,5",
	"enable_fuzzy_repeat":             "true,false",
	"fuzzy_threshold":                 "0.8,0.9,1",
	"fuzzy_window":                    "1,5,10",
	"enable_task_attempts":            "true,false",
	"max_attempts":                    "2,3,5",
	"attempt_window":                  "60,3600,1h",
	"enable_auto_unblock":             "true,false",
	"max_attempts_before_force_next":  "1,5,10",
	"attempts_recovery":               "true,false",
	"enable_openhands":                "true,false",
	"openhands_on_zorkgpt":            "false,true",
	"gemini_cli_on_zorkgpt":           "false,true",
	"repeat_action_observation_count": "2,4",
	"repeat_action_error_count":       "2,3",
	"monologue_count":                 "2,3",
	"alternating_pair_steps":          "4,6",
	"context_window_error_count":      "2,10",
	"enable_openhands_v1":             "true,false",
	"v1_action_observation":           "2,4",
	"v1_action_error":                 "1,3",
	"v1_monologue":                    "2,3",
	"v1_alternating_pattern":          "4,6",
	"enable_gemini_cli":               "true,false",
	"tool_call_loop_threshold":        "2,5",
	"tool_cycle_max_length":           "1,5",
	"content_chunk_size":              "10,50",
	"content_loop_threshold":          "2,10",
	"content_max_history":             "100,5000",
	"enable_cline":                    "true,false",
	"cline_soft_threshold":            "2,3",
	"cline_hard_threshold":            "4,5",
	"enable_roo":                      "true,false",
	"roo_consecutive_mistake_limit":   "0,3",
	"enable_goose":                    "false,true",
	"goose_max_tool_repetitions":      "1,3",
}

// checkSweepEqualsAnalyze replays the grid both ways and compares every
// episode's result: the component projections and the firing counts of
// the Replayer against a plain Analyze per configuration.
func checkSweepEqualsAnalyze(t *testing.T, axes []Axis) {
	t.Helper()
	eps := sweepCorpus()
	points, _, err := ExpandGrid(rules.Default(), axes)
	if err != nil {
		t.Fatal(err)
	}
	configs := []*rules.Config{rules.Default()}
	for _, p := range points {
		configs = append(configs, p.Config)
	}
	plan := NewPlan(configs)
	rp := plan.NewReplayer()
	got := make([]analyze.Result, len(configs))
	for _, ep := range eps {
		rp.Replay(ep, got)
		for c, cfg := range configs {
			o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true})
			if want := o.Result; got[c] != want {
				t.Fatalf("episode %s, config %d %v:\nsweep   %+v\nanalyze %+v", ep.ID, c, paramsOf(points, c), got[c], want)
			}
			// The counts are the firings up to the cut (RULES.md "Outcome").
			warnings := 0
			for _, f := range o.Firings {
				if f.Kind == rules.Warning && (o.Termination == nil || f.Turn <= o.Termination.Turn) {
					warnings++
				}
			}
			if o.Warnings != warnings {
				t.Fatalf("episode %s: warnings %d, %d at or before the cut", ep.ID, o.Warnings, warnings)
			}
		}
	}
}

func paramsOf(points []Point, c int) []Setting {
	if c == 0 {
		return nil
	}
	return points[c-1].Params
}

// TestSweepEqualsAnalyzeEveryKey sweeps each key on its own (so each rule
// component varies alone while the others are replayed once), then grids
// mixing components.
func TestSweepEqualsAnalyzeEveryKey(t *testing.T) {
	for _, k := range rules.Keys() {
		spec, ok := sweepValues[k]
		if !ok {
			t.Errorf("no sweep values for key %s: add it to sweepValues", k)
			continue
		}
		t.Run(k, func(t *testing.T) { checkSweepEqualsAnalyze(t, []Axis{mustAxis(t, k, spec)}) })
	}
	grids := [][][2]string{
		{{"max_turns_stuck", "20:60:10"}, {"stuck_check_interval", "5,10"}, {"stuck_warning_threshold", "10,15"}},
		{{"max_turns_stuck", "30,50"}, {"camping_threshold", "3,5"}, {"rejection_threshold", "0.3,0.7"}},
		{{"enable_loop_detection", "true,false"}, {"location_revisit_window", "3,8"}, {"enable_objective_based_progress", "false,true"}},
		{{"enable_velocity_detection", "false,true"}, {"enable_stuck_warnings", "true,false"}, {"action_novelty_window", "5,20"}},
		// The loop-detection rules replayed together (rules.RunShared),
		// oscillation once for them: more projections than a batch holds.
		{{"camping_threshold", "1:10:1"}, {"camping_window", "1:21:2"}},
		{{"camping_window", "2,7,20"}, {"oscillation_exploration_bonus", "0,0.5"}, {"max_turns_stuck", "30,50"}},
		{{"camping_return_penalty", "-1,0"}, {"rejection_threshold", "0.2,0.8"}, {"enable_loop_detection", "true,false"}},
	}
	for i, g := range grids {
		t.Run(fmt.Sprintf("grid%d", i), func(t *testing.T) {
			var axes []Axis
			for _, kv := range g {
				axes = append(axes, mustAxis(t, kv[0], kv[1]))
			}
			checkSweepEqualsAnalyze(t, axes)
		})
	}
}

func TestPlanReplaysInvariantComponentsOnce(t *testing.T) {
	points, _, err := ExpandGrid(rules.Default(), []Axis{mustAxis(t, "max_turns_stuck", "30:120:10"), mustAxis(t, "stuck_check_interval", "5,10")})
	if err != nil {
		t.Fatal(err)
	}
	configs := []*rules.Config{rules.Default()}
	for _, p := range points {
		configs = append(configs, p.Config)
	}
	p := NewPlan(configs)
	// progress_velocity+stuck_warnings: 20 distinct (the baseline is one of
	// them); location_revisit, loop detection, action_novelty, and the
	// nine components of the other agents' rules (signature_repeat,
	// fuzzy_repeat, task_attempts, OpenHands, OpenHands V1, Gemini CLI,
	// Cline, Roo Code, Goose): once each.
	if got := p.Replays(); got != 20+3+9 {
		t.Errorf("Replays() = %d, want 32", got)
	}
}

func row(saved, false_, terminated int, forfeited float64, params ...Setting) Row {
	t := analyze.Totals{TurnsSaved: saved, FalseTerminations: false_, Terminated: terminated, ScoreForfeited: forfeited, RecordedTurns: 1000}
	t.TurnsSavedPct = float64(saved) / 10
	if terminated > 0 {
		t.FalseRatePct = float64(false_) * 100 / float64(terminated)
	}
	return Row{Params: params, Totals: t}
}

func paretoOf(rows []Row) []bool {
	var out []bool
	for _, r := range rows {
		out = append(out, r.Pareto)
	}
	return out
}

func TestMarkPareto(t *testing.T) {
	rows := []Row{
		row(100, 1, 10, 5),  // baseline: dominated by 1 (more saved, same false, less forfeited)
		row(120, 1, 10, 4),  // efficient
		row(300, 3, 20, 20), // efficient: most saved
		row(300, 3, 20, 25), // dominated by 2 (more forfeited)
		row(50, 0, 5, 0),    // efficient: fewest false terminations
		row(50, 0, 5, 0),    // identical to 4: neither dominates, both efficient
		row(0, 0, 0, 0),     // dominated by 4
	}
	rows[0].Baseline = true
	MarkPareto(rows)
	want := []bool{false, true, true, false, true, true, false}
	if got := paretoOf(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("pareto = %v, want %v", got, want)
	}
	// The baseline takes part like any row.
	rows = []Row{row(500, 0, 10, 0), row(400, 1, 10, 2)}
	rows[0].Baseline = true
	MarkPareto(rows)
	if got := paretoOf(rows); !reflect.DeepEqual(got, []bool{true, false}) {
		t.Errorf("baseline dominating: pareto = %v", got)
	}
}

func ms(v int) Setting { return Setting{"max_turns_stuck", v} }

func TestRecommendMaxFalseRate(t *testing.T) {
	rows := []Row{
		row(200, 1, 40, 5, ms(40)),  // 2.5%
		row(300, 2, 50, 8, ms(30)),  // 4%
		row(300, 2, 40, 9, ms(35)),  // 5%: same turns, same false, more forfeited than #1
		row(500, 6, 60, 30, ms(20)), // 10%
	}
	rows[0].Baseline = true
	MarkPareto(rows)
	limit := 5.0
	rec := Recommend(rows, &limit)
	want := Recommendation{Row: 1, Criterion: CriterionMaxFalseRate, MaxFalseRatePct: 5, Qualifying: 3, Lowest: -1, Next: -1}
	if rec != want || !rows[1].Recommended {
		t.Fatalf("recommend = %+v, want %+v", rec, want)
	}
	// The limit is inclusive: 2.5% admits the baseline's 2.5% exactly.
	for i := range rows {
		rows[i].Recommended = false
	}
	limit = 2.5
	if rec := Recommend(rows, &limit); rec.Row != 0 || rec.Qualifying != 1 {
		t.Errorf("limit 2.5%%: %+v", rec)
	}
	limit = 100
	if rec := Recommend(rows, &limit); rec.Row != 3 {
		t.Errorf("limit 100%%: %+v", rec)
	}
	// Nothing within the limit: the lowest rate is named.
	rows = rows[1:]
	for i := range rows {
		rows[i].Recommended = false
	}
	limit = 1
	rec = Recommend(rows, &limit)
	if want := (Recommendation{Row: -1, Criterion: CriterionMaxFalseRate, MaxFalseRatePct: 1, Lowest: 0, Next: -1}); rec != want {
		t.Fatalf("recommend = %+v, want %+v", rec, want)
	}
	for _, r := range rows {
		if r.Recommended {
			t.Error("a row is marked recommended with none qualifying")
		}
	}
}

func TestRecommendFrontier(t *testing.T) {
	rows := []Row{
		row(200, 1, 40, 5, ms(40)),  // 2.5%
		row(300, 2, 50, 8, ms(30)),  // 4%: the most turns under 5%
		row(100, 3, 40, 9, ms(50)),  // dominated
		row(500, 6, 60, 30, ms(20)), // 10%: next on the frontier
		row(900, 20, 80, 90, ms(10)),
	}
	rows[0].Baseline = true
	MarkPareto(rows)
	rec := Recommend(rows, nil)
	want := Recommendation{Row: 1, Criterion: CriterionFrontier, MaxFalseRatePct: 5, Lowest: -1, UnderTarget: true, Next: 3}
	if rec != want || !rows[1].Recommended {
		t.Fatalf("recommend = %+v, want %+v", rec, want)
	}

	// Nothing under the target: the lowest rate on the frontier.
	rows = []Row{
		row(500, 6, 60, 30, ms(20)), // 10%
		row(400, 6, 40, 30, ms(25)), // 15%, dominated
		row(900, 20, 80, 90, ms(10)),
	}
	MarkPareto(rows)
	rec = Recommend(rows, nil)
	if want := (Recommendation{Row: 0, Criterion: CriterionFrontier, MaxFalseRatePct: 5, Lowest: -1, Next: 2}); rec != want {
		t.Errorf("recommend = %+v, want %+v", rec, want)
	}

	// The top of the frontier.
	rows = []Row{row(0, 0, 0, 0, ms(40)), row(100, 0, 10, 0, ms(30))}
	rows[0].Baseline = true
	MarkPareto(rows)
	rec = Recommend(rows, nil)
	if rec.Row != 1 || rec.Next != -1 || !rec.UnderTarget {
		t.Errorf("recommend = %+v", rec)
	}
}

func TestFlips(t *testing.T) {
	never := analyze.Result{}
	term := analyze.Result{Terminated: true, TerminationTurn: 60}
	term70 := analyze.Result{Terminated: true, TerminationTurn: 70}
	fals := analyze.Result{Terminated: true, FalseTermination: true}
	cens := analyze.Result{Censored: true}
	if flips([]analyze.Result{term, term70}) {
		t.Error("a later termination is not a flip")
	}
	for _, rs := range [][]analyze.Result{{never, term}, {term, fals}, {never, cens}, {cens, analyze.Result{Censored: true, Terminated: true}, term}} {
		if !flips(rs) {
			t.Errorf("%v should flip", rs)
		}
	}
	if got := (&analyze.Result{Censored: true, Terminated: true}).Class(); got != analyze.ClassCensored {
		t.Errorf("censored with a termination: %s", got)
	}
}

// TestSweepFilesOrderAndErrors runs the pool with more workers than files
// and an unreadable file: emit sees input order, the error in its place.
func TestSweepFilesOrderAndErrors(t *testing.T) {
	dir := t.TempDir()
	paths, err := replaytest.WriteCorpusCapped(dir, 12, 3, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte{0x1f, 0x8b, 0, 0}, 0o644) // gzip magic, broken header
	files := append(paths[:6:6], filepath.Join(dir, "absent.jsonl"), bad)
	files = append(files, paths[6:]...)
	plan := NewPlan([]*rules.Config{rules.Default()})
	for _, workers := range []int{1, 3, 16} {
		var got []string
		replayFiles(files, nil, replay.Options{}, workers, plan, func(pt *part) bool {
			if !pt.End {
				return true
			}
			s := pt.Path
			if pt.Err != nil {
				s += " error"
			}
			got = append(got, s)
			return true
		})
		want := append([]string(nil), files...)
		want[6] += " error"
		want[7] += " error"
		if !reflect.DeepEqual(got, want) {
			t.Errorf("workers=%d: order %v", workers, got)
		}
		// Stopping early returns.
		n := 0
		replayFiles(files, nil, replay.Options{}, workers, plan, func(pt *part) bool {
			if pt.End {
				n++
			}
			return n < 3
		})
		if n != 3 {
			t.Errorf("workers=%d: emit called %d times after stopping at 3", workers, n)
		}
	}
}

// benchCorpus is 1,000 generated episodes (noise lines capped at 1 KB, so
// parsing is not all that is measured) held in memory.
var benchCorpus = sync.OnceValue(func() [][]byte {
	start := time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)
	var out [][]byte
	for i := range 1000 {
		s := replaytest.RandomScenario(uint64(90000+i), start.Add(time.Duration(i)*3*time.Hour))
		s.NoiseBytes = min(s.NoiseBytes, 1<<10)
		var buf bytes.Buffer
		if err := replaytest.Write(&buf, s); err != nil {
			panic(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
})

// bench100 is the benchmark grid: 10 × 2 × 5 = 100 configurations.
func bench100(b *testing.B) []*rules.Config {
	points, skipped, err := ExpandGrid(rules.Default(), []Axis{
		mustAxis(b, "max_turns_stuck", "30:120:10"),
		mustAxis(b, "stuck_check_interval", "5,10"),
		mustAxis(b, "stuck_warning_threshold", "5:25:5"),
	})
	if err != nil || len(points) != 100 || len(skipped) != 0 {
		b.Fatalf("grid: %d points, %d skipped, %v", len(points), len(skipped), err)
	}
	configs := []*rules.Config{rules.Default()}
	for _, p := range points {
		configs = append(configs, p.Config)
	}
	return configs
}

// parallelEpisodes runs fn over every episode log on GOMAXPROCS workers,
// each with its own state from newState, as analyze and sweep do.
func parallelEpisodes(logs [][]byte, newState func() func(*replay.Episode)) {
	var wg sync.WaitGroup
	next := make(chan []byte)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn := newState()
			for data := range next {
				eps, err := replay.Read(bytes.NewReader(data), "bench", "d", replay.Options{})
				if err != nil {
					panic(err)
				}
				for _, ep := range eps {
					fn(ep)
				}
			}
		}()
	}
	for _, d := range logs {
		next <- d
	}
	close(next)
	wg.Wait()
}

// BenchmarkSweep compares, over the same 1,000 in-memory episodes and on
// all cores, one analyze (parse + replay of every rule, firings kept as
// analyze keeps them for its report) with a 100-configuration sweep
// (parse once + replay the plan). The sweep reports x_analyze: its time
// over analyze's, measured in the same run (the bound is 2).
//
//	go test -run '^$' -bench Sweep -benchtime 5x ./analyze
func BenchmarkSweep(b *testing.B) {
	logs := benchCorpus()
	var size int64
	for _, l := range logs {
		size += int64(len(l))
	}
	analyzeOnce := func() {
		cfg := rules.Default()
		parallelEpisodes(logs, func() func(*replay.Episode) {
			return func(ep *replay.Episode) { analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true}) }
		})
	}
	configs := bench100(b)
	plan := NewPlan(configs)
	sweepOnce := func() {
		parallelEpisodes(logs, func() func(*replay.Episode) {
			rp := plan.NewReplayer()
			out := make([]analyze.Result, len(configs))
			return func(ep *replay.Episode) { rp.Replay(ep, out) }
		})
	}
	timeIt := func(f func()) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			t0 := time.Now()
			f()
			best = min(best, time.Since(t0))
		}
		return best
	}
	b.Run("analyze", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			analyzeOnce()
		}
		b.ReportMetric(float64(len(logs)), "episodes")
	})
	b.Run("sweep100", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			sweepOnce()
		}
		b.StopTimer()
		ratio := float64(timeIt(sweepOnce)) / float64(timeIt(analyzeOnce))
		b.ReportMetric(ratio, "x_analyze")
		b.ReportMetric(float64(len(configs)), "configs")
		b.ReportMetric(float64(plan.Replays()), "replays/episode")
	})
	b.Run("sweep100_loop_rules", func(b *testing.B) {
		// The worst case: 100 configurations of the costliest component
		// (oscillation, camping, score_adjustment), replayed 100 times.
		points, _, err := ExpandGrid(rules.Default(), []Axis{
			mustAxis(b, "camping_threshold", "1:10:1"),
			mustAxis(b, "camping_window", "5:50:5"),
		})
		if err != nil || len(points) != 100 {
			b.Fatal(len(points), err)
		}
		cfgs := []*rules.Config{rules.Default()}
		for _, p := range points {
			cfgs = append(cfgs, p.Config)
		}
		all := NewPlan(cfgs)
		once := func() {
			parallelEpisodes(logs, func() func(*replay.Episode) {
				rp := all.NewReplayer()
				out := make([]analyze.Result, len(cfgs))
				return func(ep *replay.Episode) { rp.Replay(ep, out) }
			})
		}
		b.SetBytes(size)
		for b.Loop() {
			once()
		}
		b.StopTimer()
		b.ReportMetric(float64(timeIt(once))/float64(timeIt(analyzeOnce)), "x_analyze")
		b.ReportMetric(float64(all.Replays()), "replays/episode")
	})
}
