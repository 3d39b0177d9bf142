package sweep

import (
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
)

// A grid that terminates alike on every row is ranked by the detectors:
// loops caught, then false alarms; with labels F1, then lead time first.
func TestRecommendDetectors(t *testing.T) {
	labelled := func(firings, inside, caught, spans int, leads map[int]int) *analyze.LabelTotals {
		return &analyze.LabelTotals{Episodes: 1, Spans: spans, Scores: analyze.Scores{"fuzzy_repeat/loop": {Firings: firings, Inside: inside, Spans: spans, Caught: caught, Leads: leads}}}
	}
	for _, c := range []struct {
		name      string
		rows      []analyze.Totals
		criterion string
		want      int
		pareto    []bool
	}{
		{"most caught", []analyze.Totals{{Loops: 10, FalseAlarms: 5}, {Loops: 12, FalseAlarms: 5}, {Loops: 8, FalseAlarms: 2}}, CriterionDetectors, 1, []bool{false, true, true}},
		{"caught tie: fewer false alarms", []analyze.Totals{{Loops: 13, FalseAlarms: 6}, {Loops: 12, FalseAlarms: 5}}, CriterionDetectors, 1, []bool{false, true}},
		{"nothing differs", []analyze.Totals{{Loops: 3}, {Loops: 3}}, CriterionNone, 0, []bool{false, false}},
		{"labels: F1 first", []analyze.Totals{
			{Loops: 20, Labels: labelled(20, 5, 1, 2, map[int]int{0: 1})},
			{Loops: 4, Labels: labelled(4, 4, 2, 2, map[int]int{1: 1, 3: 1})},
		}, CriterionDetectors, 1, []bool{true, true}},
		{"labels: F1 tie, longer lead", []analyze.Totals{
			{Loops: 4, Labels: labelled(4, 4, 2, 2, map[int]int{0: 2})},
			{Loops: 4, Labels: labelled(4, 4, 2, 2, map[int]int{2: 2})},
		}, CriterionDetectors, 1, []bool{false, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := make([]Row, len(c.rows))
			for i := range c.rows {
				rows[i].Totals = c.rows[i]
			}
			rows[0].Baseline = true
			MarkPareto(rows)
			rec := Recommend(rows, nil)
			if rec.Criterion != c.criterion || rec.Row != c.want || !rows[c.want].Recommended {
				t.Errorf("criterion %s row %d, want %s row %d", rec.Criterion, rec.Row, c.criterion, c.want)
			}
			if c.criterion == CriterionDetectors {
				for i := range rows {
					if rows[i].Pareto != c.pareto[i] {
						t.Errorf("row %d Pareto %v, want %v", i, rows[i].Pareto, c.pareto[i])
					}
				}
			}
		})
	}
	// A grid that changes terminations keeps ZorkGPT's ranking.
	rows := []Row{{Baseline: true, Totals: analyze.Totals{TurnsSaved: 1, Terminated: 1, Loops: 50}}, {Totals: analyze.Totals{TurnsSaved: 9, Terminated: 1}}}
	MarkPareto(rows)
	if rec := Recommend(rows, nil); rec.Criterion != CriterionFrontier || rec.Row != 1 {
		t.Errorf("termination grid: %s row %d", rec.Criterion, rec.Row)
	}
}
