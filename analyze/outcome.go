// Package analyze turns a replay of the rules over one episode into its
// outcome (termination, savings, false termination, censoring; RULES.md
// "Outcome of an episode") and sums outcomes over a corpus.
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
	EpisodeID        string
	Source           string
	RecordedTurns    int
	FinalScore       float64
	RecordedEnd      string
	LocationKey      string
	Termination      *Termination
	Checkpoints      []Checkpoint
	TurnsSaved       int
	LLMCallsSaved    int
	LLMCallsMethod   string
	ScoreForfeited   float64
	FalseTermination bool
	Censored         bool

	// Counts is the number of firings per "rule/kind".
	Counts map[string]int
	// WouldReject counts penalties and adjustments that would have pushed
	// the critic's confidence below rejection_threshold.
	WouldReject int

	// Firings is every firing in turn order, when Options.KeepFirings.
	Firings []rules.Firing
}

// Options control what Analyze keeps.
type Options struct {
	KeepFirings bool
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
	rules.Run(ep, cfg, opts.Rules, func(f rules.Firing) {
		o.Counts[f.KindKey()]++
		switch {
		case f.Kind == rules.Termination:
			o.Termination = &Termination{Turn: f.Turn, TurnsStuck: f.TurnsStuck, Score: f.Score}
		case f.Kind == rules.Checkpoint:
			o.Checkpoints = append(o.Checkpoints, Checkpoint{Turn: f.Turn, TurnsStuck: f.TurnsStuck})
		case f.Rule == rules.ScoreAdjustment && f.Rejected,
			f.Rule == rules.LocationRevisit && f.HasBase && f.Adjusted < threshold:
			o.WouldReject++
		}
		if opts.KeepFirings {
			o.Firings = append(o.Firings, f)
		}
	})
	o.LLMCallsMethod = CallsEstimated
	if ep.LLMCallsLogged {
		o.LLMCallsMethod = CallsLogged
	}
	if ep.HasLiveStop && (o.Termination == nil || ep.LiveStopTurn < o.Termination.Turn) {
		// The live system stopped the recording before this configuration
		// would have: what it would have done later is unknowable.
		o.Censored = true
	}
	if o.Termination == nil {
		return o
	}
	T := o.Termination.Turn
	o.TurnsSaved = o.RecordedTurns - T
	o.ScoreForfeited = o.FinalScore - o.Termination.Score

	calls, rejections := ep.TailLLMCalls, ep.TailRejections
	prev := o.Termination.Score
	for i := range ep.Turns {
		t := &ep.Turns[i]
		if t.N <= T {
			continue
		}
		calls += t.LLMCalls
		rejections += t.Rejections
		if t.Score != prev {
			o.FalseTermination = true
		}
		prev = t.Score
	}
	if rules.EnableObjectiveBasedProgress.Get(cfg) {
		if n := len(ep.ObjectiveTurns); n > 0 && ep.ObjectiveTurns[n-1] > T {
			o.FalseTermination = true
		}
	}
	if ep.LLMCallsLogged {
		o.LLMCallsSaved = calls
	} else {
		o.LLMCallsSaved = 4*o.TurnsSaved + 2*rejections
	}
	return o
}
