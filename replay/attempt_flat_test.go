package replay

import (
	"bytes"
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
