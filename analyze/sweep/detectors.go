package sweep

// Ranking a grid by what it varies: when no row terminates differently
// (a detector's keys swept, or logs without a score, where nothing
// terminates), turns saved say nothing; the detectors' own figures do.

import (
	"github.com/loopbreak/loopbreak/analyze"
)

// terminationsFlat says whether every row terminates the same: equal turns
// saved, false terminations and score forfeited.
func terminationsFlat(rows []Row) bool {
	for i := 1; i < len(rows); i++ {
		a, b := &rows[0].Totals, &rows[i].Totals
		if a.TurnsSaved != b.TurnsSaved || a.FalseTerminations != b.FalseTerminations || a.ScoreForfeited != b.ScoreForfeited || a.Terminated != b.Terminated {
			return false
		}
	}
	return true
}

// DetectorFigures are what a detector grid is ranked by.
type DetectorFigures struct {
	Loops, FalseAlarms int
	// With labels: F1 over every rule's firings against the labelled
	// spans, and the median lead time (turns from a span's start to its
	// first firing inside it); Labelled false without labels.
	Labelled bool
	F1       float64
	Lead     float64
	HasLead  bool
}

// Caught are the loops not followed by progress.
func (f DetectorFigures) Caught() int { return f.Loops - f.FalseAlarms }

// Figures sums a row's detector figures.
func Figures(t *analyze.Totals) DetectorFigures {
	f := DetectorFigures{Loops: t.Loops, FalseAlarms: t.FalseAlarms}
	if t.Labels == nil || len(t.Labels.Scores) == 0 {
		return f
	}
	var all analyze.Score
	for _, s := range t.Labels.Scores {
		all.Firings += s.Firings
		all.Inside += s.Inside
		all.Caught += s.Caught
		for lead, n := range s.Leads {
			if all.Leads == nil {
				all.Leads = map[int]int{}
			}
			all.Leads[lead] += n
		}
	}
	// Spans are the corpus's, whatever rule catches them.
	all.Spans = t.Labels.Spans
	all.Caught = min(all.Caught, all.Spans)
	f.Labelled = true
	f.F1, _ = all.F1()
	f.Lead, f.HasLead = all.LeadMedian()
	return f
}

// detectorBetter orders rows of a detector grid: with labels, higher F1,
// then longer lead time; then more loops caught, then fewer false
// alarms. Earlier rows win ties.
func detectorBetter(a, b DetectorFigures) bool {
	if a.Labelled && b.Labelled {
		if a.F1 != b.F1 {
			return a.F1 > b.F1
		}
		if a.Lead != b.Lead {
			return a.Lead > b.Lead
		}
	}
	if a.Caught() != b.Caught() {
		return a.Caught() > b.Caught()
	}
	return a.FalseAlarms < b.FalseAlarms
}

// detectorDominates: a at least as good as b on every figure the grid is
// ranked by, and better on one.
func detectorDominates(a, b DetectorFigures) bool {
	ge := a.Caught() >= b.Caught() && a.FalseAlarms <= b.FalseAlarms
	gt := a.Caught() > b.Caught() || a.FalseAlarms < b.FalseAlarms
	if a.Labelled && b.Labelled {
		ge = ge && a.F1 >= b.F1 && a.Lead >= b.Lead
		gt = gt || a.F1 > b.F1 || a.Lead > b.Lead
	}
	return ge && gt
}

// recommendDetectors marks the frontier by the detectors' figures and
// recommends its best row; with no figure differing, the baseline under
// CriterionNone.
func recommendDetectors(rows []Row) Recommendation {
	rec := Recommendation{Row: -1, Criterion: CriterionDetectors, Lowest: -1, Next: -1}
	if len(rows) == 0 {
		return rec
	}
	figs := make([]DetectorFigures, len(rows))
	flat := true
	for i := range rows {
		figs[i] = Figures(&rows[i].Totals)
		flat = flat && figs[i] == figs[0]
	}
	if flat {
		rec.Criterion, rec.Row = CriterionNone, 0
		rows[0].Recommended = true
		return rec
	}
	best := -1
	for i := range rows {
		rows[i].Pareto = true
		for j := range rows {
			if j != i && detectorDominates(figs[j], figs[i]) {
				rows[i].Pareto = false
				break
			}
		}
		if rows[i].Pareto && (best < 0 || detectorBetter(figs[i], figs[best])) {
			best = i
		}
	}
	rec.Row = best
	rows[best].Recommended = true
	return rec
}
