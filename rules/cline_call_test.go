package rules

import (
	"bytes"
	"strings"
	"testing"
)

// clineCountsRef counts a run of calls as clineState did before flat
// calls were compared by their members: each call's signature written
// (appendClineSignature of callOfAction) and compared with the last.
func clineCountsRef(actions []string) []int {
	var last, cur []byte
	var members []topMember
	counts := make([]int, len(actions))
	for i, a := range actions {
		cur = appendClineSignature(cur[:0], callOfAction(a), &members)
		if i > 0 && bytes.Equal(cur, last) {
			counts[i] = counts[i-1] + 1
		} else {
			counts[i] = 1
		}
		last, cur = cur, last
	}
	return counts
}

func checkClineCounts(t *testing.T, actions []string) {
	t.Helper()
	want := clineCountsRef(actions)
	s := &clineState{soft: 3, hard: 5}
	for i, a := range actions {
		k, fired := s.call(a)
		var wk *Kind
		switch want[i] {
		case 3:
			wk = ClineFeedback
		case 5:
			wk = ClineStop
		}
		if s.count != want[i] || k != wk || fired != (wk != nil) {
			t.Fatalf("%q, call %d: count %d (%v %v), want %d", actions, i, s.count, k, fired, want[i])
		}
	}
}

var clineCallSeeds = []string{
	`execute_command {"command":"npm test","requires_approval":"false"}`,
	`execute_command {"requires_approval":"false","command":"npm test","task_progress":"- [x] a"}`,
	`execute_command {"requires_approval":"false","command":"npm test"}`,
	`execute_command {"command":"npm test", "requires_approval":"false"}`,
	`execute_command {"command":"npm test","requires_approval":false}`,
	`execute_command\n{"command":"npm test","requires_approval":"false"}`,
	`read_file {"path":"a.go"}`, `read_file {"path":"a.go","path":"b.go"}`, `read_file {"path":"b.go"}`,
	`read_file { "path" : "a.go" }`, `read_file {"path":"a\u0067.go"}`, `read_file {"pa\u0074h":"a.go"}`,
	`read_file {}`, `read_file { }`, `read_file`, `read_file {"task_progress":"x"}`, `read_file x`,
	`read_file\n{"path":"a.go"} {}`, `attempt_completion {"result":"done"}`, `a {"b":"c"}`, `a\n{"b":"c"} {}`,
}

// TestClineCallCounts holds clineState.call to the count of signatures
// written for every call: runs of one action, actions whose signatures
// agree though they differ (task_progress, the keys' order, a repeated
// key, white space, escapes), flat calls and calls read the plain way
// in turn.
func TestClineCallCounts(t *testing.T) {
	for _, a := range clineCallSeeds {
		checkClineCounts(t, []string{a, a, a, a, a, a, strings.Clone(a)})
		for _, b := range clineCallSeeds {
			checkClineCounts(t, []string{a, b, b, a, a, b, a, a, a, a, a, b, b, b, b, b})
		}
	}
}

// FuzzClineCallCounts: runs of three actions, in the orders
// checkClineCounts reads them.
func FuzzClineCallCounts(f *testing.F) {
	for i, a := range clineCallSeeds {
		f.Add(a, clineCallSeeds[(i+1)%len(clineCallSeeds)], clineCallSeeds[(i+2)%len(clineCallSeeds)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		checkClineCounts(t, []string{a, b, b, c, c, a, a, b, c, c, c, c, c, a, a, a})
	})
}
