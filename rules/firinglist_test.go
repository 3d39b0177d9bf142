package rules_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/loopbreak/loopbreak/rules"
)

// TestFiringListBlocks: a list of many firings, across many blocks, reads
// back as added, again after a Reset; a loop's repeated strings are kept
// once and copied (the firing's own string is not held), so a firing
// costs a few bytes.
func TestFiringListBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l rules.FiringList
	for round := range 2 {
		const n = 100_000
		fs := make([]rules.Firing, n)
		for i := range fs {
			f := rules.Firing{Turn: i * 3, Unit: rules.UnitStep, Rule: rules.SignatureRepeat, Kind: rules.SignatureRepeat.Kinds[0],
				Signature: fmt.Sprintf("run_tests|error:%d", rng.IntN(50))}
			if i%7 == 0 {
				f.Rule, f.Kind = rules.FuzzyRepeat, rules.FuzzyRepeat.Kinds[0]
				f.Signature, f.Similarity, f.MatchedStep = "", rng.Float64(), i-1
			}
			if i%1000 == 999 {
				f.Action = strings.Repeat("x", 300+i%5000) // more than some blocks hold
			}
			fs[i] = f
			l.Add(&f, i%5)
		}
		if l.Len() != n {
			t.Fatalf("round %d: Len %d, added %d", round, l.Len(), n)
		}
		i := 0
		var f rules.Firing
		for it := l.Iter(); it.Next(&f); i++ {
			if i >= n || f != fs[i] || it.Tag() != i%5 {
				t.Fatalf("round %d, firing %d (tag %d):\n got %+v\nwant %+v", round, i, it.Tag(), f, fs[min(i, n-1)])
			}
			if f.Signature != "" && unsafe.StringData(f.Signature) == unsafe.StringData(fs[i].Signature) {
				t.Fatalf("firing %d: its signature is held, not copied", i)
			}
		}
		if i != n {
			t.Fatalf("round %d: read %d firings back, added %d", round, i, n)
		}
		// The long actions are 100 strings of 2.8 KB on average.
		if per := (l.Bytes() - 100*2800) / n; per > 16 {
			t.Errorf("round %d: %d bytes a firing (%d in all)", round, per, l.Bytes())
		}
		l.Reset()
		if it := l.Iter(); l.Len() != 0 || it.Next(&f) {
			t.Fatalf("round %d: a firing read after Reset", round)
		}
	}
}

// TestFiringListLastAfterReset: the index a list keeps of the string a
// field had last is not read after a Reset, which renumbers the strings.
func TestFiringListLastAfterReset(t *testing.T) {
	var l rules.FiringList
	fire := func(sig string) {
		f := rules.Firing{Turn: 1, Unit: rules.UnitStep, Rule: rules.SignatureRepeat, Kind: rules.SignatureRepeat.Kinds[0], Signature: sig}
		l.Add(&f, 0)
	}
	fire("a|x")
	fire("a|x")
	l.Reset()
	fire("b|y")
	fire("a|x")
	var got []string
	var f rules.Firing
	for it := l.Iter(); it.Next(&f); {
		got = append(got, f.Signature+" "+f.Unit)
	}
	if want := []string{"b|y step", "a|x step"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read back %q, want %q", got, want)
	}
}
