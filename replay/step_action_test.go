package replay

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
)

// TestPlainValue holds plainValue to plainASCII of the value's body for
// every string value up to 24 bytes long, with each byte that matters
// (a backslash, bytes over 0x7f, those whose XOR with a backslash borrows
// or not) at every place of the body, alone and beside another.
func TestPlainValue(t *testing.T) {
	special := []byte{'\\', 0x7f, 0x80, 0x81, 0xc3, 0xdc, 0xdd, 0xff, 0x5d, 0x5b, 0x00, 0x01}
	for n := 2; n <= 24; n++ {
		x := bytes.Repeat([]byte{'a'}, n)
		x[0], x[n-1] = '"', '"'
		check := func() {
			t.Helper()
			if got, want := plainValue(x), plainASCII(x[1:n-1]); got != want {
				t.Fatalf("%q: plainValue %v, plainASCII of its body %v", x, got, want)
			}
		}
		check()
		for i := 1; i < n-1; i++ {
			for _, c := range special {
				x[i] = c
				check()
				for j := i + 1; j < n-1; j++ {
					x[j] = special[(i+j)%len(special)]
					check()
					x[j] = 'a'
				}
			}
			x[i] = 'a'
		}
	}
}

// TestStepActionText: a step's action is its value's text (Text's: the
// body unescaped, a non-string as its JSON) whether it is read as it
// stands in the line (plainValue) or through byteStrings, and it stays
// that text when the line's bytes are written over after add took it.
func TestStepActionText(t *testing.T) {
	actions := []string{
		`"ls"`, `"deploy"`, `"run_tests"`, `"edit auth.py"`, `"0123456789abcd"`, `"0123456789abcde"`,
		`"a rather longer action of a shell"`, `"caf` + "\xc3\xa9" + ` ok"`, `"esc\"aped"`, `"tab\there"`,
		`"\u00e9t\u00e9 1234"`, `"back\\slash"`, `"` + "\xff" + `bad utf8"`, `{"cmd": ["ls", 1]}`, `12`, `""`,
	}
	for _, fields := range flatFields {
		p := newStepPaths(fields)
		name := "action"
		for _, a := range actions {
			line := []byte(fmt.Sprintf(`{"%s": %s, "%s": 1, "output": "x"}`, name, a, p.first[sfStep]))
			r, reason := lineStep(line, p)
			if reason != "" {
				t.Fatalf("%s: %s", line, reason)
			}
			want := rawValue(a).Text()
			if r.action != want {
				t.Fatalf("%s: action %q, want %q", line, r.action, want)
			}
			tab := newStepTable("e", "s")
			if reason := tab.add(r); reason != "" {
				t.Fatalf("%s: %s", line, reason)
			}
			for i := range line {
				line[i] = 'z'
			}
			if got := tab.ep.Str(tab.ep.Turns[0].Action); got != want {
				t.Fatalf("%s: table's action %q, want %q", a, got, want)
			}
		}
	}
}

// TestActionSym holds stepTable.actionSym to symtab.sym: actions that
// share its slots, over a table made anew now and then (as
// actionsStepped makes the actions' table) with its strings entered in
// another order, and over a second table, each get sym's Sym.
func TestActionSym(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var pool []string
	for i := 0; i < 200; i++ {
		n := 1 + rng.Intn(20)
		b := make([]byte, n)
		for j := range b {
			b[j] = "abcxyz _./"[rng.Intn(10)]
		}
		pool = append(pool, string(b))
	}
	pool = append(pool, "edit auth.py", "edit auth.ts", "run_tests", "deploy")
	st := newStepTable("e", "s")
	var tabs [2]symtab
	for step := 0; step < 20000; step++ {
		k := rng.Intn(2)
		tab := &tabs[k]
		if rng.Intn(500) == 0 {
			var next symtab
			for i := 0; i < 10; i++ {
				next.sym(pool[rng.Intn(len(pool))])
			}
			*tab = next
		}
		s := pool[rng.Intn(len(pool))]
		if rng.Intn(3) == 0 {
			s = pool[len(pool)-1-rng.Intn(4)]
		}
		got := st.actionSym(tab, s)
		if want := tab.sym(s); got != want || tab.str(got) != s {
			t.Fatalf("step %d: actionSym(%q) = %d (%q), sym's %d", step, s, got, tab.str(got), want)
		}
	}
}
