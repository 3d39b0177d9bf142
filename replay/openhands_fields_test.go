package replay

import (
	"math/rand"
	"strings"
	"testing"
)

// eventFields reads an event's members as v.Fields(openHandsKeys[:]) does
// (setField: encoding/json's names, the last of a repeated one), indexed
// and not: names sought, escaped, of a sought name's length and not
// sought, not ASCII, not UTF-8, repeated, with white space and within a
// value.
func TestEventFields(t *testing.T) {
	names := []string{
		`action`, `args`, `source`, `id`, `observation`, `extras`, `content`, `cause`,
		`\u0061ction`, `ar\u0067s`, `sourc\u0065`, `i\u0064`, `observatio\u006e`, `\"extras`, `con\/tent`, `caus\\e`,
		`actiom`, `Action`, `sourcf`, `ix`, `args `, `causes`, `observations`, `contenu`, `extra`, `timestamp`,
		`actio\u00e9`, `acti\u00e9`, "acti\xc3\xa9", "actio\xff", "\xffargs", `\ud800ction`, ``, `tool_call_metadata`,
	}
	vals := []string{
		`1`, `"run"`, `"agent"`, `null`, `true`, `{"action":"x","args":{}}`, `[1,{"id":2}]`,
		`"` + strings.Repeat("long ", 40) + `"`, `{"command":"ls","thought":"` + strings.Repeat("t", 90) + `"}`,
	}
	rng := rand.New(rand.NewSource(1))
	var ix valueIndex
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		sp := []string{"", " ", "\n  ", "\t"}[rng.Intn(4)]
		b.WriteString("{" + sp)
		for m, members := 0, rng.Intn(9); m < members; m++ {
			if m > 0 {
				b.WriteString("," + sp)
			}
			b.WriteString(`"` + names[rng.Intn(len(names))] + `"` + []string{":", ": ", " : "}[rng.Intn(3)] + vals[rng.Intn(len(vals))])
		}
		b.WriteString(sp + "}")
		src := []byte(b.String())
		if validValue(src, 0) != len(src) {
			t.Fatalf("%q: not valid", src)
		}
		var want [len(openHandsKeys)]rawValue
		rawValue(src).Fields(openHandsKeys[:], want[:])
		for _, x := range []*valueIndex{nil, &ix} {
			if x != nil && validValueIx(src, 0, x) != len(src) {
				t.Fatalf("%q: not valid indexed", src)
			}
			var got [len(openHandsKeys)]rawValue
			eventFields(x, rawValue(src), &got)
			for i := range got {
				if (got[i] == nil) != (want[i] == nil) || string(got[i]) != string(want[i]) {
					t.Fatalf("%s (indexed %v): %s = %q, want %q", src, x != nil, openHandsKeys[i], got[i], want[i])
				}
			}
		}
	}
}
