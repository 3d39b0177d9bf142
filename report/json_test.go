package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

func TestFiringJSON(t *testing.T) {
	cases := []struct {
		f    rules.Firing
		want string
	}{
		{rules.Firing{Turn: 40, Rule: rules.ProgressVelocity, Kind: rules.Termination, TurnsStuck: 40, Score: 5},
			`{"turn":40,"rule":"progress_velocity","kind":"termination","origin":"zorkgpt","turns_stuck":40,"score":5,"after_cut":true}`},
		// No logged confidence: base and adjusted are null, not 0.
		{rules.Firing{Turn: 3, Rule: rules.LocationRevisit, Kind: rules.Penalty, Location: "1", Visits: 1, Penalty: -0.2},
			`{"turn":3,"rule":"location_revisit","kind":"penalty","origin":"zorkgpt","location":"1","visits":1,"penalty":-0.2,"base":null,"adjusted":null,"low_confidence":false,"after_cut":false}`},
		// Below the override's 0.3: flagged, and it says nothing of rejection.
		{rules.Firing{Turn: 5, Rule: rules.LocationRevisit, Kind: rules.Penalty, Location: "1", Visits: 2, Penalty: -0.4, HasBase: true, Base: 0.6, Adjusted: 0.2, LowConfidence: true},
			`{"turn":5,"rule":"location_revisit","kind":"penalty","origin":"zorkgpt","location":"1","visits":2,"penalty":-0.4,"base":0.6,"adjusted":0.2,"low_confidence":true,"after_cut":true}`},
		{rules.Firing{Turn: 6, Rule: rules.ActionNovelty, Kind: rules.Hint, Action: "search", Proposal: rules.ProposalRejected},
			`{"turn":6,"rule":"action_novelty","kind":"hint","origin":"zorkgpt","action":"search","proposal":"rejected","after_cut":true}`},
		{rules.Firing{Turn: 4, Rule: rules.Oscillation, Kind: rules.OscillationDetection, Pattern: [2]string{"1", "2"}},
			`{"turn":4,"rule":"oscillation","kind":"detection","origin":"design","pattern":["1","2"],"after_cut":true}`},
		// The other agents' rules: "step" or "attempt" instead of "turn".
		{rules.Firing{Turn: 6, Unit: rules.UnitStep, Rule: rules.SignatureRepeat, Kind: rules.SignatureLoop, Signature: "run_tests|error:TypeError-auth.ts:45"},
			`{"step":6,"rule":"signature_repeat","kind":"loop","origin":"generic","signature":"run_tests|error:TypeError-auth.ts:45","after_cut":true}`},
		{rules.Firing{Turn: 5, Unit: rules.UnitStep, Rule: rules.FuzzyRepeat, Kind: rules.FuzzyLoop, Similarity: 0.9048, MatchedStep: 4},
			`{"step":5,"rule":"fuzzy_repeat","kind":"loop","origin":"generic","similarity":0.9048,"matched_step":4,"after_cut":true}`},
		{rules.Firing{Turn: 8, Unit: rules.UnitAttempt, Rule: rules.TaskAttempts, Kind: rules.TaskLoop, TaskID: "auth", LoopType: "blocked_task_spin", Recommendation: "escalate", AttemptCount: 4},
			`{"attempt":8,"rule":"task_attempts","kind":"loop","origin":"generic","task_id":"auth","loop_type":"blocked_task_spin","recommendation":"escalate","attempt_count":4,"after_cut":true}`},
		{rules.Firing{Turn: 7, Unit: rules.UnitStep, Rule: rules.ToolCycle, Kind: rules.ToolCycleFeedback, CycleLength: 1},
			`{"step":7,"rule":"tool_cycle","kind":"feedback","origin":"gemini-cli","cycle_length":1,"after_cut":true}`},
		{rules.Firing{Turn: 8, Unit: rules.UnitStep, Rule: rules.Monologue, Kind: rules.MonologueStop},
			`{"step":8,"rule":"monologue","kind":"stop","origin":"openhands","after_cut":true}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(Firing{Firing: &c.f, AfterCut: c.f.Turn > 3})
		if err != nil {
			t.Fatal(err)
		}
		// The fields and their order are the rule's declaration.
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.f.KindKey(), got, c.want)
		}
	}
}

func TestJSONWriterDocument(t *testing.T) {
	ep := stuckEpisode()
	o := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true})
	var tot analyze.Totals
	tot.Add(&o.Result, o.RecordedTurns, ep.Diag.Skipped)
	tot.Finish()

	var b bytes.Buffer
	jw := &JSONWriter{}
	if err := jw.Begin(&b, rules.Default()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := jw.Episode(NewEpisode(o, ep)); err != nil {
			t.Fatal(err)
		}
	}
	if err := jw.End(&tot, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int            `json:"schema_version"`
		Config        map[string]any `json:"config"`
		Episodes      []struct {
			EpisodeID   string `json:"episode_id"`
			Termination *struct {
				Turn int `json:"turn"`
			} `json:"termination"`
			TurnsSaved       int               `json:"turns_saved"`
			FalseTermination bool              `json:"false_termination"`
			FiringCounts     map[string]int    `json:"firing_counts"`
			Diagnostics      Diagnostics       `json:"diagnostics"`
			Firings          []json.RawMessage `json:"firings"`
		} `json:"episodes"`
		Totals map[string]any      `json:"totals"`
		Errors []analyze.FileError `json:"errors"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	e := doc.Episodes[0]
	if doc.SchemaVersion != SchemaVersion || doc.Config["max_turns_stuck"] != 40.0 || len(doc.Episodes) != 2 ||
		e.EpisodeID != "E1" || e.Termination == nil || e.Termination.Turn != 40 || e.TurnsSaved != 20 || !e.FalseTermination ||
		e.FiringCounts["progress_velocity/termination"] != 1 || len(e.Firings) != len(o.Firings) ||
		e.Diagnostics.Skipped != 1 || e.Diagnostics.Notes == nil ||
		doc.Totals["turns_saved"] != 20.0 || doc.Errors == nil || len(doc.Errors) != 0 {
		t.Errorf("document:\n%s", b.String())
	}
	// One episode per line, the document's head and tail around them.
	if !strings.HasPrefix(b.String(), `{"schema_version":1,"config":{`) || strings.Count(b.String(), "\n") != 4 || !strings.HasSuffix(b.String(), "}\n") {
		t.Errorf("layout:\n%s", b.String())
	}
}

func TestJSONLines(t *testing.T) {
	ep := stuckEpisode()
	o := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true})
	var b bytes.Buffer
	jw := &JSONWriter{Lines: true}
	jw.Begin(&b, rules.Default())
	jw.Episode(NewEpisode(o, ep))
	jw.Episode(NewEpisode(o, ep))
	jw.End(&analyze.Totals{}, nil)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got:\n%s", b.String())
	}
	for _, l := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil || e["episode_id"] != "E1" {
			t.Errorf("line %s: %v", l, err)
		}
	}
}

// An episode never terminated writes a null termination and empty lists,
// never null ones.
func TestNewEpisodeEmpty(t *testing.T) {
	o := &analyze.Outcome{EpisodeID: "E", Counts: map[string]int{}}
	data, err := json.Marshal(NewEpisode(o, &replay.Episode{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"termination":null`, `"checkpoints":[]`, `"problems":[]`, `"notes":[]`, `"firings":[]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("missing %s in %s", want, data)
		}
	}
}

// The live comparison in JSON: null without live events; each
// disagreement's sides under the live event's field names, null for the
// side without the decision.
func TestLiveJSON(t *testing.T) {
	if NewLive(nil) != nil {
		t.Error("no live events: want null")
	}
	pen := &replay.LiveEvent{Kind: replay.LivePenalty, Turn: 7, Base: 0.6, HasBase: true, Adjusted: 0.4, HasAdjusted: true, Visits: 1, HasVisits: true}
	l := &analyze.Live{Events: 4, Disagreements: []analyze.LiveDisagreement{
		{Turn: 7, Kind: replay.LivePenalty, Live: pen, Replay: &rules.Firing{Turn: 7, Rule: rules.LocationRevisit, Kind: rules.Penalty, Visits: 2, Base: 0.6, Adjusted: 0.2, HasBase: true}},
		{Turn: 9, Kind: replay.LiveScoreChange, Replay: &rules.Firing{Turn: 9, Rule: rules.ProgressVelocity, Kind: rules.Reset, Cause: "score_change", TurnsStuck: 3, Score: 5}},
	}}
	got, err := json.Marshal(NewLive(l))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"events":4,"agrees":false,"disagreements":[` +
		`{"turn":7,"kind":"location_penalty_applied","live":{"adjusted_confidence":0.4,"base_confidence":0.6,"recent_visits":1},"replay":{"adjusted_confidence":0.2,"base_confidence":0.6,"recent_visits":2}},` +
		`{"turn":9,"kind":"score_change","live":null,"replay":{"new_score":5,"was_stuck_for":3}}],"explained_by":[]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Numbers are written as the input could mean them: a confidence minus a
// sum of penalties is 0.45, not 0.44999999999999996; a percentage has 2
// decimals; huge and integral values are kept; values stay numbers.
func TestJSONRoundsNumbers(t *testing.T) {
	f := Firing{Firing: &rules.Firing{Turn: 12, Rule: rules.LocationRevisit, Kind: rules.Penalty, Location: "196", Visits: 3,
		Penalty: -0.2 * 3, HasBase: true, Base: 0.74, Adjusted: 0.74 - 0.2*3}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); !strings.Contains(got, `"penalty":-0.6,"base":0.74,"adjusted":0.14,`) {
		t.Errorf("firing: %s", got)
	}
	tot := Rounded(&analyze.Totals{TurnsSavedPct: 100 * 404.0 / 1137, FalseRatePct: 100.0 / 3, ScoreForfeited: 0.1 + 0.2, MedianTurnsSaved: 95.5})
	b, _ = json.Marshal(tot)
	for _, want := range []string{`"turns_saved_pct":35.53`, `"false_termination_pct":33.33`, `"score_forfeited":0.3`, `"median_turns_saved":95.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("totals lack %s: %s", want, b)
		}
	}
	for in, want := range map[float64]float64{1.7e308: 1.7e308, -0.00001: 0, 130: 130, 0.30000000000000004: 0.3} {
		if got := Round(in, 4); got != want {
			t.Errorf("Round(%v, 4) = %v, want %v", in, got, want)
		}
	}
}
