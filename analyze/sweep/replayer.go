package sweep

import (
	"slices"
	"sort"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// sweepCompOut is what one replay of a component yields. The counted
// firings are kept as their turns (in turn order), because a
// configuration counts only those at or before its termination turn.
type sweepCompOut struct {
	term        bool
	termination analyze.Termination
	counted     [5][]int // turns of warnings, rejecting adjustments, low-confidence penalties, loops, false alarms
}

// reset empties o, keeping its space.
func (o *sweepCompOut) reset() {
	*o = sweepCompOut{counted: [5][]int{o.counted[0][:0], o.counted[1][:0], o.counted[2][:0], o.counted[3][:0], o.counted[4][:0]}}
}

// counts are a configuration's firing counts (Result's Warnings,
// WouldReject, LowConfidence, Loops, FalseAlarms), in sweepCompOut's
// order.
type counts [5]int

// epCounts are counts in one episode: int32 holds an episode's turns.
type epCounts [5]int32

// cut is where one projection of a terminating component terminates an
// episode.
type cut struct {
	ok bool
	t  analyze.Termination
}

// Replayer replays a Plan; it keeps scratch space, so one per goroutine.
type Replayer struct {
	p       *Plan
	out     sweepCompOut   // the replay being counted
	batch   []sweepCompOut // scratch of the projections replayed together (replayReps)
	outs    []*sweepCompOut
	scorers []*analyze.Scorer // per projection replayed together, when labelled
	shared  func(int, rules.Firing)
	kept    []sweepCompOut // terminating components' replays, while several can terminate (keepCuts)
	cur     *sweepCompOut
	report  func(rules.Firing)
	tail    analyze.Tail
	judge   func(n int) bool // the episode's false alarm test (analyze.AlarmJudge)
	labelScoring
	release func() // ends rules.Share

	cuts   [][]cut                // terminating component → projection → its cut
	terms  []*analyze.Termination // per class: where it cuts the episode (nil: nowhere)
	pairs  [][]epCounts           // component → pair → counts in the episode replayed (nil until one fires)
	active []int                  // components with a firing counted

	// What Accumulate added up over the episodes this Replayer replayed,
	// in whatever order: the firing counts per configuration and the
	// scores per component projection (labelled episodes).
	sums   []counts
	scored [][]analyze.Scores
}

// NewReplayer returns a Replayer for p.
func (p *Plan) NewReplayer() *Replayer {
	r := &Replayer{p: p, cuts: make([][]cut, len(p.comps)), terms: make([]*analyze.Termination, p.classes),
		pairs: make([][]epCounts, len(p.comps))}
	for ci := range p.comps {
		if comp := &p.comps[ci]; comp.terminates {
			r.cuts[ci] = make([]cut, len(comp.reps))
		}
	}
	r.report = r.count
	r.shared = r.countShared
	return r
}

// keepCuts says whether terminating components' replays must be kept
// until all are done: with several, a class's cut is the first of
// theirs; with one (as in the registry), each projection's own
// termination is its classes' cut.
func (p *Plan) keepCuts() bool { return len(p.terms) > 1 }

func (r *Replayer) count(f rules.Firing) {
	if r.scorer != nil {
		r.scorer.Add(&f)
	}
	o := r.cur
	if f.Kind == rules.Termination && !o.term {
		o.term, o.termination = true, analyze.Termination{Turn: f.Turn, TurnsStuck: f.TurnsStuck, Score: f.Score}
		return
	}
	// One firing is at most one of the counts: count it alone to see which.
	var c analyze.Fired
	c.Count(&f)
	c.CountLoop(&f, r.judge)
	for i, n := range [5]int{c.Warnings, c.WouldReject, c.LowConfidence, c.Loops, c.FalseAlarms} {
		if n > 0 {
			o.counted[i] = append(o.counted[i], f.Turn)
		}
	}
}

// countShared counts a firing of the i-th projection replayed together.
func (r *Replayer) countShared(i int, f rules.Firing) {
	r.cur, r.scorer = r.outs[i], r.scorers[i]
	r.count(f)
}

// sharedTurns bounds turns times projections replayed together: each
// keeps its counted firings until the batch is done.
const sharedTurns = 1 << 16

// replayReps replays every projection j of component ci into slot(j)
// (nil: scratch space, valid until done returns) and calls done with it.
// A component whose rules declare what they read replays its projections
// in batches, together (rules.RunShared): a grid over camping's keys steps
// oscillation once per batch, not once per projection.
func (r *Replayer) replayReps(ep *replay.Episode, ci int, slot func(j int) *sweepCompOut, done func(j int, o *sweepCompOut)) {
	comp := &r.p.comps[ci]
	if !comp.shares || len(comp.reps) == 1 {
		for j := range comp.reps {
			o := &r.out
			if slot != nil {
				o = slot(j)
			}
			o.reset()
			r.cur = o
			r.scorer = r.newScorer(comp.rules, comp.reps[j])
			rules.Run(ep, comp.reps[j], comp.rules, r.report)
			r.keepScores(ci, j, r.scorer)
			r.cur, r.scorer = nil, nil
			done(j, o)
		}
		return
	}
	n := min(64, max(1, sharedTurns/(ep.NumTurns()+1)))
	if slot == nil && len(r.batch) < n {
		r.batch = append(r.batch, make([]sweepCompOut, n-len(r.batch))...)
	}
	for b := 0; b < len(comp.reps); b += n {
		e := min(b+n, len(comp.reps))
		r.outs, r.scorers = r.outs[:0], r.scorers[:0]
		for j := b; j < e; j++ {
			var o *sweepCompOut
			if slot != nil {
				o = slot(j)
			} else {
				o = &r.batch[j-b]
			}
			o.reset()
			r.outs = append(r.outs, o)
			r.scorers = append(r.scorers, r.newScorer(comp.rules, comp.reps[j]))
		}
		rules.RunShared(ep, comp.reps[b:e], comp.rules, r.shared)
		r.cur, r.scorer = nil, nil
		for j := b; j < e; j++ {
			r.keepScores(ci, j, r.scorers[j-b])
			done(j, r.outs[j-b])
		}
	}
}

// settle counts o, projection j's replay of component ci, for each of
// its pairs; own is the cut of o itself, for the one terminating
// component, else nil (each pair's class says).
func (r *Replayer) settle(ci, j int, o *sweepCompOut, own *cut) {
	comp := &r.p.comps[ci]
	empty := true
	for _, turns := range o.counted {
		empty = empty && len(turns) == 0
	}
	if r.pairs[ci] == nil {
		if empty {
			return // as long as nothing fires, the component needs no counts
		}
		r.pairs[ci] = make([]epCounts, len(comp.pairClass))
	}
	for _, pi := range comp.repPairs[comp.repStart[j]:comp.repStart[j+1]] {
		n := &r.pairs[ci][pi]
		if empty {
			*n = epCounts{}
			continue
		}
		t := r.terms[comp.pairClass[pi]]
		if own != nil {
			t = nil
			if own.ok {
				t = &own.t
			}
		}
		for i := range n {
			n[i] = int32(upTo(o.counted[i], t))
		}
	}
	if !empty && (len(r.active) == 0 || r.active[len(r.active)-1] != ci) {
		r.active = append(r.active, ci)
	}
}

// replayComponents replays every projection of every component over ep,
// terminating components first: where each termination class cuts the
// episode (terms), then each pair's firing counts.
func (r *Replayer) replayComponents(ep *replay.Episode) {
	p := r.p
	r.judge, _ = analyze.AlarmJudge(ep)
	r.release = rules.Share(ep) // what the rules derive from the episode alone, once for every replay
	r.active = r.active[:0]
	keep := p.keepCuts()
	if keep && r.kept == nil {
		for _, ci := range p.terms {
			r.kept = slices.Grow(r.kept, len(p.comps[ci].reps))
		}
		r.kept = r.kept[:cap(r.kept)]
	}
	kept := r.kept
	for _, ci := range p.terms {
		var slot func(int) *sweepCompOut
		if keep {
			slot = func(j int) *sweepCompOut { return &kept[j] }
		}
		r.replayReps(ep, ci, slot, func(j int, o *sweepCompOut) {
			c := &r.cuts[ci][j]
			*c = cut{o.term, o.termination}
			if !keep {
				r.settle(ci, j, o, c)
			}
		})
		if keep {
			kept = kept[len(p.comps[ci].reps):]
		}
	}
	nt := len(p.terms)
	for k := range r.terms {
		r.terms[k] = nil
		// The first terminating component that terminates, as Analyze
		// takes the first termination firing.
		for i, ci := range p.terms {
			if c := &r.cuts[ci][p.classProj[k*nt+i]]; c.ok {
				r.terms[k] = &c.t
				break
			}
		}
	}
	if keep {
		kept = r.kept
		for _, ci := range p.terms {
			for j := range p.comps[ci].reps {
				r.settle(ci, j, &kept[0], nil)
				kept = kept[1:]
			}
		}
	}
	for ci := range p.comps {
		if p.comps[ci].terminates {
			continue
		}
		r.replayReps(ep, ci, nil, func(j int, o *sweepCompOut) { r.settle(ci, j, o, nil) })
	}
	sort.Ints(r.active) // component order, as counts add up
	r.tail.Reset(ep)
}

// counts returns configuration c's firing counts in the episode replayed.
func (r *Replayer) counts(c int) counts {
	p := r.p
	var n counts
	for _, ci := range r.active {
		m := &r.pairs[ci][p.pairOf(&p.comps[ci], c)]
		for i := range n {
			n[i] += int(m[i])
		}
	}
	return n
}

// result is configuration c's result of the episode replayed.
func (r *Replayer) result(c int) analyze.Result {
	n := r.counts(c)
	return r.tail.Result(analyze.Fired{Termination: r.terms[r.p.class[c]],
		Warnings: n[0], WouldReject: n[1], LowConfidence: n[2], Loops: n[3], FalseAlarms: n[4]})
}

// done lets the episode go.
func (r *Replayer) done() {
	r.release()
	r.tail.Reset(nil)
	r.judge, r.release = nil, nil
}

// Replay computes every configuration's result for ep into out, which
// must have Len() entries: each configuration's result is put together
// from its components' replays, then settled as Analyze settles it.
func (r *Replayer) Replay(ep *replay.Episode, out []analyze.Result) {
	r.replayComponents(ep)
	for c := range out {
		out[c] = r.result(c)
	}
	r.done()
}

// classResult is what a termination class does to an episode: Result
// without the firing counts, which configurations of a class need not
// share.
type classResult struct {
	TurnsSaved, LLMCallsSaved int
	ScoreForfeited            float64
	Terminated, Censored      bool
	FalseTermination          bool
}

// class is the outcome class (Result.Class).
func (c *classResult) class() string {
	r := analyze.Result{Terminated: c.Terminated, Censored: c.Censored, FalseTermination: c.FalseTermination}
	return r.Class()
}

// Accumulate replays ep (labelled lab, or nil) for every configuration
// and adds what can be added in any order to the Replayer's sums: each
// configuration's firing counts and, when labelled, each component
// projection's scores. It returns what must be totalled in episode order
// (a score sum depends on the order of its terms): each termination
// class's result, and, when the plan collects flips and the outcome
// classes differ between configurations, every configuration's result.
func (r *Replayer) Accumulate(ep *replay.Episode, lab *analyze.EpisodeLabels) ([]classResult, []analyze.Result) {
	p := r.p
	r.lab = lab
	if lab != nil && r.scores == nil {
		r.scores = make([][]analyze.Scores, len(p.comps))
		r.scored = make([][]analyze.Scores, len(p.comps))
		for i := range p.comps {
			r.scores[i] = make([]analyze.Scores, len(p.comps[i].reps))
			r.scored[i] = make([]analyze.Scores, len(p.comps[i].reps))
		}
	}
	r.replayComponents(ep)
	r.lab = nil
	if lab != nil {
		for ci := range r.scores {
			for j, s := range r.scores[ci] {
				if r.scored[ci][j] == nil {
					r.scored[ci][j] = analyze.Scores{}
				}
				r.scored[ci][j].Merge(s)
				r.scores[ci][j] = nil
			}
		}
	}
	if r.sums == nil {
		r.sums = make([]counts, p.n)
	}
	if len(r.active) > 0 {
		for c := range r.sums {
			n := r.counts(c)
			s := &r.sums[c]
			for i := range s {
				s[i] += n[i]
			}
		}
	}
	classes := p.getClasses()
	flip := false
	for k := range classes {
		f := r.tail.Result(analyze.Fired{Termination: r.terms[k]})
		classes[k] = classResult{TurnsSaved: f.TurnsSaved, LLMCallsSaved: f.LLMCallsSaved, ScoreForfeited: f.ScoreForfeited,
			Terminated: f.Terminated, Censored: f.Censored, FalseTermination: f.FalseTermination}
		flip = flip || classes[k].class() != classes[0].class()
	}
	var outcomes []analyze.Result
	if p.flips && flip {
		outcomes = make([]analyze.Result, p.n)
		for c := range outcomes {
			outcomes[c] = r.result(c)
		}
	}
	r.done()
	return classes, outcomes
}

// getClasses and putClasses recycle the per-episode class results, which
// grow with the grid.
func (p *Plan) getClasses() []classResult {
	if s, ok := p.pool.Get().(*[]classResult); ok {
		return *s
	}
	return make([]classResult, p.classes)
}

func (p *Plan) putClasses(s []classResult) {
	if len(s) == p.classes {
		p.pool.Put(&s)
	}
}

// upTo counts the sorted turns at or before the termination turn (all
// of them without one).
func upTo(turns []int, t *analyze.Termination) int {
	if t == nil {
		return len(turns)
	}
	return sort.SearchInts(turns, t.Turn+1)
}
