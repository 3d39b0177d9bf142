package analyze

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

func intp(n int) *int { return &n }

// entry is a baseline episode that terminated at term (0: never).
func entry(id, source string, term, saved int) BaselineEpisode {
	o := &Outcome{EpisodeID: id, RecordedTurns: 100, FinalScore: 10, LLMCallsMethod: CallsEstimated, Counts: map[string]int{}}
	if term > 0 {
		o.Termination = &Termination{Turn: term, TurnsStuck: 40}
		o.Checkpoints = []Checkpoint{{Turn: term, TurnsStuck: 40}}
		o.TurnsSaved = saved
		o.LLMCallsSaved = 4 * saved
		o.Counts["progress_velocity/termination"] = 1
		o.Counts["progress_velocity/checkpoint"] = 1
	}
	return BaselineEntry(o, source, HashBytes([]byte(id+source)))
}

func TestBaselineEncodeCanonical(t *testing.T) {
	a := entry("b-episode", "eps/b/episode_log.jsonl", 60, 40)
	b := entry("a-episode", "eps/a/episode_log.jsonl", 0, 0)
	c := entry("a-episode", "eps/a2/episode_log.jsonl", 0, 0)
	b1 := NewBaseline(rules.Default())
	b1.Episodes = []BaselineEpisode{a, b, c}
	b1.Sort()
	b2 := NewBaseline(rules.Default())
	b2.Episodes = []BaselineEpisode{c, a, b}
	b2.Sort()
	enc := b1.Encode()
	if !bytes.Equal(enc, b2.Encode()) {
		t.Fatal("episode order of the input changes the encoding")
	}
	// Valid JSON, and a round trip gives the same bytes.
	if !json.Valid(enc) {
		t.Fatalf("invalid JSON:\n%s", enc)
	}
	back, err := ParseBaseline(enc)
	if err != nil {
		t.Fatal(err)
	}
	if again := back.Encode(); !bytes.Equal(enc, again) {
		t.Fatalf("round trip differs:\n%s\n---\n%s", enc, again)
	}
	s := string(enc)
	for _, want := range []string{
		"{\n  \"schema_version\": 1,\n  \"config\": {\n    \"action_novelty_window\": 15,",
		`"checkpoints": [60],`,
		`"termination_turn": null,`,
		`"termination_turn": 60,`,
		`      "firing_counts": {` + "\n" + `        "action_novelty/hint": 0,`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("encoding lacks %q:\n%s", want, s)
		}
	}
	if i, j := strings.Index(s, `"eps/a/`), strings.Index(s, `"eps/a2/`); i < 0 || j < i {
		t.Error("episodes with one id are not sorted by source")
	}
	if !strings.HasSuffix(s, "  ]\n}\n") {
		t.Errorf("encoding does not end with the episodes array and a newline: %q", s[len(s)-20:])
	}
	// Every registered kind is listed, fired or not.
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			if _, ok := back.Episodes[0].FiringCounts[r.Name+"/"+k.Name]; !ok {
				t.Errorf("firing_counts lacks %s/%s", r.Name, k.Name)
			}
		}
	}
	empty := NewBaseline(rules.Default()).Encode()
	if !strings.HasSuffix(string(empty), "\"episodes\": []\n}\n") {
		t.Errorf("empty baseline: %s", empty)
	}
}

func TestParseBaselineErrors(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`{"schema_version": 1,`, "line 1: unexpected end of JSON input"},
		{"{\n\"schema_version\": 1,\n\"episodes\": [}\n", "line 3: invalid character '}'"},
		{`{"episodes": []}`, "no schema_version"},
		{`{"schema_version": 2}`, "schema_version 2 is newer"},
		{`{"schema_version": 1, "episodes": [{"source": "x", "log_hash": "sha256:00"}]}`, "episode 1: no episode_id"},
		{`{"schema_version": 1, "episodes": [{"episode_id": "E", "log_hash": "sha256:00"}]}`, "episode E: no source"},
		{`{"schema_version": 1, "episodes": [{"episode_id": "E", "source": "x", "log_hash": "md5:00"}]}`, `log_hash "md5:00" is not sha256:<hex>`},
		{`{"schema_version": 1} {}`, "line 1: invalid character '{' after top-level value"},
		{`{"schema_version": "one"}`, "cannot unmarshal string"},
	}
	for _, c := range cases {
		_, err := ParseBaseline([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseBaseline(%q) = %v, want %q", c.doc, err, c.want)
		}
	}
}

func TestBaselineSourceRelative(t *testing.T) {
	dir := t.TempDir()
	baseline := filepath.Join(dir, "ci", "loopbreak.baseline.json")
	log := filepath.Join(dir, "eps", "E1", "episode_log.jsonl")
	src := BaselineSource(baseline, log)
	if src != "../eps/E1/episode_log.jsonl" {
		t.Errorf("source %q", src)
	}
	if got := SourcePath(baseline, src); got != log {
		t.Errorf("SourcePath = %q, want %q", got, log)
	}
	// From the working directory, with relative paths.
	t.Chdir(dir)
	if src := BaselineSource("loopbreak.baseline.json", filepath.Join("eps", "E1", "episode_log.jsonl")); src != "eps/E1/episode_log.jsonl" {
		t.Errorf("relative source %q", src)
	}
	if src := BaselineSource("loopbreak.baseline.json", log); src != "eps/E1/episode_log.jsonl" {
		t.Errorf("absolute log, relative baseline: source %q", src)
	}
	if got := SourcePath("loopbreak.baseline.json", "eps/E1/episode_log.jsonl"); got != filepath.Join("eps", "E1", "episode_log.jsonl") {
		t.Errorf("SourcePath = %q", got)
	}
	if BaselineSource("x.json", "-") != "-" || SourcePath("x.json", "-") != "-" {
		t.Error("stdin is not named -")
	}
}

func TestHash(t *testing.T) {
	// sha256 of the empty string.
	if got := HashBytes(nil); got != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("HashBytes(nil) = %s", got)
	}
	if _, err := HashFile(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("no error for a missing file")
	}
}

func lines(c *Comparison) []string {
	var out []string
	for i := range c.Episodes {
		out = append(out, c.Episodes[i].Lines()...)
	}
	return out
}

func TestCompare(t *testing.T) {
	base := NewBaseline(rules.Default())
	base.Episodes = []BaselineEpisode{
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
	cur := NewBaseline(cfg)
	moved := entry("moved", "eps/moved2/episode_log.jsonl", 0, 0)
	moved.LogHash = base.Episodes[3].LogHash // same bytes, new place
	d2 := entry("dup", "eps/d2/episode_log.jsonl", 0, 0)
	d2.FiringCounts["camping/detection"] = 3
	d2.LogHash = "sha256:ffffffffffffffffffffffff"
	term := entry("term", "eps/term/episode_log.jsonl", 70, 30)
	term.FalseTermination = true
	term.ScoreForfeited = 2.5
	cur.Episodes = []BaselineEpisode{
		entry("same", "eps/same/episode_log.jsonl", 60, 40),
		moved,
		entry("dup", "eps/d1/episode_log.jsonl", 0, 0),
		d2,
		term,
		entry("fresh", "eps/fresh/episode_log.jsonl", 0, 0),
	}
	cur.Sort()
	c := Compare(base, cur, map[string]string{"eps/bad/episode_log.jsonl": "gzip: invalid header"})
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
		"term: now a false termination: the recording made progress after the termination turn",
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
	if status[StatusUnchanged] != 2 || status[StatusChanged] != 3 || status[StatusNew] != 1 || status[StatusMissing] != 2 {
		t.Errorf("statuses %v", status)
	}
	if len(c.Config) != 1 || c.Config[0].String() != "max_turns_stuck 40 → 50" {
		t.Errorf("config changes %v", c.Config)
	}
	d := c.Episodes[0].Drift // dup d1: unchanged
	if len(d) != 0 || c.Episodes[0].Label != "dup (eps/d1/episode_log.jsonl)" {
		t.Errorf("dup d1: %+v", c.Episodes[0])
	}

	// No baseline: every episode is unchecked, nothing drifts.
	u := Compare(nil, cur, nil)
	if len(u.Episodes) != len(cur.Episodes) || len(u.Config) != 0 {
		t.Errorf("unchecked comparison %+v", u)
	}
	for _, e := range u.Episodes {
		if e.Status != StatusUnchecked || len(e.Drift) != 0 {
			t.Errorf("unchecked comparison: %+v", e)
		}
	}
}

func TestCompareTermination(t *testing.T) {
	cases := []struct {
		was, now BaselineEpisode
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
		base := &Baseline{Episodes: []BaselineEpisode{c.was}}
		cur := &Baseline{Episodes: []BaselineEpisode{c.now}}
		got := lines(Compare(base, cur, nil))
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
	now.LLMCallsMethod = CallsLogged
	now.Censored = true
	now.WouldReject = 4
	got := lines(Compare(&Baseline{Episodes: []BaselineEpisode{was}}, &Baseline{Episodes: []BaselineEpisode{now}}, nil))
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

func TestCompareConfig(t *testing.T) {
	base := map[string]any{"a": 40.0, "b": true, "gone": 1.0, "f": -0.2}
	cur := map[string]any{"a": 40, "b": false, "new": 3, "f": -0.2}
	var got []string
	for _, c := range CompareConfig(base, cur) {
		got = append(got, c.String())
	}
	want := "b true → false; gone 1 → (no such key now); new (not in the baseline) → 3"
	if strings.Join(got, "; ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, "; "), want)
	}
}

func TestParseFailOn(t *testing.T) {
	good := []struct {
		spec                string
		rule, kind, scope   string
		rejected, firingsOK bool
	}{
		{"progress_velocity/termination", "progress_velocity", "termination", "", false, false},
		{" score_adjustment/adjustment:rejected ", "score_adjustment", "adjustment", "", true, true},
		{"location_revisit/penalty:rejected@2025-11-0?T*", "location_revisit", "penalty", "2025-11-0?T*", true, true},
		{"camping/detection@2025-11-04T09:35:24", "camping", "detection", "2025-11-04T09:35:24", false, false},
		{"camping/detection@won-*, 2025-11-04T09:35:24", "camping", "detection", "won-*, 2025-11-04T09:35:24", false, false},
	}
	for _, g := range good {
		f, err := ParseFailOn(g.spec)
		if err != nil {
			t.Errorf("%q: %v", g.spec, err)
			continue
		}
		if f.Rule != g.rule || f.Kind != g.kind || f.Episodes != g.scope || f.Rejected != g.rejected || f.NeedsFirings() != g.firingsOK {
			t.Errorf("%q: %+v", g.spec, f)
		}
	}
	bad := map[string]string{
		"progress_velocity":                  "want RULE/KIND[:rejected][@EPISODES]",
		"/termination":                       "want RULE/KIND",
		"progress_velocty/termination":       `unknown rule "progress_velocty" (rules: progress_velocity, stuck_warnings,`,
		"progress_velocity/terminate":        `rule progress_velocity has no kind "terminate" (kinds: termination, checkpoint, reset)`,
		"score_adjustment/adjustment:denied": `unknown qualifier "denied"`,
		"stuck_warnings/warning:rejected":    "stuck_warnings/warning never rejects an action",
		"camping/detection@":                 "empty episode pattern",
		"camping/detection@[":                "bad episode pattern",
		"camping/detection@a,,b":             "empty episode pattern after @ or a comma",
		"camping/detection@a,[":              `bad episode pattern "["`,
	}
	for spec, want := range bad {
		if _, err := ParseFailOn(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFailOn(%q) = %v, want %q", spec, err, want)
		}
	}
}

func TestFailOnObserve(t *testing.T) {
	const threshold = 0.5
	outcome := func(id string, fs ...rules.Firing) *Outcome {
		o := &Outcome{EpisodeID: id, Counts: map[string]int{}, Firings: fs}
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
	eps := []*Outcome{
		outcome("won-1", adj(true), adj(false), pen(0.3, true), pen(0.1, false)),
		outcome("lost-1", adj(true), adj(true), pen(0.7, true)),
	}
	cases := []struct{ spec, msg string }{
		{"score_adjustment/adjustment", "score_adjustment/adjustment fired 4 times in 2 episodes: won-1 (2), lost-1 (2)"},
		{"score_adjustment/adjustment:rejected", "score_adjustment/adjustment would reject an action 3 times in 2 episodes: won-1 (1), lost-1 (2)"},
		{"score_adjustment/adjustment:rejected@won-*", "score_adjustment/adjustment would reject an action 1 time in 1 episode matching won-*: won-1 (1)"},
		{"location_revisit/penalty:rejected", "location_revisit/penalty would reject an action 1 time in 1 episode: won-1 (1)"},
		{"location_revisit/penalty:rejected@lost-*", "PASS location_revisit/penalty would never reject an action in episodes matching lost-*"},
		{"score_adjustment/adjustment@won-1,lost-?", "score_adjustment/adjustment fired 4 times in 2 episodes matching won-1,lost-?: won-1 (2), lost-1 (2)"},
		{"score_adjustment/adjustment@won-2,lost-9", "PASS score_adjustment/adjustment never fired in episodes matching won-2,lost-9"},
		{"camping/detection", "PASS camping/detection never fired"},
	}
	for _, c := range cases {
		f, err := ParseFailOn(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range eps {
			f.Observe(o, threshold)
		}
		g := f.Result()
		msg := g.Message
		if g.Passed {
			msg = "PASS " + msg
		}
		if msg != c.msg || g.Name != "fail-on "+c.spec {
			t.Errorf("%s: %s: %q, want %q", c.spec, g.Name, msg, c.msg)
		}
	}
	// Six episodes list five and say how many more.
	f, _ := ParseFailOn("camping/detection")
	for i := range 7 {
		f.Observe(outcome(fmt.Sprint("E", i), rules.Firing{Rule: rules.Camping, Kind: rules.CampingDetection}), threshold)
	}
	if g := f.Result(); !strings.HasSuffix(g.Message, "E3 (1), E4 (1), and 2 more") {
		t.Errorf("long list: %s", g.Message)
	}
}

func TestGates(t *testing.T) {
	var tot Totals
	tot.Add(&Outcome{RecordedTurns: 100, Termination: &Termination{Turn: 60}, TurnsSaved: 40, ScoreForfeited: 5, FalseTermination: true}, 0)
	tot.Add(&Outcome{RecordedTurns: 100, Termination: &Termination{Turn: 80}, TurnsSaved: 20}, 0)
	tot.Add(&Outcome{RecordedTurns: 200}, 0)
	tot.Finish() // 50% false, 15% saved, 5 forfeited
	cases := []struct {
		g    GateResult
		pass bool
		msg  string
	}{
		{MaxFalseRateGate(&tot, 50), true, "false terminations 1 of 2 terminated episodes (50.0%), at most 50% allowed"},
		{MaxFalseRateGate(&tot, 5), false, "false terminations 1 of 2 terminated episodes (50.0%) exceed the limit of 5%"},
		{MinSavedGate(&tot, 15), true, "turns saved 60 of 400 recorded turns (15.0%), at least 15% required"},
		{MinSavedGate(&tot, 40), false, "turns saved 60 of 400 recorded turns (15.0%), below the required 40%"},
		{MaxForfeitGate(&tot, 5), true, "score forfeited 5 in total, at most 5 allowed"},
		{MaxForfeitGate(&tot, 4.5), false, "score forfeited 5 in total exceeds the limit of 4.5"},
	}
	for _, c := range cases {
		if c.g.Passed != c.pass || c.g.Message != c.msg {
			t.Errorf("%s: passed=%v %q, want %v %q", c.g.Name, c.g.Passed, c.g.Message, c.pass, c.msg)
		}
	}
	// No terminations at all: a false rate of 0 passes any limit.
	var none Totals
	none.Finish()
	if g := MaxFalseRateGate(&none, 0); !g.Passed {
		t.Errorf("empty corpus: %+v", g)
	}
}

// A threshold change, in the words a reviewer reads.
func ExampleCompare() {
	was := &Baseline{Episodes: []BaselineEpisode{{
		EpisodeID: "2025-11-04T09:35:24", Source: "eps/episode_log.jsonl", LogHash: "sha256:ab",
		TerminationTurn: intp(60), Checkpoints: []int{60, 70, 80}, TurnsSaved: 213, LLMCallsSaved: 852,
	}}}
	now := &Baseline{Episodes: []BaselineEpisode{{
		EpisodeID: "2025-11-04T09:35:24", Source: "eps/episode_log.jsonl", LogHash: "sha256:ab",
		TerminationTurn: intp(70), Checkpoints: []int{70, 80}, TurnsSaved: 203, LLMCallsSaved: 812,
	}}}
	for _, e := range Compare(was, now, nil).Episodes {
		for _, l := range e.Lines() {
			fmt.Println(l)
		}
	}
	// Output:
	// 2025-11-04T09:35:24: termination moved t=60 → t=70 (turns saved 213 → 203)
	// 2025-11-04T09:35:24: check points 3 at t=60–80 (every 10) → 2 at t=70, 80
	// 2025-11-04T09:35:24: LLM calls saved 852 → 812
}

// FuzzParseBaseline: any input either fails to parse or survives a round
// trip through the canonical encoding unchanged.
func FuzzParseBaseline(f *testing.F) {
	b := NewBaseline(rules.Default())
	b.Episodes = []BaselineEpisode{entry("E", "eps/E/episode_log.jsonl", 60, 40), entry("F<&>", "-", 0, 0)}
	f.Add(b.Encode())
	f.Add([]byte(`{"schema_version": 1, "config": {"k": [1, {"x": null}]}, "episodes": [{"episode_id": "E", "source": "s", "log_hash": "sha256:", "checkpoints": null, "final_score": 1e21}]}`))
	f.Add([]byte(`{"schema_version": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline(data)
		if err != nil {
			return
		}
		enc := b.Encode()
		b2, err := ParseBaseline(enc)
		if err != nil {
			t.Fatalf("canonical encoding does not parse: %v\n%s", err, enc)
		}
		if enc2 := b2.Encode(); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%s\n---\n%s", enc, enc2)
		}
	})
}
