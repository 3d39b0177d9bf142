package replay

import "testing"

// Any status string is an attempt's status, kept as logged: the
// autopilot's component compares it exactly with "done" and "completed",
// and its state machine has more (RULES.md §9). A status that is not a
// string, or is blank, is no attempt.
func TestAttemptStatuses(t *testing.T) {
	in := `{"task_id": "T", "status": "completed", "timestamp": 0}
{"task_id": "T", "status": "needs_review", "timestamp": 1}
{"task_id": "T", "status": "Done", "timestamp": 2}
{"task_id": "T", "status": 3, "timestamp": 3}
{"task_id": "T", "status": " ", "timestamp": 4}
`
	eps := rtRead(t, in, Options{Format: FormatAttempts})
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	ep := eps[0]
	var got []string
	for _, a := range ep.Attempts {
		got = append(got, a.Status)
	}
	if len(got) != 3 || got[0] != "completed" || got[1] != "needs_review" || got[2] != "Done" {
		t.Errorf("statuses %q, want completed, needs_review, Done", got)
	}
	if ep.Diag.Skipped != 2 {
		t.Errorf("%d lines skipped, want 2", ep.Diag.Skipped)
	}
}
