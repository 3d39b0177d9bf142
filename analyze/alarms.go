package analyze

import (
	"slices"

	"github.com/loopbreak/loopbreak/replay"
)

// What a false alarm is measured against (AlarmJudge).
const (
	BasisScore        = "score"         // steps with a score: the score rose after the firing
	BasisTaskProgress = "task_progress" // attempts: the task progressed after the firing
	BasisLabels       = "labels"        // labelled logs: the firing is outside every span judged stuck
)

// AlarmJudge returns the test of a false alarm for a loop firing at turn
// (step, attempt) n of ep, and what it is measured against; nil when the
// log cannot tell. A false alarm is a firing after which the agent was not
// stuck after all:
//   - a steps log with scores: a later step has a higher score than the
//     step that fired (RULES.md's false termination, per firing);
//   - an attempts log: a later attempt at the same task records completed
//     work the firing attempt did not have, or is done when it was not;
//   - a ZorkGPT log: the score rose after the firing turn, as for steps.
func AlarmJudge(ep *replay.Episode) (func(n int) bool, string) {
	switch {
	case ep.Format == replay.FormatAttempts:
		return func(n int) bool { return taskProgressedAfter(ep, n) }, BasisTaskProgress
	case (ep.Format != replay.FormatSteps || ep.HasScore) && len(ep.Turns) > 0:
		// best[i]: the highest score after Turns[i].
		best := make([]float64, len(ep.Turns))
		top := ep.Turns[len(ep.Turns)-1].Score
		for i := len(ep.Turns) - 1; i >= 0; i-- {
			best[i] = top
			top = max(top, ep.Turns[i].Score)
		}
		first := ep.Turns[0].N
		return func(n int) bool {
			i := n - first
			return i >= 0 && i+1 < len(best) && best[i] > ep.Turns[i].Score
		}, BasisScore
	}
	return nil, ""
}

// taskProgressedAfter says a later attempt at attempt n's task records
// work attempt n did not have, or is done when attempt n was not.
func taskProgressedAfter(ep *replay.Episode, n int) bool {
	if n < 1 || n > len(ep.Attempts) {
		return false
	}
	a := ep.Attempts[n-1]
	for _, b := range ep.Attempts[n:] {
		if b.TaskID != a.TaskID {
			continue
		}
		if b.Status == "done" && a.Status != "done" {
			return true
		}
		for _, w := range b.CompletedWork {
			if !slices.Contains(a.CompletedWork, w) {
				return true
			}
		}
	}
	return false
}

// isZorkGPTLog says ep was read from a ZorkGPT episode log.
func isZorkGPTLog(ep *replay.Episode) bool {
	return ep.Format == "" || ep.Format == replay.FormatZorkGPT
}
