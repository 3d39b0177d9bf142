package sweep

// Replaying many configurations at once: a Plan, its Replayer (one per
// goroutine) and the ordered pool over files.

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Plan replays a list of configurations over episodes. It is read-only
// once built: each goroutine replays through its own Replayer.
type Plan struct {
	Configs []*rules.Config
	// Labels, when set, scores every configuration's firings against the
	// labelled episodes (labels.go).
	Labels *analyze.Labels

	comps []sweepComponent
}

// sweepComponent is a set of rules closed under Requires, with the
// distinct projections of the configurations onto what it reads.
type sweepComponent struct {
	rules []*rules.Rule
	reps  []*rules.Config // one configuration per distinct projection
	proj  []int           // configuration index → projection index
}

// NewPlan prepares the replay of configs (each already validated).
func NewPlan(configs []*rules.Config) *Plan {
	p := &Plan{Configs: configs}
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
		p.comps[i].rules = append(p.comps[i].rules, r)
	}
	for ci := range p.comps {
		comp := &p.comps[ci]
		seen := map[string]int{}
		for _, c := range configs {
			var b strings.Builder
			for _, r := range comp.rules {
				fmt.Fprintf(&b, "%s:%v;", r.Name, r.Enabled(c))
				for _, prm := range r.Params {
					fmt.Fprintf(&b, "%s=%#v;", prm.Key, c.Value(prm.Key))
				}
			}
			k := b.String()
			j, ok := seen[k]
			if !ok {
				j = len(comp.reps)
				seen[k] = j
				comp.reps = append(comp.reps, c)
			}
			comp.proj = append(comp.proj, j)
		}
	}
	return p
}

// Replays is how many component replays the plan runs per episode (one
// full analyze is len(components)); benchmarks report it.
func (p *Plan) Replays() int {
	n := 0
	for i := range p.comps {
		n += len(p.comps[i].reps)
	}
	return n
}

// sweepCompOut is what one replay of a component yields. The counted
// firings are kept as their turns (in turn order), because a
// configuration counts only those at or before its termination turn, which
// another component's replay may decide.
type sweepCompOut struct {
	term        bool
	termination analyze.Termination
	counted     [5][]int // turns of warnings, rejecting adjustments, low-confidence penalties, loops, false alarms
}

// Replayer replays a Plan; it keeps scratch space, so one per goroutine.
type Replayer struct {
	p      *Plan
	outs   [][]sweepCompOut
	cur    *sweepCompOut
	report func(rules.Firing)
	tail   analyze.Tail
	judge  func(n int) bool // the episode's false alarm test (analyze.AlarmJudge)
	labelScoring
}

// NewReplayer returns a Replayer for p.
func (p *Plan) NewReplayer() *Replayer {
	r := &Replayer{p: p, outs: make([][]sweepCompOut, len(p.comps))}
	for i := range p.comps {
		r.outs[i] = make([]sweepCompOut, len(p.comps[i].reps))
	}
	r.report = r.count
	return r
}

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

// Replay computes every configuration's result for ep into out, which
// must have len(p.Configs) entries: each configuration's Fired is put
// together from its components' replays, then settled as Analyze settles
// it.
func (r *Replayer) Replay(ep *replay.Episode, out []analyze.Result) {
	p := r.p
	r.judge, _ = analyze.AlarmJudge(ep)
	for ci := range p.comps {
		comp := &p.comps[ci]
		for j, cfg := range comp.reps {
			o := &r.outs[ci][j]
			*o = sweepCompOut{counted: [5][]int{o.counted[0][:0], o.counted[1][:0], o.counted[2][:0], o.counted[3][:0], o.counted[4][:0]}}
			r.cur = o
			r.beginScoring(comp.rules, cfg)
			rules.Run(ep, cfg, comp.rules, r.report)
			r.endScoring(ci, j)
		}
	}
	r.cur = nil
	r.tail.Reset(ep)
	for c := range p.Configs {
		var f analyze.Fired
		for ci := range p.comps {
			if o := &r.outs[ci][p.comps[ci].proj[c]]; o.term && f.Termination == nil {
				f.Termination = &o.termination
			}
		}
		for ci := range p.comps {
			o := &r.outs[ci][p.comps[ci].proj[c]]
			f.Warnings += upTo(o.counted[0], f.Termination)
			f.WouldReject += upTo(o.counted[1], f.Termination)
			f.LowConfidence += upTo(o.counted[2], f.Termination)
			f.Loops += upTo(o.counted[3], f.Termination)
			f.FalseAlarms += upTo(o.counted[4], f.Termination)
		}
		out[c] = r.tail.Result(f)
	}
	r.tail.Reset(nil) // let the episode go
	r.judge = nil
}

// upTo counts the sorted turns at or before the termination turn (all
// of them without one).
func upTo(turns []int, t *analyze.Termination) int {
	if t == nil {
		return len(turns)
	}
	return sort.SearchInts(turns, t.Turn+1)
}

// episode is one episode's results, without its turn table.
type episode struct {
	ID, Source    string
	RecordedTurns int
	Diag          replay.Diagnostics
	Results       []analyze.Result // one per Plan configuration
	// Labels and Scores (one per configuration) when it is labelled.
	Labels *analyze.EpisodeLabels
	Scores []analyze.Scores
}

// file is one log file: its episodes' results, or why it could not
// be read (as analyze.FileResult).
type file struct {
	Path     string
	Episodes []episode
	Err      error
	LabelErr error // a labels file that does not fit the log: fatal
}

// replayFiles reads each file once on a bounded pool of workers, replays
// plan over its episodes on the worker, and calls emit for each file in
// input order whatever the scheduling. A file is streamed (as analyze
// reads it): each episode is replayed as soon as it is finished and its
// turn table dropped, so a file of many episodes holds a handful of turn
// tables at a time, not all of them; with Strict a file is read whole, as
// analyze does (its first problem discards it). At most 2×workers files'
// results are held. emit runs on the caller's goroutine; returning false
// stops early.
func replayFiles(files []string, stdin io.Reader, opts replay.Options, workers int, plan *Plan, emit func(file) bool) {
	analyze.InOrder(len(files), workers, func() func(int) file {
		rp := plan.NewReplayer() // scratch space: one per worker
		return func(i int) file {
			sf := file{Path: files[i]}
			add := func(ep *replay.Episode) error {
				se := episode{ID: ep.ID, Source: ep.Source, RecordedTurns: ep.RecordedTurns(), Diag: ep.Diag}
				se.Results = make([]analyze.Result, len(plan.Configs))
				lab, err := plan.Labels.For(files[i], ep.ID)
				if err != nil && sf.LabelErr == nil {
					sf.LabelErr = err
				}
				if lab != nil {
					se.Labels, se.Scores = lab, make([]analyze.Scores, len(plan.Configs))
					rp.ReplayLabelled(ep, lab, se.Results, se.Scores)
				} else {
					rp.Replay(ep, se.Results)
				}
				sf.Episodes = append(sf.Episodes, se)
				return nil
			}
			if opts.Strict {
				eps, err := replay.ReadFile(files[i], stdin, opts)
				for k, ep := range eps {
					add(ep)
					eps[k] = nil // let the turn table go
				}
				sf.Err = err
				return sf
			}
			_, sf.Err = replay.StreamFile(context.Background(), files[i], stdin, opts, add)
			return sf
		}
	}, emit)
}
