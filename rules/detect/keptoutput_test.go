package detect

import (
	"strings"
	"testing"
	"unsafe"
)

// TestKeptOutput: an output that lives on is held as given; a transient
// one is copied into the buffer (never the step's own bytes), equal to
// it, and a buffer grown past 64 KB for a long output is let go for a
// short one.
func TestKeptOutput(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	var buf []byte
	for _, tc := range []struct {
		out       string
		transient bool
	}{{"ok", false}, {"ok", true}, {"", true}, {long, true}, {long[:70<<10], true}, {"short", true}, {long, false}} {
		s := Step{Output: strings.Clone(tc.out), OutputTransient: tc.transient}
		got, b := keptOutput(&s, buf)
		if got != tc.out {
			t.Fatalf("keptOutput(%d bytes, %v) = %d bytes", len(tc.out), tc.transient, len(got))
		}
		shared := len(got) > 0 && unsafe.StringData(got) == unsafe.StringData(s.Output)
		if shared == tc.transient && len(got) > 0 {
			t.Fatalf("keptOutput(%d bytes, transient %v): shares the step's bytes: %v", len(tc.out), tc.transient, shared)
		}
		if tc.transient && cap(b) > 64<<10 && cap(b) > 4*len(tc.out) {
			t.Fatalf("keptOutput(%d bytes): kept a buffer of %d", len(tc.out), cap(b))
		}
		buf = b
	}
}
