package rules

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// TestReadReplayKeepsNoUnscored: a ReadReplay of a steps log keeps no
// firing of progress_velocity and stuck_warnings while no score is read
// (stuck_warnings fires at nearly every step of a log without one, to
// be dropped), and a log whose score comes late gets them back, made
// again from the rows (Run's firings, in Run's order). TestReadReplayEqualsRun
// and FuzzReadReplay compare the two replays over many more logs.
func TestReadReplayKeepsNoUnscored(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	for _, from := range []int{-1, 150, 1} {
		data := replaytest.StepsLog(rng, 300, from)
		kept, got, want := replayedAndRun(t, data, "late.jsonl", from)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("score from %d: replayed while read: %d firings, Run: %d", from, len(got), len(want))
		}
		warnings := 0
		for _, f := range got {
			if f.Rule == StuckWarnings {
				warnings++
			}
		}
		switch {
		case from < 0 && kept != len(got):
			t.Errorf("no score: %d firings kept, %d reported", kept, len(got))
		case from == 150 && (warnings == 0 || kept >= len(got)):
			t.Errorf("score from step 150: %d warnings, %d firings kept of %d: none made again", warnings, kept, len(got))
		case from == 1 && kept != len(got):
			t.Errorf("score from the start: %d firings kept, %d reported", kept, len(got))
		}
	}
}

// TestReadReplayScoreFromEachStep: a log whose score is first read at
// any of its first steps (the first score any value, changing now and
// then) gets progress_velocity's and stuck_warnings' firings of Run, in
// Run's order: progress_velocity, not stepped while no score was read,
// is stepped over every turn before the first scored one (unmute), as
// if it had stepped them.
func TestReadReplayScoreFromEachStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 43))
	for from := 1; from <= 40; from++ {
		for range 4 {
			var b bytes.Buffer
			score := rng.IntN(3)
			for n := 1; n <= 80; n++ {
				fmt.Fprintf(&b, `{"step": %d, "action": "ls %d", "output": "ok"`, n, rng.IntN(2))
				if n >= from {
					if rng.IntN(12) == 0 {
						score += rng.IntN(3) - 1
					}
					fmt.Fprintf(&b, `, "score": %d`, score)
				}
				b.WriteString("}\n")
			}
			data := b.Bytes()
			_, got, want := replayedAndRun(t, data, "from.jsonl", from)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("score from step %d:\n%s\nreplayed while read:\n%v\nRun:\n%v", from, data, got, want)
			}
		}
	}
}

// replayedAndRun replays the steps log data (named name, its score first
// read at step from) with the default rules twice: by a ReadReplay
// stepping it as it is read, returning the firings the ReadReplay kept
// while reading and those its Finish reports, and by Run over the log
// read whole, returning Run's.
func replayedAndRun(t *testing.T, data []byte, name string, from int) (kept int, got, want []Firing) {
	t.Helper()
	cfg := Default()
	var rr *ReadReplay
	opts := replay.Options{Format: replay.FormatSteps, Stepper: func(ep *replay.Episode) replay.TurnStepper {
		rr = NewReadReplay(context.Background(), ep, cfg, nil)
		return rr
	}}
	eps, err := replay.Read(bytes.NewReader(data), name, "x", opts)
	if err != nil || len(eps) != 1 || rr == nil {
		t.Fatalf("score from %d: %d episodes, %v", from, len(eps), err)
	}
	kept = rr.list.Len()
	if err := rr.Finish(eps[0], cfg, nil, func(f *Firing) { got = append(got, *f) }); err != nil {
		t.Fatal(err)
	}
	whole, err := replay.Read(bytes.NewReader(data), name, "x", replay.Options{Format: replay.FormatSteps, Outputs: true})
	if err != nil {
		t.Fatal(err)
	}
	Run(whole[0], cfg, nil, func(f Firing) { want = append(want, f) })
	return kept, got, want
}
