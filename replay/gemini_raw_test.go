package replay

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzGeminiKeyRaw: a tool call's key written from the args' bytes
// (appendJSRaw, with and without the record's index) is the key written
// from parseJS's tree, JSON.stringify(JSON.parse(args)).
func FuzzGeminiKeyRaw(f *testing.F) {
	long := strings.Repeat("y", 2*indexMin)
	for _, s := range []string{
		`{"command":"make"}`, `{"b":1,"a":[1,2.50,-0,1e21,1E-7,"x"],"c":{"d":null,"e":true,"f":false}}`,
		`{"2":1,"b":1e21,"1":"\u00e9","b":-0}`, `{"a":"\ud800\n\"\\\/"}`, `{"a":1,"a":2}`, `{"0":1}`, `{"b":1,"1":2}`, `{"01":1}`,
		`{"ke\u0079":1}`, `"text"`, `""`, `0`, `-0.0`, `[]`, `{}`, `null`, `false`, `true`, `123456789012345678901234`,
		`{"p":"` + long + `","q":[{"r":"` + long + `"}]}`, `{"a":1e400,"b":-1e400,"c":1e-400}`, `[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]`,
		"{\"a\":\"\xff\xfe\",\"\xc3\xa9\":1}", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19,"t":20,"u":21,"v":22,"w":23,"x":24,"y":25,"z":26,"A":27,"B":28,"C":29,"D":30,"E":31,"F":32,"G":33}`,
		// Repeated keys past the first four (appendJSRaw holds four
		// keys on the stack, the others in a grown slice), and 32 keys.
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"c":6}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"f":8}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"a":6}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19,"t":20,"u":21,"v":22,"w":23,"x":24,"y":25,"z":26,"A":27,"B":28,"C":29,"D":30,"E":31,"F":32}`,
	} {
		f.Add(" f ", []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		var ix valueIndex
		i := skipSpace(data, 0)
		end := validValueIx(data, i, &ix)
		if end < 0 || skipSpace(data, end) != len(data) || hasNonFinite(data) {
			return // recordRaw reads no such record in place
		}
		v := rawValue(data[i:end])
		var want string
		if !jsTruthyRaw(v) {
			want = geminiKey(name, &jsValue{kind: jsObject})
		} else {
			tree, err := parseJS(data)
			if err != nil {
				t.Fatalf("%q: validated, parseJS refused it: %v", data, err)
			}
			want = geminiKey(name, tree)
		}
		if got := geminiKeyRaw(&ix, name, v); got != want {
			t.Fatalf("%q %q: indexed %q, want %q", name, data, got, want)
		}
		if got := geminiKeyRaw(nil, name, v); got != want {
			t.Fatalf("%q %q: %q, want %q", name, data, got, want)
		}
	})
}

// BenchmarkJSUnquote reads the strings a Gemini CLI record is made of: a
// tool output of source lines (a newline escape every forty bytes or so),
// one with a quote and a tab, and a plain one.
func BenchmarkJSUnquote(b *testing.B) {
	line := `    if err := run(cfg); err != nil { return err }\n`
	vals := []rawValue{
		rawValue(`"` + strings.Repeat(line, 40) + `"`),
		rawValue(`"main.go:12: undefined: \"cfg\"\tmake: *** [all] Error 1"`),
		rawValue(`"I'll run the build first, then read the file it names."`),
	}
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, v := range vals {
			if _, ok := jsUnquote(v); !ok {
				b.Fatal("not a string")
			}
		}
	}
}

// jsUnquoteOld is jsUnquote before it unescaped and checked in one pass:
// FuzzJSUnquote holds the new one to it.
func jsUnquoteOld(v rawValue) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	valid := utf8.Valid(body)
	if valid && bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	if valid && !bytes.Contains(body, []byte(`\u`)) {
		return string(appendUnescaped(nil, body, true)), true
	}
	p := &jsParser{b: v}
	s, _ := p.string()
	return s, true
}

// FuzzJSUnquote: jsUnquote reads every validated string as the reading
// it replaced, and as jsParser (JSON.parse's WTF-8) does; so does
// jsUnquoteView (its view of a plain ASCII string told by plainASCII).
func FuzzJSUnquote(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud800\udc00"`, `"\ud800\u0041"`, `"\udc00"`, "\"\xff\xfe a\\n\"", `"\u00e9\/\\\""`,
		"\"\xed\xa0\x80\\t\"", "\"\xc3\\n\xa9\"", `"\\u"`, `"x\n\u0000"`, `""`, `"\t\r\b\f"`, `"id-\u0031"`, `"0123456\\"`,
		"\"\xe9t\xe9\"", "\"status\x80\"", `"read_file"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] != '"' {
			return
		}
		end, _ := validString(raw, 0)
		if end < 0 {
			return
		}
		v := rawValue(raw[:end])
		got, ok := jsUnquote(v)
		want, wantOK := jsUnquoteOld(v)
		p := &jsParser{b: v}
		js, _ := p.string()
		if got != want || ok != wantOK || got != js {
			t.Fatalf("%q: jsUnquote %q %v, before %q %v, jsParser %q", v, got, ok, want, wantOK, js)
		}
		if view, ok := jsUnquoteView(v); view != js || !ok {
			t.Fatalf("%q: jsUnquoteView %q %v, jsParser %q", v, view, ok, js)
		}
		checkUnquoteCopy(t, v, js)
	})
}

// unquoteCopyReader is the reader checkUnquoteCopy writes outputs with, one
// for the whole test: its block holds the outputs of the values before.
var unquoteCopyReader = struct {
	g    geminiReader
	outs []string // what unquoteCopy returned
	want []string // what jsParser read
}{}

// checkUnquoteCopy: unquoteCopy reads v as jsParser does (js), into the
// reader's block, and leaves every output it returned before as it was
// (an unescape given up at a \u escape, or on bytes that are not UTF-8,
// writes past the block's length only).
func checkUnquoteCopy(t *testing.T, v rawValue, js string) {
	t.Helper()
	r := &unquoteCopyReader
	got, ok := r.g.unquoteCopy(v)
	if got != js || !ok {
		t.Fatalf("%q: unquoteCopy %q %v, jsParser %q", v, got, ok, js)
	}
	r.outs, r.want = append(r.outs, got), append(r.want, js)
	for i := range r.outs {
		if r.outs[i] != r.want[i] {
			t.Fatalf("%q: output %d before it now %q, was %q", v, i, r.outs[i], r.want[i])
		}
	}
	if len(r.outs) > 64 {
		r.outs, r.want = r.outs[:0], r.want[:0]
	}
}

// TestUnquoteCopy: unquoteCopy reads as jsParser does strings of every
// kind one after the other, short and long (past outputBlock/4, and
// across a block's end), and keeps each output it returned.
func TestUnquoteCopy(t *testing.T) {
	for i, s := range []string{`"a\nb"`, `"\ud800\udc00"`, `"x\n\ud800"`, "\"\xff\xfe a\\n\"", "\"\xc3\\n\xa9\"", `""`, `"\t\r\b\f"`,
		`"` + strings.Repeat(`ab\n`, outputBlock/8) + `"`, `"` + strings.Repeat(`ab\n`, outputBlock/13) + `\u0041"`,
		`"` + strings.Repeat("xy", outputBlock/7) + `"`, `"` + strings.Repeat(`é\\`, outputBlock/17) + `"`} {
		for j := range 3 + i {
			v := rawValue(`"` + strconv.Itoa(j) + s[1:]) // each output its own
			p := &jsParser{b: v}
			js, err := p.string()
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			checkUnquoteCopy(t, v, js)
		}
	}
}

// TestGeminiFreeMsgs: the messages let go of are kept for newMsg up to
// geminiFreeMax (a session read whole lets all of them go at its end),
// each cleared, its steps' array empty; a message written again is one
// of them, and a message reduced after it reuses it.
func TestGeminiFreeMsgs(t *testing.T) {
	g := &geminiReader{}
	for i := range 3 * geminiFreeMax {
		line := `{"id":"m` + strconv.Itoa(i) + `","type":"gemini","content":"t","toolCalls":[{"name":"f","args":{}}]}`
		if _, reason := g.recordRaw([]byte(line), i+1); reason != "" {
			t.Fatal(reason)
		}
	}
	if _, reason := g.recordRaw([]byte(`{"id":"m0","type":"gemini","content":"u"}`), 0); reason != "" || len(g.freeMsgs) != 1 {
		t.Fatalf("written again: %q, %d kept", reason, len(g.freeMsgs))
	}
	kept := g.freeMsgs[0]
	if kept.id != "" || len(kept.steps) != 0 || cap(kept.steps) != 2 {
		t.Fatalf("kept %+v, its steps' room %d", kept, cap(kept.steps))
	}
	if r := g.reduceRaw(nil, rawValue(`{"id":"x","type":"gemini","content":"v"}`)); r.msg != kept || len(r.msg.steps) != 1 || r.msg.steps[0].output != "v" {
		t.Fatalf("reduced into %p (kept %p), steps %+v", r.msg, kept, r.msg.steps)
	}
	if steps := g.finish(); len(steps) != 1+2*(3*geminiFreeMax-1) || len(g.freeMsgs) != geminiFreeMax {
		t.Fatalf("%d steps, %d kept", len(steps), len(g.freeMsgs))
	}
}

// TestGeminiTouch: a record geminiTouch passes over unread is read by
// parseJS's tree as nothing at all (no step, reason, note or resume), and
// one it does not take, the shapes around it (other members, escapes, a
// string left open or closed early, white space, bytes after it), is
// read as before: the same steps, reasons and notes as the tree. Each
// record follows a message held, so that a "$set" of sessionId is noted.
func TestGeminiTouch(t *testing.T) {
	for _, c := range []struct {
		rec   string
		touch bool
	}{
		{`{"$set":{"lastUpdated":"2025-11-12T14:00:05.185Z"}}`, true},
		{`{"$set":{"lastUpdated":""}}`, true},
		{`{"$set":{"lastUpdated":"a\"b\\c\u0041\ud800"}}`, true},
		{"{\"$set\":{\"lastUpdated\":\"\xff\xfe é\"}}", true},
		{`{"$set":{"lastUpdated":"a","sessionId":"s"}}`, false},
		{`{"$set":{"lastUpdated":"a","messages":[]}}`, false},
		{`{"$set":{"lastUpdated":"a","$set":{}}}`, false},
		{`{"$set":{"lastUpdated":"a"},"id":"m"}`, false},
		{`{"$set":{"lastUpdated":"a"}}}`, false},
		{`{"$set":{"lastUpdated":"a"}} `, false},
		{`{"$set":{"lastUpdated":"a}}`, false},
		{`{"$set":{"lastUpdated":"a\"}}`, false},
		{`{"$set":{"lastUpdated":"a\x"}}`, false},
		{`{"$set":{"lastUpdated":"a\u00"}}`, false},
		{"{\"$set\":{\"lastUpdated\":\"a\x01\"}}", false},
		{"{\"$set\":{\"lastUpdated\":\"a\n\"}}", false},
		{`{"$set":{"lastUpdated":"a"}"}}`, false},
		{`{"$set":{"lastUpdated":"a","b":"}}`, false},
		{`{"$set":{"lastUpdated":1}}`, false},
		{`{"$set":{"lastUpdated":"}}`, false},
		{`{"$set":{"lastUpdated":"`, false},
		{`{"$set":{"lastUpdated": "a"}}`, false},
		{`{"$set":{"sessionId":"s","lastUpdated":"a"}}`, false},
	} {
		if got := geminiTouch([]byte(c.rec)); got != c.touch {
			t.Errorf("%q: geminiTouch %v, want %v", c.rec, got, c.touch)
		}
		o, n := &geminiTree{}, &geminiReader{}
		for i, rec := range []string{`{"id":"m","type":"gemini","content":"t"}`, c.rec, `{"id":"n","type":"user","content":"u"}`} {
			ro, wo := o.recordRaw([]byte(rec), i+1)
			rn, wn := n.recordRaw([]byte(rec), i+1)
			if wo != wn || !reflect.DeepEqual(ro, rn) || n.lastLine != o.lastLine || n.epoch != o.epoch {
				t.Fatalf("%q: got %+v %q (line %d, epoch %d), want %+v %q (line %d, epoch %d)", rec, rn, wn, n.lastLine, n.epoch, ro, wo, o.lastLine, o.epoch)
			}
		}
		fo, fn := o.finish(), n.finish()
		if !reflect.DeepEqual(fo, fn) || !reflect.DeepEqual(o.notes(), n.notes()) {
			t.Fatalf("%q, finish:\n got %+v %q\nwant %+v %q", c.rec, fn, n.notes(), fo, o.notes())
		}
	}
}

// TestJSUnquoteViewNotString: jsUnquoteView reads a value that is not a
// string (absent, a number, a literal, a container) as jsUnquote does,
// which it no longer calls for one.
func TestJSUnquoteViewNotString(t *testing.T) {
	for _, v := range []rawValue{nil, {}, rawValue("null"), rawValue("0"), rawValue("-1.5"), rawValue("true"), rawValue("false"), rawValue("{}"), rawValue(`["a"]`), rawValue(`{"a":"b"}`)} {
		got, ok := jsUnquoteView(v)
		want, wantOK := jsUnquote(v)
		if got != want || ok != wantOK {
			t.Errorf("%q: jsUnquoteView %q %v, jsUnquote %q %v", v, got, ok, want, wantOK)
		}
	}
}

// TestGeminiTouchWords holds geminiTouch's words (the head's, the string's
// stops) to the head's bytes and validString: a time of 0 to 40 bytes,
// each of its bytes in turn (and the byte after it) a quote, a backslash
// (with an escape and without), a control byte, a byte over 0x7f (UTF-8
// or not), the head changed at each of its bytes, and the record cut or
// run on at its end.
func TestGeminiTouchWords(t *testing.T) {
	ref := func(raw []byte) bool {
		n := len(raw)
		if n < len(geminiTouchHead)+3 || raw[n-1] != '}' || raw[n-2] != '}' || string(raw[:len(geminiTouchHead)]) != geminiTouchHead {
			return false
		}
		end, _ := validString(raw, len(geminiTouchHead)-1)
		return end == n-2
	}
	check := func(raw []byte) {
		t.Helper()
		if got, want := geminiTouch(raw), ref(raw); got != want {
			t.Fatalf("geminiTouch(%q) = %v, want %v", raw, got, want)
		}
	}
	subs := []string{"\"", "\\", "\\n", "\\u0041", "\\x", "\x01", "\n", "\x7f", "\xff", "\xc3\xa9", "\xe2\x82", "}", "a"}
	for n := 0; n <= 40; n++ {
		body := []byte(strings.Repeat("2", n))
		rec := func(b []byte) []byte { return append(append([]byte(geminiTouchHead), b...), `"}}`...) }
		check(rec(body))
		for at := 0; at < n; at++ {
			for _, s := range subs {
				b := append(append(append([]byte{}, body[:at]...), s...), body[at+1:]...)
				check(rec(b))
			}
		}
		r := rec(body)
		for at := range r {
			b := append([]byte{}, r...)
			b[at] ^= 0x20
			check(b)
			check(r[:at])
		}
		check(append(r, ' '))
		check(append(r, '}'))
	}
}
