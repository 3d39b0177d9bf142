package replay

import (
	"encoding/json"
	"math"
	"sort"
)

// Kinds of live events: the decisions the live ZorkGPT loop-break system
// logs (RULES.md §10), named as their event types.
const (
	LiveStuckTermination = "stuck_termination"
	LiveScoreChange      = "score_change"
	LiveObjectiveReset   = "objective_progress_reset"
	LivePenalty          = "location_penalty_applied"
)

// Kinds of the Cline and Roo Code repetition verdicts a task's
// api_conversation_history.json keeps (see clineReader): Cline's warning
// at its soft threshold, Cline's mistake limit reached (the hard
// threshold) when the user answered it with feedback, and Roo Code's
// refused repeated call.
const (
	LiveClineWarning = "cline_loop_warning"
	LiveClineStop    = "cline_mistake_limit"
	LiveRooRefusal   = "roo_repetition_limit"
)

// LiveEvent is one decision of the live loop-break system. A field the
// line lacks has its Has flag false, and is not compared.
type LiveEvent struct {
	Kind string
	Turn int

	// Stuck is stuck_termination's turns_stuck, or the was_stuck_for of
	// score_change and objective_progress_reset.
	Stuck    int
	HasStuck bool
	// Score is stuck_termination's score or score_change's new_score;
	// OldScore is score_change's old_score.
	Score, OldScore       float64
	HasScore, HasOldScore bool
	// location_penalty_applied: confidences and recent_visits.
	Base, Adjusted       float64
	HasBase, HasAdjusted bool
	Visits               int
	HasVisits            bool
	// LiveGeminiLoop: the rule the details name (tool_cycle,
	// content_chanting, llm_loop_check) and the details.
	Rule, Detail string
}

// liveEvent records the live decision a line carries.
func (b *builder) liveEvent(w *wireEvent, turn int) {
	get := func(f func(*wireEvent) json.RawMessage) json.RawMessage { return w.field(f) }
	e := LiveEvent{Kind: w.eventType(), Turn: turn}
	integer := func(raw json.RawMessage) (int, bool) {
		f, ok := number(raw)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1e9 {
			return 0, false
		}
		return int(f), true
	}
	switch e.Kind {
	case LiveStuckTermination:
		e.Stuck, e.HasStuck = integer(get(func(e *wireEvent) json.RawMessage { return e.TurnsStuck }))
		e.Score, e.HasScore = number(get(func(e *wireEvent) json.RawMessage { return e.Score }))
	case LiveScoreChange:
		e.Stuck, e.HasStuck = integer(get(func(e *wireEvent) json.RawMessage { return e.WasStuckFor }))
		e.Score, e.HasScore = number(get(func(e *wireEvent) json.RawMessage { return e.NewScore }))
		e.OldScore, e.HasOldScore = number(get(func(e *wireEvent) json.RawMessage { return e.OldScore }))
	case LiveObjectiveReset:
		e.Stuck, e.HasStuck = integer(get(func(e *wireEvent) json.RawMessage { return e.WasStuckFor }))
	case LivePenalty:
		e.Base, e.HasBase = number(get(func(e *wireEvent) json.RawMessage { return e.BaseConfidence }))
		e.Adjusted, e.HasAdjusted = number(get(func(e *wireEvent) json.RawMessage { return e.AdjustedConfidence }))
		e.Visits, e.HasVisits = integer(get(func(e *wireEvent) json.RawMessage { return e.RecentVisits }))
	}
	b.live = append(b.live, e)
}

// liveEvents orders the live events by turn and keeps the last of each
// kind at a turn: a restarted run logging a turn again decides it again,
// as its turn record replaces the first run's.
func liveEvents(evs []LiveEvent) []LiveEvent {
	if len(evs) == 0 {
		return nil
	}
	type key struct {
		kind string
		turn int
	}
	last := map[key]int{}
	for i, e := range evs {
		last[key{e.Kind, e.Turn}] = i
	}
	out := make([]LiveEvent, 0, len(last))
	for i, e := range evs {
		if last[key{e.Kind, e.Turn}] == i {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Turn < out[j].Turn })
	return out
}
