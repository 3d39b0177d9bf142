package report

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestTaskTallyFinish counts each firing task's attempts, and those after
// its first firing, in one pass over interleaved tasks: as counting each
// task's attempts on its own does.
func TestTaskTallyFinish(t *testing.T) {
	ep := &replay.Episode{Format: replay.FormatAttempts}
	tasks := []string{"a", "b", "a", "c", "a", "c", "b", "a", "c", "c"}
	for _, id := range tasks {
		ep.AppendAttempts(replay.Attempt{TaskID: id, Status: "in_progress"})
	}
	var tt taskTally
	// c fires at attempt 6, a at 3 and again at 8; b never does.
	for _, f := range []rules.Firing{
		{Rule: rules.TaskAttempts, Kind: rules.TaskLoop, TaskID: "c", Turn: 6},
		{Rule: rules.TaskAttempts, Kind: rules.TaskLoop, TaskID: "a", Turn: 3},
		{Rule: rules.TaskAttempts, Kind: rules.TaskLoop, TaskID: "a", Turn: 8},
	} {
		tt.add(&f)
	}
	got := tt.finish(ep)
	want := []TaskRow{{TaskID: "c", FirstFired: 6, Firings: 1}, {TaskID: "a", FirstFired: 3, Firings: 2}}
	for i := range want {
		w := &want[i]
		for n, id := range tasks {
			if id == w.TaskID {
				w.Attempts++
				if n+1 > w.FirstFired {
					w.AttemptsSaved++
				}
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("rows %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Asked twice, the same rows: finish counts into a copy.
	if again := tt.finish(ep); again[1] != got[1] {
		t.Errorf("second finish %+v, want %+v", again[1], got[1])
	}
}

// recordedWordsRef is recordedWords' count as first written: each step's
// turn tested by index, the kinds counted in three.
func recordedWordsRef(ep *replay.Episode) string {
	var n [3]int
	steps := 0
	for i, s := range ep.Steps {
		if ep.Turns[i].Filled {
			continue
		}
		steps++
		n[s.Kind]++
	}
	return recordedText(ep, steps, n[:])
}

// TestRecordedWordsAsRef holds recordedWords' count to the plain one over
// steps of every kind, filled in and not, with and without a score.
func TestRecordedWordsAsRef(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 29))
	for range 500 {
		ep := &replay.Episode{Format: replay.FormatSteps, HasScore: r.IntN(2) == 0}
		for i := range r.IntN(40) {
			ep.Turns = append(ep.Turns, replay.Turn{N: i + 1, Score: float64(r.IntN(9)), Filled: r.IntN(3) == 0})
			ep.Steps = append(ep.Steps, replay.StepInfo{Kind: replay.StepKind(r.IntN(3))})
		}
		if got, want := recordedWords(ep), recordedWordsRef(ep); got != want {
			t.Fatalf("%q, want %q", got, want)
		}
	}
}

// refTaskRows is taskTally's rows as first written: each task found in a
// map by its id, at every firing and every attempt.
func refTaskRows(firings []rules.Firing, ep *replay.Episode) []TaskRow {
	var rows []TaskRow
	index := map[string]int{}
	for _, f := range firings {
		if f.Rule != rules.TaskAttempts {
			continue
		}
		k, ok := index[f.TaskID]
		if !ok {
			k = len(rows)
			index[f.TaskID] = k
			rows = append(rows, TaskRow{TaskID: f.TaskID, LoopType: f.LoopType, Recommendation: f.Recommendation, FirstFired: f.Turn})
		}
		if f.Kind == rules.Reset {
			continue
		}
		rows[k].Firings++
		if f.Recommendation != rows[k].Recommendation {
			rows[k].LastRecommendation = f.Recommendation
		}
	}
	for n := range ep.NumAttempts() {
		if k, ok := index[ep.AttemptTask(n)]; ok {
			rows[k].Attempts++
			if n+1 > rows[k].FirstFired {
				rows[k].AttemptsSaved++
			}
		}
	}
	return rows
}

// TestTaskTallyAsMap holds taskTally's tasks found by address (taskSlots)
// to the map alone: up to 14 task ids, more than the slots, that are
// prefixes of one string (one address, other lengths: other tasks) in
// firings, firings naming a task by the episode's id or by a copy of it,
// resets,
// other rules' firings, tasks that never fire.
func TestTaskTallyAsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 31))
	const ids = "abcdefghijklmn"
	recs := []string{"force_next", "escalate", "unblock_authority"}
	for round := range 500 {
		ep := &replay.Episode{Format: replay.FormatAttempts}
		tasks := 1 + r.IntN(len(ids))
		for range r.IntN(60) {
			ep.AppendAttempts(replay.Attempt{TaskID: ids[:1+r.IntN(tasks)], Status: "in_progress"})
		}
		var firings []rules.Firing
		for n := range ep.NumAttempts() {
			if r.IntN(3) != 0 {
				continue
			}
			f := rules.Firing{Rule: rules.TaskAttempts, Kind: rules.TaskLoop, Turn: n + 1, TaskID: ep.AttemptTask(n), Recommendation: recs[r.IntN(len(recs))]}
			switch r.IntN(6) {
			case 0:
				f.TaskID = strings.Clone(f.TaskID)
			case 1:
				f.Kind = rules.Reset
			case 2:
				f.Rule = rules.FuzzyRepeat
			case 3, 4:
				f.TaskID = ids[:len(f.TaskID)] // the episode copied its ids
			}
			firings = append(firings, f)
		}
		var tt taskTally
		for i := range firings {
			tt.add(&firings[i])
		}
		want := refTaskRows(firings, ep)
		for range 2 { // finish may be asked twice
			if got := tt.finish(ep); !slices.Equal(got, want) {
				t.Fatalf("round %d: rows\n%+v\nwant\n%+v", round, got, want)
			}
		}
	}
}
