package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestChartSinkMatchesKept: analyze --chart draws each episode's terminal
// chart from the marks tallied as the firings came (NewChartSink), never
// keeping them: the text and the chart (Unicode and ASCII, with and
// without -v's listing of a steps log) are the bytes drawn from the kept
// firings, for ZorkGPT episodes, steps logs and an attempts log.
func TestChartSinkMatchesKept(t *testing.T) {
	dir := t.TempDir()
	steps := filepath.Join(dir, "steps.jsonl")
	var b strings.Builder
	for i := 1; i <= 900; i++ {
		action := fmt.Sprintf("edit_%d", i)
		if i%3 == 0 || i > 700 {
			action = "run_tests"
		}
		fmt.Fprintf(&b, `{"step": %d, "action": %q, "output": "1 test failed", "error": true, "kind": "action", "score": %d, "location": "repo"}`+"\n", i, action, i/100)
	}
	if err := os.WriteFile(steps, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "episodes", "*", "episode_log.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no episodes (%v)", err)
	}
	paths = append(paths, steps, filepath.Join("..", "testdata", "attempts", "autopilot.jsonl"))
	cfg := rules.Default()
	maxStuck := rules.MaxTurnsStuck.Get(cfg)
	drawn := 0
	for _, path := range paths {
		eps, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			for _, verbose := range []bool{false, true} {
				// As analyze --chart replayed before: every firing kept.
				kept := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true, Story: true, Sink: NewAgentStory})
				told := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: verbose, Story: true, Sink: NewChartSink(verbose, 100)})
				if told.Firings != nil {
					t.Errorf("%s %s (-v %v): %d firings kept for the chart", path, ep.ID, verbose, len(told.Firings))
				}
				render := func(o *analyze.Outcome) string {
					var out bytes.Buffer
					if err := (&Text{W: &out, Width: 100, Verbose: verbose}).Episode(o, ep); err != nil {
						t.Fatal(err)
					}
					tl := NewTimeline(o, ep, maxStuck)
					for _, ascii := range []bool{false, true} {
						if err := WriteTimeline(&out, tl, TimelineOptions{Width: 100, ASCII: ascii}); err != nil {
							t.Fatal(err)
						}
					}
					return out.String()
				}
				want, got := render(kept), render(told)
				if got != want {
					t.Errorf("%s %s (-v %v): drawn from the marks:\n%s\nfrom the kept firings:\n%s", path, ep.ID, verbose, got, want)
				}
				if len(kept.Firings) > 0 {
					drawn++
				}
			}
		}
	}
	if drawn < 4 {
		t.Errorf("%d charts of episodes that fired: too few to prove anything", drawn)
	}
}
