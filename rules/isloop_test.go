package rules

import "testing"

// isLoopRef is Firing.IsLoop as first written: the rule's origin tested
// at each firing.
func isLoopRef(f *Firing) bool {
	switch f.Rule.Origin {
	case OriginGeneric, OriginOpenHands, OriginOpenHandsV1, OriginGeminiCLI, OriginCline, OriginRoo, OriginGoose:
		return f.Kind != LLMLoopRecorded
	}
	return false
}

// TestIsLoopAsOrigin holds IsLoop's answer kept on a registered kind to
// the origin's: every registered rule with each kind of every rule (its
// own and others'), a nil kind and one outside the registry; copies of
// the registered rules, one with its origin changed; a rule outside the
// registry with a registered kind.
func TestIsLoopAsOrigin(t *testing.T) {
	outside := &Kind{Name: "outside"}
	var kinds []*Kind
	for _, r := range Registry {
		kinds = append(kinds, r.Kinds...)
	}
	kinds = append(kinds, nil, outside)
	var rs []*Rule
	for _, r := range Registry {
		c, d := *r, *r
		switch d.Origin {
		case OriginZorkGPT:
			d.Origin = OriginGeneric
		default:
			d.Origin = OriginZorkGPT
		}
		rs = append(rs, r, &c, &d)
	}
	rs = append(rs, &Rule{Name: "outside", Origin: OriginGeminiCLI}, &Rule{Name: "outside2", Origin: OriginDesign})
	n := 0
	for _, r := range rs {
		for _, k := range kinds {
			f := &Firing{Rule: r, Kind: k}
			if got, want := f.IsLoop(), isLoopRef(f); got != want {
				t.Fatalf("rule %s (origin %s), kind %v: IsLoop %v, want %v", r.Name, r.Origin, k, got, want)
			}
			if f.IsLoop() {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no loop firing")
	}
}
