package replay

import (
	"strings"
	"testing"
)

// TestAppendUnindexed: a string entered unindexed reads back as entered,
// a Sym of its own each time, beside strings interned (sym, bytes) in the
// same table, which still find their own and not it.
func TestAppendUnindexed(t *testing.T) {
	var tab symtab
	if s := tab.appendUnindexed(nil); s != 0 {
		t.Fatalf("empty: Sym %d", s)
	}
	long := strings.Repeat("output line\n", 20000) // a chunk of its own (arenaOwn)
	ins := []string{"a", "terminal", "a", "{\"k\":1}", long, "terminal", long, "b"}
	var syms []Sym
	for i, s := range ins {
		var id Sym
		if i%3 == 1 {
			id = tab.sym(s)
		} else {
			id = tab.appendUnindexed([]byte(s))
		}
		syms = append(syms, id)
	}
	for i, s := range ins {
		if got := tab.str(syms[i]); got != s {
			t.Fatalf("%d: read %.20q, entered %.20q", i, got, s)
		}
		for j := range i {
			if syms[j] == syms[i] && (i%3 != 1 || j%3 != 1) {
				t.Fatalf("%d and %d: one Sym %d", j, i, syms[i])
			}
		}
	}
	if tab.sym("terminal") != syms[1] || tab.bytes([]byte("a")) == syms[0] {
		t.Fatal("an interned string found another Sym")
	}
}
