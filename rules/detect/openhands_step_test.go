package detect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// refOpenHandsStep is OpenHands.Step as it was before it reused its
// events (commit 645adfd): a new event for each, the exit code's key by
// fmt.Sprintf.
func refOpenHandsStep(d *OpenHands, s Step) []OpenHandsFiring {
	if s.noCall() {
		return nil
	}
	var rule string
	switch s.Kind {
	case KindAction:
		d.Add(&OpenHandsEvent{Class: OHOtherAction, Key: s.Action}, false)
		o := &OpenHandsEvent{Class: OHOtherObs, Key: s.Output}
		switch {
		case s.HasExitCode:
			o.Class, o.Key = OHCmdObs, fmt.Sprintf("%s\x00%d", s.Action, s.ExitCode)
		case s.Error:
			o.Class = OHErrorObs
		}
		rule = d.Add(o, true)
	case KindMessage:
		rule = d.Add(&OpenHandsEvent{Class: OHAgentMessage, Key: s.Output}, true)
	case KindCondensation:
		rule = d.Add(&OpenHandsEvent{Class: OHCondensation, Key: s.Output}, true)
	default:
		return nil
	}
	if rule == "" {
		return nil
	}
	return []OpenHandsFiring{{Firing{Step: s.N, Rule: rule, Kind: KindStop, Origin: OriginOpenHands}}}
}

// TestOpenHandsStepReusesSafely replays random sessions (few distinct
// actions, outputs and exit codes, so that every check fires) through
// Step, whose events are reused round-robin, and through the reference,
// under random window sizes: the firings must be the same, and Step must
// not allocate once warm.
func TestOpenHandsStepReusesSafely(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 5))
	fired := map[string]int{}
	for i := range 400 {
		cfg := OpenHandsConfig{RepeatActionObservationCount: 3 + r.IntN(4), RepeatActionErrorCount: 3 + r.IntN(4),
			MonologueCount: 3 + r.IntN(4), AlternatingPairSteps: 2 * (3 + r.IntN(3)), ContextWindowErrorCount: 2 + r.IntN(4)}
		if i == 0 {
			cfg = DefaultOpenHandsConfig()
		}
		d, err := NewOpenHands(cfg)
		if err != nil {
			t.Fatal(cfg, err)
		}
		ref, _ := NewOpenHands(cfg)
		random := func() Step {
			s := Step{Kind: KindAction, Action: fmt.Sprint("act", r.IntN(3)), Output: fmt.Sprint("out", r.IntN(3))}
			switch k := r.IntN(10); {
			case k < 2:
				s.Kind = KindMessage
			case k < 3:
				s.Kind = KindCondensation
			}
			if r.IntN(4) == 0 {
				s.ExitCode, s.HasExitCode = r.IntN(2), true
			}
			s.Error = r.IntN(2) == 0
			return s
		}
		// Mostly a cycle of one or two steps, so that the checks fire.
		cycle := []Step{random(), random()}[:1+r.IntN(2)]
		for n := 1; n <= 300; n++ {
			s := cycle[n%len(cycle)]
			if r.IntN(5) == 0 {
				s = random()
			}
			s.N = n
			got, want := d.Step(s), refOpenHandsStep(ref, s)
			if !slices.Equal(got, want) {
				t.Fatalf("session %d %+v, step %d %+v: firings %v, reference %v", i, cfg, n, s, got, want)
			}
			for _, f := range got {
				fired[f.Rule]++
			}
		}
	}
	t.Logf("firings: %v", fired)
	for _, rule := range []string{RuleRepeatActionObservation, RuleRepeatActionError, RuleMonologue, RuleAlternatingPair, RuleContextWindowError} {
		if fired[rule] == 0 {
			t.Errorf("%s never fired: %v", rule, fired)
		}
	}
	d, _ := NewOpenHands(DefaultOpenHandsConfig())
	steps := []Step{call("a", "x"), {Kind: KindAction, Action: "b", ExitCode: 1, HasExitCode: true}, msg("m"), {Kind: KindCondensation}}
	for _, s := range steps {
		d.Step(s)
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, s := range steps {
			d.Step(s)
		}
	}); n != 0 {
		t.Errorf("%v allocations a round of 4 steps", n)
	}
}
