package detect

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2025, 10, 18, 9, 0, 0, 0, time.UTC)

func att(task, status string, min int, blockers, work []string) Attempt {
	return Attempt{TaskID: task, Status: status, Blockers: blockers, CompletedWork: work,
		SessionID: fmt.Sprintf("session_%d", min), Timestamp: t0.Add(time.Duration(min) * time.Minute)}
}

func TestTaskAttempts(t *testing.T) {
	type fire struct {
		attempt int
		task    string
		loop    string
		rec     string
		count   int
	}
	dash := []string{"Implemented dashboard.tsx"}
	critic := []string{"critic:design_system unavailable"}
	work := []string{"Read file A", "Parse config"}
	noAuto := DefaultTaskConfig()
	noAuto.EnableAutoUnblock = false
	tests := []struct {
		name     string
		cfg      TaskConfig
		attempts []Attempt
		want     []fire
	}{
		{"seed test 1: completed task revisit", DefaultTaskConfig(), []Attempt{
			att("T3.4.2", "done", 0, nil, dash), att("T3.4.2", "done", 1, nil, dash),
			att("T3.4.2", "done", 2, nil, dash), att("T3.4.2", "done", 3, nil, dash),
		}, []fire{
			{3, "T3.4.2", "completed_task_revisit", "force_next", 3},
			{4, "T3.4.2", "completed_task_revisit", "force_next", 4},
		}},
		{"seed test 2: blocked task spin, then escalate", DefaultTaskConfig(), []Attempt{
			att("T3.4.3", "blocked", 0, critic, nil), att("T3.4.3", "blocked", 1, critic, nil),
			att("T3.4.3", "blocked", 2, critic, nil), att("T3.4.3", "blocked", 3, critic, nil),
			att("T3.4.3", "blocked", 4, critic, nil),
		}, []fire{
			{3, "T3.4.3", "blocked_task_spin", "unblock_authority", 3},
			{4, "T3.4.3", "blocked_task_spin", "escalate", 4},
			{5, "T3.4.3", "blocked_task_spin", "escalate", 5},
		}},
		{"seed test 3: no progress repeat reaches force_next at 5", DefaultTaskConfig(), []Attempt{
			att("T7.1.2", "in_progress", 0, nil, work), att("T7.1.2", "in_progress", 1, nil, work),
			att("T7.1.2", "in_progress", 2, nil, work), att("T7.1.2", "in_progress", 3, nil, work),
			att("T7.1.2", "in_progress", 4, nil, work),
		}, []fire{
			{3, "T7.1.2", "no_progress_repeat", "escalate", 3},
			{4, "T7.1.2", "no_progress_repeat", "escalate", 4},
			{5, "T7.1.2", "no_progress_repeat", "force_next", 5},
		}},
		{"auto-unblock off escalates", noAuto, []Attempt{
			att("T", "blocked", 0, critic, nil), att("T", "blocked", 1, critic, nil), att("T", "blocked", 2, critic, nil),
		}, []fire{{3, "T", "blocked_task_spin", "escalate", 3}}},
		{"below max_attempts", DefaultTaskConfig(), []Attempt{
			att("T", "done", 0, nil, dash), att("T", "done", 1, nil, dash),
		}, nil},
		{"work that differs is no loop", DefaultTaskConfig(), []Attempt{
			att("T", "done", 0, nil, []string{"a"}), att("T", "done", 1, nil, []string{"b"}), att("T", "done", 2, nil, []string{"c"}),
			att("T", "blocked", 3, critic, []string{"d"}), att("T", "blocked", 4, critic, []string{"e"}), att("T", "blocked", 5, critic, []string{"f"}),
		}, nil},
		{"mixed statuses are no loop", DefaultTaskConfig(), []Attempt{
			att("T", "in_progress", 0, nil, work), att("T", "blocked", 1, critic, work), att("T", "in_progress", 2, nil, work),
		}, nil},
		{"lists compare sorted", DefaultTaskConfig(), []Attempt{
			att("T", "blocked", 0, []string{"b", "a"}, []string{"y", "x"}), att("T", "blocked", 1, []string{"a", "b"}, []string{"x", "y"}),
			att("T", "blocked", 2, []string{"b", "a"}, []string{"x", "y"}),
		}, []fire{{3, "T", "blocked_task_spin", "unblock_authority", 3}}},
		{"a spin needs blockers", DefaultTaskConfig(), []Attempt{
			att("T", "blocked", 0, nil, nil), att("T", "blocked", 1, []string{}, nil), att("T", "blocked", 2, nil, nil),
		}, []fire{{3, "T", "no_progress_repeat", "escalate", 3}}},
		{"blockers that change, same work", DefaultTaskConfig(), []Attempt{
			att("T", "blocked", 0, []string{"a"}, work), att("T", "blocked", 1, []string{"b"}, work), att("T", "blocked", 2, []string{"c"}, work),
		}, []fire{{3, "T", "no_progress_repeat", "escalate", 3}}},
		{"judged on the last 3, counted on the window", DefaultTaskConfig(), []Attempt{
			att("T", "in_progress", 0, nil, []string{"A"}), att("T", "in_progress", 1, nil, []string{"B"}),
			att("T", "in_progress", 2, nil, []string{"B"}), att("T", "in_progress", 3, nil, []string{"B"}),
			att("T", "in_progress", 4, nil, []string{"B"}),
		}, []fire{
			{4, "T", "no_progress_repeat", "escalate", 4},
			{5, "T", "no_progress_repeat", "force_next", 5},
		}},
		{"window: an hour apart is out", DefaultTaskConfig(), []Attempt{
			att("T", "done", 0, nil, dash), att("T", "done", 30, nil, dash), att("T", "done", 60, nil, dash),
			att("T", "done", 61, nil, dash),
		}, []fire{{4, "T", "completed_task_revisit", "force_next", 3}}},
		{"window ends at the task's latest attempt", DefaultTaskConfig(), []Attempt{
			att("T", "done", 0, nil, dash), att("T", "done", 59, nil, dash),
			att("T", "done", 90, nil, dash), // 0 is out: 90 − 0 >= 60
			att("T", "done", 100, nil, dash),
		}, []fire{{4, "T", "completed_task_revisit", "force_next", 3}}},
		{"attempt numbers count every record", DefaultTaskConfig(), []Attempt{
			att("T1", "done", 0, nil, dash), att("T2", "done", 1, nil, dash), att("T1", "done", 2, nil, dash),
			att("T2", "in_progress", 3, nil, dash), att("T1", "done", 4, nil, dash),
		}, []fire{{5, "T1", "completed_task_revisit", "force_next", 3}}},
		{"unblock authority is per task", DefaultTaskConfig(), []Attempt{
			att("A", "blocked", 0, critic, nil), att("A", "blocked", 1, critic, nil), att("A", "blocked", 2, critic, nil),
			att("B", "blocked", 3, critic, nil), att("B", "blocked", 4, critic, nil), att("B", "blocked", 5, critic, nil),
		}, []fire{
			{3, "A", "blocked_task_spin", "unblock_authority", 3},
			{6, "B", "blocked_task_spin", "unblock_authority", 3},
		}},
		{"aggressive: max_attempts 2, force next at 3", TaskConfig{MaxAttempts: 2, AttemptWindow: time.Hour, EnableAutoUnblock: true, MaxAttemptsBeforeForceNext: 3}, []Attempt{
			att("T", "pending", 0, nil, nil), att("T", "pending", 1, nil, nil), att("T", "pending", 2, nil, nil),
		}, []fire{
			{2, "T", "no_progress_repeat", "escalate", 2},
			{3, "T", "no_progress_repeat", "force_next", 3},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewTaskAttempts(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []fire
			for _, a := range tt.attempts {
				for _, f := range d.Attempt(a) {
					if f.Rule != "task_attempts" || f.Kind != KindLoop || f.Origin != OriginGeneric {
						t.Errorf("firing %+v", f)
					}
					got = append(got, fire{f.Attempt, f.TaskID, f.LoopType, f.Recommendation, f.AttemptCount})
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestTaskConfigValidate(t *testing.T) {
	bad := []TaskConfig{
		{MaxAttempts: 1, AttemptWindow: time.Hour, MaxAttemptsBeforeForceNext: 5},
		{MaxAttempts: 3, AttemptWindow: 0, MaxAttemptsBeforeForceNext: 5},
		{MaxAttempts: 3, AttemptWindow: time.Hour, MaxAttemptsBeforeForceNext: 0},
	}
	for _, c := range bad {
		if _, err := NewTaskAttempts(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
