package sweep

// Reading the rows: Pareto efficiency and the recommendation.

import (
	"github.com/loopbreak/loopbreak/analyze"
)

// Row is one configuration's totals in a sweep report. Row 0 is the
// baseline (the base configuration); Params are the swept keys.
type Row struct {
	Baseline    bool
	Params      []Setting
	Totals      analyze.Totals
	Pareto      bool
	Recommended bool
}

// dominates says whether a is at least as good as b on turns saved, false
// terminations and score forfeited, and strictly better on one.
func dominates(a, b *analyze.Totals) bool {
	if a.TurnsSaved < b.TurnsSaved || a.FalseTerminations > b.FalseTerminations || a.ScoreForfeited > b.ScoreForfeited {
		return false
	}
	return a.TurnsSaved > b.TurnsSaved || a.FalseTerminations < b.FalseTerminations || a.ScoreForfeited < b.ScoreForfeited
}

// MarkPareto sets Pareto on the rows no other row dominates (the baseline
// takes part). Dominance reads three figures, and a row can only be
// dominated by one whose figures differ, so the distinct figures are
// compared, not the rows: a grid's rows of one termination class share
// them (10,000 rows, a hundred distinct).
func MarkPareto(rows []Row) {
	type figures struct {
		saved, falseTerms int
		forfeited         float64
	}
	index := map[figures]int{}
	var distinct []analyze.Totals
	of := make([]int, len(rows))
	for i := range rows {
		t := &rows[i].Totals
		f := figures{t.TurnsSaved, t.FalseTerminations, t.ScoreForfeited}
		k, ok := index[f]
		if !ok {
			k = len(distinct)
			index[f] = k
			distinct = append(distinct, analyze.Totals{TurnsSaved: f.saved, FalseTerminations: f.falseTerms, ScoreForfeited: f.forfeited})
		}
		of[i] = k
	}
	efficient := make([]bool, len(distinct))
	for a := range distinct {
		efficient[a] = true
		for b := range distinct {
			if b != a && dominates(&distinct[b], &distinct[a]) {
				efficient[a] = false
				break
			}
		}
	}
	for i := range rows {
		rows[i].Pareto = efficient[of[i]]
	}
}

// TargetFalseRatePct is the ZorkGPT authors' target for false terminations
// ("under 5%"), used to choose from the frontier without --max-false-rate.
const TargetFalseRatePct = 5.0

// Recommendation criteria.
const (
	CriterionMaxFalseRate = "max_false_rate" // most turns saved within a false-termination rate
	CriterionFrontier     = "frontier"       // from the Pareto frontier, against ZorkGPT's target
	// CriterionDetectors ranks a grid that changes no termination (a
	// detector's keys, or a log without a score): by loops caught (loops
	// not followed by progress) and false alarms, or with labels by F1
	// and lead time (detectors.go).
	CriterionDetectors = "detectors"
	// CriterionNone: no figure differs between the rows.
	CriterionNone = "none"
)

// Recommendation is the configuration a sweep recommends and the facts
// that explain the choice (report words them).
type Recommendation struct {
	Row             int // index into the rows; -1 when none qualifies
	Criterion       string
	MaxFalseRatePct float64 // the limit applied (the target for CriterionFrontier)

	// CriterionMaxFalseRate: how many rows keep within the limit, and,
	// when none does, the row with the lowest false-termination rate
	// (else -1).
	Qualifying int
	Lowest     int
	// CriterionFrontier: whether Row keeps under the target (else it is
	// the frontier's lowest rate), and the next efficient row saving more
	// turns than Row (-1: none).
	UnderTarget bool
	Next        int
}

// sweepEps absorbs float noise when comparing rates built from counts.
const sweepEps = 1e-9

// within says whether a row's false-termination rate is at most pct
// percent (below it when strict).
func within(t *analyze.Totals, pct float64, strict bool) bool {
	if t.FalseTerminations == 0 {
		return true // nothing terminated falsely, whatever was terminated
	}
	if strict {
		return float64(t.FalseTerminations)*100 < pct*float64(t.Terminated)-sweepEps
	}
	return float64(t.FalseTerminations)*100 <= pct*float64(t.Terminated)+sweepEps
}

// better orders candidates: more turns saved, then fewer false
// terminations, then less score forfeited; earlier rows win ties.
func better(a, b *analyze.Totals) bool {
	if a.TurnsSaved != b.TurnsSaved {
		return a.TurnsSaved > b.TurnsSaved
	}
	if a.FalseTerminations != b.FalseTerminations {
		return a.FalseTerminations < b.FalseTerminations
	}
	return a.ScoreForfeited < b.ScoreForfeited
}

// Recommend chooses a row and sets its Recommended flag. Rows must have
// Pareto marked. With maxFalseRatePct (non-nil) it is the row saving the
// most turns whose false-termination rate is at most that; without, the
// Pareto-efficient row saving the most turns under ZorkGPT's 5% target,
// or, when none is under it, the efficient row with the lowest rate.
func Recommend(rows []Row, maxFalseRatePct *float64) Recommendation {
	if maxFalseRatePct != nil {
		return recommendWithin(rows, *maxFalseRatePct)
	}
	if terminationsFlat(rows) {
		return recommendDetectors(rows) // detectors.go
	}
	rec := Recommendation{Row: -1, Criterion: CriterionFrontier, MaxFalseRatePct: TargetFalseRatePct, Lowest: -1, Next: -1}
	best := -1
	for i := range rows {
		if !rows[i].Pareto || !within(&rows[i].Totals, TargetFalseRatePct, true) {
			continue
		}
		if best < 0 || better(&rows[i].Totals, &rows[best].Totals) {
			best, rec.UnderTarget = i, true
		}
	}
	if best < 0 { // nothing under the target: the lowest rate on the frontier
		for i := range rows {
			if !rows[i].Pareto {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			a, b := &rows[i].Totals, &rows[best].Totals
			// compare rates exactly: a.F/a.T against b.F/b.T (both T > 0
			// here: a row with no false termination is under the target)
			l, r := a.FalseTerminations*b.Terminated, b.FalseTerminations*a.Terminated
			if l < r || (l == r && better(a, b)) {
				best = i
			}
		}
	}
	rec.Row = best
	if best < 0 {
		return rec
	}
	rows[best].Recommended = true
	// The trade-off: the next efficient row saving more turns.
	saved := rows[best].Totals.TurnsSaved
	for i := range rows {
		if !rows[i].Pareto || rows[i].Totals.TurnsSaved <= saved {
			continue
		}
		n := rec.Next
		if n < 0 || rows[i].Totals.TurnsSaved < rows[n].Totals.TurnsSaved ||
			(rows[i].Totals.TurnsSaved == rows[n].Totals.TurnsSaved && better(&rows[i].Totals, &rows[n].Totals)) {
			rec.Next = i
		}
	}
	return rec
}

// recommendWithin is the row saving the most turns whose false-termination
// rate is at most limit percent.
func recommendWithin(rows []Row, limit float64) Recommendation {
	rec := Recommendation{Row: -1, Criterion: CriterionMaxFalseRate, MaxFalseRatePct: limit, Lowest: -1, Next: -1}
	for i := range rows {
		if !within(&rows[i].Totals, limit, false) {
			continue
		}
		rec.Qualifying++
		if rec.Row < 0 || better(&rows[i].Totals, &rows[rec.Row].Totals) {
			rec.Row = i
		}
	}
	if rec.Row < 0 {
		rec.Lowest = 0
		for i := range rows {
			if rows[i].Totals.FalseRatePct < rows[rec.Lowest].Totals.FalseRatePct {
				rec.Lowest = i
			}
		}
		return rec
	}
	rows[rec.Row].Recommended = true
	return rec
}
