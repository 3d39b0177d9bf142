package sweep

// Replaying many configurations at once: a Plan, its Replayer (one per
// goroutine) and the ordered pool over files.

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/loopbreak/loopbreak/analyze"
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
	// shares: some rule declares what it reads (rules.Rule.Reads), so the
	// projections are replayed together (rules.RunShared), the rules
	// whose reads they do not vary stepped once for all of them.
	shares bool
	reps   []*rules.Config // one configuration per distinct projection
	proj   []int32         // configuration → projection; nil: one projection (projOf)
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
		comp.shares = comp.shares || r.Reads != nil
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
