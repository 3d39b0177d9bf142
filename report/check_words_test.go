package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
	"github.com/loopbreak/loopbreak/rules"
)

func intp(n int) *int { return &n }

// entry is a baseline episode that terminated at term (0: never).
func entry(id, source string, term, saved int) check.Entry {
	o := &analyze.Outcome{EpisodeID: id, RecordedTurns: 100, FinalScore: 10, LLMCallsMethod: analyze.CallsEstimated, Counts: map[string]int{}}
	if term > 0 {
		o.Termination = &analyze.Termination{Turn: term, TurnsStuck: 40}
		o.Checkpoints = []analyze.Checkpoint{{Turn: term, TurnsStuck: 40}}
		o.Terminated, o.TerminationTurn = true, term
		o.TurnsSaved = saved
		o.LLMCallsSaved = 4 * saved
		o.Counts["progress_velocity/termination"] = 1
		o.Counts["progress_velocity/checkpoint"] = 1
	}
	return check.NewEntry(o, source, check.HashBytes([]byte(id+source)))
}

func lines(c *check.Comparison) []string {
	var out []string
	for i := range c.Episodes {
		out = append(out, DriftLines(&c.Episodes[i])...)
	}
	return out
}

func TestDriftLines(t *testing.T) {
	base := check.NewBaseline(rules.Default())
	base.Episodes = []check.Entry{
		entry("same", "eps/same/episode_log.jsonl", 60, 40),
		entry("moved", "eps/moved/episode_log.jsonl", 0, 0),
		entry("gone", "eps/gone/episode_log.jsonl", 50, 50),
		entry("unreadable", "eps/bad/episode_log.jsonl", 0, 0),
		entry("dup", "eps/d1/episode_log.jsonl", 0, 0),
		entry("dup", "eps/d2/episode_log.jsonl", 0, 0),
		entry("term", "eps/term/episode_log.jsonl", 60, 40),
	}
	base.Sort()
	cfg := rules.Default()
	if err := cfg.SetString("max_turns_stuck=50"); err != nil {
		t.Fatal(err)
	}
	cur := check.NewBaseline(cfg)
	moved := entry("moved", "eps/moved2/episode_log.jsonl", 0, 0)
	moved.LogHash = base.Episodes[3].LogHash // same bytes, new place
	d2 := entry("dup", "eps/d2/episode_log.jsonl", 0, 0)
	d2.FiringCounts["camping/detection"] = 3
	d2.LogHash = "sha256:ffffffffffffffffffffffff"
	term := entry("term", "eps/term/episode_log.jsonl", 70, 30)
	term.FalseTermination = true
	term.ScoreForfeited = 2.5
	cur.Episodes = []check.Entry{
		entry("same", "eps/same/episode_log.jsonl", 60, 40),
		moved,
		entry("dup", "eps/d1/episode_log.jsonl", 0, 0),
		d2,
		term,
		entry("fresh", "eps/fresh/episode_log.jsonl", 0, 0),
	}
	cur.Sort()
	c := check.Compare(base, cur, map[string]string{"eps/bad/episode_log.jsonl": "gzip: invalid header"})
	want := []string{
		"dup (eps/d2/episode_log.jsonl): log changed (sha256:ffffffffffff… → sha256:ffffffffffff…): the recording changed, not the rules",
		"dup (eps/d2/episode_log.jsonl): camping/detection fired 0 → 3 times",
		"fresh: new episode, not in the baseline (never terminates)",
		"gone: missing: in the baseline (terminates at t=50, turns saved 50) but not among the inputs",
		"moved: log moved: eps/moved/episode_log.jsonl → eps/moved2/episode_log.jsonl",
		"term: termination moved t=60 → t=70 (turns saved 40 → 30)",
		"term: check points t=60 → t=70",
		"term: LLM calls saved 160 → 120",
		"term: score forfeited 0 → 2.5",
		"term: now a false termination: the score rose above the score at the termination turn",
		"unreadable: missing: its log could not be read (gzip: invalid header)",
	}
	// The hash of d2 in the baseline is computed, so compare that line by prefix.
	got := lines(c)
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if i == 0 {
			if !strings.HasPrefix(got[0], "dup (eps/d2/episode_log.jsonl): log changed (sha256:") || !strings.HasSuffix(got[0], "→ sha256:ffffffffffff…): the recording changed, not the rules") {
				t.Errorf("line 0: %s", got[0])
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	status := map[string]int{}
	for _, e := range c.Episodes {
		status[e.Status]++
	}
	if status[check.StatusUnchanged] != 2 || status[check.StatusChanged] != 3 || status[check.StatusNew] != 1 || status[check.StatusMissing] != 2 {
		t.Errorf("statuses %v", status)
	}
	if len(c.Config) != 1 || configChangeLine(c.Config[0]) != "max_turns_stuck 40 → 50" {
		t.Errorf("config changes %v", c.Config)
	}
	d := c.Episodes[0].Drift // dup d1: unchanged
	if len(d) != 0 || c.Episodes[0].Label != "dup (eps/d1/episode_log.jsonl)" {
		t.Errorf("dup d1: %+v", c.Episodes[0])
	}

	// No baseline: every episode is unchecked, nothing drifts.
	u := check.Compare(nil, cur, nil)
	if len(u.Episodes) != len(cur.Episodes) || len(u.Config) != 0 {
		t.Errorf("unchecked comparison %+v", u)
	}
	for _, e := range u.Episodes {
		if e.Status != check.StatusUnchecked || len(e.Drift) != 0 {
			t.Errorf("unchecked comparison: %+v", e)
		}
	}
}

func TestCompareTermination(t *testing.T) {
	cases := []struct {
		was, now check.Entry
		want     []string
	}{
		{entry("E", "s", 0, 0), entry("E", "s", 60, 40), []string{
			"E: would now terminate at t=60 (turns saved 0 → 40)", "E: check points none → t=60", "E: LLM calls saved 0 → 160"}},
		{entry("E", "s", 60, 40), entry("E", "s", 0, 0), []string{
			"E: no longer terminates, was at t=60 (turns saved 40 → 0)", "E: check points t=60 → none", "E: LLM calls saved 160 → 0"}},
		{entry("E", "s", 60, 40), entry("E", "s", 60, 30), []string{
			"E: turns saved 40 → 30", "E: LLM calls saved 160 → 120"}},
	}
	for _, c := range cases {
		base := &check.Baseline{Episodes: []check.Entry{c.was}}
		cur := &check.Baseline{Episodes: []check.Entry{c.now}}
		got := lines(check.Compare(base, cur, nil))
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

func TestCompareAllFields(t *testing.T) {
	was := entry("E", "s", 60, 40)
	now := was
	now.FiringCounts = map[string]int{"stuck_warnings/warning": 2, "new_rule/x": 0}
	now.Checkpoints = []int{60, 70}
	now.RecordedTurns, now.FinalScore = 90, 12
	now.LLMCallsMethod = analyze.CallsLogged
	now.Censored = true
	now.WouldReject = 4
	got := lines(check.Compare(&check.Baseline{Episodes: []check.Entry{was}}, &check.Baseline{Episodes: []check.Entry{now}}, nil))
	want := []string{
		"E: recorded turns 100 → 90",
		"E: final score 10 → 12",
		"E: check points t=60 → 2 at t=60, 70",
		"E: LLM calls estimated → logged",
		"E: now censored: the live run stopped the recording before the first check point",
		"E: actions that would be rejected 0 → 4",
		// progress_velocity/checkpoint restates the check points line.
		"E: progress_velocity/termination fired 1 → 0 times",
		"E: stuck_warnings/warning fired 0 → 2 times",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDescribeTurns(t *testing.T) {
	cases := map[string][]int{
		"none":                              nil,
		"t=60":                              {60},
		"2 at t=60, 70":                     {60, 70},
		"3 at t=60–80 (every 10)":           {60, 70, 80},
		"12 at t=60–80, 190–270 (every 10)": {60, 70, 80, 190, 200, 210, 220, 230, 240, 250, 260, 270},
		"3 at t=10, 30, 60":                 {10, 30, 60},
		"5 at t=10, 20, 50–70 (every 10)":   {10, 20, 50, 60, 70},
	}
	for want, xs := range cases {
		if got := describeTurns(xs); got != want {
			t.Errorf("describeTurns(%v) = %q, want %q", xs, got, want)
		}
	}
}

func TestConfigChangeLine(t *testing.T) {
	base := map[string]any{"a": 40.0, "b": true, "gone": 1.0, "f": -0.2}
	cur := map[string]any{"a": 40, "b": false, "new": 3, "f": -0.2}
	var got []string
	for _, c := range check.CompareConfig(base, cur) {
		got = append(got, configChangeLine(c))
	}
	want := "b true → false; gone 1 → (no such key now); new (not in the baseline) → 3"
	if strings.Join(got, "; ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, "; "), want)
	}
}

func TestFailOnObserve(t *testing.T) {
	outcome := func(id string, fs ...rules.Firing) *analyze.Outcome {
		o := &analyze.Outcome{EpisodeID: id, Counts: map[string]int{}, Firings: fs}
		for _, f := range fs {
			o.Counts[f.KindKey()]++
		}
		return o
	}
	adj := func(rejected bool) rules.Firing {
		return rules.Firing{Rule: rules.ScoreAdjustment, Kind: rules.Adjustment, Rejected: rejected, HasBase: true}
	}
	pen := func(adjusted float64, hasBase bool) rules.Firing {
		return rules.Firing{Rule: rules.LocationRevisit, Kind: rules.Penalty, Adjusted: adjusted, HasBase: hasBase}
	}
	eps := []*analyze.Outcome{
		outcome("won-1", adj(true), adj(false), pen(0.3, true), pen(0.1, false)),
		outcome("lost-1", adj(true), adj(true), pen(0.7, true)),
	}
	cases := []struct{ spec, msg string }{
		{"score_adjustment/adjustment", "score_adjustment/adjustment fired 4 times in 2 episodes: won-1 (2), lost-1 (2)"},
		{"score_adjustment/adjustment:rejected", "score_adjustment/adjustment would reject an action 3 times in 2 episodes: won-1 (1), lost-1 (2)"},
		{"score_adjustment/adjustment:rejected@won-*", "score_adjustment/adjustment would reject an action 1 time in 1 episode matching won-*: won-1 (1)"},
		{"location_revisit/penalty", "location_revisit/penalty fired 3 times in 2 episodes: won-1 (2), lost-1 (1)"},
		{"score_adjustment/adjustment@won-1,lost-?", "score_adjustment/adjustment fired 4 times in 2 episodes matching won-1,lost-?: won-1 (2), lost-1 (2)"},
		{"score_adjustment/adjustment@won-2,lost-9", "PASS score_adjustment/adjustment never fired in episodes matching won-2,lost-9"},
		{"camping/detection", "PASS camping/detection never fired"},
	}
	for _, c := range cases {
		f, err := check.ParseFailOn(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range eps {
			f.Observe(o)
		}
		r := f.Result()
		g := describeGate(&r, nil)
		msg := g.Message
		if g.Passed {
			msg = "PASS " + msg
		}
		if msg != c.msg || g.Name != "fail-on "+c.spec {
			t.Errorf("%s: %s: %q, want %q", c.spec, g.Name, msg, c.msg)
		}
	}
	// Six episodes list five and say how many more.
	f, _ := check.ParseFailOn("camping/detection")
	for i := range 7 {
		f.Observe(outcome(fmt.Sprint("E", i), rules.Firing{Rule: rules.Camping, Kind: rules.CampingDetection}))
	}
	r := f.Result()
	if g := describeGate(&r, nil); !strings.HasSuffix(g.Message, "E3 (1), E4 (1), and 2 more") {
		t.Errorf("long list: %s", g.Message)
	}
}

func TestGateWords(t *testing.T) {
	var tot analyze.Totals
	tot.Add(&analyze.Result{Terminated: true, TerminationTurn: 60, TurnsSaved: 40, ScoreForfeited: 5, FalseTermination: true}, 100, 0)
	tot.Add(&analyze.Result{Terminated: true, TerminationTurn: 80, TurnsSaved: 20}, 100, 0)
	tot.Add(&analyze.Result{}, 200, 0)
	tot.Finish() // 50% false, 15% saved, 5 forfeited
	cases := []struct {
		r    check.GateResult
		pass bool
		msg  string
	}{
		{check.MaxFalseRateGate(&tot, 50), true, "false terminations 1 of 2 terminated episodes (50.0%), at most 50% allowed"},
		{check.MaxFalseRateGate(&tot, 5), false, "false terminations 1 of 2 terminated episodes (50.0%) exceed the limit of 5%"},
		{check.MinSavedGate(&tot, 15), true, "turns saved 60 of 400 recorded turns (15.0%), at least 15% required"},
		{check.MinSavedGate(&tot, 40), false, "turns saved 60 of 400 recorded turns (15.0%), below the required 40%"},
		{check.MaxForfeitGate(&tot, 5), true, "score forfeited 5 in total, at most 5 allowed"},
		{check.MaxForfeitGate(&tot, 4.5), false, "score forfeited 5 in total exceeds the limit of 4.5"},
	}
	for _, c := range cases {
		g := describeGate(&c.r, &tot)
		if g.Passed != c.pass || g.Message != c.msg {
			t.Errorf("%s: passed=%v %q, want %v %q", g.Name, g.Passed, g.Message, c.pass, c.msg)
		}
	}
}

// A threshold change, in the words a reviewer reads.
func ExampleDriftLines() {
	was := &check.Baseline{Episodes: []check.Entry{{
		EpisodeID: "2025-11-04T09:35:24", Source: "eps/episode_log.jsonl", LogHash: "sha256:ab",
		TerminationTurn: intp(60), Checkpoints: []int{60, 70, 80}, TurnsSaved: 213, LLMCallsSaved: 852,
	}}}
	now := &check.Baseline{Episodes: []check.Entry{{
		EpisodeID: "2025-11-04T09:35:24", Source: "eps/episode_log.jsonl", LogHash: "sha256:ab",
		TerminationTurn: intp(70), Checkpoints: []int{70, 80}, TurnsSaved: 203, LLMCallsSaved: 812,
	}}}
	for _, e := range check.Compare(was, now, nil).Episodes {
		for _, l := range DriftLines(&e) {
			fmt.Println(l)
		}
	}
	// Output:
	// 2025-11-04T09:35:24: termination moved t=60 → t=70 (turns saved 213 → 203)
	// 2025-11-04T09:35:24: check points 3 at t=60–80 (every 10) → 2 at t=70, 80
	// 2025-11-04T09:35:24: LLM calls saved 852 → 812
}
