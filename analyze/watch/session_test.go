package watch

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// readSteps is the episode of a steps log.
func readSteps(t testing.TB, data []byte) *replay.Episode {
	t.Helper()
	eps, err := replay.Read(bytes.NewReader(data), "run.jsonl", "run", replay.Options{Format: replay.FormatAuto})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes (%v)", len(eps), err)
	}
	return eps[0]
}

// TestEpisodeFiringsNotKept: an episode read again at each write has its
// firings taken as the replay produces them, never kept as a list: the
// first read reports all but its last step's (pending until the file
// settles), the next only what is new, a rewritten beginning is revised,
// all as analyze lists them; and reading it allocates about what the
// replay alone does, not the list of its firings as well.
func TestEpisodeFiringsNotKept(t *testing.T) {
	cfg := rules.Default()
	c := &collector{}
	w := &watcher{opts: Options{Config: cfg, Settle: time.Millisecond}, emitF: c.emit}
	s := &session{path: "run.jsonl", eps: map[string]*episode{}}
	whole := readSteps(t, stepsLog(40, "run a"))
	var want []string
	o := analyze.Analyze(whole, cfg, analyze.Options{KeepFirings: true})
	for i := range o.Firings {
		f := &o.Firings[i]
		want = append(want, fmt.Sprintf("%s %d %s %v", f.Unit, f.Turn, f.KindKey(), o.AfterCut(f)))
	}
	if len(want) < 10 {
		t.Fatalf("the log fires %d times: too few to prove anything", len(want))
	}
	before := func(ep *replay.Episode) int { // analyze's firings before its last step
		o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true})
		n := 0
		for n < len(o.Firings) && o.Firings[n].Turn < ep.Turns[len(ep.Turns)-1].N {
			n++
		}
		return n
	}
	part := readSteps(t, stepsLog(25, "run a"))
	w.episode(s, part, "run", time.Now())
	if n := before(part); len(c.keys) != n || strings.Join(c.keys, "\n") != strings.Join(want[:n], "\n") {
		t.Fatalf("first read reported:\n%s\nwant analyze's first %d:\n%s", strings.Join(c.keys, "\n"), n, strings.Join(want[:n], "\n"))
	}
	w.episode(s, whole, "run", time.Now())
	s.eps["run"].settle(s, w)
	if strings.Join(c.keys, "\n") != strings.Join(want, "\n") {
		t.Errorf("reported:\n%s\nwant analyze's:\n%s", strings.Join(c.keys, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range c.events {
		if e.Kind != Firing {
			t.Errorf("unexpected event %+v", e)
		}
	}
	// The same episode now another run: its beginning is revised.
	w.episode(s, readSteps(t, stepsLog(30, "run b")), "run", time.Now())
	if e := c.events[len(want)]; e.Kind != Revised || !strings.Contains(e.Reason, fmt.Sprintf("the %d firings reported", len(want))) {
		t.Errorf("after a rewrite: %+v, want the episode revised", e)
	}

	// Allocations: a fresh read against the replay alone.
	big := readSteps(t, stepsLog(20000, "run a"))
	kept := analyze.Analyze(big, cfg, analyze.Options{KeepFirings: true})
	list := uint64(cap(kept.Firings)) * uint64(unsafe.Sizeof(rules.Firing{}))
	alloc := func(f func()) uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		n := ms.TotalAlloc
		f()
		runtime.ReadMemStats(&ms)
		return ms.TotalAlloc - n
	}
	replayOnly := alloc(func() { analyze.Analyze(big, cfg, analyze.Options{}) })
	quiet := &watcher{opts: w.opts, emitF: func(Event) error { return nil }}
	read := alloc(func() { quiet.episode(&session{path: "big.jsonl", eps: map[string]*episode{}}, big, "big", time.Now()) })
	if read > replayOnly+list/4 {
		t.Errorf("reading %d firings allocated %d bytes, the replay alone %d: the list of firings (%d bytes) was kept", len(kept.Firings), read, replayOnly, list)
	}
}
