package analyze

import (
	"math"
	"sort"
)

// Totals sums results over a corpus: one configuration's in analyze and
// check, each configuration's in a sweep. Turns saved are kept as a
// histogram, so memory is bounded by the longest episode, not the corpus.
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
	LowConfidence     int     `json:"low_confidence"`
	Loops             int     `json:"loops"`        // loop firings of the generic and peer rules
	FalseAlarms       int     `json:"false_alarms"` // of which the agent made progress after
	LinesSkipped      int     `json:"lines_skipped"`
	// LiveDisagreements counts episodes whose live run disagrees with the
	// replay (RULES.md §10). Analyze and check set it; sweep rows do not
	// compare live runs and leave it out.
	LiveDisagreements *int `json:"live_disagreements,omitempty"`
	// ScoreOverflow: a score sum left the float64 range (scores near
	// 1.7e308 are legal JSON); ScoreForfeited then holds the largest
	// finite value of its sign, so every output stays valid JSON.
	ScoreOverflow bool `json:"score_overflow,omitempty"`
	// Labels scores the rules against labelled episodes; nil when none
	// is labelled (labeltotals.go).
	Labels *LabelTotals `json:"labels,omitempty"`

	saved map[int]int // turns saved → terminated episodes
}

// Add accumulates one episode's result; recordedTurns and linesSkipped
// are the episode's.
func (t *Totals) Add(r *Result, recordedTurns, linesSkipped int) {
	t.Episodes++
	t.RecordedTurns += recordedTurns
	t.LinesSkipped += linesSkipped
	t.Warnings += r.Warnings
	t.WouldReject += r.WouldReject
	t.LowConfidence += r.LowConfidence
	t.Loops += r.Loops
	t.FalseAlarms += r.FalseAlarms
	if r.Censored {
		t.Censored++
	}
	if !r.Terminated {
		return
	}
	t.Terminated++
	t.TurnsSaved += r.TurnsSaved
	t.LLMCallsSaved += r.LLMCallsSaved
	var ok1, ok2 bool
	var f float64
	f, ok1 = Finite(r.ScoreForfeited)
	t.ScoreForfeited, ok2 = Finite(t.ScoreForfeited + f)
	t.ScoreOverflow = t.ScoreOverflow || !ok1 || !ok2
	if t.saved == nil {
		t.saved = map[int]int{}
	}
	t.saved[r.TurnsSaved]++
	if r.FalseTermination {
		t.FalseTerminations++
	}
}

// AddLive counts one episode's live comparison (nil: no live events).
func (t *Totals) AddLive(l *Live) {
	if t.LiveDisagreements == nil {
		t.LiveDisagreements = new(int)
	}
	if l != nil && !l.Agrees() {
		*t.LiveDisagreements++
	}
}

// Finite returns x, or for a non-finite x the nearest finite float64
// (±MaxFloat64; 0 for NaN) and false: JSON has no Inf or NaN, and a
// value that cannot be written would cut an output short.
func Finite(x float64) (float64, bool) {
	switch {
	case math.IsNaN(x):
		return 0, false
	case math.IsInf(x, 1):
		return math.MaxFloat64, false
	case math.IsInf(x, -1):
		return -math.MaxFloat64, false
	}
	return x, true
}

// Finish computes the derived figures (percentages, median).
func (t *Totals) Finish() {
	t.TurnsSavedPct = pct(t.TurnsSaved, t.RecordedTurns)
	t.FalseRatePct = pct(t.FalseTerminations, t.Terminated)
	t.MedianTurnsSaved = histMedian(t.saved, t.Terminated)
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) * 100 / float64(d)
}

// histMedian is the median of n values given as a histogram.
func histMedian(h map[int]int, n int) float64 {
	if n == 0 {
		return 0
	}
	keys := make([]int, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	kth := func(k int) int { // 0-based
		for _, v := range keys {
			if k < h[v] {
				return v
			}
			k -= h[v]
		}
		return keys[len(keys)-1]
	}
	m := n / 2
	if n%2 == 1 {
		return float64(kth(m))
	}
	return float64(kth(m-1)+kth(m)) / 2
}
