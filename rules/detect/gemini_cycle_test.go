package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGeminiToolCycleAsWindow replays random runs of tool calls through
// the detector and the reference under random thresholds and lengths:
// the firings, cycle lengths included, must be the same at every step.
// The calls repeat in cycles of every length up to K+1, broken now and
// then, and their names hold lone surrogates, invalid bytes and U+FFFD,
// which share a key, mixed within a cycle (TestGeminiMatchesReference's
// sessions, mostly messages, make few cycles).
func TestGeminiToolCycleAsWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 5))
	calls := []string{"read a", "read b", "edit c", "read \xed\xa0\x80", "read \ufffd", "read \xed\xb0\x80", "x\xff", "x\ufffd"}
	// Calls of one key: a lone surrogate, an invalid byte and U+FFFD.
	sameKey := map[string][]string{}
	for _, alike := range [][]string{{"read \xed\xa0\x80", "read \ufffd", "read \xed\xb0\x80"}, {"x\xff", "x\ufffd"}} {
		for _, c := range alike {
			sameKey[c] = alike
		}
	}
	byLength := map[int]int{}
	for session := range 400 {
		cfg := DefaultGeminiConfig()
		cfg.ToolCallLoopThreshold = 2 + r.IntN(5)
		cfg.ToolCycleMaxLength = 1 + r.IntN(6)
		d, err := NewGemini(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := newRefGemini(cfg)
		var cycle []string
		for n := 1; n <= 300; n++ {
			if len(cycle) == 0 || r.IntN(12) == 0 {
				cycle = cycle[:0]
				for range 1 + r.IntN(cfg.ToolCycleMaxLength+1) {
					cycle = append(cycle, calls[r.IntN(len(calls))])
				}
			}
			s := Step{N: n, Kind: KindAction, Action: cycle[n%len(cycle)], NewPrompt: r.IntN(25) == 0}
			if alike, ok := sameKey[s.Action]; ok && r.IntN(2) == 0 {
				s.Action = alike[r.IntN(len(alike))]
			}
			switch r.IntN(30) {
			case 0:
				s.Action = calls[r.IntN(len(calls))]
			case 1:
				s.Action = " " // no call
			case 2:
				s.Kind, s.Output = KindMessage, "thinking"
			}
			got, want := d.Step(s), ref.Step(s)
			if !slices.Equal(got, want) {
				t.Fatalf("session %d %+v, step %d %q: firings %v, reference %v", session, cfg, n, s.Action, got, want)
			}
			for _, f := range got {
				byLength[f.CycleLength]++
			}
		}
	}
	for k := 1; k <= 6; k++ {
		if byLength[k] == 0 {
			t.Errorf("no tool_cycle firing of cycle length %d: %v", k, byLength)
		}
	}
	t.Logf("firings by cycle length: %v", byLength)
}

// TestSameString holds sameString (toolCycle's and sameKey's compare) to
// ==: strings at one address of every length (prefixes of one buffer),
// equal bytes at other addresses, and unequal bytes of one length.
func TestSameString(t *testing.T) {
	buf := "read a.go read a.go edit b"
	other := string([]byte(buf)) // the same bytes elsewhere
	var ss []string
	for n := range len(buf) + 1 {
		ss = append(ss, buf[:n], other[:n], buf[len(buf)-n:], other[10:10+min(n, len(other)-10)])
	}
	for _, a := range ss {
		for _, b := range ss {
			if got := sameString(a, b); got != (a == b) {
				t.Fatalf("sameString(%q, %q) = %v", a, b, got)
			}
		}
	}
}
