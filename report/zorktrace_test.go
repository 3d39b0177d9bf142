package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestZorkTraceMatchesKept: a ZorkGPT episode's verbose text (-v: the
// turn-by-turn trace, every output loop) told from the firings written as
// they came (ZorkTrace: NewAgentListing), in memory and spilled to a
// file, is the text told from the kept firings, at any width; none is
// kept, and the spills' files go once it is written.
func TestZorkTraceMatchesKept(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "episodes", "*", "episode_log.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no episodes (%v)", err)
	}
	cfg := rules.Default()
	var cuts, loops int
	for _, path := range paths {
		eps, err := replay.ReadFile(path, nil, replay.Options{Outputs: rules.NeedsOutputs(cfg)})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			kept := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true, Story: true})
			for _, bound := range []int{0, 1 << 10} {
				for _, width := range []int{0, 40, 100} {
					sink := func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
						z := NewAgentListing(width)(o, ep).(*ZorkTrace)
						z.trace.Bound, z.loops.Bound = bound, bound
						return z
					}
					told := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true, Story: true, Sink: sink})
					if told.Firings != nil {
						t.Fatalf("%s: %d firings kept for the trace", path, len(told.Firings))
					}
					var want, got bytes.Buffer
					if err := (&Text{W: &want, Width: width, Verbose: true}).Episode(kept, ep); err != nil {
						t.Fatal(err)
					}
					if err := (&Text{W: &got, Width: width, Verbose: true}).Episode(told, ep); err != nil {
						t.Fatal(err)
					}
					if got.String() != want.String() {
						t.Errorf("%s (width %d, bound %d): -v told from the trace:\n%s\nfrom the kept firings:\n%s", path, width, bound, got.String(), want.String())
					}
					z := told.Sink.(*ZorkTrace)
					if bound > 0 && z.trace.Len() > int64(bound) && z.trace.Spilled() {
						t.Errorf("%s: the trace's file was not removed once written", path)
					}
					if strings.Contains(want.String(), "After the cut") {
						cuts++
					}
					if strings.Contains(want.String(), "Output loops") {
						loops++
					}
				}
			}
		}
	}
	if cuts == 0 || loops == 0 {
		t.Errorf("%d traces with a cut, %d with output loops: the fixtures prove too little", cuts, loops)
	}
}
