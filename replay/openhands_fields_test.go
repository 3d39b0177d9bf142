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
	testFieldsAsFields(t, openHandsKeys[:], names, func(ix *valueIndex, v rawValue) []rawValue {
		var f [len(openHandsKeys)]rawValue
		eventFields(ix, v, &f)
		return f[:]
	})
}

// v1Fields reads a V1 event's members as v.Fields(v1Keys[:]) does, from
// the index (recordRaw) and not: as TestEventFields, with names of 9 to
// 16 bytes (compared as two words) and longer.
func TestV1Fields(t *testing.T) {
	names := append(v1Keys[:len(v1Keys):len(v1Keys)],
		`\u006bind`, `parent_i\u0064`, `llm_response_i\u0064`, `rejection_reaso\u006e`, `tool\/name`,
		`kinds`, `Kind`, `parent_ie`, `qarent_id`, `llm_response_iD`, `tool_call_iD`, `rejection_reasoN`, `rejection_reasons`,
		`llm_messagf`, `summarz`, `kez`, `valuE`, `actioN`, `observatioN`, `errors`, `timestamp`, `tool_call_ie`,
		`th\u00e9ught`, "thoughz\xff", "\xffkind", `\udc00ind`, ``, `tool_call_metadata`, `extended_content`)
	testFieldsAsFields(t, v1Keys[:], names, func(ix *valueIndex, v rawValue) []rawValue {
		var f [len(v1Keys)]rawValue
		v1Fields(ix, v, &f)
		return f[:]
	})
}

// testFieldsAsFields holds fill to v.Fields(keys) over random objects of
// members named from names, read with an index and with none.
func testFieldsAsFields(t *testing.T, keys, names []string, fill func(ix *valueIndex, v rawValue) []rawValue) {
	t.Helper()
	vals := []string{
		`1`, `"run"`, `"agent"`, `null`, `true`, `{"action":"x","kind":{}}`, `[1,{"id":2}]`,
		`"` + strings.Repeat("long ", 40) + `"`, `{"command":"ls","thought":"` + strings.Repeat("t", 90) + `"}`,
	}
	rng := rand.New(rand.NewSource(1))
	var ix valueIndex
	want := make([]rawValue, len(keys))
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
		rawValue(src).Fields(keys, want)
		for _, x := range []*valueIndex{nil, &ix} {
			if x != nil && validValueIx(src, 0, x) != len(src) {
				t.Fatalf("%q: not valid indexed", src)
			}
			got := fill(x, rawValue(src))
			for i := range got {
				if (got[i] == nil) != (want[i] == nil) || string(got[i]) != string(want[i]) {
					t.Fatalf("%s (indexed %v): %s = %q, want %q", src, x != nil, keys[i], got[i], want[i])
				}
			}
		}
	}
}
