package replay

import (
	"testing"
)

// TestJSRoundTrip pins JSON.parse then JSON.stringify: the expected texts
// are what node v20 printed for JSON.stringify(JSON.parse(in)).
func TestJSRoundTrip(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`1`, `1`},
		{`1.0`, `1`},
		{`-0`, `0`},
		{`1e21`, `1e+21`},
		{`1e20`, `100000000000000000000`},
		{`123456789012345678901234567890`, `1.2345678901234568e+29`},
		{`0.000001`, `0.000001`},
		{`1e-7`, `1e-7`},
		{`5e-324`, `5e-324`},
		{`1e400`, `null`},
		{`-1e400`, `null`},
		{`0.1`, `0.1`},
		{`-1.5e-10`, `-1.5e-10`},
		{`2.5e+300`, `2.5e+300`},
		{`1.7976931348623157e308`, `1.7976931348623157e+308`},
		{`9007199254740993`, `9007199254740992`},
		{`100E-1`, `10`},
		{`0.00001234`, `0.00001234`},
		{`123.456e5`, `12345600`},
		{`1e-6`, `0.000001`},
		{`4.35`, `4.35`},
		{`{"b":1,"2":"x","1":"y","a":0}`, `{"1":"y","2":"x","b":1,"a":0}`},
		{`{"01":1,"1":2,"4294967295":3,"4294967294":4}`, `{"1":2,"4294967294":4,"01":1,"4294967295":3}`},
		{`{"a":1,"a":2,"b":0}`, `{"a":2,"b":0}`},
		{`"\ud800\udc00\udbff"`, `"𐀀\udbff"`},
		{`"\u0000\u001f\u007f\u2028\b\f/\/"`, "\"\\u0000\\u001f\x7f\u2028\\b\\f//\""},
		{`[1,[],{},null,true,false]`, `[1,[],{},null,true,false]`},
		{`"\uDC00\uD800"`, `"\udc00\ud800"`},
	} {
		v, err := parseJS([]byte(tt.in))
		if err != nil {
			t.Errorf("parseJS(%q): %v", tt.in, err)
			continue
		}
		if got := string(appendJS(nil, v)); got != tt.want {
			t.Errorf("JSON.stringify(JSON.parse(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSParseErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `1e`, `"\x"`, `"\u12"`, "\"a\x01\"", `tru`, `{} x`, `nul`} {
		if _, err := parseJS([]byte(in)); err == nil {
			t.Errorf("parseJS(%q) accepted", in)
		}
	}
}

// TestJSInvalidUTF8 checks Node's reading of bad bytes: one U+FFFD per
// maximal subpart (WHATWG), so a raw ED A0 80 is three, not a surrogate.
func TestJSInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"\"\xed\xa0\x80\"": "\"\ufffd\ufffd\ufffd\"",
		"\"\xe2\x82A\"":    "\"\ufffdA\"",
		"\"\xf0\x9f\x98\"": "\"\ufffd\"",
		"\"\xff\xfe\"":     "\"\ufffd\ufffd\"",
		"\"\xc3\"":         "\"\ufffd\"",
	} {
		v, err := parseJS([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		w, _ := parseJS([]byte(want))
		if v.str != w.str {
			t.Errorf("%q read as %q, want %q", in, v.str, w.str)
		}
	}
}

func TestGeminiToolKey(t *testing.T) {
	for _, tt := range []struct{ name, args, want string }{
		{"read_file", `{"b":1,"a":2}`, `read_file:{"b":1,"a":2}`},
		{" read_file\ufeff", `{"a":1.0}`, `read_file:{"a":1}`},
		{"", `null`, `generic_tool:{}`},
		{"\u0085x", ``, "\u0085x:{}"},
		{"x", `0`, `x:{}`},
		{"x", `[1]`, `x:[1]`},
		{"x", `"s"`, `x:"s"`},
	} {
		got, err := GeminiToolKey(tt.name, []byte(tt.args))
		if err != nil || got != tt.want {
			t.Errorf("GeminiToolKey(%q, %q) = %q, %v; want %q", tt.name, tt.args, got, err, tt.want)
		}
	}
	if _, err := GeminiToolKey("x", []byte(`{`)); err == nil {
		t.Error("bad args accepted")
	}
}

// FuzzJS: parsing never panics, and what JSON.stringify writes reads back
// to the same text.
func FuzzJS(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-8,"\ud800"],"1":null}`, `"\xed\xa0\x80"`, `[[[[]]]]`, `-0.0e-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseJS(b)
		if err != nil {
			return
		}
		out := appendJS(nil, v)
		w, err := parseJS(out)
		if err != nil {
			t.Fatalf("%q wrote %q, which does not read: %v", b, out, err)
		}
		if again := appendJS(nil, w); string(again) != string(out) {
			t.Fatalf("%q wrote %q, then %q", b, out, again)
		}
	})
}
