package analyze

import (
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// The story is built as the firings come: without kept firings it is the
// same story, and a row keeps the summary's figures of its outcome.
func TestStoryWithoutFiringsAndRows(t *testing.T) {
	paths, err := replaytest.WriteCorpusCapped(t.TempDir(), 12, 5, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rules.Default()
	var rows Rows
	var outs []*Outcome
	stories := 0
	for _, p := range paths {
		eps, err := replay.ReadFile(p, nil, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			with := Analyze(ep, cfg, Options{KeepFirings: true, Story: true})
			without := Analyze(ep, cfg, Options{Story: true})
			if without.Firings != nil || !reflect.DeepEqual(with.Story, without.Story) {
				t.Errorf("%s: story without firings %+v, with %+v", ep.ID, without.Story, with.Story)
			}
			for i := range with.Firings {
				f := &with.Firings[i]
				if !with.AfterCut(f) {
					without.Story.UpToCut[f.Kind]--
				}
			}
			for k, n := range without.Story.UpToCut {
				if n != 0 {
					t.Errorf("%s: %s counted %+d up to the cut", ep.ID, k.Key(), n)
				}
			}
			if len(with.Story.Runs)+len(with.Story.Warnings)+len(with.Story.StuckPeriods) > 0 {
				stories++
			}
			rows.Add(without)
			outs = append(outs, without)
		}
	}
	if stories == 0 {
		t.Fatal("no episode with a story: the test shows nothing")
	}
	for i, r := range rows.List {
		o := outs[i]
		if r.EpisodeID != o.EpisodeID || r.RecordedTurns != o.RecordedTurns || r.FinalScore != o.FinalScore || r.RecordedEnd != o.RecordedEnd ||
			r.Terminated != (o.Termination != nil) || (r.Terminated && r.TerminationTurn != o.Termination.Turn) ||
			r.TurnsSaved != o.TurnsSaved || r.LLMCallsSaved != o.LLMCallsSaved || r.ScoreForfeited != o.ScoreForfeited ||
			r.Censored != o.Censored || r.FalseTermination != o.FalseTermination {
			t.Errorf("row %+v of outcome %+v", r, o)
		}
	}
}
