package analyze

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

func warn(turn int) rules.Firing {
	return rules.Firing{Turn: turn, Rule: rules.StuckWarnings, Kind: rules.Warning}
}

func term(turn int) rules.Firing {
	return rules.Firing{Turn: turn, Rule: rules.ProgressVelocity, Kind: rules.Termination}
}

// TestScoreByHand checks each metric against figures worked out by hand.
func TestScoreByHand(t *testing.T) {
	two := &EpisodeLabels{Stuck: []Span{{From: 20, To: 40}, {From: 100, To: 120}}}
	cases := []struct {
		name    string
		lab     *EpisodeLabels
		firings []rules.Firing
		want    Score
		// derived, in percent; NaN: undefined
		precision, recall, f1 float64
		median                float64 // NaN: no caught span
		leadMax               int
	}{
		{
			// 4 firings, 3 inside (25, 30 in the first span; 110 in the
			// second), 1 outside (60): P = 3/4; both spans caught: R = 1;
			// F1 = 2·0.75·1/1.75 = 6/7. Leads 25−20 = 5, 110−100 = 10.
			name: "both spans caught", lab: two,
			firings:   []rules.Firing{warn(25), warn(30), warn(60), warn(110)},
			want:      Score{Firings: 4, Inside: 3, Spans: 2, Caught: 2, Leads: map[int]int{5: 1, 10: 1}},
			precision: 75, recall: 100, f1: 600.0 / 7, median: 7.5, leadMax: 10,
		},
		{
			// Span edges are inclusive: 20 and 120 are inside, 19 and 121
			// are not. P = 2/4, R = 2/2, F1 = 2·0.5/1.5 = 2/3. Leads 0, 20.
			name: "inclusive edges", lab: two,
			firings:   []rules.Firing{warn(19), warn(20), warn(120), warn(121)},
			want:      Score{Firings: 4, Inside: 2, Spans: 2, Caught: 2, Leads: map[int]int{0: 1, 20: 1}},
			precision: 50, recall: 100, f1: 200.0 / 3, median: 10, leadMax: 20,
		},
		{
			// One termination inside the first span: P = 1, R = 1/2,
			// F1 = 2·0.5/1.5. Lead 30−20 = 10.
			name: "termination once", lab: two,
			firings:   []rules.Firing{term(30)},
			want:      Score{Firings: 1, Inside: 1, Spans: 2, Caught: 1, Leads: map[int]int{10: 1}},
			precision: 100, recall: 50, f1: 200.0 / 3, median: 10, leadMax: 10,
		},
		{
			// Never fires on a stuck episode: precision undefined, recall 0, F1 0.
			name: "silent", lab: two,
			want:      Score{Spans: 2},
			precision: math.NaN(), recall: 0, f1: 0, median: math.NaN(),
		},
		{
			// Fires on a never-stuck episode: every firing false.
			name: "never stuck, fired", lab: &EpisodeLabels{},
			firings:   []rules.Firing{warn(5), warn(6)},
			want:      Score{Firings: 2},
			precision: 0, recall: math.NaN(), f1: 0, median: math.NaN(),
		},
		{
			// Quiet on a never-stuck episode: nothing to measure.
			name: "never stuck, quiet", lab: &EpisodeLabels{},
			want:      Score{},
			precision: math.NaN(), recall: math.NaN(), f1: math.NaN(), median: math.NaN(),
		},
		{
			// Out of turn order: the lead is from the earliest firing.
			name: "unordered", lab: two,
			firings:   []rules.Firing{warn(35), warn(22)},
			want:      Score{Firings: 2, Inside: 2, Spans: 2, Caught: 1, Leads: map[int]int{2: 1}},
			precision: 100, recall: 50, f1: 200.0 / 3, median: 2, leadMax: 2,
		},
	}
	check := func(t *testing.T, what string, got float64, ok bool, want float64) {
		t.Helper()
		if math.IsNaN(want) {
			if ok {
				t.Errorf("%s = %v, want undefined", what, got)
			}
			return
		}
		if !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (ok %v), want %v", what, got, ok, want)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := "stuck_warnings/warning"
			if len(c.firings) > 0 && c.firings[0].Kind == rules.Termination {
				key = "progress_velocity/termination"
			}
			s := ScoreFirings(c.lab, []string{key}, c.firings)
			got := s[key]
			if got == nil {
				t.Fatalf("no score for %s: %v", key, s)
			}
			if !reflect.DeepEqual(*got, c.want) {
				t.Fatalf("score = %+v, want %+v", *got, c.want)
			}
			p, ok := got.Precision()
			check(t, "precision", p*100, ok, c.precision)
			r, ok := got.Recall()
			check(t, "recall", r*100, ok, c.recall)
			f, ok := got.F1()
			check(t, "F1", f*100, ok, c.f1)
			m, ok := got.LeadMedian()
			check(t, "lead median", m, ok, c.median)
			if mx, ok := got.LeadMax(); ok && mx != c.leadMax {
				t.Errorf("lead max = %d, want %d", mx, c.leadMax)
			}
		})
	}
}

// TestScoreResetNotScored: a reset says the agent progressed, not that it
// is stuck.
func TestScoreResetNotScored(t *testing.T) {
	lab := &EpisodeLabels{Stuck: []Span{{From: 0, To: 10}}}
	s := ScoreFirings(lab, nil, []rules.Firing{{Turn: 5, Rule: rules.ProgressVelocity, Kind: rules.Reset}})
	if len(s) != 0 {
		t.Errorf("reset scored: %v", s)
	}
	for _, k := range ScoredKinds(nil, rules.Default()) {
		if k == "progress_velocity/reset" {
			t.Error("ScoredKinds lists reset")
		}
	}
}

// TestScoreMergeExact: scores merged over episodes equal the counts of
// all firings at once; the median comes from the merged lead times, not
// from per-episode medians.
func TestScoreMergeExact(t *testing.T) {
	a := ScoreFirings(&EpisodeLabels{Stuck: []Span{{From: 0, To: 9}}}, nil, []rules.Firing{warn(1)})
	b := ScoreFirings(&EpisodeLabels{Stuck: []Span{{From: 0, To: 9}, {From: 20, To: 29}}}, nil, []rules.Firing{warn(7), warn(29), warn(40)})
	c := ScoreFirings(&EpisodeLabels{}, nil, []rules.Firing{warn(3)})
	var tot LabelTotals
	tot.Add(&EpisodeLabels{Stuck: make([]Span, 1)}, a)
	tot.Add(&EpisodeLabels{Stuck: make([]Span, 2)}, b)
	tot.Add(&EpisodeLabels{}, c)
	got := tot.Scores["stuck_warnings/warning"]
	want := Score{Firings: 5, Inside: 3, Spans: 3, Caught: 3, Leads: map[int]int{1: 1, 7: 1, 9: 1}}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("merged = %+v, want %+v", *got, want)
	}
	if m, _ := got.LeadMedian(); m != 7 {
		t.Errorf("median = %v, want 7", m)
	}
	if tot.Episodes != 3 || tot.NeverStuck != 1 || tot.Spans != 3 {
		t.Errorf("totals = %+v", tot)
	}
	// Through JSON and back (a shard's partial totals) and merged again.
	data, err := json.Marshal(&tot)
	if err != nil {
		t.Fatal(err)
	}
	var back LabelTotals
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	back.Merge(&tot)
	if g := back.Scores["stuck_warnings/warning"]; g.Firings != 10 || g.Caught != 6 || g.Leads[7] != 2 || back.Episodes != 6 {
		t.Errorf("merged after JSON = %+v %+v", back, *g)
	}
	if !strings.Contains(string(data), `"precision_pct":60,"recall_pct":100,"f1_pct":75`) {
		t.Errorf("JSON = %s", data)
	}
}

func TestParseLabels(t *testing.T) {
	good := `{"schema_version":1,"episodes":{"ep1":{"stuck":[{"from":100,"to":120},{"from":21,"to":89,"note":"loops"}]},"ep2":{"stuck":[]},"ep3":{}}}`
	lf, err := ParseLabels("l.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := lf.Episodes["ep1"].Stuck; !reflect.DeepEqual(got, []Span{{21, 89, "loops"}, {100, 120, ""}}) {
		t.Errorf("ep1 = %v (want sorted by from)", got)
	}
	if len(lf.Episodes["ep2"].Stuck) != 0 || lf.Episodes["ep3"] == nil {
		t.Errorf("never-stuck episodes: %v %v", lf.Episodes["ep2"], lf.Episodes["ep3"])
	}
	single, err := ParseLabels("labels.json", []byte(`{"stuck":[{"from":3,"to":3.0}]}`))
	if err != nil || single.Single == nil || single.Single.Stuck[0] != (Span{From: 3, To: 3}) {
		t.Errorf("single form: %+v, %v", single, err)
	}

	bad := []struct{ doc, want string }{
		{``, "l.json: not JSON: empty file"},
		{`{"stuck":[}`, "l.json: not JSON: line 1, column 11"},
		{`[]`, "l.json: $: must be an object, got a list"},
		{`{}`, `l.json: $: needs "episodes"`},
		{`{"stuck":[],"episodes":{}}`, `l.json: $: has both`},
		{`{"schema_version":2,"stuck":[]}`, "l.json: $.schema_version: must be 1, got 2"},
		{`{"stuck":[],"extra":1}`, "l.json: $.extra: unknown key"},
		{`{"episodes":[]}`, "l.json: $.episodes: must be an object keyed by episode id, got a list"},
		{`{"episodes":{"a":[]}}`, `l.json: $.episodes["a"]: must be an object`},
		{`{"episodes":{"a":{"spans":[]}}}`, `l.json: $.episodes["a"].spans: unknown key (want stuck)`},
		{`{"episodes":{"a":{"stuck":[{"from":1}]}}}`, `l.json: $.episodes["a"].stuck[0]: missing "to"`},
		{`{"episodes":{"a":{"stuck":[{"from":-1,"to":3}]}}}`, `l.json: $.episodes["a"].stuck[0].from: must not be negative, got -1`},
		{`{"episodes":{"a":{"stuck":[{"from":"1","to":3}]}}}`, `stuck[0].from: must be an integer, got a string`},
		{`{"episodes":{"a":{"stuck":[{"from":1.5,"to":3}]}}}`, `stuck[0].from: must be an integer, got 1.5`},
		{`{"episodes":{"a":{"stuck":[{"from":9,"to":3}]}}}`, `l.json: $.episodes["a"].stuck[0]: from (9) is after to (3)`},
		{`{"episodes":{"a":{"stuck":[{"from":50,"to":60},{"from":10,"to":50}]}}}`, `l.json: $.episodes["a"].stuck[0]: overlaps $.episodes["a"].stuck[1] (10–50)`},
		{`{"stuck":[{"from":1,"to":2,"note":3}]}`, "l.json: $.stuck[0].note: must be a string, got a number"},
		{`{"stuck":[{"from":1,"to":2}]} {}`, "more than one value"},
		{`{"stuck":[{"from":1,"to":1e300}]}`, "$.stuck[0].to: must be at most 9007199254740992, got 1e300"},
		{`{"stuck":[{"from":1,"to":-1e300}]}`, "$.stuck[0].to: must not be negative, got -1e300"},
		{`{"stuck":[{"from":1,"to":1e400}]}`, "$.stuck[0].to: must be at most 9007199254740992, got 1e400"},
	}
	for _, c := range bad {
		_, err := ParseLabels("l.json", []byte(c.doc))
		var le *LabelsError
		if err == nil || !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.doc, err, c.want)
		}
	}
}

// TestLabelsFor: --labels wins over a sidecar; the "stuck" form labels
// one episode per log; a log without labels is unlabelled.
func TestLabelsFor(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	logA := write("a/episode_log.jsonl", "")
	logB := write("b/episode_log.jsonl", "")
	write("a/labels.json", `{"stuck":[{"from":1,"to":5}]}`)
	explicit := write("all.json", `{"episodes":{"x":{"stuck":[{"from":7,"to":8}]}}}`)

	if l, err := LoadLabels("", []string{logB}, nil); l != nil || err != nil {
		t.Fatalf("no labels: %v %v", l, err)
	}
	l, err := LoadLabels(explicit, []string{logA, logB, "-"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := l.For(logA, "y"); e == nil || e.Stuck[0].From != 1 {
		t.Errorf("sidecar: %v", e)
	}
	if e, _ := l.For(logA, "x"); e == nil || e.Stuck[0].From != 7 {
		t.Errorf("--labels over sidecar: %v", e)
	}
	if e, _ := l.For(logB, "z"); e != nil {
		t.Errorf("unlabelled: %v", e)
	}
	if _, err := l.For(logA, "w"); err == nil || !strings.Contains(err.Error(), "holds several (y, w)") {
		t.Errorf("second episode of a single-form log: %v", err)
	}
	// x was read (its sidecar entry shadowed); nothing is left unused.
	if u := l.Unused(); len(u) != 0 {
		t.Errorf("unused: %v", u)
	}
	l2, err := LoadLabels(explicit, []string{logB}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u := l2.Unused(); len(u) != 1 || !strings.Contains(u[0], `all.json: $.episodes["x"]: no episode with this id was read`) {
		t.Errorf("unused before any episode: %v", u)
	}
	write("b/labels.json", `{"stuck":[{"from":1}]}`)
	if _, err := LoadLabels("", []string{logB}, nil); err == nil || !strings.Contains(err.Error(), `b/labels.json: $.stuck[0]: missing "to"`) {
		t.Errorf("bad sidecar: %v", err)
	}
	if _, err := LoadLabels(filepath.Join(dir, "a/labels.json"), nil, nil); err == nil || !strings.Contains(err.Error(), "--labels needs the \"episodes\" form") {
		t.Errorf("single form as --labels: %v", err)
	}
}

// FuzzParseLabels: any input parses or fails with a LabelsError, never a
// panic; what parses is sorted, disjoint and in range.
func FuzzParseLabels(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"episodes":{"e":{"stuck":[{"from":21,"to":89,"note":"n"}]}}}`))
	f.Add([]byte(`{"stuck":[{"from":0,"to":0},{"from":1,"to":2}]}`))
	f.Add([]byte(`{"stuck":[{"from":5,"to":3}]}`))
	f.Add([]byte(`{"episodes":{"":{}}}`))
	f.Add([]byte(`{"stuck":[{"from":1e400,"to":-0}]}`))
	f.Add([]byte(`{"stuck":[{"from":1,"to":2}]}garbage`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := ParseLabels("f.json", data)
		if err != nil {
			var le *LabelsError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *LabelsError", err)
			}
			return
		}
		all := []*EpisodeLabels{lf.Single}
		for _, e := range lf.Episodes {
			all = append(all, e)
		}
		for _, e := range all {
			if e == nil {
				continue
			}
			for i, s := range e.Stuck {
				if s.From < 0 || s.From > s.To || (i > 0 && e.Stuck[i-1].To >= s.From) {
					t.Fatalf("invalid spans accepted: %v", e.Stuck)
				}
			}
			// Scoring any firing against them never panics.
			ScoreFirings(e, nil, []rules.Firing{warn(0), warn(50), warn(1 << 30)})
		}
	})
}

// The same episode twice in a labels file is refused, naming both lines:
// encoding/json kept the last silently.
func TestParseLabelsRepeatedEpisode(t *testing.T) {
	doc := "{\"episodes\": {\n  \"a\": {\"stuck\": [{\"from\": 1, \"to\": 3}]},\n  \"b\": {\"stuck\": []},\n  \"a\": {\"stuck\": [{\"from\": 5, \"to\": 9}]}\n}}\n"
	_, err := ParseLabels("l.json", []byte(doc))
	if want := `l.json: $.episodes["a"]: listed twice, on lines 2 and 4`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	// Distinct ids, and the same id under two other keys, are fine.
	if _, err := ParseLabels("l.json", []byte(`{"episodes": {"a": {"stuck": []}, "b": {"stuck": []}}}`)); err != nil {
		t.Fatal(err)
	}
}

// A sidecar labels.json that is there but cannot be read (a symlink loop,
// a link to a directory, a dangling link) is reported as any unreadable
// file is, and the run goes on; it once aborted the whole run.
func TestUnreadableSidecar(t *testing.T) {
	for _, c := range []struct {
		name   string
		make   func(dir string) error
		reason string
	}{
		{"symlink loop", func(dir string) error { return os.Symlink("labels.json", filepath.Join(dir, LabelsSidecar)) }, "too many levels of symbolic links"},
		{"link to a directory", func(dir string) error { return os.Symlink(".", filepath.Join(dir, LabelsSidecar)) }, "is a directory"},
		{"dangling link", func(dir string) error { return os.Symlink("gone.json", filepath.Join(dir, LabelsSidecar)) }, "no such file or directory"},
	} {
		dir := t.TempDir()
		if err := c.make(dir); err != nil {
			t.Fatal(err)
		}
		log := filepath.Join(dir, "episode_log.jsonl")
		l, err := LoadLabels("", []string{log}, nil)
		if err != nil {
			t.Fatalf("%s: LoadLabels: %v, want a warning", c.name, err)
		}
		if lab, err := l.For(log, "e"); lab != nil || err != nil {
			t.Errorf("%s: For = %v, %v; want no labels", c.name, lab, err)
		}
		want := filepath.Join(dir, LabelsSidecar) + ": unreadable (" + c.reason + "): its labels are not used"
		if got := l.Unused(); len(got) != 1 || got[0] != want {
			t.Errorf("%s: warnings %q, want %q", c.name, got, want)
		}
	}
	// A sidecar that breaks the format still stops the run before any output.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, LabelsSidecar), []byte(`{"stuck": 1}`), 0o644)
	if _, err := LoadLabels("", []string{filepath.Join(dir, "episode_log.jsonl")}, nil); err == nil {
		t.Error("a malformed sidecar was accepted")
	}
}

// A span may name any step a steps log may number (up to 2^53), not only
// ZorkGPT's turns: 10^12 is a step.
func TestLabelsStepRange(t *testing.T) {
	lf, err := ParseLabels("l.json", []byte(`{"episodes": {"a": {"stuck": [{"from": 1000000000000, "to": 9007199254740992}]}}}`))
	if err != nil || lf.Episodes["a"].Stuck[0].From != 1e12 {
		t.Fatalf("%v %v", lf, err)
	}
	_, err = ParseLabels("l.json", []byte(`{"episodes": {"a": {"stuck": [{"from": 1, "to": 9007199254740993}]}}}`))
	if want := `l.json: $.episodes["a"].stuck[0].to: must be at most 9007199254740992, got 9007199254740993`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
