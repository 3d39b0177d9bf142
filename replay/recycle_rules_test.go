package replay_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestRecycledOutputsNotHeld: a steps log replayed as read writes each
// turn's output over the last one's (Episode.outputsRecycled), so a detector
// that holds an output past its step must copy it (detect.Step.Output).
// Here the block is written over with garbage as it is recycled
// (SetPoisonRecycled): every rule on, the firings must be those of the
// log read whole, whose outputs are kept. A detector holding the text
// it was given (fuzzy_repeat's window, signature_repeat's last step,
// the OpenHands detector's events) compares garbage and fires otherwise.
func TestRecycledOutputsNotHeld(t *testing.T) {
	defer replay.SetPoisonRecycled(true)()
	cfg := rules.Default()
	for _, r := range rules.Registry {
		if len(r.Params) > 0 && r.Params[0].Default == false {
			if err := cfg.Set(r.Params[0].Key, true, rules.Source{Kind: "flag"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(17, 3))
	tmp := t.TempDir()
	var files []string
	for i := range 30 {
		path := filepath.Join(tmp, fmt.Sprintf("steps-%d.jsonl", i))
		if err := os.WriteFile(path, nearRepeatSteps(rng, 20+rng.IntN(300)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	committed, _ := filepath.Glob(filepath.Join("..", "testdata", "steps", "*.jsonl"))
	files = append(files, committed...)
	fired := map[string]int{}
	for _, f := range files {
		whole, err := replay.ReadFile(f, nil, replay.Options{Format: replay.FormatSteps, Outputs: true})
		if err != nil {
			continue // a committed log that needs a preset or --field
		}
		read, err := replay.ReadFile(f, nil, replay.Options{Format: replay.FormatSteps, Outputs: true, Stepper: func(ep *replay.Episode) replay.TurnStepper {
			return rules.NewReadReplay(context.Background(), ep, cfg, nil)
		}})
		if err != nil || len(read) != len(whole) {
			t.Fatalf("%s: read whole: %d episodes; replayed as read: %d, %v", f, len(whole), len(read), err)
		}
		for i, ep := range read {
			rr, ok := ep.Stepped.(*rules.ReadReplay)
			if !ok {
				t.Fatalf("%s: episode %d not replayed as read", f, i)
			}
			var want, got []rules.Firing
			rules.Run(whole[i], cfg, nil, func(f rules.Firing) { want = append(want, f) })
			if err := rr.Finish(ep, cfg, nil, func(f *rules.Firing) { got = append(got, *f) }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: episode %d: replayed as read over recycled outputs: %d firings, read whole: %d", f, i, len(got), len(want))
			}
			for _, f := range want {
				fired[f.Rule.Name]++
			}
		}
	}
	// The rules that read outputs must have fired, or the test tells
	// nothing about what they hold.
	for _, r := range []string{"fuzzy_repeat", "signature_repeat", "repeat_action_observation"} {
		if fired[r] == 0 {
			t.Errorf("%s never fired (firings by rule: %v)", r, fired)
		}
	}
}

// nearRepeatSteps is a steps log whose outputs repeat, exactly and with
// a few bytes changed, so that every detector reading outputs compares
// them: fuzzy_repeat's window, signature_repeat's last step, the
// OpenHands detector's repeated observations.
func nearRepeatSteps(rng *rand.Rand, steps int) []byte {
	var b strings.Builder
	bases := []string{
		"FAIL: test_login: expected 200, got 500\n" + strings.Repeat("trace line\n", 8),
		"Error: file not found: main.go",
		strings.Repeat("long output line\n", 30),
		"ok",
	}
	actions := []string{"run_tests", "edit auth.py", "cat main.go"}
	kinds := []string{"action", "action", "action", "message"}
	var out []byte
	action, kind, failed := "", "", false
	for n := 1; n <= steps; n++ {
		// A step repeated whole now and then (a loop: the OpenHands
		// detector's four equal action and observation pairs), else a
		// new one.
		if n == 1 || rng.IntN(3) > 0 {
			out = []byte(bases[rng.IntN(len(bases))])
			for range rng.IntN(3) { // a few bytes changed: near, not equal
				out[rng.IntN(len(out))] = byte('a' + rng.IntN(26))
			}
			action, kind, failed = actions[rng.IntN(len(actions))], kinds[rng.IntN(len(kinds))], rng.IntN(3) == 0
		}
		fmt.Fprintf(&b, `{"step": %d, "action": %q, "output": %q, "kind": %q`, n, action, out, kind)
		if failed {
			b.WriteString(`, "error": true`)
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}
