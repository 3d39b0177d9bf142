package analyze

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay"
)

// progressedAfterNaive is the definition read literally: scan every later
// attempt at the task.
func progressedAfterNaive(as []replay.Attempt, n int) bool {
	a := as[n-1]
	for _, b := range as[n:] {
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

func TestAlarmJudgeAttempts(t *testing.T) {
	at := func(task, status string, work ...string) replay.Attempt {
		return replay.Attempt{TaskID: task, Status: status, CompletedWork: work}
	}
	tests := []struct {
		name     string
		attempts []replay.Attempt
		want     []bool
	}{
		{"new work later is progress", []replay.Attempt{at("T", "in_progress", "a"), at("T", "in_progress", "a", "b")}, []bool{true, false}},
		{"the same or less work is not", []replay.Attempt{at("T", "in_progress", "a", "b"), at("T", "in_progress", "b"), at("T", "blocked", "a", "b")}, []bool{false, true, false}},
		{"done later is progress unless done", []replay.Attempt{at("T", "blocked"), at("T", "done"), at("T", "done")}, []bool{true, false, false}},
		{"other tasks do not count", []replay.Attempt{at("T", "blocked"), at("U", "done", "x")}, []bool{false, false}},
		{"work duplicated in a list", []replay.Attempt{at("T", "in_progress", "a", "a"), at("T", "in_progress", "a", "b")}, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := &replay.Episode{Format: replay.FormatAttempts, Attempts: tt.attempts}
			judge, basis := AlarmJudge(ep)
			if basis != BasisTaskProgress {
				t.Fatalf("basis %q", basis)
			}
			var got []bool
			for n := 1; n <= len(tt.attempts); n++ {
				got = append(got, judge(n))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || judge(0) || judge(len(tt.attempts)+1) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAlarmJudgeAttemptsMatchesNaive checks the single pass against the
// definition on random logs.
func TestAlarmJudgeAttemptsMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	statuses := []string{"done", "blocked", "in_progress"}
	for round := range 200 {
		as := make([]replay.Attempt, 1+rng.IntN(40))
		for i := range as {
			var work []string
			for range rng.IntN(4) {
				work = append(work, string(rune('a'+rng.IntN(4))))
			}
			as[i] = replay.Attempt{TaskID: string(rune('A' + rng.IntN(3))), Status: statuses[rng.IntN(3)], CompletedWork: work}
		}
		judge, _ := AlarmJudge(&replay.Episode{Format: replay.FormatAttempts, Attempts: as})
		for n := 1; n <= len(as); n++ {
			if got, want := judge(n), progressedAfterNaive(as, n); got != want {
				t.Fatalf("round %d attempt %d: %v, want %v (%+v)", round, n, got, want, as)
			}
		}
	}
}

// BenchmarkAlarmJudgeOneTask judges every attempt of one task: linear in
// attempts (it was a scan of every later attempt per firing).
func BenchmarkAlarmJudgeOneTask(b *testing.B) {
	for _, n := range []int{12500, 100000} {
		as := make([]replay.Attempt, n)
		t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range as {
			as[i] = replay.Attempt{TaskID: "T", Status: "blocked", Blockers: []string{"x"}, CompletedWork: []string{"w"},
				Timestamp: t0.Add(time.Duration(i) * time.Second)}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				judge, _ := AlarmJudge(&replay.Episode{Format: replay.FormatAttempts, Attempts: as})
				for i := 1; i <= n; i++ {
					judge(i)
				}
			}
		})
	}
}
