package report

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// maxBytesAFiring bounds the memory an output that lists every firing
// (JSON, JSON Lines, -v, --parquet-firings) holds for each until it
// writes them: packed
// (rules.FiringList) a steps log's firing takes about 10 bytes; as a
// rules.Firing it took about 300, encoded as JSON 120 and as -v's line 80.
const maxBytesAFiring = 24

// TestListingsHoldFewBytesAFiring: a generated steps session of 100,000
// steps (about as many firings) analysed for the JSON (NewEpisodeFirings),
// the verbose text (NewAgentListing) and --parquet-firings
// (NewParquetFiringsSink) holds at most maxBytesAFiring a firing once
// analysed, and writing them allocates next to nothing a firing (but for
// Parquet's rows); the same session with its firings kept as structs
// (KeepFirings) is measured likewise and must exceed the bound, or the
// measure measures nothing.
func TestListingsHoldFewBytesAFiring(t *testing.T) {
	if testing.Short() {
		t.Skip("memory measures")
	}
	log := replaytest.StepsLog(rand.New(rand.NewPCG(24, 1)), 100_000, 50)
	eps, err := replay.Read(bytes.NewReader(log), "steps.jsonl", "d", replay.Options{Format: replay.FormatSteps, Outputs: true})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes, %v", len(eps), err)
	}
	ep, cfg := eps[0], rules.Default()
	held := func(opts analyze.Options) (*analyze.Outcome, float64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC() // the pools' victims too
		runtime.ReadMemStats(&before)
		o := analyze.Analyze(ep, cfg, opts)
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		n := 0
		for _, c := range o.Counts {
			n += c
		}
		if n < 50_000 {
			t.Fatalf("%d firings: the session fires too little to measure", n)
		}
		return o, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	}
	kept, perKept := held(analyze.Options{KeepFirings: true})
	t.Logf("kept as structs: %.0f bytes a firing", perKept)
	if perKept <= maxBytesAFiring {
		t.Fatalf("firings kept as structs measured at %.0f bytes each: the measure does not see them", perKept)
	}
	runtime.KeepAlive(kept)
	kept = nil

	for _, c := range []struct {
		name  string
		opts  analyze.Options
		write func(o *analyze.Outcome) error
		rows  bool // writes a row a firing: allocations not bounded
	}{
		{"json", analyze.Options{Sink: NewEpisodeFirings}, func(o *analyze.Outcome) error {
			e := NewEpisode(o, ep)
			data, err := AppendEpisode(nil, &e)
			if err != nil {
				return err
			}
			return o.Sink.(*EpisodeFirings).WriteEpisode(io.Discard, data)
		}, false},
		{"verbose text", analyze.Options{Story: true, Sink: NewAgentListing(0)}, func(o *analyze.Outcome) error {
			return (&Text{W: io.Discard, Verbose: true}).Episode(o, ep)
		}, false},
		{"parquet firings", analyze.Options{Sink: NewParquetFiringsSink(true)}, func(o *analyze.Outcome) error {
			e := NewEpisode(o, ep)
			w := NewParquetWriter[ParquetFiring](io.Discard)
			if err := o.Sink.(*ParquetFirings).WriteRows(w, &e); err != nil {
				return err
			}
			return w.Close()
		}, true},
	} {
		o, per := held(c.opts)
		t.Logf("%s: %.1f bytes a firing", c.name, per)
		if per > maxBytesAFiring {
			t.Errorf("%s: %.0f bytes held a firing, more than %d: firings held as structs or encoded?", c.name, per, maxBytesAFiring)
		}
		if o.Firings != nil {
			t.Errorf("%s: %d firings kept as structs", c.name, len(o.Firings))
		}
		n := len(o.Counts)
		for _, v := range o.Counts {
			n += v
		}
		allocs := testing.AllocsPerRun(1, func() {
			if err := c.write(o); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: %.0f allocations writing %d firings", c.name, allocs, n)
		if allocs > float64(n)/100 && !c.rows {
			t.Errorf("%s: writing %d firings took %.0f allocations", c.name, n, allocs)
		}
		ReleaseFirings(o)
	}
}
