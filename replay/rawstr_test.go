package replay

import (
	"encoding/json"
	"strings"
	"testing"
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
