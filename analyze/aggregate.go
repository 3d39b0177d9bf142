package analyze

import (
	"sort"

	"github.com/loopbreak/loopbreak/rules"
)

// Totals sums outcomes over a corpus.
type Totals struct {
	Episodes          int     `json:"episodes"`
	Terminated        int     `json:"terminated"`
	Censored          int     `json:"censored"`
	RecordedTurns     int     `json:"recorded_turns"`
	TurnsSaved        int     `json:"turns_saved"`
	TurnsSavedPct     float64 `json:"turns_saved_pct"`
	LLMCallsSaved     int     `json:"llm_calls_saved"`
	FalseTerminations int     `json:"false_terminations"`
	FalseRatePct      float64 `json:"false_termination_pct"`
	ScoreForfeited    float64 `json:"score_forfeited"`
	MedianTurnsSaved  float64 `json:"median_turns_saved"`
	Warnings          int     `json:"warnings"`
	WouldReject       int     `json:"would_reject"`
	LinesSkipped      int     `json:"lines_skipped"`

	saved []int
}

// Add accumulates one outcome; skipped is the episode's unreadable lines.
func (t *Totals) Add(o *Outcome, skipped int) {
	t.Episodes++
	t.RecordedTurns += o.RecordedTurns
	t.LinesSkipped += skipped
	t.Warnings += o.Counts[rules.Warning.Key()]
	t.WouldReject += o.WouldReject
	if o.Censored {
		t.Censored++
	}
	if o.Termination == nil {
		return
	}
	t.Terminated++
	t.TurnsSaved += o.TurnsSaved
	t.LLMCallsSaved += o.LLMCallsSaved
	t.ScoreForfeited += o.ScoreForfeited
	t.saved = append(t.saved, o.TurnsSaved)
	if o.FalseTermination {
		t.FalseTerminations++
	}
}

// Finish computes the derived figures (percentages, median).
func (t *Totals) Finish() {
	t.TurnsSavedPct = pct(t.TurnsSaved, t.RecordedTurns)
	t.FalseRatePct = pct(t.FalseTerminations, t.Terminated)
	t.MedianTurnsSaved = median(t.saved)
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) * 100 / float64(d)
}

func median(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int(nil), xs...)
	sort.Ints(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return float64(s[m])
	}
	return float64(s[m-1]+s[m]) / 2
}
