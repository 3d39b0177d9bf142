package sweep

// Reading the rows: Pareto efficiency and the recommendation.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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

// RowLabel names a row for people: "baseline" or "#3".
func RowLabel(rows []Row, i int) string {
	if rows[i].Baseline {
		return "baseline"
	}
	return "#" + strconv.Itoa(i)
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
// takes part).
func MarkPareto(rows []Row) {
	for i := range rows {
		rows[i].Pareto = true
		for j := range rows {
			if j != i && dominates(&rows[j].Totals, &rows[i].Totals) {
				rows[i].Pareto = false
				break
			}
		}
	}
}

// TargetFalseRatePct is the ZorkGPT authors' target for false terminations
// ("under 5%"), used to choose from the frontier without --max-false-rate.
const TargetFalseRatePct = 5.0

// Recommendation criteria.
const (
	CriterionMaxFalseRate = "max_false_rate" // most turns saved within a false-termination rate
	CriterionFrontier     = "frontier"       // from the Pareto frontier, against ZorkGPT's target
)

// Recommendation is the configuration a sweep recommends and why.
type Recommendation struct {
	Row             int // index into the rows; -1 when none qualifies
	Criterion       string
	MaxFalseRatePct float64 // the limit applied (the target for CriterionFrontier)
	Reason          string  // one sentence
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
	best := -1
	if maxFalseRatePct != nil {
		limit := *maxFalseRatePct
		n := 0
		for i := range rows {
			if !within(&rows[i].Totals, limit, false) {
				continue
			}
			n++
			if best < 0 || better(&rows[i].Totals, &rows[best].Totals) {
				best = i
			}
		}
		rec := Recommendation{Row: best, Criterion: CriterionMaxFalseRate, MaxFalseRatePct: limit}
		if best < 0 {
			low := 0
			for i := range rows {
				if rows[i].Totals.FalseRatePct < rows[low].Totals.FalseRatePct {
					low = i
				}
			}
			rec.Reason = fmt.Sprintf("No configuration keeps false terminations at or below %s of terminated episodes; the lowest rate, %s, is that of %s.",
				fmtPct(limit), fmtPct(rows[low].Totals.FalseRatePct), describeRow(rows, low))
			return rec
		}
		rows[best].Recommended = true
		t := &rows[best].Totals
		rec.Reason = fmt.Sprintf("%s saves the most turns, %d (%s of recorded turns), of the %s whose false terminations stay at or below %s of terminated episodes (its own: %d of %d, %s; score forfeited %s).",
			capitalize(describeRow(rows, best)), t.TurnsSaved, fmtPct(t.TurnsSavedPct), plural(n, "configuration", "configurations"),
			fmtPct(limit), t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct), fmtNum(t.ScoreForfeited))
		return rec
	}

	rec := Recommendation{Criterion: CriterionFrontier, MaxFalseRatePct: TargetFalseRatePct}
	under := false
	for i := range rows {
		if !rows[i].Pareto || !within(&rows[i].Totals, TargetFalseRatePct, true) {
			continue
		}
		if best < 0 || better(&rows[i].Totals, &rows[best].Totals) {
			best, under = i, true
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
		rec.Reason = "No configuration to recommend."
		return rec
	}
	rows[best].Recommended = true
	t := &rows[best].Totals
	var b strings.Builder
	if under {
		fmt.Fprintf(&b, "%s saves the most turns, %d (%s of recorded turns), of the Pareto-efficient configurations that keep false terminations under ZorkGPT's %s target (%d of %d, %s; score forfeited %s)",
			capitalize(describeRow(rows, best)), t.TurnsSaved, fmtPct(t.TurnsSavedPct), fmtPct(TargetFalseRatePct),
			t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct), fmtNum(t.ScoreForfeited))
	} else {
		fmt.Fprintf(&b, "No Pareto-efficient configuration keeps false terminations under ZorkGPT's %s target; %s has the lowest rate (%d of %d, %s) and saves %d turns (%s; score forfeited %s)",
			fmtPct(TargetFalseRatePct), describeRow(rows, best), t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct),
			t.TurnsSaved, fmtPct(t.TurnsSavedPct), fmtNum(t.ScoreForfeited))
	}
	// The trade-off: the next efficient row saving more turns.
	next := -1
	for i := range rows {
		if !rows[i].Pareto || rows[i].Totals.TurnsSaved <= t.TurnsSaved {
			continue
		}
		if next < 0 || rows[i].Totals.TurnsSaved < rows[next].Totals.TurnsSaved ||
			(rows[i].Totals.TurnsSaved == rows[next].Totals.TurnsSaved && better(&rows[i].Totals, &rows[next].Totals)) {
			next = i
		}
	}
	if next < 0 {
		b.WriteString("; no efficient configuration saves more turns.")
	} else {
		n := &rows[next].Totals
		fmt.Fprintf(&b, "; the next efficient one, %s, would save %d more turns but has %s (%s) and score forfeited %s.",
			describeRow(rows, next), n.TurnsSaved-t.TurnsSaved, plural(n.FalseTerminations, "false termination", "false terminations"),
			fmtPct(n.FalseRatePct), fmtNum(n.ScoreForfeited))
	}
	rec.Reason = b.String()
	return rec
}

// describeRow is "#3 (max_turns_stuck=50, stuck_check_interval=10)" or
// "the baseline (max_turns_stuck=40)".
func describeRow(rows []Row, i int) string {
	var ps []string
	for _, s := range rows[i].Params {
		ps = append(ps, s.String())
	}
	label := RowLabel(rows, i)
	if rows[i].Baseline {
		label = "the baseline"
	}
	if len(ps) == 0 {
		return label
	}
	return label + " (" + strings.Join(ps, ", ") + ")"
}

func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// fmtPct writes a percentage with at most one decimal: "5%", "12.3%".
func fmtPct(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
