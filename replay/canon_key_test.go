package replay

import (
	"bytes"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// appendKeyColon writes a key as appendGoString(dst, k, true) does, and
// a colon: every byte at every place of keys of 0 to 20 bytes, each in an
// array of its length and in one with bytes after it that are not plain
// (a quote, a control byte, a high byte: read with a short key's word,
// and to be taken as plain there), appended where dst has room for the
// words stored and where it has not.
func TestAppendKeyColon(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for at := 0; at < max(n, 1); at++ {
			for c := 0; c < 256; c++ {
				key := bytes.Repeat([]byte("k"), n)
				if n > 0 {
					key[at] = byte(c)
				}
				want := string(appendGoString([]byte("x"), key, true)) + ":"
				exact := append([]byte(nil), key...)
				for _, after := range []string{"", `"`, "\x00", "\xff<&", `\`} {
					k := append(append([]byte(nil), key...), after...)[:n]
					if after == "" {
						k = exact
					}
					// dst with no room, with 18 bytes (grown), 19 and more,
					// of bytes written over.
					for _, room := range []int{0, 18, 19, 40} {
						dst := append(bytes.Repeat([]byte{0xee}, room+1)[:0], 'x')
						if got := string(appendKeyColon(dst, k)); got != want {
							t.Fatalf("key %q (then %q), room %d: %q, want %q", key, after, room, got, want)
						}
					}
				}
			}
		}
	}
}

// keepAll collects an object's members as ix.members(v, w.keep(nil)):
// the same keys (unescaped, and read as escaped when not UTF-8) and
// values in the same order, for objects the index noted and for those
// nested deeper, and with no index.
func TestKeepAll(t *testing.T) {
	names := []string{`command`, `thought`, `a`, `hidden`, `is_input`, `confirmation_state`, `x\u0041`, `\"q\"`,
		`\ud800`, "\xff\xfe", "caf\xc3\xa9", `caf\u00e9`, ``, `command`}
	vals := []string{`1`, `"ls"`, `null`, `[1,{"a":2}]`, `"` + strings.Repeat("v", 70) + `"`}
	rng := rand.New(rand.NewSource(3))
	var ix valueIndex
	object := func() string {
		var b strings.Builder
		b.WriteString("{")
		for m, members := 0, rng.Intn(7); m < members; m++ {
			if m > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + names[rng.Intn(len(names))] + `": ` + vals[rng.Intn(len(vals))])
		}
		b.WriteString("}")
		return b.String()
	}
	noted := 0 // args the index noted, read by keepAll's loop
	for n := 0; n < 5000; n++ {
		inner := object()
		// The object at each depth of a record: the record itself, its
		// args, and deeper.
		src := []byte(`{"args":` + inner + `,"deep":{"a":{"b":{"c":` + inner + `}}}}`)
		if validValueIx(src, 0, &ix) != len(src) {
			t.Fatalf("%q: not valid", src)
		}
		var f [2]rawValue
		rawValue(src).Fields([]string{"args", "deep"}, f[:])
		deep := rawValue(src[len(src)-len(inner)-4 : len(src)-4])
		if _, ok := ix.noted(f[0]); ok {
			noted++
		}
		for _, v := range []rawValue{rawValue(src), f[0], deep} {
			for _, x := range []*valueIndex{nil, &ix} {
				var got, want canonWriter
				got.keepAll(x, v)
				x.members(v, want.keep(nil))
				if len(got.members) != len(want.members) {
					t.Fatalf("%s: %d members, want %d", v, len(got.members), len(want.members))
				}
				for i, m := range got.members {
					if w := want.members[i]; string(m.key) != string(w.key) || string(m.val) != string(w.val) {
						t.Fatalf("%s (indexed %v): member %d %q: %q, want %q: %q", v, x != nil, i, m.key, m.val, w.key, w.val)
					}
					// A key or value read in place is a slice of the
					// record to its end, as the record sliced is
					// (appendKeyColon reads a short key's word past it).
					for _, b := range [][]byte{m.key, m.val} {
						if off := offsetIn(src, b); len(b) > 0 && off >= 0 && off < len(src) && cap(b) != cap(src)-off {
							t.Fatalf("%s (indexed %v): member %d %q: cap %d, want %d", v, x != nil, i, b, cap(b), cap(src)-off)
						}
					}
				}
			}
		}
	}
	if noted < 1000 {
		t.Fatalf("args noted %d times", noted)
	}
}

// sortMembers sorts as slices.SortStableFunc by key does: members in
// order, out of order, reversed, keys repeated (their order kept),
// empty, prefixes of one another, differing past their first byte.
func TestSortMembers(t *testing.T) {
	keys := []string{"", "a", "ab", "abc", "b", "ba", "command", "content", "c", "thought", "\xff", "A"}
	rng := rand.New(rand.NewSource(4))
	for n := 0; n < 20000; n++ {
		ms := make([]canonMember, rng.Intn(20))
		for i := range ms {
			ms[i] = canonMember{key: []byte(keys[rng.Intn(len(keys))]), val: rawValue(strconv.Itoa(i))}
		}
		if rng.Intn(4) == 0 {
			slices.SortStableFunc(ms, func(a, b canonMember) int { return bytes.Compare(b.key, a.key) })
		}
		want := slices.Clone(ms)
		slices.SortStableFunc(want, func(a, b canonMember) int { return bytes.Compare(a.key, b.key) })
		sortMembers(ms)
		for i := range ms {
			if string(ms[i].key) != string(want[i].key) || string(ms[i].val) != string(want[i].val) {
				t.Fatalf("sortMembers: %d is %q (%s), want %q (%s)", i, ms[i].key, ms[i].val, want[i].key, want[i].val)
			}
		}
	}
}
