package analyze

import (
	"math"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Live is the replay held against what the live loop-break system logged
// (RULES.md §10): every live decision compared with the replay's firing of
// the same kind at the same turn, and every such firing within the live
// run's turns with the live log.
type Live struct {
	Events        int               // live decisions in the log
	Penalties     int               // of those, location_penalty_applied
	Stop          *replay.LiveEvent // the live stuck_termination; nil: none
	Disagreements []LiveDisagreement
	// ExplainedBy lists, when the termination disagrees, the settings of
	// stuck_check_interval (each once, increasing) and the range of
	// max_turns_stuck that reproduce every live termination and
	// score-change record; empty when none do or the termination agrees.
	ExplainedBy []LiveSetting
	// Interval is the replayed configuration's stuck_check_interval.
	Interval int
}

// Agrees says whether every live decision matched, with nothing extra or
// missing.
func (l *Live) Agrees() bool { return len(l.Disagreements) == 0 }

// TerminationDisagrees says whether the live and replayed terminations
// differ (one without the other, another turn or another count).
func (l *Live) TerminationDisagrees() bool {
	for _, d := range l.Disagreements {
		if d.Kind == replay.LiveStuckTermination {
			return true
		}
	}
	return false
}

// PenaltyOff says whether the disagreements are only revisit penalties the
// replay fires in a log without any: the live run had the penalty off.
func (l *Live) PenaltyOff() bool {
	if l.Penalties > 0 || len(l.Disagreements) == 0 {
		return false
	}
	for _, d := range l.Disagreements {
		if d.Kind != replay.LivePenalty {
			return false
		}
	}
	return true
}

// LiveDisagreement is one decision the live log and the replay do not
// share at a turn: Live or Replay is nil when only the other has it.
type LiveDisagreement struct {
	Turn   int
	Kind   string // the live event type: replay.LiveStuckTermination, ...
	Live   *replay.LiveEvent
	Replay *rules.Firing
}

// LiveSetting is one stuck_check_interval and the max_turns_stuck values
// [Lo, Hi] that, with it, reproduce the live run.
type LiveSetting struct {
	StuckCheckInterval int
	MaxTurnsStuck      [2]int
}

// ZorkGPT's loader bounds (RULES.md §1, configuration parity).
const (
	maxInterval = 100
	maxStuckCap = 1000
)

// liveKind is the live event type a replay firing is compared with, ""
// for firings the live system does not log. A peer detector's firing is
// compared only in its own agent's log: the steps format runs OpenHands'
// detector on a Gemini CLI recording too, but Gemini CLI never records
// an OpenHands verdict, so its silence there is no disagreement.
func liveKind(ep *replay.Episode, f *rules.Firing) string {
	switch {
	case f.Kind == rules.Termination:
		return replay.LiveStuckTermination
	case f.Kind == rules.Reset && f.Cause == replay.LiveScoreChange:
		return replay.LiveScoreChange
	case f.Kind == rules.Reset && f.Cause == replay.LiveObjectiveReset:
		return replay.LiveObjectiveReset
	case f.Kind == rules.Penalty:
		return replay.LivePenalty
	case (f.Kind == rules.ToolCycleFeedback || f.Kind == rules.ContentChantingFeedback || f.Kind == rules.LLMLoopRecorded) && ep.Preset == replay.PresetGeminiCLI:
		// Gemini CLI records the recovery prompt of a prompt's first
		// detection, and an LLM verdict's; a second detection is not
		// recorded.
		return replay.LiveGeminiLoop
	case f.Rule != nil && f.Rule.Origin == rules.OriginOpenHands && ep.Preset == replay.PresetOpenHands:
		// OpenHands logs its StuckDetector's verdict, not which check.
		return replay.LiveOpenHandsStuck
	case f.Rule != nil && f.Rule.Origin == rules.OriginOpenHandsV1 && f.Kind.Name == "stop" && ep.Preset == replay.PresetOpenHandsV1:
		return replay.LiveOpenHandsV1Stuck
	case f.Rule != nil && f.Rule.Origin == rules.OriginOpenHandsV1 && f.Kind.Name == "feedback" && ep.Preset == replay.PresetOpenHandsV1:
		return replay.LiveOpenHandsV1Nudge
	case f.Rule == rules.ClineRepeat && f.Kind == rules.ClineFeedback && ep.Preset == replay.PresetCline:
		return replay.LiveClineWarning
	case f.Rule == rules.ClineRepeat && f.Kind == rules.ClineStop && ep.Preset == replay.PresetCline:
		// Kept in the history only when the user answered the limit
		// with words (see replay's clineReader).
		return replay.LiveClineStop
	case f.Rule == rules.RooRepeat && ep.Preset == replay.PresetRoo:
		return replay.LiveRooRefusal
	}
	return ""
}

// sameDecision compares the fields §10 names; a field the live line
// lacks is not compared.
func sameDecision(e *replay.LiveEvent, f *rules.Firing) bool {
	switch e.Kind {
	case replay.LiveStuckTermination, replay.LiveScoreChange, replay.LiveObjectiveReset:
		return !e.HasStuck || e.Stuck == f.TurnsStuck
	case replay.LiveGeminiLoop:
		return e.Rule == f.Rule.Name
	case replay.LivePenalty:
		if e.HasVisits && e.Visits != f.Visits {
			return false
		}
		if e.HasAdjusted && (!f.HasBase || math.Abs(e.Adjusted-f.Adjusted) > 1e-6) {
			return false
		}
	}
	return true
}

// copyFiring is a copy of *f (nil for nil): a worker reuses the list
// compareLive reads for its next episode (scratch).
func copyFiring(f *rules.Firing) *rules.Firing {
	if f == nil {
		return nil
	}
	c := *f
	return &c
}

// compareLive holds the replay's firings (those with a live kind, in turn
// order) against ep.Live; nil without live events.
func compareLive(ep *replay.Episode, firings []rules.Firing, cfg *rules.Config) *Live {
	if len(ep.Live) == 0 {
		return nil
	}
	l := &Live{Events: len(ep.Live)}
	l.Interval = rules.StuckCheckInterval.Get(cfg)
	type key struct {
		kind string
		turn int
	}
	replayed := map[key]*rules.Firing{}
	for i := range firings {
		replayed[key{liveKind(ep, &firings[i]), firings[i].Turn}] = &firings[i]
	}
	seen := map[key]bool{}
	for i := range ep.Live {
		e := &ep.Live[i]
		switch e.Kind {
		case replay.LiveStuckTermination, replay.LiveOpenHandsStuck, replay.LiveOpenHandsV1Stuck, replay.LiveClineStop, replay.LiveRooRefusal:
			l.Stop = e
		case replay.LivePenalty:
			l.Penalties++
		}
		k := key{e.Kind, e.Turn}
		seen[k] = true
		f := replayed[k]
		if f == nil || !sameDecision(e, f) {
			l.Disagreements = append(l.Disagreements, LiveDisagreement{Turn: e.Turn, Kind: e.Kind, Live: e, Replay: copyFiring(f)})
		}
	}
	// Replay firings the live run should have logged: within its turns.
	// A gap turn was never logged, so its silence says nothing.
	for i := range firings {
		f := &firings[i]
		k := key{liveKind(ep, f), f.Turn}
		if t := ep.Turn(f.Turn); k.kind == "" || seen[k] || t == nil || t.Filled {
			continue
		}
		l.Disagreements = append(l.Disagreements, LiveDisagreement{Turn: f.Turn, Kind: k.kind, Replay: copyFiring(f)})
	}
	sortDisagreements(l.Disagreements)
	if l.TerminationDisagrees() {
		l.ExplainedBy = explainLive(ep, cfg, l)
	}
	return l
}

func sortDisagreements(ds []LiveDisagreement) {
	rank := map[string]int{replay.LiveScoreChange: 0, replay.LiveObjectiveReset: 1, replay.LivePenalty: 2, replay.LiveStuckTermination: 3}
	// Insertion sort: lists are short and mostly ordered.
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0; j-- {
			a, b := &ds[j-1], &ds[j]
			if a.Turn < b.Turn || a.Turn == b.Turn && rank[a.Kind] <= rank[b.Kind] {
				break
			}
			*a, *b = *b, *a
		}
	}
}

// explainLive finds the (stuck_check_interval, max_turns_stuck) settings
// within ZorkGPT's bounds that reproduce every live termination (or their
// absence) and every live score-change and objective-reset record. The
// stuck timer does not depend on either key, so a live reset record is
// reproduced by every setting or by none; the termination turn must be a
// check point whose turns stuck reach max_turns_stuck while every earlier
// check point's stay below it, which for one interval is one range.
//
// The question is about the live system, which terminates whatever
// enable_velocity_detection says (RULES.md §1), so rule 1 is replayed here
// with that key on: the answer must not change with a what-if switch.
// Only live records must be reproduced ("every live ... record"): a reset
// the replay has and the live log lacks (a score change inside a gap, say)
// is a disagreement, but it does not rule a setting out by itself.
func explainLive(ep *replay.Episode, cfg *rules.Config, l *Live) []LiveSetting {
	if len(ep.Turns) == 0 {
		return []LiveSetting{}
	}
	vc := cfg.Clone()
	if err := vc.Set(rules.EnableVelocityDetection.Key, true, rules.Source{}); err != nil {
		return []LiveSetting{}
	}
	var firings []rules.Firing
	rules.Run(ep, vc, []*rules.Rule{rules.ProgressVelocity}, func(f rules.Firing) {
		if f.Kind == rules.Reset {
			firings = append(firings, f)
		}
	})
	stops := 0
	for i := range ep.Live {
		e := &ep.Live[i]
		switch e.Kind {
		case replay.LiveStuckTermination:
			stops++
		case replay.LiveScoreChange, replay.LiveObjectiveReset:
			reproduced := false
			for j := range firings {
				if f := &firings[j]; f.Turn == e.Turn && f.Cause == e.Kind && sameDecision(e, f) {
					reproduced = true
					break
				}
			}
			if !reproduced {
				return []LiveSetting{}
			}
		}
	}
	if stops > 1 {
		// A replay terminates once; no single setting gives two stops.
		return []LiveSetting{}
	}
	// lastChange[i]: the stuck timer's last reset at or before turn
	// Turns[i] (rule 1: 0 before any reset).
	first := ep.Turns[0].N
	lastChange := make([]int, len(ep.Turns))
	resets := map[int]bool{}
	for i := range firings {
		if firings[i].Kind == rules.Reset {
			resets[firings[i].Turn] = true
		}
	}
	lc := 0
	for i := range ep.Turns {
		if resets[ep.Turns[i].N] {
			lc = ep.Turns[i].N
		}
		lastChange[i] = lc
	}
	stuckAt := func(t int) int { return t - lastChange[t-first] }
	end, stopStuck := ep.RecordedTurns(), -1
	if l.Stop != nil {
		end = l.Stop.Turn
		if end < first || end > ep.RecordedTurns() {
			return []LiveSetting{} // a stop outside the recorded turns: nothing to reproduce it with
		}
		stopStuck = stuckAt(end)
		if l.Stop.HasStuck && l.Stop.Stuck != stopStuck {
			return []LiveSetting{} // the timer itself differs
		}
	}
	out := []LiveSetting{}
	for iv := 1; iv <= maxInterval; iv++ {
		lo, hi := iv, maxStuckCap // max_turns_stuck >= stuck_check_interval
		if l.Stop != nil {
			if end%iv != 0 {
				continue
			}
			hi = min(hi, stopStuck)
		}
		// Check points before the stop (every one without a stop) must
		// stay below max_turns_stuck. Nothing is checked at the first turn.
		for c := (first/iv + 1) * iv; c < end || (l.Stop == nil && c == end); c += iv {
			lo = max(lo, stuckAt(c)+1)
		}
		if lo <= hi {
			out = append(out, LiveSetting{StuckCheckInterval: iv, MaxTurnsStuck: [2]int{lo, hi}})
		}
	}
	return out
}
