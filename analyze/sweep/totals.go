package sweep

// Totals per configuration.

import (
	"sort"

	"github.com/loopbreak/loopbreak/analyze"
)

// totals sums Results per configuration as analyze.Totals sums outcomes, with
// a histogram of turns saved instead of the list (memory bounded by the
// longest episode, not the corpus).
type totals struct {
	rows []sweepAcc
}

type sweepAcc struct {
	t    analyze.Totals
	hist map[int]int
}

// newTotals starts totals for n configurations.
func newTotals(n int) *totals {
	s := &totals{rows: make([]sweepAcc, n)}
	for i := range s.rows {
		s.rows[i].hist = map[int]int{}
	}
	return s
}

// Add accumulates one episode (every configuration).
func (s *totals) Add(e *episode) {
	for i := range s.rows {
		a := &s.rows[i]
		r := &e.Results[i]
		t := &a.t
		t.Episodes++
		t.RecordedTurns += e.RecordedTurns
		t.LinesSkipped += e.Diag.Skipped
		t.Warnings += r.Warnings
		t.WouldReject += r.WouldReject
		if r.Censored {
			t.Censored++
		}
		if !r.Terminated {
			continue
		}
		t.Terminated++
		t.TurnsSaved += r.TurnsSaved
		t.LLMCallsSaved += r.LLMCallsSaved
		t.ScoreForfeited += r.ScoreForfeited
		a.hist[r.TurnsSaved]++
		if r.FalseTermination {
			t.FalseTerminations++
		}
	}
}

// Totals returns the finished totals of configuration i.
func (s *totals) Totals(i int) analyze.Totals {
	a := &s.rows[i]
	t := a.t
	t.TurnsSavedPct = pct(t.TurnsSaved, t.RecordedTurns)
	t.FalseRatePct = pct(t.FalseTerminations, t.Terminated)
	t.MedianTurnsSaved = histMedian(a.hist, t.Terminated)
	return t
}

// histMedian is median() over a histogram of n values.
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

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) * 100 / float64(d)
}
