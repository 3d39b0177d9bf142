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
		peaks := scorePeaks(ep.Turns)
		first := ep.Turns[0].N
		return func(n int) bool {
			i := n - first
			if i < 0 || i+1 >= len(ep.Turns) {
				return false
			}
			// The highest score after turn i is the first peak's after it.
			k, _ := slices.BinarySearch(peaks, int32(i+1))
			return ep.Turns[peaks[k]].Score > ep.Turns[i].Score
		}, BasisScore
	}
	return nil, ""
}

// scorePeaks returns, in order, the indices of the turns whose score is
// above every later turn's: the highest score after any turn is the first
// peak's after it. A score that mostly rises has a handful of peaks, where
// a table of the highest score after each turn would cost 8 bytes a turn.
func scorePeaks(turns []replay.Turn) []int32 {
	var peaks []int32
	for i := len(turns) - 1; i >= 0; i-- {
		if len(peaks) == 0 || turns[i].Score > turns[peaks[len(peaks)-1]].Score {
			peaks = append(peaks, int32(i))
		}
	}
	slices.Reverse(peaks)
	return peaks
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
