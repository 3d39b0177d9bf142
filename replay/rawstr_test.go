package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzUnquoteBody holds the fast unescape to json.Unmarshal's string,
// for every string validValue accepts.
func FuzzUnquoteBody(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00\ud800x\udc00"`, "\"\xff\xfe\\t\xc3\"", `"\u00e9\/\\\"\b\f\r"`, `"\ud800\u0041"`, `"\ud800\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) < 2 || raw[0] != '"' || validValue(raw, 0) != len(raw) {
			return
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("validValue accepted %q, encoding/json refused it: %v", raw, err)
		}
		if got := unquoteBody(raw[1 : len(raw)-1]); got != want {
			t.Fatalf("unquoteBody(%q) = %q, encoding/json %q", raw, got, want)
		}
		// In a scratch block, after a string it holds, filling its room.
		var s scratchText
		held, _ := s.str(rawValue(`"held"`))
		s.buf = s.buf[:cap(s.buf)-len(raw)/2]
		if got, _ := s.str(rawValue(raw)); got != want || held != "held" {
			t.Fatalf("scratchText.str(%q) = %q after %q, encoding/json %q", raw, got, held, want)
		}
	})
}

// A scratchText's strings stay as written until reset, whether the next
// fits the block's room, outgrows it while written (invalid UTF-8 grows
// to U+FFFD) or is larger than a block.
func TestScratchTextHeld(t *testing.T) {
	var s scratchText
	var held, want []string
	for i, raw := range []string{`"a\nb"`, `"` + strings.Repeat("x", 3000) + `"`, `"` + strings.Repeat("\xff", 1) + `"`,
		`"` + strings.Repeat(`\u00e9`, 2000) + `"`, "\"" + strings.Repeat("\xfe", 3000) + "\"", `"` + strings.Repeat("y", 20000) + `"`, `""`, `null`} {
		got, ok := s.str(rawValue(raw))
		var w string
		if raw != "null" {
			w, _ = rawValue(raw).Str()
		}
		if !ok || got != w {
			t.Fatalf("string %d: %q, %v; want %q", i, got, ok, w)
		}
		held, want = append(held, got), append(want, w)
	}
	for i := range held {
		if held[i] != want[i] {
			t.Errorf("string %d written over: %q, want %q", i, held[i], want[i])
		}
	}
	s.reset()
	if len(s.buf) != 0 {
		t.Errorf("reset left %d bytes", len(s.buf))
	}
}

// FuzzParseFields holds the one-pass reading of a record's top-level
// members to parseRecord and Fields: the same verdict, value and members.
func FuzzParseFields(f *testing.F) {
	for _, s := range []string{` {"a":1,"b":[NaN],"a":"x\n"} `, `{"k\u0065y":2,"\xff":3}`, `{"a":1} {"b":2}`, `[1]`, `{"a":}`, "\t{}\r\n", `{"a":Infinity}`} {
		f.Add([]byte(s))
	}
	// Names of one length (a chain of jsKeys), of 63 bytes and more (one
	// bucket), not UTF-8 once read, not ASCII, not UTF-8 (a key of its
	// bytes is read as "\ufffd").
	long := strings.Repeat("k", 63)
	keys := []string{"a", "key", "b", "\ufffd", "yek", long, long + "x", long + "y", "\xff", "é", "\xffé"}
	for _, s := range []string{"{\"\xff\":1,\"é\":2}", "{\"\xffé\":1,\"\\u00e9\":2}", "{\"\xff\xff\":1}"} {
		f.Add([]byte(s))
	}
	for _, k := range keys[4:8] {
		f.Add([]byte(`{"` + k + `":1,"` + k[:len(k)-1] + `":2,"key":3}`))
	}
	ks := newJSKeys(keys...)
	got, want := make([]rawValue, len(keys)), make([]rawValue, len(keys))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := parseFields(raw, ks, got)
		w, werr := parseRecord(raw, true)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("%q: error %v, parseRecord %v", raw, err, werr)
		}
		if err != nil {
			return
		}
		if string(v) != string(w) {
			t.Fatalf("%q: value %q, parseRecord %q", raw, v, w)
		}
		w.Fields(keys, want)
		for i := range keys {
			if got[i].Kind() != want[i].Kind() || got[i].Text() != want[i].Text() || (got[i] == nil) != (want[i] == nil) {
				t.Fatalf("%q: %s = %q, Fields %q", raw, keys[i], got[i], want[i])
			}
		}
	})
}

// TestKeyWord: a key of 8 bytes or fewer and a name of its length have
// one word exactly when they are the same bytes, the key alone in its
// array or followed by other bytes (the line's), which are masked off.
func TestKeyWord(t *testing.T) {
	names := []string{"", "a", "b", "ab", "ba", "step", "kind", "error", "score", "action", "output", "location", "llm_loop", "exit_code", "\xff", "é", "a\x00", "\x00a"}
	for _, name := range names {
		for _, key := range names {
			for _, after := range []string{"", `"`, `": 1, "x": 2}`, "\x00\x00\x00\x00\x00\x00\x00\x00\x00"} {
				line := []byte(key + after)
				k := line[:len(key):len(line)]
				w, short := keyWord(k)
				if short != (len(key) <= 8) {
					t.Fatalf("keyWord(%q) short %v", key, short)
				}
				if !short || len(name) != len(key) {
					continue
				}
				if got, want := w == shortWord(name), key == name; got != want {
					t.Errorf("key %q (then %q), name %q: words equal %v, want %v", key, after, name, got, want)
				}
			}
		}
	}
}

// appendUnescapedRef is appendUnescaped as it was before unescapeRun: the
// runs between backslashes found with bytes.IndexByte and appended whole
// (through appendUTF8 when body is not valid), each escape written by
// appendUnescape.
func appendUnescapedRef(out, body []byte, valid bool) []byte {
	for len(body) > 0 {
		run := body
		k := bytes.IndexByte(body, '\\')
		if k >= 0 {
			run = body[:k]
		}
		if valid {
			out = append(out, run...)
		} else {
			out = appendUTF8(out, run)
		}
		if k < 0 {
			break
		}
		var n int
		out, n = appendUnescape(out, body[k:])
		body = body[k+n:]
	}
	return out
}

// checkUnescaped holds appendText and appendUnescaped (told the body's
// UTF-8 is valid or not, and told it is not when it is) to
// appendUnescapedRef, appending to a held prefix in a slice of each room.
func checkUnescaped(t *testing.T, body []byte) {
	t.Helper()
	valid := utf8.Valid(body)
	want := appendUnescapedRef([]byte("prefix"), body, valid)
	for _, room := range []int{0, len(body) / 2, len(body), 3*len(body) + 8} {
		fns := []struct {
			name string
			fn   func(out []byte) []byte
		}{
			{"appendText", func(out []byte) []byte { return appendText(out, body) }},
			{"appendUnescaped", func(out []byte) []byte { return appendUnescaped(out, body, valid) }},
			{"appendUnescaped, not valid", func(out []byte) []byte { return appendUnescaped(out, body, false) }},
		}
		for _, f := range fns {
			if f.name == "appendUnescaped, not valid" && valid && !bytes.Equal(appendUnescapedRef(nil, body, false), want[len("prefix"):]) {
				t.Fatalf("appendUnescapedRef(%q) reads the valid body as invalid otherwise", body)
			}
			out := append(make([]byte, 0, len("prefix")+room), "prefix"...)
			if got := f.fn(out); !bytes.Equal(got, want) {
				t.Fatalf("%s(%q), room %d = %q, want %q", f.name, body, room, got, want)
			}
		}
	}
}

// appendText and appendUnescaped write what appendUnescapedRef writes,
// for bodies of every length up to 40 bytes (the 16-byte steps and their
// tails) made of plain ASCII, two-byte escapes, \u escapes (surrogates,
// paired or lone), multi-byte UTF-8 and invalid bytes, placed anywhere.
func TestAppendUnescapedRef(t *testing.T) {
	pieces := []string{"a", "xyz", `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00x`, "é", "€", "\xff", "\xe2\x82", "\x7f", "0123456789abcdef"}
	for n := range 41 {
		for i := range pieces {
			for j := range pieces {
				for _, k := range []int{0, 3, 9} {
					b := bytes.Repeat([]byte{'q'}, n)
					b = append(b, pieces[i]...)
					b = append(b, bytes.Repeat([]byte{'r'}, k)...)
					b = append(b, pieces[j]...)
					b = append(b, bytes.Repeat([]byte{'s'}, n%17)...)
					checkUnescaped(t, b)
					checkUnescaped(t, b[n:])
				}
			}
		}
	}
}

// FuzzAppendText holds appendText and appendUnescaped to
// appendUnescapedRef for every string validValue accepts.
func FuzzAppendText(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00\ud800x\udc00"`, "\"\xff\xfe\\t\xc3\"", `"\u00e9\/\\\"\b\f\r"`, `"0123456789abcdef\n0123456789abcdef"`, "\"0123456789abcdé\\n\xff0123\"", `"\ud800\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) < 2 || raw[0] != '"' || validValue(raw, 0) != len(raw) {
			return
		}
		body := raw[1 : len(raw)-1]
		checkUnescaped(t, body)
		// Copied as an output, after one the block holds, filling its room.
		want := string(appendUnescapedRef(nil, body, utf8.Valid(body)))
		var c outputCopies
		held := c.unescaped(rawValue(`"held"`))
		c.block = c.block[:max(cap(c.block)-len(raw)/2, len(c.block))]
		if got := c.unescaped(rawValue(raw)); got != want || held != "held" {
			t.Fatalf("outputCopies.unescaped(%q) = %q after %q, want %q", raw, got, held, want)
		}
	})
}

// BenchmarkAppendText: a tool's output (BenchmarkUnescapeRun's) unescaped
// by appendText, and as before it by utf8.Valid and appendUnescapedRef.
func BenchmarkAppendText(b *testing.B) {
	var s []byte
	for i := range 40 {
		s = append(s, strings.Repeat("x", 20+i*7%51)...)
		s = append(s, `\n`...)
	}
	out := make([]byte, 0, len(s))
	b.Run("appendText", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			out = appendText(out[:0], s)
		}
	})
	b.Run("appendUnescapedRef", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			out = appendUnescapedRef(out[:0], s, utf8.Valid(s))
		}
	})
}

// checkCopyString holds copyString to validString and appendText: the
// same end, and the text appendText writes of the string it accepts.
func checkCopyString(t *testing.T, b []byte, i int) {
	t.Helper()
	wantEnd, _ := validString(b, i)
	end, text := copyString(b, i, make([]byte, len(b)-i))
	if end != wantEnd {
		t.Fatalf("copyString(%q, %d) ends at %d, validString at %d", b, i, end, wantEnd)
	}
	if end >= 0 {
		if want := appendText(nil, b[i+1:end-1]); !bytes.Equal(text, want) {
			t.Fatalf("copyString(%q, %d) = %q, appendText %q", b, i, text, want)
		}
	}
}

// copyString validates and writes as validString and appendText do,
// for strings made of plain ASCII, escapes (two-byte, \u, surrogates,
// bad ones), multi-byte UTF-8, invalid bytes and control bytes, each
// piece at every place relative to copyStringRun's steps, in the two
// lines that copy strings: a steps line's output (spaced, more members
// after it, up to 80 bytes) and a Codex line's (compact, closing the line
// with 0 to 40 bytes more, up to 100 bytes: the steps stop 32 bytes from
// its end), closed or cut.
func TestCopyString(t *testing.T) {
	pieces := []string{"a", `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\u12`, `\x`, "é", "\xff", "\x01", "\x7f", `"`, "0123456789abcdef0123456789abcdef"}
	codexTails := []string{``, `\`, `"`, `"}`, `"}}`}
	for k := 1; k <= 40; k++ {
		codexTails = append(codexTails, `"`+strings.Repeat("}", k))
	}
	for _, line := range []struct {
		head  string // the line up to its string, with the opening quote
		max   int    // the longest run of plain bytes before the pieces
		tails []string
	}{
		{`{"output": "`, 80, []string{`", "kind": "action"}`, `"}`, ``, `\`}},
		{`{"output":"`, 100, codexTails},
	} {
		for n := range line.max + 1 {
			for i := range pieces {
				for j := range pieces {
					for _, tail := range line.tails {
						b := []byte(line.head)
						b = append(b, bytes.Repeat([]byte{'q'}, n)...)
						b = append(b, pieces[i]...)
						b = append(b, bytes.Repeat([]byte{'r'}, n%37)...)
						b = append(b, pieces[j]...)
						b = append(b, tail...)
						checkCopyString(t, b, len(line.head)-1)
					}
				}
			}
		}
	}
}

func FuzzCopyString(f *testing.F) {
	for _, s := range []string{
		`{"output": "a\nb", "x": 1}`, `"0123456789abcdef0123456789abcdef0123456789\n\u00e9\ud800x"}`, "\"\xff\xfe\\t\xc3 0123456789abcdef0123456789abcdef\"", `"\ud800\\"`,
		// A Codex line's output, closing it.
		`{"output":"a\nb"}}`, `"0123456789abcdef0123456789abcdef0123456789\n\u00e9\ud800x"}}`, "\"\xff\xfe\\t\xc3 0123456789abcdef0123456789abcdef\"}",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, from uint8) {
		if len(b) == 0 {
			return
		}
		if i := bytes.IndexByte(b[int(from)%len(b):], '"'); i >= 0 {
			checkCopyString(t, b, int(from)%len(b)+i)
		}
	})
}

// FuzzLineStepCopy: a steps line read with its output written in the
// validating pass (lineCopy) gives the step read without, output and
// all, and the outputs it kept stay as they were while lines after are
// read (a line cut, invalid, or naming its output twice or escaped).
func FuzzLineStepCopy(f *testing.F) {
	for _, s := range []string{
		`{"step": 1, "action": "ls", "output": "0123456789abcdef0123456789abcdef\nline two\u00e9", "error": false}`,
		`{"step": 2, "output": "first", "output": "second, 0123456789abcdef0123456789abcdef"}`,
		`{"step": 3, "outp\u0075t": "escaped key 0123456789abcdef0123456789abcdef"}`,
		`{"step": 4, "output": "0123456789abcdef0123456789abcdef", "output": 5}`,
		`{"step": 5, "output": "0123456789abcdef0123456789abcdef\x01"}`,
		"{\"output\": \"\xff\xfe 0123456789abcdef0123456789abcdef\", \"kind\": \"message\"}",
		`{"output": "0123456789abcdef0123456789abcdef0123", "x": }`,
	} {
		f.Add([]byte(s), []byte(`{"step": 9, "output": "after 0123456789abcdef0123456789abcdef\n"}`))
	}
	f.Fuzz(func(t *testing.T, line, next []byte) {
		plain, copying := newStepPaths(nil), newStepPaths(nil)
		copying.copies = &outputCopies{}
		want, wantErr := lineStep(line, plain)
		got, gotErr := lineStep(line, copying)
		got.outCopied = false
		if gotErr != wantErr || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: %+v %q, without the copy %+v %q", line, got, gotErr, want, wantErr)
		}
		held := strings.Clone(got.output)
		wantNext, _ := lineStep(next, plain)
		gotNext, _ := lineStep(next, copying)
		if got.output != held || gotNext.output != wantNext.output {
			t.Fatalf("%q then %q: %q and %q, want %q and %q", line, next, got.output, gotNext.output, held, wantNext.output)
		}
	})
}
