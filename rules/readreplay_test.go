package rules_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestFiringListRoundTrip: a packed firing reads back as it was added,
// field by field: each field of Firing is set alone (by reflection, so a
// field added to Firing and not to FiringList fails here), then all of
// them at once, each with its tag.
func TestFiringListRoundTrip(t *testing.T) {
	rule, kind := rules.FuzzyRepeat, rules.FuzzyRepeat.Kinds[0]
	base := rules.Firing{Turn: 7, Rule: rule, Kind: kind}
	var fs []rules.Firing
	all := base
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if name == "Turn" || name == "Rule" || name == "Kind" {
			continue
		}
		f := base
		for _, g := range []*rules.Firing{&f, &all} {
			v := reflect.ValueOf(g).Elem().Field(i)
			switch v.Kind() {
			case reflect.String:
				v.SetString(name + " value")
			case reflect.Int:
				v.SetInt(-123456789012)
			case reflect.Float64:
				v.SetFloat(-0.1234)
			case reflect.Bool:
				v.SetBool(true)
			case reflect.Array:
				v.Index(0).SetString(name + " 0")
				v.Index(1).SetString(name + " 1")
			default:
				t.Fatalf("Firing.%s is a %s: FiringList does not pack it", name, v.Kind())
			}
		}
		fs = append(fs, f)
		if f == base {
			t.Fatalf("Firing.%s was not set", name)
		}
	}
	odd := base
	odd.Turn, odd.Score, odd.Similarity = -3, math.Copysign(0, -1), math.NaN()
	odd.Rule, odd.Kind = rules.SignatureRepeat, rules.SignatureRepeat.Kinds[0]
	fs = append(fs, all, base, odd)
	var l rules.FiringList
	for i := range fs {
		l.Add(&fs[i], i%3)
	}
	var got []rules.Firing
	var by []int
	var f rules.Firing
	for it := l.Iter(); it.Next(&f); {
		got, by = append(got, f), append(by, it.Tag())
	}
	if l.Len() != len(fs) {
		t.Errorf("Len %d, added %d", l.Len(), len(fs))
	}
	if len(got) != len(fs) {
		t.Fatalf("read %d firings back, added %d", len(got), len(fs))
	}
	for i := range fs {
		if by[i] != i%3 {
			t.Errorf("firing %d: by %d, want %d", i, by[i], i%3)
		}
		w, g := fs[i], got[i]
		if math.Float64bits(w.Similarity) != math.Float64bits(g.Similarity) || math.Float64bits(w.Score) != math.Float64bits(g.Score) {
			t.Errorf("firing %d: Score %v Similarity %v, want %v %v", i, g.Score, g.Similarity, w.Score, w.Similarity)
		}
		w.Similarity, g.Similarity, w.Score, g.Score = 0, 0, 0, 0
		if w != g {
			t.Errorf("firing %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

// allOn is the default configuration with every rule enabled, the
// peer detectors that are off by default too.
func allOn(t testing.TB) *rules.Config {
	cfg := rules.Default()
	for _, r := range rules.Registry {
		if len(r.Params) == 0 {
			continue // a check of another rule's detector
		}
		if p := r.Params[0]; p.Default == false {
			if err := cfg.Set(p.Key, true, rules.Source{Kind: "flag"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return cfg
}

// readBoth reads data as a log twice, replaying it while read
// (ReadReplay) and after (Run), and fails when the episodes' tables or
// their firings differ. It returns how many episodes were replayed
// while read.
func readBoth(t testing.TB, name string, data []byte, cfg *rules.Config) int {
	opts := replay.Options{Format: replay.FormatAuto, Outputs: true}
	whole, errWhole := replay.Read(bytes.NewReader(data), name, "x", opts)
	opts.Stepper = func(ep *replay.Episode) replay.TurnStepper {
		return rules.NewReadReplay(context.Background(), ep, cfg, nil)
	}
	// From a file, as analyze reads: one that can be read again (a Gemini
	// CLI recording is replayed as read only then).
	path := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	read, errRead := replay.ReadFile(path, nil, opts)
	if (errWhole == nil) != (errRead == nil) || len(whole) != len(read) {
		t.Fatalf("%s: read whole: %d episodes, %v; replayed while read: %d, %v", name, len(whole), errWhole, len(read), errRead)
	}
	stepped := 0
	for i := range whole {
		a, b := whole[i], read[i]
		if !reflect.DeepEqual(spelled(a, b), spelled(b, b)) || a.HasScore != b.HasScore {
			t.Fatalf("%s: episode %d: the turn tables differ", name, i)
		}
		var want, got []rules.Firing
		rules.Run(a, cfg, nil, func(f rules.Firing) { want = append(want, f) })
		if rr, ok := b.Stepped.(*rules.ReadReplay); ok {
			stepped++
			for k := range b.Turns {
				if letGo(b, k) {
					letGoActions++
				}
			}
			letGoEvents += b.V1Dropped
			if b.Outputs != nil {
				t.Errorf("%s: episode %d kept its outputs while replayed as read", name, i)
			}
			if err := rr.Finish(b, cfg, nil, func(f *rules.Firing) { got = append(got, *f) }); err != nil {
				t.Fatal(err)
			}
		} else {
			rules.Run(b, cfg, nil, func(f rules.Firing) { got = append(got, f) })
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: episode %d: replayed while read: %d firings, Run: %d\n%s", name, i, len(got), len(want), firstDiff(got, want))
		}
	}
	return stepped
}

// spelled is ep's turn table and step infos with their strings spelled
// out: Syms differ between a table that interned the outputs and one
// that did not. The actions and canonical calls that stepped, an episode
// replayed as read, let go once replayed (an action, never empty, reads
// "") are left out: nothing reads them after the replay (the firings,
// compared, say the replay read them right), and TestHistoryTableRenewed
// and TestActionTableRenewed compare each as its turn is replayed.
func spelled(ep, stepped *replay.Episode) []any {
	var rows []any
	for i := range ep.Turns {
		r := ep.Row(&ep.Turns[i])
		if letGo(stepped, i) {
			r.Action = ""
		}
		rows = append(rows, r)
	}
	for i, s := range ep.Steps {
		c := ep.Str(s.Canonical)
		if letGo(stepped, i) {
			c = ""
		}
		s.Canonical = 0
		rows = append(rows, s, c)
	}
	return rows
}

// letGo says ep let go of turn i's action once it replayed it.
func letGo(ep *replay.Episode, i int) bool {
	t := &ep.Turns[i]
	return ep.Stepped != nil && t.HasAction && ep.Str(t.Action) == ""
}

// letGoActions and letGoEvents count the actions and V1 events that
// episodes replayed while read (readBoth) let go.
var letGoActions, letGoEvents int

// TestReadReplayEqualsRun: every committed agent and steps log, and
// random steps logs without a score, with one from the start and with
// one only late, give the same turn table and the same firings, in the
// same order, replayed while read as replayed after, under the default
// configuration and with every rule on.
func TestReadReplayEqualsRun(t *testing.T) {
	files := replaytest.CommittedAgentLogs(filepath.Join("..", "testdata"))
	if len(files) < 15 {
		t.Fatalf("only %d committed logs found", len(files))
	}
	cfgs := []*rules.Config{rules.Default(), allOn(t)}
	stepped := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range cfgs {
			stepped += readBoth(t, f, data, cfg)
		}
	}
	rng := rand.New(rand.NewPCG(24, 1))
	for trial := range 40 {
		steps := 1 + rng.IntN(400)
		from := []int{-1, 1, steps / 2, steps}[trial%4]
		for _, cfg := range cfgs {
			stepped += readBoth(t, fmt.Sprintf("random-%d.jsonl", trial), replaytest.StepsLog(rng, steps, from), cfg)
		}
	}
	for trial := range 60 {
		for _, cfg := range cfgs {
			stepped += readBoth(t, fmt.Sprintf("openhands-%d.jsonl", trial), replaytest.OpenHandsLog(rng, 5+rng.IntN(300)), cfg)
		}
	}
	for trial := range 60 {
		for _, cfg := range cfgs {
			stepped += readBoth(t, fmt.Sprintf("v1-%d.jsonl", trial), replaytest.V1Log(rng, 5+rng.IntN(300)), cfg)
		}
	}
	// A V1 session whose distinct actions and events cross the bounds
	// past which a replay as read lets go of those replayed.
	big := replaytest.V1LogDistinct(rng, 100_000)
	letGoActions, letGoEvents = 0, 0
	for _, cfg := range cfgs {
		stepped += readBoth(t, "v1-big.jsonl", big, cfg)
	}
	if letGoActions == 0 || letGoEvents == 0 {
		t.Errorf("the big V1 session let go of %d actions and %d events replayed", letGoActions, letGoEvents)
	}
	for trial := range 120 {
		for _, cfg := range cfgs {
			stepped += readBoth(t, fmt.Sprintf("gemini-%d.jsonl", trial), replaytest.GeminiLog(rng, 5+rng.IntN(400), trial%4 == 1, trial%4 == 2, trial%4 == 3), cfg)
		}
	}
	for trial := range 120 {
		for _, cfg := range cfgs {
			stepped += readBoth(t, fmt.Sprintf("session-%d.json", trial), replaytest.GeminiDoc(rng, 1+rng.IntN(300), trial%2 == 1), cfg)
		}
	}
	if stepped < 500 {
		t.Errorf("only %d episodes were replayed while read", stepped)
	}
}

// FuzzReadReplay: whatever the input, replaying while reading reports
// what Run reports after reading.
func FuzzReadReplay(f *testing.F) {
	rng := rand.New(rand.NewPCG(24, 2))
	for _, from := range []int{-1, 1, 20} {
		f.Add(replaytest.StepsLog(rng, 30, from))
	}
	f.Add(replaytest.OpenHandsLog(rng, 40))
	f.Add(replaytest.V1Log(rng, 40))
	f.Add(replaytest.GeminiLog(rng, 60, false, false, false))
	f.Add(replaytest.GeminiLog(rng, 60, true, true, true))
	f.Add(replaytest.GeminiDoc(rng, 40, true))
	for _, p := range []string{"steps/agent.jsonl", "steps/mapped.jsonl", "agents/codex/sessions/2026/11/20/rollout-2026-11-20T11-00-00-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl"} {
		if data, err := os.ReadFile(filepath.Join("..", "testdata", filepath.FromSlash(p))); err == nil {
			f.Add(data)
		}
	}
	cfg := allOn(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		readBoth(t, "fuzz.jsonl", data, cfg)
	})
}

// TestReadReplaySets: what a ReadReplay relies on to step, from a steps
// log's first turn, the rules that apply once its turns are all read.
// For every preset and configuration tried, the rules that apply to a
// log without a score are among those that apply to one with a score
// (the only thing a later record changes: HasScore), and none of them
// requires a rule that applies only with a score.
func TestReadReplaySets(t *testing.T) {
	cfgs := []*rules.Config{rules.Default(), allOn(t)}
	for _, preset := range append([]string{""}, replay.Presets...) {
		for _, cfg := range cfgs {
			applies := func(hasScore bool) map[*rules.Rule]bool {
				ep := &replay.Episode{Format: replay.FormatSteps, Preset: preset, HasScore: hasScore}
				m := map[*rules.Rule]bool{}
				for _, r := range rules.Registry {
					if r.Enabled(cfg) && r.AppliesTo(ep, cfg) {
						m[r] = true
					}
				}
				return m
			}
			without, with := applies(false), applies(true)
			for r := range without {
				if !with[r] {
					t.Errorf("preset %q: %s applies without a score, not with one", preset, r.Name)
				}
				for _, req := range r.Requires {
					if with[req] && !without[req] {
						t.Errorf("preset %q: %s requires %s, which applies only with a score", preset, r.Name, req.Name)
					}
				}
			}
		}
	}
}

// TestReadReplayStopped: once its context is done a ReadReplay stops
// stepping, and Finish returns the context's cause, reporting nothing.
func TestReadReplayStopped(t *testing.T) {
	cause := fmt.Errorf("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	cfg := rules.Default()
	opts := replay.Options{Format: replay.FormatSteps, Stepper: func(ep *replay.Episode) replay.TurnStepper {
		return rules.NewReadReplay(ctx, ep, cfg, nil)
	}}
	eps, err := replay.Read(bytes.NewReader(replaytest.StepsLog(rand.New(rand.NewPCG(1, 1)), 600, 1)), "s.jsonl", "s", opts)
	if err != nil || len(eps) != 1 {
		t.Fatal(len(eps), err)
	}
	n := 0
	if err := eps[0].Stepped.(*rules.ReadReplay).Finish(eps[0], cfg, nil, func(*rules.Firing) { n++ }); err != cause || n != 0 {
		t.Errorf("Finish: %v and %d firings, want %v and none", err, n, cause)
	}
}

// TestReadReplayMisuse: finishing a replay twice, or under another
// configuration than it stepped, panics: the outputs are gone, so no
// outcome could be right.
func TestReadReplayMisuse(t *testing.T) {
	cfg := rules.Default()
	read := func() (*replay.Episode, *rules.ReadReplay) {
		opts := replay.Options{Format: replay.FormatSteps, Stepper: func(ep *replay.Episode) replay.TurnStepper {
			return rules.NewReadReplay(context.Background(), ep, cfg, nil)
		}}
		eps, err := replay.Read(bytes.NewReader(replaytest.StepsLog(rand.New(rand.NewPCG(1, 2)), 20, 1)), "s.jsonl", "s", opts)
		if err != nil {
			t.Fatal(err)
		}
		return eps[0], eps[0].Stepped.(*rules.ReadReplay)
	}
	panics := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	ep, rr := read()
	panics("another configuration", func() { rr.Finish(ep, rules.Default(), nil, func(*rules.Firing) {}) })
	ep, rr = read()
	panics("another rule set", func() { rr.Finish(ep, cfg, rules.Registry[:3], func(*rules.Firing) {}) })
	ep, rr = read()
	if err := rr.Finish(ep, cfg, nil, func(*rules.Firing) {}); err != nil {
		t.Fatal(err)
	}
	panics("twice", func() { rr.Finish(ep, cfg, nil, func(*rules.Firing) {}) })
}
