package replay

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCanonWriter holds the writing from bytes to what the decoded value
// gives: canonicalJSON, json.Marshal (asText), and openHandsAction's
// marshalling of an object less its volatile keys.
func FuzzCanonWriter(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,1.0,2.50,-0,1e2,"x<y>&z\u2028"],"a":{"z":NaN,"y":"\ud800"}}`,
		`{"command":"ls","thought":"t","hidden":true,"x":{"b":"\u00e9\n","a":1e400}}`,
		"{\"k\\u0065y\":\"\xff\",\"\xc3\xa9\":[[],{}],\"\":0}", `[1,"a",{"b":2}]`, `"s\t"`, `-Infinity`, `12345678901234567890`,
		`{"q":1,"p":2,"o":3,"n":4,"m":5,"l":6,"k":7,"j":8,"i":9,"h":10,"g":11,"f":12,"e":13,"d":14,"c":15,"b":16,"a":17,"b":18,"ab":19,"":20}`,
		`{"kind":"K","is_error":false,"exit_code":1,"content":[],"command":"c","metadata":{"pid":-1,"prefix":""},"kind":"L","a<b":0,"a&":1,"\u00e9":2}`,
		`{"a":"abcdefgh\nijklmnop<qrstuvwx\tyz","b":"\u00e9 é  \\\" \/ \b\f\r","c":"0123456789abcdef&"}`, "\"\xe2\x80\xa8 12345678 \xe2\x80\xa9\"",
	} {
		f.Add([]byte(s))
	}
	var w canonWriter
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := parseRecord(raw, false)
		if err != nil {
			return
		}
		x := v.Any()
		w.buf = w.buf[:0]
		w.appendValue(v, true, nil)
		if got, want := string(w.buf), canonicalJSON(x); got != want {
			t.Fatalf("canonical %q, canonicalJSON %q", got, want)
		}
		if got, want := w.text(v), v.Text(); got != want {
			t.Fatalf("text %q, Text %q", got, want)
		}
		if m, ok := x.(map[string]any); ok {
			w.buf = append(w.buf[:0], "run "...)
			w.appendValue(v, false, openHandsVolatile)
			if got, want := string(w.buf), openHandsAction("run", m); got != want {
				t.Fatalf("action %q, openHandsAction %q", got, want)
			}
		}
		if x != nil {
			want, _ := json.Marshal(x)
			w.buf = w.buf[:0]
			w.appendValue(v, false, nil)
			if string(w.buf) != string(want) {
				t.Fatalf("marshal %q, json.Marshal %q", w.buf, want)
			}
		}
	})
}

// goVerbatimRef is goVerbatim a byte at a time, without the words.
func goVerbatimRef(body []byte) bool {
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == '\\':
			if i+1 >= len(body) || !strings.ContainsRune(`"\bfnrt`, rune(body[i+1])) {
				return false
			}
			i += 2
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return false
			}
			i += size
		case c == '<' || c == '>' || c == '&':
			return false
		default:
			i++
		}
	}
	return true
}

// goVerbatim's words agree with the byte loop whatever byte stands
// wherever among neighbours, those of a word passed and those around the
// one a word stops at: the escapes and runes that straddle two words, and
// bytes over 0x80 that a borrow might hide; up to 80 bytes, five 16-byte
// steps of the vector scan (verbatimRun) and every tail, every byte to
// 20 bytes, each kind of byte after.
func TestGoVerbatim(t *testing.T) {
	kinds := []int{0, '\\', '<', '>', '&', 'n', 'u', '"', 0x7f, 0x80, 0xc3, 0xe2, 0xff}
	for _, fill := range []string{"a", "\\n", "é", "\u2027", "\x81", "0"} {
		for n := range 81 {
			for pos := range n {
				for c := range 256 {
					if n > 20 && !slices.Contains(kinds, c) {
						continue
					}
					body := []byte(strings.Repeat(fill, n))[:n]
					body[pos] = byte(c)
					if got, want := goVerbatim(body), goVerbatimRef(body); got != want {
						t.Fatalf("%q: %v, want %v", body, got, want)
					}
				}
			}
		}
	}
	for _, s := range []string{"abcdefg\\", "abcdefgh\\u2028", "abcdefg\u2028", "abcdefgh\u2029x", "abcdefg<hijklmno", "\xe2\x80", "abcdefghijklmnop\\t"} {
		if got, want := goVerbatim([]byte(s)), goVerbatimRef([]byte(s)); got != want {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	}
}

// BenchmarkGoVerbatim checks every string of the OpenHands fixtures
// (keys, ids, commands, outputs with their newline escapes), as the
// canon writer does each string it writes.
func BenchmarkGoVerbatim(b *testing.B) {
	var bodies [][]byte
	for _, name := range []string{"v1-stuck.jsonl", "output.jsonl", "live-stuck.jsonl"} {
		data, err := os.ReadFile("../testdata/openhands/" + name)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(data); i++ {
			if data[i] == '"' {
				end, _ := validString(data, i)
				if end < 0 {
					b.Fatalf("%s: a cut string at %d", name, i)
				}
				bodies = append(bodies, data[i+1:end-1])
				i = end - 1
			}
		}
	}
	n := 0
	for _, body := range bodies {
		n += len(body)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, body := range bodies {
			goVerbatim(body)
		}
	}
}

func FuzzGoVerbatim(f *testing.F) {
	for _, s := range []string{"", "plain text of some length", `a\"b\\c\nd`, "x<y", "é\u2028", "\xff", `\u0041`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := goVerbatim(body), goVerbatimRef(body); got != want {
			t.Fatalf("%q: %v, want %v", body, got, want)
		}
	})
}

// FuzzAppendBoth holds appendBoth's one walk to the two it stands for:
// appendValue canonical (an OpenHands event's key) and appendValue as
// json.Marshal writes less the skipped keys (its step's action), after
// a prefix in each, for every value parseRecord accepts.
func FuzzAppendBoth(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,1.0,2.50,-0,1e2,"x<y>&z\u2028"],"a":{"z":NaN,"y":"\ud800"}}`,
		`{"command":"ls","thought":"t","hidden":true,"x":{"b":"\u00e9\n","a":1e400,"thought":false}}`,
		`{"thought":"a","thought":"b","code":1.50,"hidden":[1,{"hidden":true}],"a\"b":2,"\u00e9":true}`,
		`{"security_risk":1,"confirmation_state":"x"}`, `{"thought":1}`, `{}`, `{"a":{}}`, `[]`,
		"{\"k\\u0065y\":\"\xff\",\"\xc3\xa9\":[[],{}],\"\":0}", `[1,"a",{"b":2,"thought":3}]`, `"s\t"`, `-Infinity`, `12345678901234567890`,
		`{"q":1,"p":2,"o":3,"n":4,"m":5,"l":6,"k":7,"j":8,"i":9,"h":10,"g":11,"f":12,"e":13,"d":14,"c":15,"b":16,"a":17,"b":18,"ab":19,"":20,"hidden":0}`,
	} {
		f.Add([]byte(s))
	}
	var w, ref canonWriter
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := parseRecord(raw, false)
		if err != nil {
			return
		}
		w.buf = append(w.buf[:0], "a:run\x00"...)
		w.both = append(w.both[:0], "run "...)
		w.appendBoth(v, openHandsVolatile)
		ref.buf = append(ref.buf[:0], "a:run\x00"...)
		ref.appendValue(v, true, nil)
		if string(w.buf) != string(ref.buf) {
			t.Fatalf("%q: key %q, appendValue %q", raw, w.buf, ref.buf)
		}
		ref.buf = append(ref.buf[:0], "run "...)
		ref.appendValue(v, false, openHandsVolatile)
		if string(w.both) != string(ref.buf) {
			t.Fatalf("%q: action %q, appendValue %q", raw, w.both, ref.buf)
		}
		if len(w.members) != 0 {
			t.Fatalf("%q: %d members left", raw, len(w.members))
		}
	})
}

// FuzzAppendCanonBoth holds appendCanonBoth's one walk to the two
// appendCanon walks it stands for, over a record validated and indexed
// (validValueIx): canonical with its long strings keyed, or not (an
// OpenHands V1 action's part of the event's key), and as json.Marshal
// writes it less the skipped keys, its strings in full (the step's
// action), after a prefix in each; the strings keyed the same.
func FuzzAppendCanonBoth(f *testing.F) {
	long := strings.Repeat("x", 70)
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,1.0,2.50,-0,1e2,"x<y>&z\u2028"],"a":{"z":NaN,"y":"\ud800"}}`,
		`{"command":"` + long + `","thought":"` + long + `","hidden":true,"x":{"b":"\u00e9\n","a":1e400,"thought":false}}`,
		`{"thought":"a","thought":"b","code":1.50,"hidden":[1,{"hidden":true}],"a\"b":2,"\u00e9":true}`,
		`{"security_risk":1,"confirmation_state":"x"}`, `{"thought":1}`, `{}`, `{"a":{}}`, `[]`,
		`{"command":"` + strings.Repeat(`\u0078`, 70) + `","is_input":false,"timeout":null,"reset":false,"kind":"TerminalAction"}`,
		`[1,"` + long + `",{"b":2,"thought":3}]`, `"` + long + `"`, `12345678901234567890`,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, keyed bool) {
		var ix valueIndex
		if end := validValueIx(raw, 0, &ix); end != len(raw) {
			return
		}
		v := rawValue(raw)
		var syms symtab
		var w, ref canonWriter
		if keyed {
			w.syms, ref.syms = &syms, &syms
		}
		w.buf = append(w.buf[:0], "agent\x00"...)
		w.both = append(w.both[:0], "terminal "...)
		w.appendCanonBoth(&ix, v, openHandsVolatile)
		ref.buf = append(ref.buf[:0], "agent\x00"...)
		ix.appendCanon(&ref, v, true, nil)
		if string(w.buf) != string(ref.buf) || !reflect.DeepEqual(w.keyed, ref.keyed) {
			t.Fatalf("%q: key %q (keyed %v), appendCanon %q (%v)", raw, w.buf, w.keyed, ref.buf, ref.keyed)
		}
		ref.syms = nil
		ref.buf = append(ref.buf[:0], "terminal "...)
		ix.appendCanon(&ref, v, false, openHandsVolatile)
		if string(w.both) != string(ref.buf) {
			t.Fatalf("%q: action %q, appendCanon %q", raw, w.both, ref.buf)
		}
		if len(w.members) != 0 {
			t.Fatalf("%q: %d members left", raw, len(w.members))
		}
	})
}
