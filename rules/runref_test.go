package rules_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestRunContextRefAsRun: RunContextRef hands report the firings Run
// hands (a Firing the Env reuses, copied here), in the same order, over
// the committed agent, steps and attempts logs, random steps logs and
// random attempts, with the default rules and all of them on.
func TestRunContextRefAsRun(t *testing.T) {
	var eps []*replay.Episode
	files := append(replaytest.CommittedAgentLogs(filepath.Join("..", "testdata")), filepath.Join("..", "testdata", "attempts", "autopilot.jsonl"))
	for _, f := range files {
		read, err := replay.ReadFile(f, nil, replay.Options{Format: replay.FormatAuto, Outputs: true})
		if err != nil {
			continue // a log the tests read as malformed on purpose
		}
		eps = append(eps, read...)
	}
	rng := rand.New(rand.NewPCG(24, 53))
	for trial := range 20 {
		read, err := replay.Read(bytes.NewReader(replaytest.StepsLog(rng, 1+rng.IntN(300), []int{-1, 1}[trial%2])), fmt.Sprint("random-", trial, ".jsonl"), "x", replay.Options{Format: replay.FormatAuto, Outputs: true})
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, read...)
	}
	start := time.Date(2025, 11, 14, 8, 0, 0, 0, time.UTC)
	for range 20 {
		ep := &replay.Episode{Format: replay.FormatAttempts}
		for i := range 50 + rng.IntN(200) {
			ep.AppendAttempts(replay.Attempt{TaskID: fmt.Sprint("t", rng.IntN(3)), Status: []string{"blocked", "done", "in_progress"}[rng.IntN(3)],
				Blockers: []string{"key", ""}[rng.IntN(2):], CompletedWork: []string{"w", "v"}[rng.IntN(2):], Timestamp: start.Add(time.Duration(i) * time.Minute)})
		}
		eps = append(eps, ep)
	}
	fired := 0
	for _, cfg := range []*rules.Config{rules.Default(), allOn(t)} {
		for i, ep := range eps {
			var want, got []rules.Firing
			rules.Run(ep, cfg, nil, func(f rules.Firing) { want = append(want, f) })
			if err := rules.RunContextRef(context.Background(), ep, cfg, nil, func(f *rules.Firing) { got = append(got, *f) }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("episode %d (%s): RunContextRef: %d firings, Run: %d\n%s", i, ep.Source, len(got), len(want), firstDiff(got, want))
			}
			fired += len(want)
		}
	}
	if fired == 0 {
		t.Error("no episode fired")
	}
}
