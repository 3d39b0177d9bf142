package report

// The words of a sweep: row names and the recommendation's reason.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze/sweep"
)

// rowLabel is the one name of row i: in the table and row lists "base"
// or "3", in sentences "baseline" or "#3".
func rowLabel(rows []sweep.Row, i int, sentence bool) string {
	switch {
	case rows[i].Baseline && sentence:
		return "baseline"
	case rows[i].Baseline:
		return "base"
	case sentence:
		return "#" + strconv.Itoa(i)
	}
	return strconv.Itoa(i)
}

// describeRow is "#3 (max_turns_stuck=50, stuck_check_interval=10)" or
// "the baseline (max_turns_stuck=40)".
func describeRow(rows []sweep.Row, i int) string {
	var ps []string
	for _, s := range rows[i].Params {
		ps = append(ps, s.String())
	}
	label := rowLabel(rows, i, true)
	if rows[i].Baseline {
		label = "the baseline"
	}
	if len(ps) == 0 {
		return label
	}
	return label + " (" + strings.Join(ps, ", ") + ")"
}

// RecommendationReason says in one sentence why rec chose its row (or
// none).
func RecommendationReason(rows []sweep.Row, rec sweep.Recommendation) string {
	if rec.Criterion == sweep.CriterionMaxFalseRate {
		limit := rec.MaxFalseRatePct
		if rec.Row < 0 {
			return fmt.Sprintf("No configuration keeps false terminations at or below %s of terminated episodes; the lowest rate, %s, is that of %s.",
				fmtPct(limit), fmtPct(rows[rec.Lowest].Totals.FalseRatePct), describeRow(rows, rec.Lowest))
		}
		t := &rows[rec.Row].Totals
		return fmt.Sprintf("%s saves the most turns, %d (%s of recorded turns), of the %s whose false terminations stay at or below %s of terminated episodes (its own: %d of %d, %s; score forfeited %s).",
			capitalize(describeRow(rows, rec.Row)), t.TurnsSaved, fmtPct(t.TurnsSavedPct), sweepPlural(rec.Qualifying, "configuration", "configurations"),
			fmtPct(limit), t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct), csvNum(t.ScoreForfeited))
	}

	switch rec.Criterion {
	case sweep.CriterionNone:
		return "No configuration changes what the sweep measures (terminations, turns saved, detector loops and false alarms) on these logs: the baseline stays."
	case sweep.CriterionDetectors:
		return detectorReason(rows, rec)
	}
	if rec.Row < 0 {
		return "No configuration to recommend."
	}
	t := &rows[rec.Row].Totals
	var b strings.Builder
	if rec.UnderTarget {
		fmt.Fprintf(&b, "%s saves the most turns, %d (%s of recorded turns), of the Pareto-efficient configurations that keep false terminations under ZorkGPT's %s target (%d of %d, %s; score forfeited %s)",
			capitalize(describeRow(rows, rec.Row)), t.TurnsSaved, fmtPct(t.TurnsSavedPct), fmtPct(rec.MaxFalseRatePct),
			t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct), csvNum(t.ScoreForfeited))
	} else {
		fmt.Fprintf(&b, "No Pareto-efficient configuration keeps false terminations under ZorkGPT's %s target; %s has the lowest rate (%d of %d, %s) and saves %d turns (%s; score forfeited %s)",
			fmtPct(rec.MaxFalseRatePct), describeRow(rows, rec.Row), t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct),
			t.TurnsSaved, fmtPct(t.TurnsSavedPct), csvNum(t.ScoreForfeited))
	}
	if rec.Next < 0 {
		b.WriteString("; no efficient configuration saves more turns.")
	} else {
		n := &rows[rec.Next].Totals
		fmt.Fprintf(&b, "; the next efficient one, %s, would save %d more turns but has %s (%s) and score forfeited %s.",
			describeRow(rows, rec.Next), n.TurnsSaved-t.TurnsSaved, sweepPlural(n.FalseTerminations, "false termination", "false terminations"),
			fmtPct(n.FalseRatePct), csvNum(n.ScoreForfeited))
	}
	return b.String()
}

// ParetoNote explains the table's "*" by the figures the rows were
// ranked by.
func ParetoNote(rec sweep.Recommendation) string {
	switch rec.Criterion {
	case sweep.CriterionDetectors, sweep.CriterionNone:
		return "* Pareto-efficient: no other row catches as many loops or more (loops not followed by progress) with no more false alarms (and, with labels, no lower F1 or lead time)."
	}
	return "* Pareto-efficient: no other row saves as many turns or more with no more false terminations and no more score forfeited."
}

// detectorReason words a detector grid's recommendation: no row
// terminates differently, so the detectors' figures decide.
func detectorReason(rows []sweep.Row, rec sweep.Recommendation) string {
	if rec.Row < 0 {
		return "No configuration to recommend."
	}
	f := sweep.Figures(&rows[rec.Row].Totals)
	lead := ""
	if f.Labelled {
		lead = fmt.Sprintf("the best F1 against the labels, %.2f", f.F1)
		if f.HasLead {
			lead += fmt.Sprintf(" (median lead time %s turns)", strconv.FormatFloat(f.Lead, 'f', -1, 64))
		}
		lead += ", then "
	}
	return fmt.Sprintf("No configuration terminates differently, so the rows are ranked by the detectors: %s has %sthe most loops caught of the efficient configurations, %d (%s, %s: progress after the firing).",
		describeRow(rows, rec.Row), lead, f.Caught(), sweepPlural(f.Loops, "loop", "loops"), sweepPlural(f.FalseAlarms, "false alarm", "false alarms"))
}

func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// fmtPct writes a percentage with at most one decimal: "5%", "12.3%".
func fmtPct(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
}
