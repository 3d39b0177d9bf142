package analyze

import (
	"math/bits"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Story is an episode's firings compressed into what a reader scans:
// stuck periods, warning ranges, runs of detections and penalties.
type Story struct {
	StuckPeriods []StuckPeriod
	Warnings     []WarningRun
	Runs         []Run
	// UpToCut counts the firings of each kind at or before the cut (all
	// of them without one).
	UpToCut map[*rules.Kind]int

	// OutputLoops are the first MaxOutputLoops firings of the generic
	// rules on a ZorkGPT log, of OutputLoopCount in all.
	OutputLoops     []rules.Firing
	OutputLoopCount int
}

// MaxOutputLoops is how many generic firings a ZorkGPT story keeps.
const MaxOutputLoops = 12

// StuckPeriod is a stretch without progress: the timer last reset at
// turn From-1 and the next progress (or the end) came after To.
type StuckPeriod struct {
	From, To int
	Turns    int // turns stuck at To
	Score    float64
	Ongoing  bool // still stuck when the recording ended
}

// WarningRun is consecutive turns with countdown warnings.
type WarningRun struct {
	From, To int
	Phases   []UrgencyPhase
}

// UrgencyPhase is a stretch of one urgency within a WarningRun.
type UrgencyPhase struct {
	Urgency  string
	From, To int
}

// Run groups firings of one rule at one place close in time.
type Run struct {
	Rule        *rules.Rule
	Kind        *rules.Kind
	Key         string    // location key, or the pattern's two keys joined
	Pattern     [2]string // oscillation only
	From, To    int
	Firings     int
	Adjustments int // score_adjustment firings attributed to this run
	WouldReject int // of those, adjustments that would have rejected the action
	// LowConfidence counts revisit penalties leaving the critic's
	// confidence below 0.3 (RULES.md §3).
	LowConfidence int
	// AfterCut counts the run's firings after the termination turn.
	AfterCut int
}

// kindTally counts firings by kind, a registered kind's in its slot
// (Kind.Index) as kindCounts does, any other kind (nil, outside the
// registry, past the slots) in a map (Story.UpToCut, which into adds the
// slots to): the map's assignment at each firing (a steps log fires tens
// of thousands of times) cost some 80 instructions, and the short list
// searched by pointer that replaced it some 8.
type kindTally struct {
	n    [kindSlots]int
	used uint64 // bit i: n[i] counts
}

// add counts a firing of kind k, in m when it has no slot.
func (c *kindTally) add(k *rules.Kind, m map[*rules.Kind]int) {
	if k != nil {
		if i := uint(k.Index()); i < kindSlots {
			c.n[i]++
			c.used |= 1 << i
			return
		}
	}
	m[k]++
}

// into adds the slots' counts to m.
func (c *kindTally) into(m map[*rules.Kind]int) {
	for u := c.used; u != 0; u &= u - 1 {
		i := bits.TrailingZeros64(u)
		m[rules.KindAt(i)] += c.n[i]
	}
}

// runGap is how many quiet turns still count as the same run.
const runGap = 3

// storyBuilder compresses firings into a Story as the replay reports
// them, so a story needs no list of the episode's firings. A firing
// allocates nothing: its run is found by key, runs are kept by value in
// the order they start (turn order), in chunks, so the hundreds of
// thousands of runs of an episode of millions of turns are not copied
// each time a slice of them grows.
type storyBuilder struct {
	s      Story
	o      *Outcome       // its Termination is set once the cut has fired
	runs   [][]Run        // the runs so far, in chunks (s.Runs once finished)
	nRuns  int            // runs in runs
	open   map[runKey]int // the latest run of a rule at a place: its number
	osc    turnRun        // the oscillation run that fired at the latest turn
	camp   turnRun        // the camping run that fired at the latest turn
	resets []int          // progress_velocity/reset turns, for the stuck periods
	upTo   kindTally      // s.UpToCut's counts until finish
	// agent is a steps or attempts log: its renderers tally its firings
	// as they come (report.AgentStory, an Options.Sink), the story keeps
	// none of them.
	agent bool
}

// Chunk k of storyBuilder.runs holds 4<<k runs up to maxRunChunk (chunk
// fullChunk on), so a story of a few runs allocates a few.
const (
	fullChunk   = 8
	maxRunChunk = 4 << fullChunk
)

// run returns run number i.
func (b *storyBuilder) run(i int) *Run {
	const before = maxRunChunk - 4 // runs in the chunks before fullChunk
	if i < before {
		k := bits.Len(uint(i/4+1)) - 1
		return &b.runs[k][i-4*(1<<k-1)]
	}
	i -= before
	return &b.runs[fullChunk+i/maxRunChunk][i%maxRunChunk]
}

// newRun adds r and returns its number.
func (b *storyBuilder) newRun(r Run) int {
	if n := len(b.runs); n == 0 || len(b.runs[n-1]) == cap(b.runs[n-1]) {
		b.runs = append(b.runs, make([]Run, 0, 4<<min(n, fullChunk)))
	}
	c := &b.runs[len(b.runs)-1]
	*c = append(*c, r)
	b.nRuns++
	return b.nRuns - 1
}

// runKey is a run's rule and place: a location, or an oscillation's two
// locations in order.
type runKey struct {
	rule *rules.Rule
	a, b string
}

// turnRun is the run a detection at turn fed (an adjustment looks up its
// own turn's detection only).
type turnRun struct {
	turn int
	run  int // its number (storyBuilder.run)
	ok   bool
}

func newStoryBuilder(o *Outcome) *storyBuilder {
	b := &storyBuilder{}
	b.reset(o)
	return b
}

// reset starts o's story, keeping b's run index and resets (a worker's
// builder is its scratch's: a directory of small episodes made them anew
// an episode) unless an episode of many runs grew them.
func (b *storyBuilder) reset(o *Outcome) {
	open, resets := b.open, b.resets[:0]
	if open == nil || len(open) > maxReusedRuns {
		open = map[runKey]int{}
	}
	clear(open)
	if cap(resets) > maxReusedRuns {
		resets = nil
	}
	*b = storyBuilder{s: Story{UpToCut: map[*rules.Kind]int{}}, o: o, open: open, resets: resets}
}

// maxReusedRuns bounds the run index and resets a builder keeps.
const maxReusedRuns = 1 << 10

// storyKindsEnd bounds the registry's indexes of the kinds add tells
// apart: a kind at or past it (or outside the registry, whose Index is
// -1) is none of them.
var storyKindsEnd = uint(1 + max(rules.Reset.Index(), rules.Warning.Index(), rules.Penalty.Index(),
	rules.OscillationDetection.Index(), rules.CampingDetection.Index(), rules.Hint.Index(), rules.Adjustment.Index()))

// add takes the next firing, in turn order, after telling whether it is
// after the cut (Outcome.AfterCut, the caller's): firings after the cut
// are known as such when they come, the termination first in its turn.
func (b *storyBuilder) add(f *rules.Firing, after bool) {
	s := &b.s
	switch {
	case b.agent:
	case f.Rule.Origin == rules.OriginGeneric:
		if s.OutputLoopCount < MaxOutputLoops {
			if len(s.OutputLoops) == cap(s.OutputLoops) {
				// 4, then all 12: a Firing is some 330 bytes, and
				// append's 1, 2, 4, 8, 16 copied most episodes' few
				// loops three times over.
				s.OutputLoops = append(make([]rules.Firing, 0, min(MaxOutputLoops, max(4, 3*cap(s.OutputLoops)))), s.OutputLoops...)
			}
			s.OutputLoops = append(s.OutputLoops, *f)
		}
		s.OutputLoopCount++
	}
	if !after {
		b.upTo.add(f.Kind, s.UpToCut)
	}
	if uint(f.Kind.Index()) >= storyKindsEnd {
		// None of the kinds below (the ZorkGPT family's, registered
		// first): the loops and stops of an agent's log, most of its
		// firings, each compared with all seven.
		return
	}
	switch f.Kind {
	case rules.Reset:
		b.resets = append(b.resets, f.Turn)
	case rules.Warning:
		n := len(s.Warnings)
		if n > 0 && s.Warnings[n-1].To >= f.Turn-1 {
			w := &s.Warnings[n-1]
			w.To = f.Turn
			p := &w.Phases[len(w.Phases)-1]
			if p.Urgency == f.Urgency {
				p.To = f.Turn
			} else {
				w.Phases = append(w.Phases, UrgencyPhase{f.Urgency, f.Turn, f.Turn})
			}
		} else {
			s.Warnings = append(s.Warnings, WarningRun{From: f.Turn, To: f.Turn, Phases: []UrgencyPhase{{f.Urgency, f.Turn, f.Turn}}})
		}
	case rules.Penalty, rules.OscillationDetection, rules.CampingDetection, rules.Hint:
		id := runKey{rule: f.Rule, a: f.Location}
		if f.Rule == rules.Oscillation {
			id.a, id.b = min(f.Pattern[0], f.Pattern[1]), max(f.Pattern[0], f.Pattern[1])
		}
		i, ok := b.open[id]
		if !ok || f.Turn-b.run(i).To > runGap+1 {
			key := id.a
			if f.Rule == rules.Oscillation {
				key = id.a + "\x00" + id.b
			}
			i = b.newRun(Run{Rule: f.Rule, Kind: f.Kind, Key: key, Pattern: f.Pattern, From: f.Turn})
			b.open[id] = i
		}
		r := b.run(i)
		r.To = f.Turn
		r.Firings++
		if after {
			r.AfterCut++
		} else if IsLowConfidence(f) {
			r.LowConfidence++
		}
		if f.Rule == rules.Oscillation {
			b.osc = turnRun{f.Turn, i, true}
		}
		if f.Rule == rules.Camping {
			b.camp = turnRun{f.Turn, i, true}
		}
	case rules.Adjustment:
		// Rules run oscillation and camping before score_adjustment in
		// a turn, so the run this adjustment belongs to is open.
		d := b.osc
		if !d.ok || d.turn != f.Turn {
			d = b.camp
		}
		if d.ok && d.turn == f.Turn {
			r := b.run(d.run)
			r.Adjustments++
			if f.Rejected && !after {
				r.WouldReject++
			}
		}
	}
}

// finish returns the story of the outcome's episode ep, a copy of b's
// (b may start the next one).
func (b *storyBuilder) finish(ep *replay.Episode, cfg *rules.Config) *Story {
	s := new(Story)
	*s = b.s
	b.upTo.into(s.UpToCut)
	s.StuckPeriods = stuckPeriods(b.resets, b.o, ep, cfg)
	// Runs start in turn order (firings come in turn order): they are
	// sorted by From already.
	switch len(b.runs) {
	case 0:
	case 1:
		s.Runs = b.runs[0]
	default:
		s.Runs = make([]Run, 0, b.nRuns)
		for i, c := range b.runs {
			s.Runs = append(s.Runs, c...)
			b.runs[i] = nil
		}
	}
	b.runs, b.s, b.o = nil, Story{}, nil
	clear(b.open) // its keys are the episode's strings
	return s
}

// stuckPeriods are the stretches between progress_velocity resets (at
// the turns resets, in order).
func stuckPeriods(resets []int, o *Outcome, ep *replay.Episode, cfg *rules.Config) []StuckPeriod {
	if ep.NumTurns() == 0 || !rules.EnableVelocityDetection.Get(cfg) {
		return nil
	}
	minLen := min(rules.StuckWarningThreshold.Get(cfg), rules.MaxTurnsStuck.Get(cfg))
	var out []StuckPeriod
	last := 0 // the timer starts at 0 (RULES.md §1)
	add := func(end int, ongoing bool) {
		from := max(last+1, ep.TurnAt(0).N)
		if end-last >= minLen && end >= from {
			t := ep.Turn(from)
			out = append(out, StuckPeriod{From: from, To: end, Turns: end - last, Score: t.Score, Ongoing: ongoing})
		}
	}
	for _, turn := range resets {
		add(turn-1, false)
		last = turn
	}
	add(o.RecordedTurns, true)
	return out
}
