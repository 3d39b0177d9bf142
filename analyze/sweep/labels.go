package sweep

// Scoring a sweep against labelled episodes. A component's firings depend
// only on its projection of the configuration, so its scores do too: each
// projection's replay is scored once, and a configuration's scores are
// the union of its components' (every rule/kind belongs to one
// component). The component optimisation holds for labels as it does for
// outcomes.

import (
	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// labelScoring is a Replayer's state while it replays a labelled episode.
type labelScoring struct {
	lab    *analyze.EpisodeLabels // nil: not labelled, nothing is scored
	scorer *analyze.Scorer        // the component replay being scored
	scores [][]analyze.Scores     // component → projection → scores
}

// beginScoring starts scoring one component replay of set under cfg.
func (r *Replayer) beginScoring(set []*rules.Rule, cfg *rules.Config) {
	if r.lab == nil {
		return
	}
	r.scorer = analyze.NewScorer(r.lab, analyze.ScoredKinds(set, cfg))
}

// endScoring keeps the scores of that replay.
func (r *Replayer) endScoring(ci, j int) {
	if r.scorer == nil {
		return
	}
	r.scores[ci][j] = r.scorer.Scores()
	r.scorer = nil
}

// ReplayLabelled is Replay for an episode labelled lab; it also puts each
// configuration's scores into scores (Len() entries).
func (r *Replayer) ReplayLabelled(ep *replay.Episode, lab *analyze.EpisodeLabels, out []analyze.Result, scores []analyze.Scores) {
	p := r.p
	if r.labelScoring.scores == nil {
		r.labelScoring.scores = make([][]analyze.Scores, len(p.comps))
		for i := range p.comps {
			r.labelScoring.scores[i] = make([]analyze.Scores, len(p.comps[i].reps))
		}
	}
	r.lab = lab
	r.Replay(ep, out)
	r.lab = nil
	for c := range scores {
		s := analyze.Scores{}
		for ci := range p.comps {
			s.Merge(r.labelScoring.scores[ci][projOf(p.comps[ci].proj, c)])
		}
		scores[c] = s
	}
}

// VariedKinds lists the scored rule/kinds of the components the grid
// varies (more than one projection), in registry order: the kinds whose
// scores can differ between rows.
func (p *Plan) VariedKinds() []string {
	seen := map[string]bool{}
	var keys []string
	for ci := range p.comps {
		comp := &p.comps[ci]
		if len(comp.reps) < 2 {
			continue
		}
		for _, cfg := range comp.reps {
			for _, k := range analyze.ScoredKinds(comp.rules, cfg) {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	analyze.SortKinds(keys)
	return keys
}
