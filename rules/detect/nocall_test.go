package detect

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNoCall holds noCall, which tells most calls from their first byte,
// to the plain test (an action step whose action trims to nothing):
// every first byte, then white space of every kind (ASCII, U+0085,
// U+00A0, U+2000-U+200A, U+3000 and the like) and other text, mixed.
func TestNoCall(t *testing.T) {
	plain := func(s *Step) bool { return s.Kind == KindAction && strings.TrimSpace(s.Action) == "" }
	var actions []string
	for b := range 256 {
		actions = append(actions, string([]byte{byte(b)}), string([]byte{byte(b)})+"x", string([]byte{byte(b)})+" ")
	}
	pieces := []string{" ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2000", "\u200a", "\u2028", "\u3000", "\ufeff", "a", "{", "\x7f", "\x00", "\xff", "é"}
	r := rand.New(rand.NewPCG(7, 6))
	for range 5000 {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		actions = append(actions, b.String())
	}
	blanks := 0
	for _, a := range actions {
		for _, k := range []Kind{KindAction, KindMessage} {
			s := &Step{Kind: k, Action: a}
			if got, want := s.noCall(), plain(s); got != want {
				t.Fatalf("kind %v, action %q: noCall %v, want %v", k, a, got, want)
			}
			if plain(s) {
				blanks++
			}
		}
	}
	if blanks < 100 {
		t.Errorf("only %d blank actions", blanks)
	}
}
