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
		if r := got.AddEvent(class, key, text, ask); r != want {
			t.Fatalf("event %d (%d %q %q ask %v): AddEvent %q, Add %q", i/2, class, key, text, ask, r, want)
		}
	}
	return fired
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
