package replay

import (
	"math/rand"
	"strings"
	"testing"
)

// TestCanonShapes holds appendCanon, which writes an object of a shape
// noted before from that shape (rawcanon_shape.go), to appendValue,
// which collects, sorts and writes every member: records of a few
// shapes, repeated so that shapes are noted and found, with other
// values, at each depth the index notes and deeper, canonical and not,
// with keys short, of 9 to 24 bytes and longer, escaped, not ASCII,
// holding < > &, repeated, in and out of order, and objects of one
// shape within one another (written while the outer one's is).
func TestCanonShapes(t *testing.T) {
	keys := []string{"a", "command", "content", "is_error", "exit_code", "timeout", "metadata", "full_output_save_dir",
		"py_interpreter_path", "responses_reasoning_item", "a_key_longer_than_24_bytes", "abcdefgh", "abcdefghi",
		"abcdefghijklmnop", "abcdefghijklmnopq", `x\u0041`, `caf\u00e9`, "café", "a<b", "a&b", "", "kind", "kind "}
	rng := rand.New(rand.NewSource(5))
	// Shapes that differ in one key's middle, last or first bytes alone
	// (those of 17 to 24 bytes are compared as three words), and in
	// length alone, each pair in one slot (by its count and first key).
	shapes := [][]string{{"kind", "abcdefgh_mid1_qrstuvwx"}, {"kind", "abcdefgh_mid2_qrstuvwx"},
		{"kind", "abcdefgh1pqrstuvwx"}, {"kind", "abcdefgh2pqrstuvwx"}, {"kind", "a1cdefghijklmnop"}, {"kind", "a2cdefghijklmnop"},
		{"kind", "abc"}, {"kind", "abcd"}, {"kind", "kind", "a"}, {"kind", "kind", "b"}}
	// Shapes of 8 to 24 members, pairs alike but for one key past the
	// eighth (the review found members 8 to 15 compared with 0 to 7's
	// slots: {"a",...,"h","a"} taken for {"a",...,"h","i"}).
	eight := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	cat := func(parts ...[]string) []string { return slicesJoin(parts) }
	shapes = append(shapes, cat(eight, []string{"i"}), cat(eight, []string{"a"}),
		cat(eight, strings.Split("i,j,k,l,m,n,o,p", ",")), cat(eight, eight),
		cat(eight, eight, eight), cat(eight, eight, strings.Split("a,b,c,d,e,f,g,x", ",")),
		cat(eight, strings.Split("i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x", ",")))
	fixed := len(shapes)
	for range 12 {
		shapes = append(shapes, nil)
	}
	for i := fixed; i < len(shapes); i++ {
		for m, n := 0, 1+rng.Intn([]int{7, 24}[i%2]); m < n; m++ {
			shapes[i] = append(shapes[i], keys[rng.Intn(len(keys))])
		}
	}
	var value func(depth int) string
	object := func(depth int) string {
		var b strings.Builder
		b.WriteString("{")
		for i, k := range shapes[rng.Intn(len(shapes))] {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + k + `":` + value(depth+1))
		}
		b.WriteString("}")
		return b.String()
	}
	value = func(depth int) string {
		switch r := rng.Intn(8); {
		case r < 3 && depth < 4:
			return object(depth)
		case r == 3 && depth < 4:
			return "[" + object(depth) + "," + value(depth+1) + "]"
		case r == 4:
			return `"` + strings.Repeat("v<", rng.Intn(40)) + `"`
		case r == 5:
			return []string{"true", "false", "null"}[rng.Intn(3)]
		case r == 6:
			return "1.50"
		}
		return `"s"`
	}
	var ix valueIndex
	var w, ref canonWriter
	for n := 0; n < 3000; n++ {
		src := []byte(object(0))
		if validValueIx(src, 0, &ix) != len(src) {
			t.Fatalf("%s: not valid", src)
		}
		for _, canonical := range []bool{true, false} {
			w.buf = w.buf[:0]
			ix.appendCanon(&w, rawValue(src), canonical, nil)
			ref.buf = ref.buf[:0]
			ref.appendValue(rawValue(src), canonical, nil)
			if string(w.buf) != string(ref.buf) {
				t.Fatalf("%s (canonical %v):\n%s, want\n%s", src, canonical, w.buf, ref.buf)
			}
		}
	}
	noted := 0
	for _, s := range w.shapes.slots {
		if s.n > 0 {
			noted++
		}
	}
	if noted < 4 {
		t.Fatalf("%d shapes noted", noted)
	}
}

// slicesJoin is the lists' elements in order, one list.
func slicesJoin(parts [][]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
