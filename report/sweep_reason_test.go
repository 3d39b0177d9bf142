package report

import (
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
)

func reasonRow(saved, false_, terminated int, forfeited float64, params ...sweep.Setting) sweep.Row {
	t := analyze.Totals{TurnsSaved: saved, FalseTerminations: false_, Terminated: terminated, ScoreForfeited: forfeited, RecordedTurns: 1000}
	t.TurnsSavedPct = float64(saved) / 10
	if terminated > 0 {
		t.FalseRatePct = float64(false_) * 100 / float64(terminated)
	}
	return sweep.Row{Params: params, Totals: t}
}

func reasonMS(v int) sweep.Setting { return sweep.Setting{Key: "max_turns_stuck", Value: v} }

func TestRecommendationReasonMaxFalseRate(t *testing.T) {
	rows := []sweep.Row{
		reasonRow(200, 1, 40, 5, reasonMS(40)),  // 2.5%
		reasonRow(300, 2, 50, 8, reasonMS(30)),  // 4%
		reasonRow(300, 2, 40, 9, reasonMS(35)),  // 5%: same turns, same false, more forfeited than #1
		reasonRow(500, 6, 60, 30, reasonMS(20)), // 10%
	}
	rows[0].Baseline = true
	sweep.MarkPareto(rows)
	limit := 5.0
	rec := sweep.Recommend(rows, &limit)
	if rec.Row != 1 || rec.Criterion != sweep.CriterionMaxFalseRate || !rows[1].Recommended {
		t.Fatalf("recommend = %+v", rec)
	}
	want := "#1 (max_turns_stuck=30) saves the most turns, 300 (30% of recorded turns), of the 3 configurations whose false terminations stay at or below 5% of terminated episodes (its own: 2 of 50, 4%; score forfeited 8)."
	if RecommendationReason(rows, rec) != want {
		t.Errorf("reason:\n%s\nwant\n%s", RecommendationReason(rows, rec), want)
	}
	// The limit is inclusive: 5% admits #2's 5.0% exactly.
	for i := range rows {
		rows[i].Recommended = false
	}
	limit = 2.5
	if rec := sweep.Recommend(rows, &limit); rec.Row != 0 || !strings.HasPrefix(RecommendationReason(rows, rec), "The baseline (max_turns_stuck=40) saves the most turns") {
		t.Errorf("limit 2.5%%: %+v", rec)
	}
	limit = 100
	if rec := sweep.Recommend(rows, &limit); rec.Row != 3 {
		t.Errorf("limit 100%%: %+v", rec)
	}
	// Nothing within the limit.
	rows = rows[1:]
	for i := range rows {
		rows[i].Recommended = false
	}
	limit = 1
	rec = sweep.Recommend(rows, &limit)
	if rec.Row != -1 {
		t.Fatalf("recommend = %+v, want none", rec)
	}
	if want := "No configuration keeps false terminations at or below 1% of terminated episodes; the lowest rate, 4%, is that of #0 (max_turns_stuck=30)."; RecommendationReason(rows, rec) != want {
		t.Errorf("reason:\n%s\nwant\n%s", RecommendationReason(rows, rec), want)
	}
	for _, r := range rows {
		if r.Recommended {
			t.Error("a row is marked recommended with none qualifying")
		}
	}
}

func TestRecommendationReasonFrontier(t *testing.T) {
	rows := []sweep.Row{
		reasonRow(200, 1, 40, 5, reasonMS(40)),  // 2.5%
		reasonRow(300, 2, 50, 8, reasonMS(30)),  // 4%: the most turns under 5%
		reasonRow(100, 3, 40, 9, reasonMS(50)),  // dominated
		reasonRow(500, 6, 60, 30, reasonMS(20)), // 10%: next on the frontier
		reasonRow(900, 20, 80, 90, reasonMS(10)),
	}
	rows[0].Baseline = true
	sweep.MarkPareto(rows)
	rec := sweep.Recommend(rows, nil)
	if rec.Row != 1 || rec.Criterion != sweep.CriterionFrontier || rec.MaxFalseRatePct != 5 {
		t.Fatalf("recommend = %+v", rec)
	}
	want := "#1 (max_turns_stuck=30) saves the most turns, 300 (30% of recorded turns), of the Pareto-efficient configurations that keep false terminations under ZorkGPT's 5% target (2 of 50, 4%; score forfeited 8); the next efficient one, #3 (max_turns_stuck=20), would save 200 more turns but has 6 false terminations (10%) and score forfeited 30."
	if RecommendationReason(rows, rec) != want {
		t.Errorf("reason:\n%s\nwant\n%s", RecommendationReason(rows, rec), want)
	}

	// Nothing under the target: the lowest rate on the frontier.
	rows = []sweep.Row{
		reasonRow(500, 6, 60, 30, reasonMS(20)), // 10%
		reasonRow(400, 6, 40, 30, reasonMS(25)), // 15%, dominated
		reasonRow(900, 20, 80, 90, reasonMS(10)),
	}
	sweep.MarkPareto(rows)
	rec = sweep.Recommend(rows, nil)
	want = "No Pareto-efficient configuration keeps false terminations under ZorkGPT's 5% target; #0 (max_turns_stuck=20) has the lowest rate (6 of 60, 10%) and saves 500 turns (50%; score forfeited 30); the next efficient one, #2 (max_turns_stuck=10), would save 400 more turns but has 20 false terminations (25%) and score forfeited 90."
	if rec.Row != 0 || RecommendationReason(rows, rec) != want {
		t.Errorf("recommend = %+v\nwant reason %s", rec, want)
	}

	// One false termination is singular.
	rows = []sweep.Row{reasonRow(100, 0, 10, 0, reasonMS(40)), reasonRow(150, 1, 11, 4, reasonMS(30))}
	rows[0].Baseline = true
	sweep.MarkPareto(rows)
	rec = sweep.Recommend(rows, nil)
	if want := "; the next efficient one, #1 (max_turns_stuck=30), would save 50 more turns but has 1 false termination (9.1%) and score forfeited 4."; rec.Row != 0 || !strings.HasSuffix(RecommendationReason(rows, rec), want) {
		t.Errorf("recommend = %+v\nwant reason ending %s", rec, want)
	}

	// The top of the frontier.
	rows = []sweep.Row{reasonRow(0, 0, 0, 0, reasonMS(40)), reasonRow(100, 0, 10, 0, reasonMS(30))}
	rows[0].Baseline = true
	sweep.MarkPareto(rows)
	rec = sweep.Recommend(rows, nil)
	if rec.Row != 1 || !strings.HasSuffix(RecommendationReason(rows, rec), "; no efficient configuration saves more turns.") {
		t.Errorf("recommend = %+v", rec)
	}
}
