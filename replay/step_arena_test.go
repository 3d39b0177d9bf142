package replay

import (
	"math/rand"
	"strings"
	"testing"
)

// TestArenaBytesCounted holds symtab.arenaBytes, counted as strings are
// stored, to the sum of its chunks' lengths: short strings, strings of a
// chunk of their own (past arenaOwn), repeats (not stored again), bytes
// and strings, and the table a built episode keeps (strings).
func TestArenaBytesCounted(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var tab symtab
	sum := func(t *symtab) int {
		n := 0
		for _, c := range t.chunks {
			n += len(c)
		}
		return n
	}
	for i := 0; i < 3000; i++ {
		n := 1 + rng.Intn(40)
		if rng.Intn(200) == 0 {
			n = arenaOwn + 1 + rng.Intn(1000)
		}
		s := strings.Repeat(string(rune('a'+rng.Intn(26))), n)
		if rng.Intn(2) == 0 {
			tab.sym(s)
		} else {
			tab.bytes([]byte(s))
		}
		if got, want := tab.arenaBytes(), sum(&tab); got != want {
			t.Fatalf("after %d strings: arenaBytes %d, the chunks hold %d", i+1, got, want)
		}
	}
	kept := tab.strings()
	if got, want := kept.arenaBytes(), sum(&kept); got != want {
		t.Fatalf("strings(): arenaBytes %d, the chunks hold %d", got, want)
	}
}
