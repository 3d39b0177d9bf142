package replay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// walkAll writes every member and element of v, recursively, as ix's
// walkers see them: keys and values' bytes, so that an index that skips to
// a wrong end shows as a different value.
func walkAll(ix *valueIndex, v rawValue, b *strings.Builder) {
	switch v.Kind() {
	case '{':
		ix.members(v, func(k []byte, esc bool, val rawValue) bool {
			fmt.Fprintf(b, "{%q %v %q ", k, esc, val)
			walkAll(ix, val, b)
			b.WriteByte('}')
			return true
		})
	case '[':
		ix.elems(v, func(i int, val rawValue) bool {
			fmt.Fprintf(b, "[%d %q ", i, val)
			walkAll(ix, val, b)
			b.WriteByte(']')
			return true
		})
	}
}

// checkSkips holds the end ix's walkers give every member and element of
// v, recursively, to skipValue's (closingQuote and SkipComposite, which
// share nothing with ix.skip's scan of a short string nor its index).
func checkSkips(t *testing.T, ix *valueIndex, v rawValue) {
	t.Helper()
	check := func(val rawValue) {
		start := cap(v) - cap(val) // val is v[start:...]
		if end := skipValue(v, start); end != start+len(val) {
			t.Fatalf("%q at %d: ends at %d, skipValue %d", v, start, start+len(val), end)
		}
		checkSkips(t, ix, val)
	}
	switch v.Kind() {
	case '{':
		ix.members(v, func(_ []byte, _ bool, val rawValue) bool { check(val); return true })
	case '[':
		ix.elems(v, func(_ int, val rawValue) bool { check(val); return true })
	}
}

// FuzzValueIndex holds the indexed walk to the scanning one on every value
// validValue accepts, and the index's validation to validValue's.
func FuzzValueIndex(f *testing.F) {
	long := strings.Repeat("x", 70)
	for _, s := range []string{
		`{}`, `[]`, `"a"`, `{"a":1}`, ` [1, 2 , {"b": [3]}] `,
		"{\n  \"a\": [\n    1,\n    {\"b\": \"x\"}\n  ],\n  \"c\": {\n  }\n}", // pretty-printed (blankCarry)
		`{"a":"` + long + `","b":{"c":["` + long + `",{"d":"` + long + `"}]},"e":[]}`,
		`[[[[["` + long + `"]]]],{"k":{"k":{"k":"` + long + `"}}},"` + long + `\"\\"]`,
		`{"id":"g1","toolCalls":[{"name":"x","args":{"p":"` + long + `"},"result":[{"functionResponse":{"response":{"output":"` + long + `"}}}]}]}`,
		`{"a":[` + strings.Repeat(`{"b":"`+long+`"},`, 5) + `1]}`,
		`{"a":"x\"y","b":["\\",1,"\\\"",{"c":"\u0022\"\\"}]}`, `["abcdefg\"hijklmnopq\\\"rs\\", "` + long[:60] + `\"x"]`,
		`["abcdefghij\"kl","abcdefghijk\\","abcdefghijklmnop","abcdefghijklmno"]`, "[\"abcdefghijk\x1fmn\"]",
		`[0,1,23,456789,0.5,1e5,1E+2,10.25e-3,-0,-12,0]`, `[01]`, `[1.]`, `[2e]`, `[00]`, `[-]`, `{"n":7`, `{"a":1E5,"b":3`,
		`{"a":"` + long + `"`, `[1,]`, `{"a" 1}`, `[NaN,"NaN"]`, `{"Infinity":-Infinity}`, `["Infinity",1]`,
		`{"thought":"x","a":{"thought":1,"b":"` + long + `"},"hidden":true,"b":[{"hidden":0}]}`, // skipped names at the top only
		`{"observation":{"content":[{"type":"text","text":"` + long + `\n<&>"}],"is_error":false,"exit_code":0,"b":1.50,"b":[true,null,2e3]},"id":"x","timestamp":"t","k\u0065y":"` + long + `","kind":"ObservationEvent"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkValueIndex)
}

// checkValueIndex holds the indexing pass over data to validValue and its
// index's walks to the scanning ones (FuzzValueIndex's check).
func checkValueIndex(t *testing.T, data []byte) {
	var ix valueIndex
	i := skipSpace(data, 0)
	end := validValue(data, i)
	if got := validValueIx(data, i, &ix); got != end {
		t.Fatalf("validValueIx = %d, validValue %d", got, end)
	}
	if end < 0 {
		return
	}
	v := rawValue(data[i:end])
	if ix.nonFinite != hasNonFinite(v) {
		t.Fatalf("nonFinite = %v, hasNonFinite %v", ix.nonFinite, !ix.nonFinite)
	}
	// passLines: the same pass, counting the value's newlines.
	var lx valueIndex
	if got := lx.passLines(data, i); got != end || lx.lines != bytes.Count(v, newline) {
		t.Fatalf("passLines = %d, %d lines; validValue %d, %d lines", got, lx.lines, end, bytes.Count(v, newline))
	}
	var plain, indexed, counted strings.Builder
	walkAll(nil, v, &plain)
	walkAll(&ix, v, &indexed)
	if plain.String() != indexed.String() {
		t.Fatalf("indexed walk differs:\n%s\nscanning:\n%s", indexed.String(), plain.String())
	}
	if walkAll(&lx, v, &counted); counted.String() != plain.String() {
		t.Fatalf("passLines' index walk differs:\n%s\nscanning:\n%s", counted.String(), plain.String())
	}
	checkSkips(t, nil, v)
	checkSkips(t, &ix, v)
	// The canonical writers and get agree with the scanning ones.
	for _, canonical := range []bool{false, true} {
		var plain, indexed canonWriter
		plain.appendValue(v, canonical, openHandsVolatile)
		ix.appendCanon(&indexed, v, canonical, openHandsVolatile)
		if !bytes.Equal(plain.buf, indexed.buf) {
			t.Fatalf("appendCanon(%v) = %q, appendValue %q", canonical, indexed.buf, plain.buf)
		}
	}
	v.Members(func(k []byte, esc bool, _ rawValue) bool {
		key := string(k)
		if esc {
			key = unquoteKey(k)
		}
		if got, want := ix.get(v, key), v.Get(key); !bytes.Equal(got, want) {
			t.Fatalf("get(%q) = %q, Get %q", key, got, want)
		}
		return true
	})
	// A value from other memory is scanned, not looked up.
	other := bytes.Clone(v)
	var copied strings.Builder
	walkAll(&ix, rawValue(other), &copied)
	if copied.String() != plain.String() {
		t.Fatalf("walk of a copy differs")
	}
	for _, s := range ix.spans {
		if s.end <= s.start || int(s.end-s.start) < indexMin {
			t.Fatalf("span %v: not a long value", s)
		}
	}
}

// TestValueIndexSpans: the long values are indexed, the short ones not,
// and a short container's long-enough-looking parent keeps its own span.
func TestValueIndexSpans(t *testing.T) {
	long := `"` + strings.Repeat("x", 70) + `"`
	doc := `{"a":` + long + `,"b":[1,2],"c":{"d":` + long + `}}`
	var ix valueIndex
	buf := []byte(doc)
	if end := validValueIx(buf, 0, &ix); end != len(doc) {
		t.Fatalf("validValueIx = %d, want %d", end, len(doc))
	}
	var got []string
	for _, s := range ix.spans {
		got = append(got, doc[s.start:s.end])
	}
	want := []string{doc, long, `{"d":` + long + `}`, long}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("spans %q, want %q", got, want)
	}
	// The end comes from the index, not from the bytes: c's closing brace
	// blanked, a scan would run on to the record's.
	buf[len(buf)-2] = ' '
	if s := ix.skip(rawValue(buf), strings.Index(doc, `{"d"`)); s != len(doc)-1 {
		t.Fatalf("skip of c's value = %d, want %d", s, len(doc)-1)
	}
	if s := ix.skip(rawValue(buf[1:]), strings.Index(doc, `{"d"`)-1); s != len(doc)-2 {
		t.Fatalf("skip of c's value in a slice of the record = %d, want %d", s, len(doc)-2)
	}
}

// members reads a key eight bytes at a time: its bytes and esc (an
// escape, or bytes that are not UTF-8) are those of a byte loop, whatever
// byte stands wherever in keys of 0 to 20 bytes, the value after them
// short or long.
func TestMembersKeys(t *testing.T) {
	for _, val := range []string{`1`, `"` + strings.Repeat("v", 70) + `"`} {
		for n := range 21 {
			for pos := range max(n, 1) {
				for _, c := range []string{"a", `\n`, `\"`, `\u0041`, "\x80", "\xff", "é", "\u2028"} {
					key := []byte(strings.Repeat("k", n))
					if n > 0 {
						key = append(append(key[:pos:pos], c...), key[pos+1:]...)
					}
					obj := []byte(`{"` + string(key) + `":` + val + `,"z":2}`)
					if validValue(obj, 0) != len(obj) {
						t.Fatalf("%q: not valid", obj)
					}
					esc := bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key)
					want := []string{fmt.Sprintf("%q %v %q", key, esc, val), fmt.Sprintf("%q %v %q", "z", false, "2")}
					// Scanned, and read from the members the validating
					// pass noted, at the top and one level down.
					var ix valueIndex
					nested := []byte(`[` + string(obj) + `]`)
					validValueIx(nested, 0, &ix)
					for _, o := range []struct {
						ix *valueIndex
						v  rawValue
					}{{nil, obj}, {&ix, nested[1 : len(nested)-1]}} {
						var got []string
						o.ix.members(o.v, func(k []byte, esc bool, v rawValue) bool {
							got = append(got, fmt.Sprintf("%q %v %q", k, esc, v))
							return true
						})
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("%q (noted %v):\n got %v\nwant %v", obj, o.ix != nil, got, want)
						}
					}
				}
			}
		}
	}
}

// TestNotedMembers: the members of the objects of the first memberDepth
// levels are read from what the validating pass noted (the record's
// commas blanked after it, a scan would read one member), in order,
// repeated keys and all, and stop when told; an object deeper, empty or
// of other memory is scanned.
func TestNotedMembers(t *testing.T) {
	doc := []byte(`{"a":1,"b":{"c":[{"d":{"e":{"f":2,"g":3}}}],"c":"x"},"a":[],"h":{}}`)
	var ix valueIndex
	if end := validValueIx(doc, 0, &ix); end != len(doc) {
		t.Fatalf("validValueIx = %d", end)
	}
	walk := func(v rawValue, stopAt string) string {
		var b strings.Builder
		ix.members(v, func(k []byte, esc bool, val rawValue) bool {
			fmt.Fprintf(&b, "%s=%s;", k, val)
			return string(k) != stopAt
		})
		return b.String()
	}
	want := `a=1;b={"c":[{"d":{"e":{"f":2,"g":3}}}],"c":"x"};a=[];h={};`
	if got := walk(doc, ""); got != want {
		t.Fatalf("members = %s, want %s", got, want)
	}
	if got := walk(doc, "b"); got != `a=1;b={"c":[{"d":{"e":{"f":2,"g":3}}}],"c":"x"};` {
		t.Fatalf("members stopped at b = %s", got)
	}
	b := rawValue(doc[strings.Index(string(doc), `{"c"`):strings.Index(string(doc), `,"a":[]`)])
	d := rawValue(doc[strings.Index(string(doc), `{"d"`):strings.Index(string(doc), `],"c":"x"`)])
	e := rawValue(doc[strings.Index(string(doc), `{"f"`):strings.Index(string(doc), `}}}]`)])
	if got := walk(b, ""); got != `c=[{"d":{"e":{"f":2,"g":3}}}];c="x";` {
		t.Fatalf("b's members = %s", got)
	}
	if got := walk(d, ""); got != `d={"e":{"f":2,"g":3}};` {
		t.Fatalf("d's members = %s", got)
	}
	if n := len(ix.objs); n != 3 {
		t.Fatalf("%d objects noted, want 3 (the record, b's, the array's {\"d\"...} at the fourth level; not d's value, the fifth, nor the empty h)", n)
	}
	// b's closing brace blanked after the pass: a scan would run on
	// past b's end; the noted members end where the pass found.
	doc[strings.Index(string(doc), `"x"}`)+3] = ' '
	var scanned strings.Builder
	(*valueIndex)(nil).members(doc, func(k []byte, _ bool, val rawValue) bool {
		fmt.Fprintf(&scanned, "%s=%s;", k, val)
		return true
	})
	wantOver := strings.Replace(want, `"x"}`, `"x" `, 1)
	if got := walk(doc, ""); got != wantOver || scanned.String() == wantOver {
		t.Fatalf("members with b's brace blanked = %s (scanned %s), want %s: not read from the noted members", got, scanned.String(), wantOver)
	}
	if got := walk(e, ""); got != `f=2;g=3;` {
		t.Fatalf("e's members (scanned) = %s", got)
	}
	if got := walk(rawValue(`{"a":1,"b":2}`), ""); got != `a=1;b=2;` {
		t.Fatalf("members of other memory = %s", got)
	}
}

// TestASCIIAt: asciiAt's loads read a key's bytes and none around it
// (high bytes before and after it in the record), whatever byte stands
// wherever in keys of 0 to 20 bytes: true exactly for the ASCII keys of
// 1 to 16 bytes that end eight bytes or more into the record, never true
// for a key that is not ASCII.
func TestASCIIAt(t *testing.T) {
	for lead := range 12 {
		for n := range 21 {
			for pos := range max(n, 1) {
				for _, c := range []byte{'a', 0x7f, 0x80, 0xc3, 0xff} {
					rec := bytes.Repeat([]byte{0xff}, lead+n+8)
					key := rec[lead : lead+n]
					for i := range key {
						key[i] = 'k'
					}
					if n > 0 {
						key[pos] = c
					}
					ascii := utf8.Valid(key) && bytes.IndexFunc(key, func(r rune) bool { return r >= utf8.RuneSelf }) < 0
					want := ascii && n > 0 && n <= 16 && lead+n >= 8
					base := unsafe.Pointer(unsafe.SliceData(rec))
					if got := asciiAt(base, int32(lead), int32(lead+n)); got != want {
						t.Fatalf("asciiAt(%x at %d) = %v, want %v", key, lead, got, want)
					}
				}
			}
		}
	}
}

// TestKeyValid: keyValid is utf8.Valid of the key, whatever byte stands
// wherever in keys of 0 to 40 bytes (ASCII, a lone high byte, a UTF-8
// sequence cut or whole) with high bytes before and after them in the
// record: its words read the key's bytes and none around it.
func TestKeyValid(t *testing.T) {
	for lead := range 12 {
		for n := range 41 {
			for pos := range max(n, 1) {
				for _, c := range []string{"a", "\x7f", "\x80", "\xc3", "\xff", "é", "€"} {
					rec := bytes.Repeat([]byte{0xff}, lead+n+8)
					key := rec[lead : lead+n]
					for i := range key {
						key[i] = 'k'
					}
					if n > 0 {
						copy(key[pos:], c)
					}
					base := unsafe.Pointer(unsafe.SliceData(rec))
					if got, want := keyValid(base, int32(lead), int32(lead+n), key), utf8.Valid(key); got != want {
						t.Fatalf("keyValid(%x at %d) = %v, want %v", key, lead, got, want)
					}
				}
			}
		}
	}
}

// memberKeyRef is memberKey as validString reads the key, the reference
// for memberKey's own reading of short keys.
func memberKeyRef(b []byte, i int) (val, end int, esc bool) {
	if i >= len(b) || b[i] != '"' {
		return -1, -1, false
	}
	if end, esc = validString(b, i); end < 0 {
		return -1, -1, false
	}
	j := skipSpace(b, end)
	if j >= len(b) || b[j] != ':' {
		return -1, -1, false
	}
	return skipSpace(b, j+1), end, esc
}

// checkMemberKey holds memberKey to memberKeyRef at b[i], and the
// indexing pass's reading of the key of the record at b[i-1] ('{'): its
// verdict validValue's, the key's span and esc and the value's start
// noted as memberKeyRef reads them.
func checkMemberKey(t *testing.T, b []byte, i int) {
	t.Helper()
	val, end, esc := memberKeyRef(b, i)
	if got := memberKey(b, i); got != val {
		t.Fatalf("memberKey(%q, %d) = %d, want %d", b, i, got, val)
	}
	if i < 1 || b[i-1] != '{' {
		return
	}
	var ix valueIndex
	want := validValue(b, i-1)
	if got := ix.pass(b, i-1); got != want {
		t.Fatalf("ix.pass(%q) = %d, validValue %d", b[i-1:], got, want)
	}
	if want < 0 || val < 0 {
		return
	}
	if m := ix.mems[0][0]; int(m.key) != i+1 || int(m.keyEnd) != end-1 || int(m.val) != val || m.esc != esc {
		t.Fatalf("ix.pass(%q) noted %+v, want key [%d, %d) esc %v, value at %d", b, m, i+1, end-1, esc, val)
	}
}

// TestMemberKey: a key read by its words' stops reads as validString
// reads it, whatever byte (a quote, a backslash, a control byte, one
// over 0x7f) stands wherever in keys of 0 to 24 bytes, up to the end of
// the record or far from it.
func TestMemberKey(t *testing.T) {
	for n := range 25 {
		for pos := range max(n, 1) {
			for _, c := range []string{"a", `"`, `\`, `\n`, `\"`, `\u0041`, `\x`, "\x1f", "\x80", "é"} {
				key := strings.Repeat("k", n)
				if n > 0 {
					key = key[:pos] + c + key[pos+1:]
				}
				for _, tail := range []string{`:1}`, ` : 1}`, `:`, `1}`, `: "` + strings.Repeat("v", 20) + `"}`} {
					b := []byte(`{"` + key + `"` + tail)
					for cut := len(b); cut > 0 && cut > len(b)-20; cut-- {
						checkMemberKey(t, b[:cut], 1)
					}
				}
			}
		}
	}
}

// FuzzMemberKey holds memberKey to validString's reading of the key on
// any bytes.
func FuzzMemberKey(f *testing.F) {
	for _, s := range []string{`"a":1`, `"type":"x"`, `"0123456789abcdef":1`, `"0123456789abcde\"":1`, `"a\u0041b" :2`, "\"a\x01\":1", `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkMemberKey(t, b, 0)
		checkMemberKey(t, append([]byte{'{'}, b...), 1)
	})
}

// TestPassShortPaths holds the pass's in-line readings to validValue and
// the scanning walk: a string value read by its words (shortString), a
// key with its colon and value's first byte next to it, the byte after a
// value, each with an escape, a control byte, a byte over 0x7f, space or
// the record's end at every place around them.
func TestPassShortPaths(t *testing.T) {
	var cases, whole []string                 // cases are also cut at every length
	pad := strings.Repeat("p", 2*shortString) // room after: the words are read in line
	for n := 0; n <= shortString+10; n++ {
		body := strings.Repeat("a", n)
		cases = append(cases, `{"k":"`+body+`","b":1}`, `["`+body+`",2]`)
		whole = append(whole, `["`+body+`","`+pad+`"]`)
		for p := 0; p < n; p++ {
			for _, c := range []string{`\"`, `\\`, `\n`, `\u0041`, `\x`, "\x01", "\xc3\xa9", "\xff", `"`, " ", "!", "#", "\x7f"} {
				s := body[:p] + c + body[p:]
				whole = append(whole, `{"k":"`+s+`","b":1}`, `{"k":"`+s+`"}`, `["`+s+`"]`, `{"k":"`+s+`","b":1,"pad":"`+pad+`"}`)
			}
		}
	}
	for n := 0; n <= 30; n++ { // keys of one, two and three words and past
		key := strings.Repeat("k", n)
		for _, sep := range []string{`:`, ` :`, `: `, ` : `, ":\t", `:`} {
			for _, v := range []string{`1`, `"v"`, `{}`, `[1]`, `{"x":"y"}`, `true`, ` `, ``} {
				cases = append(cases, `{"`+key+`"`+sep+v+`,"z":0}`, `{"`+key+`"`+sep+v+`}`, `{"a":{"`+key+`"`+sep+v+`}}`)
				whole = append(whole, `{"`+key+`"`+sep+v+`,"`+pad+`":0}`)
			}
		}
		cases = append(cases, `{"`+key+`\u0041":1}`, `{"`+key+`\"":1}`, `{"`+key+"\xc3\xa9"+`":1}`, `{"`+key)
		// What looseStopMask stops at besides a stop, in a key and past it.
		for _, c := range []string{" ", "!", "#", "\x7f", "\xc3\xa9", "\x01"} {
			cases = append(cases, `{"`+key+c+`":1}`, `{"`+c+key+`":1,"z":0}`)
		}
	}
	// A comma and the next key's quote told by one load (`,"` and `, "`),
	// or not (other blanks, an array's string): keys of every length up to
	// three words and past, with room after and cut short (below).
	for n := 0; n <= 30; n++ {
		key := strings.Repeat("k", n)
		for _, sep := range []string{`,"`, `, "`, `,  "`, ` ,"`, ",\n\"", `,"\u0041`, `,"\"`, `,"` + "\xc3\xa9", `,"!`} {
			cases = append(cases, `{"a":1`+sep+key+`":2}`, `{"a":{"b":"c"`+sep+key+`":[]},"d":0}`, `["a"`+sep+key+`",1]`, `1`+sep+key+`"`)
			whole = append(whole, `{"a":1`+sep+key+`":2,"`+pad+`":0}`, `{"a":"x"`+sep+key+`" : "`+pad+`"}`, `{"a":[1]`+sep+key+`": 2`+sep+pad+`":0}`)
		}
	}
	for _, after := range []string{`,`, ` ,`, `, `, ` , `, `}`, ` }`, `]`, ` `, ``, `,}`, `,]`, `,1`, `x`} {
		cases = append(cases, `{"a":1`+after+`"b":2}`, `{"a":"s"`+after, `[1`+after+`2]`, `{"a":[1]`+after+`"b":{}}`, `[{"a":1}`+after+`{"b":2}]`)
	}
	for _, c := range cases {
		// Every prefix: a record cut inside each reading.
		for end := len(c); end >= 0; end-- {
			checkValueIndex(t, []byte(c[:end]))
		}
		checkValueIndex(t, []byte(c))
	}
	for _, c := range whole {
		checkValueIndex(t, []byte(c))
	}
}
