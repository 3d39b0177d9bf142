package replay_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestLetGoFirings: the rules replayed over a log as it is read report
// what they report over it read whole, also when the episode lets go of
// the history strings, actions, canonical calls and V1 events it
// replayed every few bytes or events (replay.SetStreamBounds), on every
// committed agent and steps log and random ones, every rule on. Where
// rules.TestReadReplayEqualsRun crosses the bounds as set only once or
// twice, on one log, this crosses them at nearly every turn.
func TestLetGoFirings(t *testing.T) {
	cfg := rules.Default()
	for _, r := range rules.Registry {
		if len(r.Params) > 0 && r.Params[0].Default == false {
			if err := cfg.Set(r.Params[0].Key, true, rules.Source{Kind: "flag"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	files := replaytest.CommittedAgentLogs(filepath.Join("..", "testdata"))
	rng := rand.New(rand.NewPCG(24, 7))
	tmp := t.TempDir()
	for i := range 60 {
		var data []byte
		switch i % 5 {
		case 0:
			data = replaytest.V1Log(rng, 5+rng.IntN(600))
		case 1:
			data = replaytest.V1LogDistinct(rng, 5+rng.IntN(600))
		case 2:
			data = replaytest.OpenHandsLog(rng, 5+rng.IntN(400))
		case 3:
			data = replaytest.StepsLog(rng, 1+rng.IntN(400), []int{-1, 1}[i%2])
		default:
			data = replaytest.GeminiLog(rng, 5+rng.IntN(400), false, false, false)
		}
		path := filepath.Join(tmp, fmt.Sprintf("random-%d.jsonl", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	stepped, dropped := 0, 0
	for k, f := range files {
		restore := replay.SetStreamBounds([]int{1, 300}[k%2], []int{1, 200}[k/2%2], []int{0, 1, 5}[k%3])
		whole, err := replay.ReadFile(f, nil, replay.Options{Format: replay.FormatAuto, Outputs: true})
		if err != nil {
			restore()
			continue // not a log these read
		}
		read, err := replay.ReadFile(f, nil, replay.Options{Format: replay.FormatAuto, Outputs: true, Stepper: func(ep *replay.Episode) replay.TurnStepper {
			return rules.NewReadReplay(context.Background(), ep, cfg, nil)
		}})
		restore()
		if err != nil || len(read) != len(whole) {
			t.Fatalf("%s: read whole: %d episodes; replayed as read: %d, %v", f, len(whole), len(read), err)
		}
		for i, ep := range read {
			rr, ok := ep.Stepped.(*rules.ReadReplay)
			if !ok {
				continue
			}
			stepped++
			dropped += ep.V1Dropped
			var want, got []rules.Firing
			rules.Run(whole[i], cfg, nil, func(f rules.Firing) { want = append(want, f) })
			if err := rr.Finish(ep, cfg, nil, func(f *rules.Firing) { got = append(got, *f) }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: episode %d: replayed as read, letting go: %d firings, read whole: %d", f, i, len(got), len(want))
			}
		}
	}
	if stepped < 60 || dropped < 1000 {
		t.Errorf("%d episodes replayed as read, %d V1 events let go", stepped, dropped)
	}
}
