package report

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// The direct encoder writes exactly json.Marshal's bytes: over generated
// episodes of every era and quirk (all rules firing), and over values
// that need escaping or that json.Marshal refuses.
func TestAppendEpisodeMatchesEncodingJSON(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := range 60 {
		s := replaytest.RandomScenario(uint64(500+i), start.Add(time.Duration(i)*3*time.Hour))
		s.NoiseBytes = min(s.NoiseBytes, 512)
		if err := replaytest.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		if b := buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	eps, err := replay.Read(&buf, "gen <&> \"q\".jsonl", "d", replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The test episodes too: live runs, early formats, quirks.
	logs, _ := filepath.Glob("../testdata/episodes/*/episode_log.jsonl")
	for _, path := range logs {
		more, err := replay.ReadFile(path, nil, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, more...)
	}
	firings, live, afterCut := 0, 0, 0
	var es []Episode
	for _, ep := range eps {
		o := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true})
		firings += len(o.Firings)
		e := NewEpisode(o, ep)
		if e.Live != nil {
			live++
		}
		for _, f := range e.Firings {
			if f.AfterCut {
				afterCut++
			}
		}
		es = append(es, e)
	}
	if firings == 0 || live == 0 || afterCut == 0 {
		t.Fatalf("%d firings (%d after a cut), %d live runs: the test covers too little", firings, afterCut, live)
	}
	odd := es[0]
	odd.EpisodeID = "é\u2028<script>\x01\"\\"
	odd.Diagnostics.Problems = []string{"x.jsonl:3: invalid JSON: invalid character '\\x00'", "\xff"}
	odd.Diagnostics.Notes = nil
	odd.Checkpoints = nil
	odd.FiringCounts = nil
	odd.Firings = nil
	odd.FinalScore, odd.ScoreForfeited = 1e21, -1e-7
	odd.Termination = &analyze.Termination{Turn: 3, TurnsStuck: 2, Score: 123456789.125}
	odd.ProgressAfter = &analyze.Progress{Turn: 9, Score: 2.5e-8}
	odd.Live = &LiveJSON{Events: 2, Disagreements: []DisagreementJSON{{Turn: 1, Kind: "<k>", Live: map[string]any{"b": 1.5, "a": "x&y"}}}, ExplainedBy: []LiveSettingJSON{}}
	es = append(es, odd)
	// Labelled: spans (one with a note to escape) and scores with lead times.
	labelled := es[1]
	labelled.Labels = NewEpisodeLabels(&analyze.EpisodeLabels{Source: "x/labels.json", Stuck: []analyze.Span{{From: 3, To: 9, Note: "<loop> & \"q\""}, {From: 12, To: 14}}},
		analyze.Scores{"a/termination": {Firings: 2, Inside: 1, Spans: 2, Caught: 1, Leads: map[int]int{2: 1}}, "b/warning": {Spans: 2}})
	es = append(es, labelled)
	neverStuck := es[2]
	neverStuck.Labels = NewEpisodeLabels(&analyze.EpisodeLabels{Source: "labels.json"}, nil)
	es = append(es, neverStuck)
	for _, f := range []float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e20, 12.5e-9, 0.1 + 0.2, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		e := es[1]
		e.FinalScore = f
		es = append(es, e)
	}
	for i := range es {
		got, gotErr := marshalEpisode(&es[i])
		want, wantErr := json.Marshal(es[i])
		if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("episode %d:\n got %s (%v)\nwant %s (%v)", i, got, gotErr, want, wantErr)
		}
	}
	// NaN: the same refusal as encoding/json's.
	bad := es[0]
	bad.FinalScore = math.NaN()
	if _, err := marshalEpisode(&bad); err == nil {
		t.Error("NaN encoded")
	}
}

// The encoder knows every field of Episode: a field added to the struct
// (and so to json.Marshal's output) without the encoder fails here.
func TestAppendEpisodeFields(t *testing.T) {
	e := Episode{EpisodeID: "e", FiringCounts: map[string]int{"a/b": 1}}
	got, _ := marshalEpisode(&e)
	want, _ := json.Marshal(e)
	if !bytes.Equal(got, want) {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// Fields tagged omitempty would hide from the comparison when empty.
	// 30: input, loops, false_alarms, labels, and detectors and tasks (omitempty,
	// held to encoding/json by TestAgentEpisodeJSON), and spilled (not
	// encoded: TestEpisodeFiringsMatchesKept).
	for typ, n := range map[reflect.Type]int{reflect.TypeFor[Episode](): 30, reflect.TypeFor[Diagnostics](): 6} {
		if typ.NumField() != n {
			t.Errorf("%v has %d fields, the encoder writes %d: update jsonenc.go", typ, typ.NumField(), n)
		}
	}
}

// A steps and an attempts log's episodes, with firings keyed by step or
// attempt, the headline table and tasks: the same bytes as encoding/json.
func TestAgentEpisodeJSON(t *testing.T) {
	one := 1
	e := Episode{EpisodeID: "s", Input: &InputJSON{Format: "steps", Preset: "openhands", Detected: true}, Loops: 2, FalseAlarms: 1,
		Firings: []Firing{
			{Firing: &rules.Firing{Turn: 5, Unit: rules.UnitStep, Rule: rules.FuzzyRepeat, Kind: rules.FuzzyLoop, Similarity: 0.9048, MatchedStep: 4}},
			{Firing: &rules.Firing{Turn: 8, Unit: rules.UnitAttempt, Rule: rules.TaskAttempts, Kind: rules.TaskLoop, TaskID: "a", LoopType: "blocked_task_spin", Recommendation: "escalate", AttemptCount: 4}},
		},
		Detectors: []DetectorRow{{Rule: "fuzzy_repeat", Origin: "generic", Firings: 1, First: &one, FirstKind: "loop", FalseAlarms: &one, Basis: BasisScore}},
		Tasks:     []TaskRow{{TaskID: "a", Attempts: 4, LoopType: "blocked_task_spin", Recommendation: "escalate", FirstFired: 8, Firings: 1}},
	}
	got, _ := marshalEpisode(&e)
	want, _ := json.Marshal(e)
	if !bytes.Equal(got, want) {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func BenchmarkEpisodeJSON(b *testing.B) {
	var buf bytes.Buffer
	start := time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := range 20 {
		s := replaytest.RandomScenario(uint64(900+i), start.Add(time.Duration(i)*3*time.Hour))
		s.NoiseBytes = min(s.NoiseBytes, 512)
		if err := replaytest.Write(&buf, s); err != nil {
			b.Fatal(err)
		}
		buf.WriteByte('\n')
	}
	eps, err := replay.Read(&buf, "bench", "d", replay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var es []Episode
	size := 0
	for _, ep := range eps {
		e := NewEpisode(analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true}), ep)
		data, _ := json.Marshal(e)
		size += len(data)
		es = append(es, e)
	}
	for _, bc := range []struct {
		name string
		enc  func(*Episode) ([]byte, error)
	}{{"direct", marshalEpisode}, {"encoding-json", func(e *Episode) ([]byte, error) { return json.Marshal(e) }}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for i := range es {
					if _, err := bc.enc(&es[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// Every field of every kind the registry declares is encoded as
// json.Marshal encodes FieldValue's value: the encoder writes most of them
// without FieldValue (jsonEnc.field), so a field it misreads fails here.
func TestFiringFieldsMatchEncodingJSON(t *testing.T) {
	odd := "<é\u2028\"\\&>\x01"
	f := rules.Firing{Turn: 12, Unit: rules.UnitAttempt, Cause: "cause " + odd, Urgency: "urgency " + odd, TurnsStuck: 3, TurnsUntilDeath: -4,
		Score: 0.1 + 0.2, Visits: 5, Penalty: 1e-7, Base: 0.61, Adjusted: 1e21, HasBase: true, LowConfidence: true,
		Pattern: [2]string{"p0 " + odd, "p1"}, Location: "loc " + odd, Destination: "dest", Action: "act " + odd, Proposal: "prop " + odd,
		Rejected: true, Signature: "sig " + odd, Similarity: 0.90476, MatchedStep: 9, TaskID: "task " + odd, LoopType: "loop " + odd,
		Recommendation: "rec " + odd, AttemptCount: 7, CycleLength: 3}
	kinds := 0
	for _, hasBase := range []bool{true, false} {
		f.HasBase = hasBase
		for _, r := range rules.Registry {
			for _, k := range r.Kinds {
				f.Rule, f.Kind = r, k
				var w jsonEnc
				w.firing(&f, hasBase)
				want, err := json.Marshal(Firing{Firing: &f, AfterCut: hasBase})
				if err != nil || w.refused || !bytes.Equal(w.b, want) {
					t.Errorf("%s/%s:\n got %s (refused %v)\nwant %s (%v)", r.Name, k.Name, w.b, w.refused, want, err)
				}
				kinds++
			}
		}
	}
	if kinds < 20 {
		t.Fatalf("%d kinds: the test covers too little", kinds)
	}
}
