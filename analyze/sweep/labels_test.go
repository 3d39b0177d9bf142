package sweep

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// testLabels labels episode i: every third never stuck, the others with
// two spans placed from the episode's first turn.
func testLabels(i int, ep *replay.Episode) *analyze.EpisodeLabels {
	if i%3 == 2 {
		return &analyze.EpisodeLabels{Source: "t"}
	}
	n0 := ep.Turns[0].N
	return &analyze.EpisodeLabels{Source: "t", Stuck: []analyze.Span{{From: n0 + 5 + i, To: n0 + 30}, {From: n0 + 55, To: n0 + 95 + i}}}
}

// TestSweepLabelsEqualAnalyze holds a sweep's scores, configuration by
// configuration, equal to scoring analyze's firings: the component
// projections score exactly what a full replay would.
func TestSweepLabelsEqualAnalyze(t *testing.T) {
	grids := [][][2]string{
		{{"max_turns_stuck", "20:60:20"}, {"stuck_warning_threshold", "10,15"}},
		{{"camping_threshold", "2,5"}, {"enable_loop_detection", "true,false"}, {"location_revisit_window", "3,8"}},
		{{"enable_velocity_detection", "false,true"}, {"enable_stuck_warnings", "true,false"}, {"action_novelty_window", "5,20"}},
		// Replayed together, oscillation once: its scores reach every row.
		{{"camping_threshold", "1:9:2"}, {"camping_window", "3:20:4"}, {"rejection_threshold", "0.3,0.7"}},
	}
	eps := sweepCorpus()
	for gi, g := range grids {
		t.Run(fmt.Sprint(gi), func(t *testing.T) {
			var axes []Axis
			for _, kv := range g {
				axes = append(axes, mustAxis(t, kv[0], kv[1]))
			}
			points, _, err := ExpandGrid(rules.Default(), axes)
			if err != nil {
				t.Fatal(err)
			}
			configs := []*rules.Config{rules.Default()}
			for _, p := range points {
				configs = append(configs, p.Config)
			}
			rp := NewPlan(configs).NewReplayer()
			res := make([]analyze.Result, len(configs))
			scores := make([]analyze.Scores, len(configs))
			caught := 0
			for i, ep := range eps {
				lab := testLabels(i, ep)
				rp.ReplayLabelled(ep, lab, res, scores)
				for c, cfg := range configs {
					o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true})
					if res[c] != o.Result {
						t.Fatalf("episode %s config %d: results differ with labels", ep.ID, c)
					}
					want := analyze.ScoreFirings(lab, analyze.ScoredKinds(nil, cfg), o.Firings)
					if !reflect.DeepEqual(scores[c], want) {
						t.Fatalf("episode %s config %d %v:\nsweep   %v\nanalyze %v", ep.ID, c, paramsOf(points, c), scores[c], want)
					}
					for _, s := range want {
						caught += s.Caught
					}
				}
				// An unlabelled replay after a labelled one scores nothing.
				rp.Replay(ep, res)
			}
			if caught == 0 {
				t.Error("no span caught: the corpus does not exercise the scores")
			}
		})
	}
}
