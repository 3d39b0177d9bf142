package sweep

// Replaying many configurations at once: a Plan, its Replayer (one per
// goroutine) and the ordered pool over files.

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Plan replays a list of configurations over episodes. It is read-only
// once built: each goroutine replays through its own Replayer.
//
// A Plan keeps no configuration per grid point: only one per distinct
// projection of a component (what its replays need) and, per point, a
// few indexes. What a configuration does to an episode is settled from
// those: its termination from its termination class, its firing counts
// from its components' replays.
type Plan struct {
	// Labels, when set, scores every configuration's firings against the
	// labelled episodes (labels.go).
	Labels *analyze.Labels

	n     int // configurations
	comps []sweepComponent
	// terms lists the components that can terminate an episode (a rule
	// of theirs reports rules.Termination), in component order.
	terms []int
	// Configurations whose terminating components have the same
	// projections terminate every episode alike: a termination class.
	// Whatever derives from the termination alone (terminated, turns and
	// LLM calls saved, score forfeited, false terminations, censoring) is
	// settled and totalled once per class. class[c] is configuration c's;
	// classProj[k*len(terms)+i] is class k's projection in terms[i].
	class     []int32
	classProj []int32
	classes   int

	flips bool // settle each configuration's result of an episode whose outcome flips (Options.ByEpisode)
	pool  sync.Pool
}

// sweepComponent is a set of rules closed under Requires, with the
// distinct projections of the configurations onto what it reads.
type sweepComponent struct {
	rules      []*rules.Rule
	terminates bool
	reps       []*rules.Config // one configuration per distinct projection
	proj       []int32         // configuration → projection; nil: one projection (projOf)
	// A configuration's firing counts from this component depend on its
	// projection and on where its termination class cuts the episode:
	// they are settled once per distinct (projection, class) pair, right
	// after the projection's replay, so no replay's firings outlive it.
	// pairClass[i] is pair i's class; the pairs of projection j are
	// repPairs[repStart[j]:repStart[j+1]]; pair[c] is configuration c's
	// (nil: its class, as in a component of one projection).
	pairClass []int32
	repPairs  []int32
	repStart  []int32
	pair      []int32
}

// projOf is proj[c], 0 when proj is nil.
func projOf(proj []int32, c int) int32 {
	if proj == nil {
		return 0
	}
	return proj[c]
}

// pairOf is configuration c's pair in component comp.
func (p *Plan) pairOf(comp *sweepComponent, c int) int32 {
	if comp.pair == nil {
		return p.class[c]
	}
	return comp.pair[c]
}

// planBuilder adds configurations to a Plan one at a time, so a grid
// never exists as a list of configurations.
type planBuilder struct {
	p       *Plan
	seen    []map[string]int32 // per component: projection key → index
	classes map[string]int32
	pairs   []map[[2]int32]int32 // per component: (projection, class) → pair
	pairRep [][]int32            // per component: pair → projection
	key     []byte
}

func newPlanBuilder() *planBuilder {
	p := &Plan{}
	// Union-find over the registry by Requires.
	parent := map[string]string{}
	var find func(string) string
	find = func(n string) string {
		if parent[n] == n {
			return n
		}
		r := find(parent[n])
		parent[n] = r
		return r
	}
	for _, r := range rules.Registry {
		parent[r.Name] = r.Name
	}
	for _, r := range rules.Registry {
		for _, req := range r.Requires {
			parent[find(r.Name)] = find(req.Name)
		}
	}
	byRoot := map[string]int{}
	for _, r := range rules.Registry { // registry order keeps requirements first
		root := find(r.Name)
		i, ok := byRoot[root]
		if !ok {
			i = len(p.comps)
			byRoot[root] = i
			p.comps = append(p.comps, sweepComponent{})
		}
		comp := &p.comps[i]
		comp.rules = append(comp.rules, r)
		for _, k := range r.Kinds {
			comp.terminates = comp.terminates || k == rules.Termination
		}
	}
	b := &planBuilder{p: p, seen: make([]map[string]int32, len(p.comps)), classes: map[string]int32{},
		pairs: make([]map[[2]int32]int32, len(p.comps)), pairRep: make([][]int32, len(p.comps))}
	for i := range p.comps {
		b.seen[i] = map[string]int32{}
		b.pairs[i] = map[[2]int32]int32{}
		if p.comps[i].terminates {
			p.terms = append(p.terms, i)
		}
	}
	return b
}

// add appends cfg (validated) as the next configuration. cfg may change
// after the call: the plan keeps a clone when it needs one.
func (b *planBuilder) add(cfg *rules.Config) {
	p := b.p
	for ci := range p.comps {
		comp := &p.comps[ci]
		b.key = b.key[:0]
		for _, r := range comp.rules {
			b.key = append(b.key, boolByte(r.Enabled(cfg)))
			for _, prm := range r.Params {
				b.key = appendValue(b.key, cfg.Value(prm.Key))
			}
		}
		j, ok := b.seen[ci][string(b.key)]
		if !ok {
			j = int32(len(comp.reps))
			b.seen[ci][string(b.key)] = j
			comp.reps = append(comp.reps, cfg.Clone())
		}
		comp.proj = append(comp.proj, j)
	}
	b.key = b.key[:0]
	for _, ci := range p.terms {
		j := p.comps[ci].proj[p.n]
		b.key = append(b.key, byte(j), byte(j>>8), byte(j>>16), byte(j>>24))
	}
	k, ok := b.classes[string(b.key)]
	if !ok {
		k = int32(p.classes)
		b.classes[string(b.key)] = k
		p.classes++
		for _, ci := range p.terms {
			p.classProj = append(p.classProj, p.comps[ci].proj[p.n])
		}
	}
	p.class = append(p.class, k)
	for ci := range p.comps {
		comp := &p.comps[ci]
		key := [2]int32{comp.proj[p.n], k}
		i, ok := b.pairs[ci][key]
		if !ok {
			i = int32(len(comp.pairClass))
			b.pairs[ci][key] = i
			comp.pairClass = append(comp.pairClass, k)
			b.pairRep[ci] = append(b.pairRep[ci], key[0])
		}
		comp.pair = append(comp.pair, i)
	}
	p.n++
}

func (b *planBuilder) plan() *Plan {
	p := b.p
	b.p = nil
	for ci := range p.comps {
		comp := &p.comps[ci]
		// Index the pairs by projection.
		comp.repStart = make([]int32, len(comp.reps)+1)
		for _, j := range b.pairRep[ci] {
			comp.repStart[j+1]++
		}
		for j := range comp.reps {
			comp.repStart[j+1] += comp.repStart[j]
		}
		comp.repPairs = make([]int32, len(comp.pairClass))
		next := slices.Clone(comp.repStart)
		for i, j := range b.pairRep[ci] {
			comp.repPairs[next[j]] = int32(i)
			next[j]++
		}
		// Most components have one projection: nothing to index.
		if len(comp.reps) == 1 {
			comp.proj = nil
		}
		if slices.Equal(comp.pair, p.class) {
			comp.pair = nil
		}
	}
	return p
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendValue appends a key's value to a projection key: its type and
// its bits, so distinct values give distinct keys.
func appendValue(key []byte, v any) []byte {
	var bits uint64
	switch v := v.(type) {
	case int:
		key, bits = append(key, 'i'), uint64(v)
	case float64:
		key, bits = append(key, 'f'), math.Float64bits(v)
	case bool:
		key, bits = append(key, 'b'), uint64(boolByte(v))
	default:
		s := fmt.Sprintf("%#v", v)
		return append(append(append(key, 'x'), s...), 0)
	}
	for range 8 {
		key = append(key, byte(bits))
		bits >>= 8
	}
	return key
}

// NewPlan prepares the replay of configs (each already validated).
func NewPlan(configs []*rules.Config) *Plan {
	b := newPlanBuilder()
	for _, c := range configs {
		b.add(c)
	}
	return b.plan()
}

// Len is the number of configurations.
func (p *Plan) Len() int { return p.n }

// Replays is how many component replays the plan runs per episode (one
// full analyze is len(components)); benchmarks report it.
func (p *Plan) Replays() int {
	n := 0
	for i := range p.comps {
		n += len(p.comps[i].reps)
	}
	return n
}

// Classes is the number of termination classes: how many configurations'
// outcomes a sweep settles and totals per episode.
func (p *Plan) Classes() int { return p.classes }

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
	p      *Plan
	out    sweepCompOut   // the replay being counted
	kept   []sweepCompOut // terminating components' replays, while several can terminate (keepCuts)
	cur    *sweepCompOut
	report func(rules.Firing)
	tail   analyze.Tail
	judge  func(n int) bool // the episode's false alarm test (analyze.AlarmJudge)
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

// replayRep replays projection j of component ci into o.
func (r *Replayer) replayRep(ep *replay.Episode, ci, j int, o *sweepCompOut) {
	comp := &r.p.comps[ci]
	o.reset()
	r.cur = o
	r.beginScoring(comp.rules, comp.reps[j])
	rules.Run(ep, comp.reps[j], comp.rules, r.report)
	r.endScoring(ci, j)
	r.cur = nil
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
		for j := range p.comps[ci].reps {
			o := &r.out
			if keep {
				o, kept = &kept[0], kept[1:]
			}
			r.replayRep(ep, ci, j, o)
			c := &r.cuts[ci][j]
			*c = cut{o.term, o.termination}
			if !keep {
				r.settle(ci, j, o, c)
			}
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
		for j := range p.comps[ci].reps {
			r.replayRep(ep, ci, j, &r.out)
			r.settle(ci, j, &r.out, nil)
		}
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

// part is what a worker sends of a file, in order: each episode as it is
// replayed, then the file's end (End set) with its errors.
type part struct {
	End      bool
	Path     string
	Err      error
	LabelErr error // a labels file that does not fit the log: fatal

	// An episode (End unset): its facts, what each termination class did
	// to it, every configuration's result when the outcome flips, and
	// its labels.
	ID, Source    string
	RecordedTurns int
	Diag          replay.Diagnostics
	Classes       []classResult
	Outcomes      []analyze.Result
	Labels        *analyze.EpisodeLabels
}

// replayFiles reads each file once on a bounded pool of workers, replays
// plan over its episodes on the worker, and calls emit with each file's
// parts in input order whatever the scheduling. A file is streamed (as
// analyze reads it): each episode is replayed as soon as it is finished,
// its turn table dropped and its part sent, so a file of many episodes
// holds a handful of turn tables and parts at a time, not all of them;
// with Strict a file is read whole, as analyze does (its first problem
// discards it). emit runs on the caller's goroutine; returning false
// stops early. It returns the workers' Replayers, whose sums hold what
// Accumulate added up.
func replayFiles(files []string, stdin io.Reader, opts replay.Options, workers int, plan *Plan, emit func(*part) bool) []*Replayer {
	var (
		mu  sync.Mutex
		rps []*Replayer
	)
	analyze.StreamInOrder(len(files), workers, func() func(int, func(*part) bool) {
		rp := plan.NewReplayer() // scratch space and sums: one per worker
		mu.Lock()
		rps = append(rps, rp)
		mu.Unlock()
		return func(i int, send func(*part) bool) {
			path := files[i]
			replayOne := func(ep *replay.Episode, lab *analyze.EpisodeLabels) bool {
				pt := &part{ID: ep.ID, Source: ep.Source, RecordedTurns: ep.RecordedTurns(), Diag: ep.Diag, Labels: lab}
				pt.Classes, pt.Outcomes = rp.Accumulate(ep, lab)
				return send(pt)
			}
			if opts.Strict {
				// Read whole: a labels misfit, then the file's error,
				// come before any episode's, as they did when a file's
				// episodes were sent at once.
				eps, err := replay.ReadFile(path, stdin, opts)
				labs := make([]*analyze.EpisodeLabels, len(eps))
				for k, ep := range eps {
					lab, lerr := plan.Labels.For(path, ep.ID)
					if lerr != nil {
						send(&part{End: true, Path: path, LabelErr: lerr})
						return
					}
					labs[k] = lab
				}
				if err != nil {
					send(&part{End: true, Path: path, Err: err})
					return
				}
				for k, ep := range eps {
					if !replayOne(ep, labs[k]) {
						return
					}
					eps[k] = nil // let the turn table go
				}
				send(&part{End: true, Path: path})
				return
			}
			var labelErr error
			stopped := false
			_, err := replay.StreamFile(context.Background(), path, stdin, opts, func(ep *replay.Episode) error {
				lab, lerr := plan.Labels.For(path, ep.ID)
				if lerr != nil {
					labelErr = lerr
					return lerr
				}
				if !replayOne(ep, lab) {
					stopped = true
					return errStopped
				}
				return nil
			})
			if stopped {
				return
			}
			if labelErr != nil {
				err = nil
			}
			send(&part{End: true, Path: path, Err: err, LabelErr: labelErr})
		}
	}, emit)
	return rps
}

var errStopped = fmt.Errorf("stopped")
