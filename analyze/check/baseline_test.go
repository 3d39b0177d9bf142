package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// entry is a baseline episode that terminated at term (0: never).
func entry(id, source string, term, saved int) Entry {
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
	return NewEntry(o, source, HashBytes([]byte(id+source)))
}

func TestBaselineEncodeCanonical(t *testing.T) {
	a := entry("b-episode", "eps/b/episode_log.jsonl", 60, 40)
	b := entry("a-episode", "eps/a/episode_log.jsonl", 0, 0)
	c := entry("a-episode", "eps/a2/episode_log.jsonl", 0, 0)
	b1 := NewBaseline(rules.Default())
	b1.Episodes = []Entry{a, b, c}
	b1.Sort()
	b2 := NewBaseline(rules.Default())
	b2.Episodes = []Entry{c, a, b}
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
	src := SourceOf(baseline, log)
	if src != "../eps/E1/episode_log.jsonl" {
		t.Errorf("source %q", src)
	}
	if got := SourcePath(baseline, src); got != log {
		t.Errorf("SourcePath = %q, want %q", got, log)
	}
	// From the working directory, with relative paths.
	t.Chdir(dir)
	if src := SourceOf("loopbreak.baseline.json", filepath.Join("eps", "E1", "episode_log.jsonl")); src != "eps/E1/episode_log.jsonl" {
		t.Errorf("relative source %q", src)
	}
	if src := SourceOf("loopbreak.baseline.json", log); src != "eps/E1/episode_log.jsonl" {
		t.Errorf("absolute log, relative baseline: source %q", src)
	}
	if got := SourcePath("loopbreak.baseline.json", "eps/E1/episode_log.jsonl"); got != filepath.Join("eps", "E1", "episode_log.jsonl") {
		t.Errorf("SourcePath = %q", got)
	}
	if SourceOf("x.json", "-") != "-" || SourcePath("x.json", "-") != "-" {
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

func TestCompare(t *testing.T) {
	base := NewBaseline(rules.Default())
	base.Episodes = []Entry{
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
	cur.Episodes = []Entry{
		entry("same", "eps/same/episode_log.jsonl", 60, 40),
		moved,
		entry("dup", "eps/d1/episode_log.jsonl", 0, 0),
		d2,
		term,
		entry("fresh", "eps/fresh/episode_log.jsonl", 0, 0),
	}
	cur.Sort()
	c := Compare(base, cur, map[string]string{"eps/bad/episode_log.jsonl": "gzip: invalid header"})
	var got []string
	for _, e := range c.Episodes {
		for _, d := range e.Drift {
			if d.Field == "log_hash" {
				d.Baseline = "…" // computed
			}
			got = append(got, fmt.Sprintf("%s %s %s→%s", e.Label, d.Field, d.Baseline, d.Current))
		}
		if e.Unreadable != "" {
			got = append(got, e.Label+" unreadable: "+e.Unreadable)
		}
	}
	want := []string{
		"dup (eps/d2/episode_log.jsonl) log_hash …→sha256:ffffffffffffffffffffffff",
		"dup (eps/d2/episode_log.jsonl) firing_counts/camping/detection 0→3",
		"fresh episode →eps/fresh/episode_log.jsonl",
		"gone episode eps/gone/episode_log.jsonl→",
		"moved source eps/moved/episode_log.jsonl→eps/moved2/episode_log.jsonl",
		"term termination_turn 60→70",
		"term checkpoints [60]→[70]",
		"term llm_calls_saved 160→120",
		"term score_forfeited 0→2.5",
		"term false_termination false→true",
		"unreadable episode eps/bad/episode_log.jsonl→",
		"unreadable unreadable: gzip: invalid header",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	status := map[string]int{}
	for _, e := range c.Episodes {
		status[e.Status]++
	}
	if status[StatusUnchanged] != 2 || status[StatusChanged] != 3 || status[StatusNew] != 1 || status[StatusMissing] != 2 {
		t.Errorf("statuses %v", status)
	}
	if len(c.Config) != 1 || c.Config[0] != (ConfigChange{Key: "max_turns_stuck", Baseline: "40", Current: "50"}) {
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

func TestCompareConfig(t *testing.T) {
	base := map[string]any{"a": 40.0, "b": true, "gone": 1.0, "f": -0.2}
	cur := map[string]any{"a": 40, "b": false, "new": 3, "f": -0.2}
	var got []string
	for _, c := range CompareConfig(base, cur) {
		got = append(got, c.Key+" "+c.Baseline+" "+c.Current)
	}
	want := "b true false; gone 1 ; new  3"
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
		{"score_adjustment/adjustment:rejected@2025-11-0?T*", "score_adjustment", "adjustment", "2025-11-0?T*", true, true},
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
		"location_revisit/penalty:rejected":  "location_revisit/penalty never rejects an action; :rejected applies to score_adjustment/adjustment (a revisit penalty lowers the critic's confidence, not its score)",
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
	outcome := func(id string, fs ...rules.Firing) *analyze.Outcome {
		o := &analyze.Outcome{EpisodeID: id, Counts: map[string]int{}, Firings: fs}
		for _, f := range fs {
			o.Counts[f.KindKey()]++
		}
		return o
	}
	adj := func(rejected bool) rules.Firing {
		return rules.Firing{Turn: 10, Rule: rules.ScoreAdjustment, Kind: rules.Adjustment, Rejected: rejected, HasBase: true}
	}
	pen := func(adjusted float64, hasBase bool) rules.Firing {
		return rules.Firing{Rule: rules.LocationRevisit, Kind: rules.Penalty, Adjusted: adjusted, HasBase: hasBase}
	}
	eps := []*analyze.Outcome{
		outcome("won-1", adj(true), adj(false), pen(0.3, true), pen(0.1, false)),
		outcome("lost-1", adj(true), adj(true), pen(0.7, true)),
	}
	// A rejection after the termination turn never happened: :rejected
	// leaves it out, as would_reject does; the plain kind counts it.
	late := outcome("cut-1", adj(true), rules.Firing{Turn: 50, Rule: rules.ScoreAdjustment, Kind: rules.Adjustment, Rejected: true})
	late.Termination = &analyze.Termination{Turn: 40}
	eps = append(eps, late)
	cases := []struct {
		spec  string
		fired int
		where []EpisodeCount
	}{
		{"score_adjustment/adjustment", 6, []EpisodeCount{{"won-1", 2}, {"lost-1", 2}, {"cut-1", 2}}},
		{"score_adjustment/adjustment:rejected", 4, []EpisodeCount{{"won-1", 1}, {"lost-1", 2}, {"cut-1", 1}}},
		{"score_adjustment/adjustment:rejected@won-*", 1, []EpisodeCount{{"won-1", 1}}},
		{"location_revisit/penalty", 3, []EpisodeCount{{"won-1", 2}, {"lost-1", 1}}},
		{"score_adjustment/adjustment@won-1,lost-?", 4, []EpisodeCount{{"won-1", 2}, {"lost-1", 2}}},
		{"score_adjustment/adjustment@won-2,lost-9", 0, nil},
		{"camping/detection", 0, nil},
	}
	for _, c := range cases {
		f, err := ParseFailOn(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range eps {
			f.Observe(o)
		}
		g := f.Result()
		if g.Kind != GateFailOn || g.FailOn != f || g.Passed != (c.fired == 0) || f.Fired != c.fired || !reflect.DeepEqual(f.Where, c.where) {
			t.Errorf("%s: %+v fired %d in %v, want %d in %v", c.spec, g, f.Fired, f.Where, c.fired, c.where)
		}
	}
}

// --fail-on live fails when a live run's logged decisions disagree with
// the replay (RULES.md §10), counting the disagreements, in scope only.
func TestFailOnLive(t *testing.T) {
	agrees := &analyze.Outcome{EpisodeID: "a", Live: &analyze.Live{Events: 3}}
	noLive := &analyze.Outcome{EpisodeID: "b"}
	differs := &analyze.Outcome{EpisodeID: "c-1", Live: &analyze.Live{Events: 3, Disagreements: make([]analyze.LiveDisagreement, 2)}}
	cases := []struct {
		spec  string
		fired int
		where []EpisodeCount
	}{
		{"live", 2, []EpisodeCount{{"c-1", 2}}},
		{"live@c-*", 2, []EpisodeCount{{"c-1", 2}}},
		{"live@a,b", 0, nil},
	}
	for _, c := range cases {
		f, err := ParseFailOn(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []*analyze.Outcome{agrees, noLive, differs} {
			f.Observe(o)
		}
		if r := f.Result(); !f.Live || r.Passed != (c.fired == 0) || f.Fired != c.fired || !reflect.DeepEqual(f.Where, c.where) {
			t.Errorf("%s: fired %d in %v, want %d in %v", c.spec, f.Fired, f.Where, c.fired, c.where)
		}
	}
	for spec, want := range map[string]string{"live@": "empty episode pattern", "live:rejected": "want RULE/KIND"} {
		if _, err := ParseFailOn(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFailOn(%q) = %v, want %q", spec, err, want)
		}
	}
}

func TestGates(t *testing.T) {
	var tot analyze.Totals
	tot.Add(&analyze.Result{Terminated: true, TerminationTurn: 60, TurnsSaved: 40, ScoreForfeited: 5, FalseTermination: true}, 100, 0)
	tot.Add(&analyze.Result{Terminated: true, TerminationTurn: 80, TurnsSaved: 20}, 100, 0)
	tot.Add(&analyze.Result{}, 200, 0)
	tot.Finish() // 50% false, 15% saved, 5 forfeited
	cases := []struct {
		g    GateResult
		pass bool
	}{
		{MaxFalseRateGate(&tot, 50), true},
		{MaxFalseRateGate(&tot, 5), false},
		{MinSavedGate(&tot, 15), true},
		{MinSavedGate(&tot, 40), false},
		{MaxForfeitGate(&tot, 5), true},
		{MaxForfeitGate(&tot, 4.5), false},
	}
	for _, c := range cases {
		if c.g.Passed != c.pass {
			t.Errorf("%+v: passed=%v, want %v", c.g, c.g.Passed, c.pass)
		}
	}
	// No terminations at all: a false rate of 0 passes any limit.
	var none analyze.Totals
	none.Finish()
	if g := MaxFalseRateGate(&none, 0); !g.Passed {
		t.Errorf("empty corpus: %+v", g)
	}
}

// FuzzParseBaseline: any input either fails to parse or survives a round
// trip through the canonical encoding unchanged.
func FuzzParseBaseline(f *testing.F) {
	b := NewBaseline(rules.Default())
	b.Episodes = []Entry{entry("E", "eps/E/episode_log.jsonl", 60, 40), entry("F<&>", "-", 0, 0)}
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

func TestParseBaselineSchemaVersion(t *testing.T) {
	for _, v := range []string{"-1", "0", "2"} {
		if _, err := ParseBaseline([]byte(`{"schema_version": ` + v + `, "config": {}, "episodes": []}`)); err == nil {
			t.Errorf("schema_version %s accepted", v)
		}
	}
}

func TestSourceEscape(t *testing.T) {
	for _, p := range []string{"eps/a/episode_log.jsonl", "caf\xe9/x", "100%/x", "%E9", "\xff\xfe%", "é/ü"} {
		s := escapeSource(p)
		if !utf8.ValidString(s) || unescapeSource(s) != p {
			t.Errorf("%q → %q → %q", p, s, unescapeSource(s))
		}
	}
	if got := escapeSource("eps/é/episode_log.jsonl"); got != "eps/é/episode_log.jsonl" {
		t.Errorf("valid path escaped: %q", got)
	}
}

// An update interrupted before its rename leaves the old baseline and no
// temporary file; a read-only baseline is refused.
func TestWriteBaselineInterruptedAndReadOnly(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "b.json")
	os.WriteFile(file, []byte("old\n"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := NewBaseline(rules.Default())
	if wrote, err := WriteBaseline(ctx, file, b); wrote || err == nil {
		t.Fatalf("interrupted write: %v %v", wrote, err)
	}
	if data, _ := os.ReadFile(file); string(data) != "old\n" {
		t.Errorf("baseline now %q", data)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, TempPattern)); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
	os.Chmod(file, 0o400)
	var ro *ReadOnlyError
	if _, err := WriteBaseline(context.Background(), file, b); !errors.As(err, &ro) {
		t.Errorf("read-only: %v", err)
	}
}
