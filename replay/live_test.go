package replay

import (
	"reflect"
	"testing"
)

// The live loop-break system's decisions are read with their fields
// (RULES.md §10); a field the line lacks is not invented, a restarted run's
// repeat of a turn's decision replaces the first (in its place in the log),
// and events come by turn.
func TestLiveEvents(t *testing.T) {
	in := rtTurn("", 1, "look", 0, "Dam", 0.5) +
		rtLine("location_penalty_applied", "turn", 2, "base_confidence", 0.6, "adjusted_confidence", 0.4, "recent_visits", 1, "location_id", 3) + "\n" +
		rtTurn("", 2, "look", 5, "Dam", 0.5) +
		rtLine("score_change", "turn", 2, "old_score", 0, "new_score", 5, "was_stuck_for", 2) + "\n" +
		rtLine("objective_progress_reset", "turn_number", 3, "was_stuck_for", 1) + "\n" +
		rtTurn("", 3, "look", 5, "Dam", 0.5) +
		rtLine("location_penalty_applied", "turn", 2, "base_confidence", 0.6, "adjusted_confidence", 0.2, "recent_visits", 2) + "\n" +
		rtLine("stuck_termination", "turn", 3, "score", 5) + "\n"
	ep := rtOne(t, in)
	want := []LiveEvent{
		{Kind: LiveScoreChange, Turn: 2, Stuck: 2, HasStuck: true, Score: 5, HasScore: true, HasOldScore: true},
		{Kind: LivePenalty, Turn: 2, Base: 0.6, HasBase: true, Adjusted: 0.2, HasAdjusted: true, Visits: 2, HasVisits: true},
		{Kind: LiveObjectiveReset, Turn: 3, Stuck: 1, HasStuck: true},
		{Kind: LiveStuckTermination, Turn: 3, Score: 5, HasScore: true},
	}
	if !reflect.DeepEqual(ep.Live, want) {
		t.Errorf("Live =\n%+v\nwant\n%+v", ep.Live, want)
	}
	if ep := rtOne(t, rtTurn("", 1, "look", 0, "Dam", 0.5)); ep.Live != nil {
		t.Errorf("no live events: Live = %+v, want nil", ep.Live)
	}
}
