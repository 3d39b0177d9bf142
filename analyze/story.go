package analyze

import (
	"sort"

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

	// AgentFirings is every firing of a steps or attempts log, for its
	// headline table and tasks (such logs are sessions, not corpora of
	// millions of turns). Nil for ZorkGPT logs.
	AgentFirings []rules.Firing
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

// runGap is how many quiet turns still count as the same run.
const runGap = 3

// storyBuilder compresses firings into a Story as the replay reports
// them, so a story needs no list of the episode's firings.
type storyBuilder struct {
	s      Story
	o      *Outcome // its Termination is set once the cut has fired
	open   map[string]*Run
	runs   []*Run
	oscAt  map[int]string // turn → oscillation run key (the latest turn only)
	campAt map[int]string // turn → camping run key (the latest turn only)
	resets []int          // progress_velocity/reset turns, for the stuck periods
	agent  bool           // a steps or attempts log: keep every firing
}

func newStoryBuilder(o *Outcome) *storyBuilder {
	return &storyBuilder{s: Story{UpToCut: map[*rules.Kind]int{}}, o: o, open: map[string]*Run{}, oscAt: map[int]string{}, campAt: map[int]string{}}
}

// add takes the next firing, in turn order. Firings after the cut are
// known as such when they come: the termination fires first in its turn.
func (b *storyBuilder) add(f *rules.Firing) {
	s, o := &b.s, b.o
	switch {
	case b.agent:
		s.AgentFirings = append(s.AgentFirings, *f)
	case f.Rule.Origin == rules.OriginGeneric:
		if s.OutputLoopCount < MaxOutputLoops {
			s.OutputLoops = append(s.OutputLoops, *f)
		}
		s.OutputLoopCount++
	}
	if !o.AfterCut(f) {
		s.UpToCut[f.Kind]++
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
		key := f.Location
		if f.Rule == rules.Oscillation {
			p := f.Pattern
			if p[1] < p[0] {
				p[0], p[1] = p[1], p[0]
			}
			key = p[0] + "\x00" + p[1]
		}
		id := f.Rule.Name + "\x00" + key
		r := b.open[id]
		if r == nil || f.Turn-r.To > runGap+1 {
			r = &Run{Rule: f.Rule, Kind: f.Kind, Key: key, Pattern: f.Pattern, From: f.Turn}
			b.open[id] = r
			b.runs = append(b.runs, r)
		}
		r.To = f.Turn
		r.Firings++
		if o.AfterCut(f) {
			r.AfterCut++
		} else if IsLowConfidence(f) {
			r.LowConfidence++
		}
		// An adjustment looks up its own turn's detection only, so the
		// maps hold the latest turn, not the episode's.
		if f.Rule == rules.Oscillation {
			clear(b.oscAt)
			b.oscAt[f.Turn] = id
		}
		if f.Rule == rules.Camping {
			clear(b.campAt)
			b.campAt[f.Turn] = id
		}
	case rules.Adjustment:
		// Rules run oscillation and camping before score_adjustment in
		// a turn, so the run this adjustment belongs to is open.
		id, ok := b.oscAt[f.Turn]
		if !ok {
			id, ok = b.campAt[f.Turn]
		}
		if r := b.open[id]; ok && r != nil {
			r.Adjustments++
			if f.Rejected && !o.AfterCut(f) {
				r.WouldReject++
			}
		}
	}
}

// finish returns the story of the outcome's episode ep.
func (b *storyBuilder) finish(ep *replay.Episode, cfg *rules.Config) *Story {
	s := &b.s
	s.StuckPeriods = stuckPeriods(b.resets, b.o, ep, cfg)
	sort.SliceStable(b.runs, func(i, j int) bool { return b.runs[i].From < b.runs[j].From })
	for _, r := range b.runs {
		s.Runs = append(s.Runs, *r)
	}
	return s
}

// stuckPeriods are the stretches between progress_velocity resets (at
// the turns resets, in order).
func stuckPeriods(resets []int, o *Outcome, ep *replay.Episode, cfg *rules.Config) []StuckPeriod {
	if len(ep.Turns) == 0 || !rules.EnableVelocityDetection.Get(cfg) {
		return nil
	}
	minLen := min(rules.StuckWarningThreshold.Get(cfg), rules.MaxTurnsStuck.Get(cfg))
	var out []StuckPeriod
	last := 0 // the timer starts at 0 (RULES.md §1)
	add := func(end int, ongoing bool) {
		from := max(last+1, ep.Turns[0].N)
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
