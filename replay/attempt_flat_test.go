package replay

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"
)

// attemptFlatSeeds are attempts lines of the shapes an autopilot writes,
// and others flatLine reads or leaves to parseFields.
var attemptFlatSeeds = []string{
	`{"task_id": "auth", "status": "blocked", "blockers": ["missing STRIPE_API_KEY"], "completed_work": [], "session_id": "s1", "timestamp": "2025-11-14T08:00:00Z"}`,
	`{"task_id": "docs", "status": "done", "blockers": [], "completed_work": ["README updated"], "session_id": "s1", "timestamp": "2025-11-14T08:02:00Z"}`,
	`{"task_id": "docs", "status": "done", "blockers": [], "completed_work": ["README updated", "a"], "session_id": "s2", "timestamp": 1763107200000}`,
	`{"task_id":"x","status":"pending","blockers":null,"completed_work":null,"session_id":null,"timestamp":null}`,
	`{"task_id": 7, "status": true, "blockers": {"a": [1, 2.5e3]}, "completed_work": "w", "extra": false, "timestamp": -1}`,
	`{"status": "done", "task_id": "t\u00e9", "task_id": "u", "timestamp": "2025-11-14T08:02:00.5+02:00"}  `,
	`{"task_id": "t", "status": "s", "blockers": [` + "\n" + `], "timestamp": 0}`,
	`{"task_\u0069d": "t", "status": "s", "timestamp": 0}`,
	`{"task_id": "t", "status": "s", "timestamp": NaN}`,
	`{"task_id": "t", "status": "s", "blockers": ["a", "b\"c", "d"], "completed_work": ["e","f"], "timestamp": 0}`,
	`{"task_id": "t", "status": "s", "blockers": [ ], "completed_work": ["e", 1, ["g"], {}], "timestamp": 0}`,
	`{}`,
	` {"task_id": "t"}`,
}

// TestAttemptFlatAsFields holds attemptFlat.read to parseFields: each
// seed, and each seed with one byte changed at every place, read after
// the seeds before it (whose keys and members flatLine notes and then
// takes whole), gives parseFields' values (null as nil, each the same
// bytes of the line) where read takes the line, and read takes the
// seeds an autopilot writes.
func TestAttemptFlatAsFields(t *testing.T) {
	read := 0
	check := func(f *attemptFlat, line []byte) {
		t.Helper()
		line = bytes.Clone(line)
		got, ok := f.read(line)
		want := make([]rawValue, len(attemptKeys))
		_, err := parseFields(line, attemptFieldKeys, want)
		if !ok {
			return
		}
		read++
		if err != nil {
			t.Fatalf("%q: read a line parseFields rejects: %v", line, err)
		}
		for i, w := range want {
			if len(w) > 0 && w[0] == 'n' {
				w = nil
			}
			g := got[i]
			if (g == nil) != (w == nil) || !bytes.Equal(g, w) || len(g) > 0 && unsafe.SliceData(g) != unsafe.SliceData(w) {
				t.Fatalf("%q: %s %q, parseFields %q", line, attemptKeys[i], g, w)
			}
		}
	}
	for k, seed := range attemptFlatSeeds {
		before := func() *attemptFlat {
			f := newAttemptFlat()
			for _, b := range attemptFlatSeeds[:k] {
				f.read([]byte(b))
			}
			return f
		}
		f := before()
		if _, ok := f.read([]byte(seed)); !ok && k < 6 {
			t.Errorf("%q: not read by flatLine", seed)
		}
		check(f, []byte(seed))
		check(f, []byte(seed)) // after itself: its members taken whole
		for i := range seed {
			for _, c := range []byte{'"', ' ', ',', '}', '0', 'x', '\\', 0, 0x80, '\n'} {
				line := []byte(seed)
				if line[i] == c {
					continue
				}
				line[i] = c
				check(f, line)
				g := before()
				check(g, []byte(seed))
				check(g, line)
			}
		}
	}
	if read < 1000 {
		t.Errorf("only %d lines read by flatLine", read)
	}
}

// TestAttemptMemoRun holds the memo found by a flat line's run of bytes
// (attemptRun) to a reader with no memo: each line read as readAttempts
// reads it (attemptFlat, else parseFields) gives the reason and the
// attempt that parseFields' values give read afresh. The lines repeat
// runs with members of the same names before and after them.
func TestAttemptMemoRun(t *testing.T) {
	lines := []string{
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "timestamp": 1}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "timestamp": 2}`,
		`{"session_id": "y", "task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "timestamp": 3}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "status": "q", "timestamp": 4}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "blockers": ["b"], "timestamp": 5}`,
		`{"status": "s", "task_id": "a", "blockers": [], "completed_work": [], "session_id": "x", "timestamp": 6}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "timestamp": 7}`,
		`{"task_id": "a", "status": "s", "blockers": null, "completed_work": [], "session_id": "x", "timestamp": 8}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "timestamp": "x"}`,
		`{"task_id": "a", "status": " ", "blockers": [], "completed_work": [], "session_id": "x", "timestamp": 9}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "task_id": "b", "timestamp": 10}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "timestamp": 11}`,
	}
	lines = append(lines, attemptFlatSeeds...)
	lines = append(lines, lines...)
	flat, plain := newAttemptFlat(), make([]rawValue, len(attemptKeys))
	memoed, fresh := newAttemptReader(&Episode{}), newAttemptReader(&Episode{})
	vals := make([]rawValue, len(attemptKeys))
	for i, s := range lines {
		line := []byte(s)
		var got string
		if fv, ok := flat.read(line); ok {
			got = memoed.addFlat(fv, true)
		} else if _, err := parseFields(line, attemptFieldKeys, plain); err != nil {
			continue
		} else {
			got = memoed.add(plain)
		}
		if _, err := parseFields(line, attemptFieldKeys, vals); err != nil {
			t.Fatalf("%q: read, where parseFields fails: %v", line, err)
		}
		fresh.memo = nil
		if want := fresh.add(vals); got != want {
			t.Fatalf("line %d %q: reason %q, afresh %q", i+1, line, got, want)
		}
	}
	if memoed.hits == 0 {
		t.Errorf("the memo was never hit")
	}
	memoed.finish()
	fresh.finish()
	a, b := memoed.ep, fresh.ep
	if a.NumAttempts() != b.NumAttempts() {
		t.Fatalf("%d attempts, afresh %d", a.NumAttempts(), b.NumAttempts())
	}
	for i := range a.NumAttempts() {
		if got, want := a.Attempt(i), b.Attempt(i); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("attempt %d: %+v, afresh %+v", i, got, want)
		}
	}
}
