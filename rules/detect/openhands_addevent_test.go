package detect

import (
	"math/rand/v2"
	"testing"
)

// checkAddEvent feeds the events coded by data (a byte a class, key, text
// and ask each) to a detector through Add with an event made for each
// (the reference: how the rules fed an OpenHands log before AddEvent) and
// to another through AddEvent, and fails at the first answer they differ
// on: the slabs must hand an event out again only once no ring holds it.
// It returns how many times the reference fired.
func checkAddEvent(t *testing.T, c OpenHandsConfig, data []byte) (fired int) {
	t.Helper()
	ref, err := NewOpenHands(c)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := NewOpenHands(c)
	keys := []string{"a", "b", "c", "run ls\x000"}
	texts := []string{"", "x", "edit_file_by_replace(\n1\n2\n3", "edit_file_by_replace(\n1\n2\n4", "SyntaxError: bad\n[Jupyter current working directory: /]\n[Jupyter Python interpreter: /py]"}
	for i := 0; i+1 < len(data); i += 2 {
		b, b2 := data[i], data[i+1]
		class := OpenHandsClass(b % 10)
		key, text := keys[b/10%4], texts[int(b2)%len(texts)]
		ask := b2&0x80 != 0
		want := ref.Add(&OpenHandsEvent{Class: class, Key: key, Text: text}, ask)
		if want != "" {
			fired++
		}
		if plain := isStuckPlain(ref); ref.IsStuck() != plain {
			t.Fatalf("event %d (%d %q %q): check %q, is_stuck's tests over the windows %q", i/2, class, key, text, ref.IsStuck(), plain)
		}
		if r := got.AddEvent(class, key, text, ask); r != want {
			t.Fatalf("event %d (%d %q %q ask %v): AddEvent %q, Add %q", i/2, class, key, text, ask, r, want)
		}
	}
	return fired
}

// isStuckPlain is IsStuck as is_stuck tests it, over the rings' windows
// (check before it kept run lengths): every event of a window compared
// by _eq_no_pid.
func isStuckPlain(d *OpenHands) string {
	if d.events < 3 {
		return ""
	}
	c := d.cfg
	if n := c.RepeatActionObservationCount; d.actions.n >= n && d.obs.n >= n &&
		allEq(d.actions.last(n)) && allEq(d.obs.last(n)) {
		return RuleRepeatActionObservation
	}
	if n := c.RepeatActionErrorCount; d.actions.n >= n && d.obs.n >= n && allEq(d.actions.last(n)) {
		var last []*OpenHandsEvent
		if obs := d.obs.last(n); allClass(obs, OHErrorObs) || (allClass(obs, OHIPythonObs) && ipythonSyntaxLoop(lastN(&last, &d.obs, n))) {
			return RuleRepeatActionError
		}
	}
	if msgs := d.messages.last(c.MonologueCount); msgs != nil {
		equal := true
		for _, m := range msgs {
			equal = equal && m.ev.Key == msgs[0].ev.Key
		}
		if equal && msgs[len(msgs)-1].obsBefore == msgs[0].obsBefore {
			return RuleMonologue
		}
	}
	if n := c.AlternatingPairSteps; d.events >= n && d.actions.n >= n && d.obs.n >= n &&
		alternating(d.actions.last(n)) && alternating(d.obs.last(n)) {
		return RuleAlternatingPair
	}
	if n := c.ContextWindowErrorCount; d.events >= n {
		if pos := d.condens.last(n); pos != nil {
			for i := range len(pos) - 1 {
				if pos[i+1] == pos[i]+1 {
					return RuleContextWindowError
				}
			}
		}
	}
	return ""
}

// openHandsConfigs are DefaultOpenHandsConfig and smaller ones, whose
// rings and slabs come round sooner, interactive or not.
func openHandsConfigs() []OpenHandsConfig {
	small := OpenHandsConfig{RepeatActionObservationCount: 3, RepeatActionErrorCount: 3, MonologueCount: 3, AlternatingPairSteps: 6, ContextWindowErrorCount: 2}
	var cs []OpenHandsConfig
	for _, c := range []OpenHandsConfig{DefaultOpenHandsConfig(), small} {
		cs = append(cs, c)
		c.Interactive = true
		cs = append(cs, c)
	}
	return cs
}

// TestOpenHandsAddEvent holds AddEvent to Add over random event streams.
func TestOpenHandsAddEvent(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	fired := 0
	for range 300 {
		data := make([]byte, 2*rng.IntN(200))
		for i := range data {
			data[i] = byte(rng.IntN(256))
			if i%2 == 0 && rng.IntN(2) == 0 {
				data[i] = byte(rng.IntN(20)) // keys a and b: repeats, so checks fire
			}
		}
		for _, c := range openHandsConfigs() {
			fired += checkAddEvent(t, c, data)
		}
	}
	if fired < 1000 {
		t.Fatalf("the streams fired %d times: too few to hold AddEvent to Add", fired)
	}
}

// FuzzOpenHandsAddEvent is TestOpenHandsAddEvent over any stream.
func FuzzOpenHandsAddEvent(f *testing.F) {
	f.Add([]byte{0, 0x80, 4, 0x80, 0, 0x80, 4, 0x80, 0, 0x80, 4, 0x80, 0, 0x80, 4, 0x80})
	f.Add([]byte{1, 0x81, 1, 0x81, 1, 0x81, 1, 0x81, 2, 0, 8, 0x80, 8, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range openHandsConfigs() {
			checkAddEvent(t, c, data)
		}
	})
}

// TestOpenHandsCheckRuns holds check, which answers from run lengths, to
// is_stuck's tests over the windows (isStuckPlain) after every event of
// streams that repeat a cycle of one to three events (so that every check
// holds, and fails again when the cycle breaks), IPython cells with and
// without edit_file_by_replace( among them, under small windows.
func TestOpenHandsCheckRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	classes := []OpenHandsClass{OHOtherAction, OHOtherAction, OHAgentMessage, OHIPythonAction, OHIPythonAction,
		OHOtherObs, OHCmdObs, OHErrorObs, OHErrorObs, OHIPythonObs, OHCondensation, OHUserMessage, OHNull}
	texts := []string{"", "x", "edit_file_by_replace(\n1\n2\n3", "edit_file_by_replace(\n1\n2\n4", "edit_file_by_replace(\n1\n2",
		"SyntaxError: bad\n[Jupyter current working directory: /]\n[Jupyter Python interpreter: /py]"}
	random := func() OpenHandsEvent {
		return OpenHandsEvent{Class: classes[rng.IntN(len(classes))], Key: string(rune('a' + rng.IntN(2))), Text: texts[rng.IntN(len(texts))]}
	}
	fired := map[string]int{}
	for round := range 600 {
		c := OpenHandsConfig{RepeatActionObservationCount: 2 + rng.IntN(3), RepeatActionErrorCount: 2 + rng.IntN(3),
			MonologueCount: 2 + rng.IntN(3), AlternatingPairSteps: 4 + rng.IntN(3), ContextWindowErrorCount: 2 + rng.IntN(3),
			Interactive: rng.IntN(4) == 0}
		d, err := NewOpenHands(c)
		if err != nil {
			t.Fatal(c, err)
		}
		cycle := make([]OpenHandsEvent, 1+rng.IntN(4))
		for i := range cycle {
			cycle[i] = random()
		}
		for n := range 200 {
			e := cycle[n%len(cycle)]
			if rng.IntN(8) == 0 {
				e = random()
			}
			d.Add(&e, false)
			got, want := d.IsStuck(), isStuckPlain(d)
			if got != want {
				t.Fatalf("round %d (%+v) event %d %+v: check %q, is_stuck's tests %q", round, c, n, e, got, want)
			}
			fired[want]++
		}
	}
	for _, rule := range []string{RuleRepeatActionObservation, RuleRepeatActionError, RuleMonologue, RuleAlternatingPair, RuleContextWindowError} {
		if fired[rule] < 50 {
			t.Errorf("%s held %d times: too few to test check's runs (%v)", rule, fired[rule], fired)
		}
	}
}
