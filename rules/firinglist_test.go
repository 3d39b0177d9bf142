package rules_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
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

// TestFiringListRandomFields: firings that each set a random few of
// Firing's fields (by reflection, every field), with numbers of one to
// ten varint bytes, read back as added: Next reads the fields in the
// mask's order, whatever set of them a firing has. Their turns are of 4
// bytes and, one in eight, of 8 (negative or 2^32 and over: fTurnLong),
// and their tags, rules and kinds vary, so that tags share a slot of the
// list's last heads by tag and a tag's rule or kind changes.
func TestFiringListRandomFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	typ := reflect.TypeOf(rules.Firing{})
	var l rules.FiringList
	fs, tags := make([]rules.Firing, 5000), make([]int, 5000)
	for i := range fs {
		f := rules.Firing{Turn: rng.IntN(1 << 20), Rule: rules.FuzzyRepeat, Kind: rules.FuzzyRepeat.Kinds[0]}
		if i%2 == 0 {
			f.Rule, f.Kind = rules.SignatureRepeat, rules.SignatureRepeat.Kinds[0]
		}
		if i%3 == 0 {
			f.Rule, f.Kind = rules.ProgressVelocity, rules.ProgressVelocity.Kinds[rng.IntN(len(rules.ProgressVelocity.Kinds))]
		}
		switch rng.IntN(8) {
		case 0:
			f.Turn = -1 - rng.IntN(1<<40)
		case 1:
			f.Turn = 1<<32 + rng.IntN(1<<40)
		case 2:
			f.Turn = 1<<32 - 1 - rng.IntN(2)
		}
		for k := range typ.NumField() {
			name := typ.Field(k).Name
			if name == "Turn" || name == "Rule" || name == "Kind" || rng.IntN(3) != 0 {
				continue
			}
			v := reflect.ValueOf(&f).Elem().Field(k)
			switch v.Kind() {
			case reflect.String:
				v.SetString(fmt.Sprint(name, rng.IntN(200)))
			case reflect.Int:
				v.SetInt(rng.Int64N(1<<uint(rng.IntN(63))) - rng.Int64N(4))
			case reflect.Float64:
				v.SetFloat(rng.NormFloat64())
			case reflect.Bool:
				v.SetBool(true)
			case reflect.Array:
				v.Index(rng.IntN(2)).SetString(fmt.Sprint(name, rng.IntN(200)))
			default:
				t.Fatalf("Firing.%s is a %s", name, v.Kind())
			}
		}
		fs[i], tags[i] = f, rng.IntN(300)
		l.Add(&f, tags[i])
	}
	i := 0
	var f rules.Firing
	for it := l.Iter(); it.Next(&f); i++ {
		if f != fs[i] || it.Tag() != tags[i] {
			t.Fatalf("firing %d (tag %d, want %d):\n got %+v\nwant %+v", i, it.Tag(), tags[i], f, fs[i])
		}
	}
	if i != len(fs) {
		t.Fatalf("read %d firings back, added %d", i, len(fs))
	}
	// NextOver reads each over the one before: the same firings, each
	// field the last set and this one not cleared. Its Unit may be set
	// between (Finish's).
	i = 0
	f = rules.Firing{}
	for it := l.Iter(); it.NextOver(&f); i++ {
		if f != fs[i] || it.Tag() != tags[i] {
			t.Fatalf("firing %d read over the one before (tag %d, want %d):\n got %+v\nwant %+v", i, it.Tag(), tags[i], f, fs[i])
		}
		f.Unit = "set between"
	}
	if i != len(fs) {
		t.Fatalf("read %d firings back over each other, added %d", i, len(fs))
	}
}

// BenchmarkFiringList adds and reads back the firings of a steps log's
// replay: signature_repeat, fuzzy_repeat, an OpenHands check and a reset,
// each with its few fields and the unit.
func BenchmarkFiringList(b *testing.B) {
	fs := []rules.Firing{
		{Rule: rules.SignatureRepeat, Kind: rules.SignatureRepeat.Kinds[0], Signature: "run_tests|error:TypeError-auth.ts:45"},
		{Rule: rules.FuzzyRepeat, Kind: rules.FuzzyRepeat.Kinds[0], Similarity: 0.9731, MatchedStep: 4},
		{Rule: rules.RepeatActionError, Kind: rules.RepeatActionError.Kinds[0]},
		{Rule: rules.ProgressVelocity, Kind: rules.Reset, Cause: "score_change", TurnsStuck: 7, Score: 3},
	}
	var l rules.FiringList
	var f rules.Firing
	for b.Loop() {
		l.Reset()
		for i := range 1000 {
			g := fs[i%len(fs)]
			g.Turn, g.Unit = 100000+i, rules.UnitStep
			l.Add(&g, 8+i%len(fs))
		}
		for it := l.Iter(); it.Next(&f); {
		}
	}
}
