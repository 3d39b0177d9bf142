package replay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestAppendUnindexed: a string entered unindexed reads back as entered,
// a Sym of its own each time, beside strings interned (sym, bytes) in the
// same table, which still find their own and not it.
func TestAppendUnindexed(t *testing.T) {
	var tab symtab
	if s := tab.appendUnindexed(nil); s != 0 {
		t.Fatalf("empty: Sym %d", s)
	}
	long := strings.Repeat("output line\n", 20000) // a chunk of its own (arenaOwn)
	ins := []string{"a", "terminal", "a", "{\"k\":1}", long, "terminal", long, "b"}
	var syms []Sym
	for i, s := range ins {
		var id Sym
		if i%3 == 1 {
			id = tab.sym(s)
		} else {
			id = tab.appendUnindexed([]byte(s))
		}
		syms = append(syms, id)
	}
	for i, s := range ins {
		if got := tab.str(syms[i]); got != s {
			t.Fatalf("%d: read %.20q, entered %.20q", i, got, s)
		}
		for j := range i {
			if syms[j] == syms[i] && (i%3 != 1 || j%3 != 1) {
				t.Fatalf("%d and %d: one Sym %d", j, i, syms[i])
			}
		}
	}
	if tab.sym("terminal") != syms[1] || tab.bytes([]byte("a")) == syms[0] {
		t.Fatal("an interned string found another Sym")
	}
}

// TestHistoryTableBoundedUnstepped: events that wait for their step
// (here 2,000 equal user messages of 5 KB before the agent's first
// action) keep the history's table near historyTable in a replay as
// read, the table being made anew only when a turn is stepped: past the
// bound, historyBytes interns, and equal strings take no more room. With
// every string copied unindexed the table held all 20 MB (tried).
func TestHistoryTableBoundedUnstepped(t *testing.T) {
	defer func(n int) { historyTable = n }(historyTable)
	historyTable = 64 << 10
	content := strings.Repeat("make the tests pass ", 256) // 5 KB
	var b bytes.Buffer
	b.WriteString(`{"id": 0, "timestamp": "2025-11-20T10:00:00.000000", "source": "agent", "message": "system", "action": "system", "args": {"content": "system", "tools": null, "openhands_version": "0.62.0", "agent_class": null}}` + "\n")
	const messages = 2000
	for i := 1; i <= messages; i++ {
		fmt.Fprintf(&b, `{"id": %d, "timestamp": "2025-11-20T10:00:01.000000", "source": "user", "message": %q, "action": "message", "args": {"content": %q, "file_urls": null, "image_urls": null, "wait_for_response": false, "security_risk": -1}}`+"\n", i, content, content)
	}
	fmt.Fprintf(&b, `{"id": %d, "timestamp": "2025-11-20T10:00:02.000000", "source": "agent", "message": "Running command: ls", "action": "run", "args": {"command": "ls", "is_input": false, "thought": "", "blocking": false, "is_static": false, "cwd": null, "hidden": false, "confirmation_state": "confirmed", "security_risk": -1}}`+"\n", messages+1)
	most := 0
	read, err := Read(bytes.NewReader(b.Bytes()), "x.jsonl", "x", Options{Format: FormatAuto, Stepper: func(ep *Episode) TurnStepper {
		return stepFunc(func(ep *Episode, i int) {
			most = max(most, ep.hist.arenaBytes())
		})
	}})
	if err != nil || len(read) != 1 || !read[0].streamed || len(read[0].OpenHands) < messages {
		t.Fatal(len(read), err)
	}
	if limit := historyTable + 4*len(content); most == 0 || most > limit {
		t.Errorf("the history's table held %d bytes at a step, want 1 to %d", most, limit)
	}
}
