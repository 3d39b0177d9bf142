// Package analyze turns a replay of the rules over one episode into facts:
// its Outcome (termination, check points, counts, story) and the Result
// every command totals (savings, false termination, censoring; RULES.md
// "Outcome of an episode"). Files runs a corpus on an ordered worker pool
// and Totals sums Results. Sweeps and checks are the subpackages
// analyze/sweep and analyze/check; package report words the facts.
package analyze

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// LLM call counting methods.
const (
	CallsLogged    = "logged"    // per-call llm_call events counted
	CallsEstimated = "estimated" // 4 per turn plus 2 per rejected action
)

// Termination is the first check point of progress_velocity.
type Termination struct {
	Turn       int     `json:"turn"`
	TurnsStuck int     `json:"turns_stuck"`
	Score      float64 `json:"score"`
}

// Checkpoint is one termination check point.
type Checkpoint struct {
	Turn       int `json:"turn"`
	TurnsStuck int `json:"turns_stuck"`
}

// Outcome is what one configuration would have done to one episode.
type Outcome struct {
	EpisodeID      string
	Source         string
	RecordedTurns  int
	FinalScore     float64
	RecordedEnd    string
	LocationKey    string
	Termination    *Termination
	Checkpoints    []Checkpoint
	LLMCallsMethod string

	// Result holds the figures Totals adds up (turns and calls saved,
	// false termination, censoring, warnings, would-reject).
	Result

	// Counts is the number of firings per "rule/kind".
	Counts map[string]int

	// Firings is every firing in turn order, when Options.KeepFirings.
	Firings []rules.Firing
	// Story is the firings compressed for a reader, when Options.Story.
	Story *Story
}

// Options control what Analyze keeps.
type Options struct {
	KeepFirings bool
	Story       bool // build Outcome.Story (as the firings come: they need not be kept)
	// Rules is the rule set to replay; nil means rules.Registry.
	Rules []*rules.Rule
}

// Analyze replays the rules over ep under cfg and computes its outcome.
func Analyze(ep *replay.Episode, cfg *rules.Config, opts Options) *Outcome {
	o := &Outcome{
		EpisodeID:     ep.ID,
		Source:        ep.Source,
		RecordedTurns: ep.RecordedTurns(),
		FinalScore:    ep.FinalScore(),
		RecordedEnd:   ep.RecordedEnd,
		LocationKey:   ep.LocationKey,
		Counts:        map[string]int{},
	}
	threshold := rules.RejectionThreshold.Get(cfg)
	var fired Fired
	var story *storyBuilder
	if opts.Story {
		story = newStoryBuilder(cfg)
	}
	rules.Run(ep, cfg, opts.Rules, func(f rules.Firing) {
		o.Counts[f.KindKey()]++
		switch {
		case f.Kind == rules.Termination:
			o.Termination = &Termination{Turn: f.Turn, TurnsStuck: f.TurnsStuck, Score: f.Score}
		case f.Kind == rules.Checkpoint:
			o.Checkpoints = append(o.Checkpoints, Checkpoint{Turn: f.Turn, TurnsStuck: f.TurnsStuck})
		case f.Kind == rules.Warning:
			fired.Warnings++
		case f.Rule == rules.ScoreAdjustment && f.Rejected,
			f.Rule == rules.LocationRevisit && f.HasBase && f.Adjusted < threshold:
			fired.WouldReject++
		}
		if story != nil {
			story.add(&f)
		}
		if opts.KeepFirings {
			o.Firings = append(o.Firings, f)
		}
	})
	fired.Termination = o.Termination
	o.LLMCallsMethod = CallsEstimated
	if ep.LLMCallsLogged {
		o.LLMCallsMethod = CallsLogged
	}
	var tail Tail
	tail.Reset(ep)
	o.Result = tail.Result(fired, rules.EnableObjectiveBasedProgress.Get(cfg))
	if opts.Story {
		o.Story = story.finish(o, ep, cfg)
	}
	return o
}

// Fired is what a replay's firings decide under one configuration: where
// it would have terminated the episode, and the firings totals count.
type Fired struct {
	Termination *Termination // the first check point; nil: none
	Warnings    int          // stuck_warnings/warning firings
	WouldReject int          // firings that would have rejected an action
}

// Tail reads what an episode recorded after a termination turn. Its sums
// are computed at most once per episode, so a sweep settles every
// configuration against one Tail.
type Tail struct {
	ep       *replay.Episode
	prepared bool
	// sufCalls[i], sufRej[i]: LLM calls and rejections of turns i.. on.
	sufCalls, sufRej []int
	lastChange       int // index of the last turn whose score differs from the turn before; -1: none
}

// Reset starts reading ep, keeping the scratch space.
func (t *Tail) Reset(ep *replay.Episode) {
	t.ep, t.prepared = ep, false
}

// Result computes what terminating the episode where f says (RULES.md
// "Outcome of an episode") yields; objectiveProgress is the
// configuration's enable_objective_based_progress. Analyze and sweeps both
// settle outcomes here.
func (t *Tail) Result(f Fired, objectiveProgress bool) Result {
	ep := t.ep
	r := Result{Warnings: f.Warnings, WouldReject: f.WouldReject}
	if ep.HasLiveStop && (f.Termination == nil || ep.LiveStopTurn < f.Termination.Turn) {
		// The live system stopped the recording before this configuration
		// would have: what it would have done later is unknowable.
		r.Censored = true
	}
	if f.Termination == nil {
		return r
	}
	if !t.prepared {
		t.prepare()
	}
	T := f.Termination.Turn
	idx := T - ep.Turns[0].N
	r.Terminated, r.TerminationTurn = true, T
	r.TurnsSaved = ep.RecordedTurns() - T
	r.ScoreForfeited = ep.FinalScore() - f.Termination.Score
	// The score moved after T: the recording made progress after the cut.
	r.FalseTermination = t.lastChange > idx
	if objectiveProgress {
		if n := len(ep.ObjectiveTurns); n > 0 && ep.ObjectiveTurns[n-1] > T {
			r.FalseTermination = true
		}
	}
	if ep.LLMCallsLogged {
		r.LLMCallsSaved = ep.TailLLMCalls + t.sufCalls[idx+1]
	} else {
		r.LLMCallsSaved = 4*r.TurnsSaved + 2*(ep.TailRejections+t.sufRej[idx+1])
	}
	return r
}

// prepare fills the suffix sums and finds the last score change.
func (t *Tail) prepare() {
	ep := t.ep
	n := len(ep.Turns)
	if cap(t.sufCalls) < n+1 {
		t.sufCalls, t.sufRej = make([]int, n+1), make([]int, n+1)
	}
	t.sufCalls, t.sufRej = t.sufCalls[:n+1], t.sufRej[:n+1]
	t.sufCalls[n], t.sufRej[n] = 0, 0
	t.lastChange = -1
	for i := n - 1; i >= 0; i-- {
		tn := &ep.Turns[i]
		t.sufCalls[i] = t.sufCalls[i+1] + tn.LLMCalls
		t.sufRej[i] = t.sufRej[i+1] + tn.Rejections
		if t.lastChange < 0 && i > 0 && tn.Score != ep.Turns[i-1].Score {
			t.lastChange = i
		}
	}
	t.prepared = true
}

// Result is what one configuration does to one episode: the figures
// Totals adds up. Sweeps keep one per episode and configuration.
type Result struct {
	Terminated       bool
	TerminationTurn  int
	TurnsSaved       int
	LLMCallsSaved    int
	ScoreForfeited   float64
	FalseTermination bool
	Censored         bool
	Warnings         int // stuck_warnings/warning firings
	WouldReject      int // penalties and adjustments that would have pushed the critic below rejection_threshold
}

// Outcome classes of a Result, as sweep --by-episode reports them.
const (
	ClassNever      = "never"             // no termination
	ClassTerminated = "terminated"        // terminated, no progress after
	ClassFalse      = "false_termination" // terminated, but the recording made progress after
	ClassCensored   = "censored"          // the live system stopped the recording first
)

// Class is the result's outcome class.
func (r *Result) Class() string {
	switch {
	case r.Censored:
		return ClassCensored
	case !r.Terminated:
		return ClassNever
	case r.FalseTermination:
		return ClassFalse
	}
	return ClassTerminated
}
