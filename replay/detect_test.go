package replay

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// topKeys walks keys by hand; topKeysDecoder is what it replaced
// (encoding/json's Decoder): they must agree on every input.
var topKeysCases = []string{
	`{"timestamp": "2025-01-01", "event_type": "x", "episode_id": "e"}`,
	`{}`, ` { } `, `{"a":1}`, `{"a":1`, `{"a":1.`, `{"a":-`, `{"a":tru`, `{"a":truex,"b":1}`,
	`{"a":01,"b":2}`, `{"a":1 "b":2}`, `{"a":1,}`, `{"a":1,`, `{"a" 1}`, `{"a"`, `{"a`, `{1:2}`,
	`{"a":NaN,"b":1}`, `{"a":[1,{"x":Infinity}],"b":1}`, `{"a":-Infinity}`, `{"a":"NaN I","b":1}`,
	`{"a\u005fb":1,"c":2}`, `{"a\ud800":1}`, "{\"a\xff\":1,\"b\":2}", `{"a":"x` + "\x01" + `","b":1}`,
	`{"a":{"b":{"c":[]}},"d":null}`, `{"a":[}`, `[{"a":1}]`, `{"a":1}{"b":2}`, `{"a":1}]`,
	"{\n  \"trajectory\": [\n    {\"action\": 1}\n  ],\n  \"info\": {}\n}",
	`{"a":"\q","b":1}`, `{"a":1e5,"b":1E+2,"c":-0.5e-3}`, `{"a":1e,"b":2}`, `{"":1}`, `{"a":1}   `,
	`{"a":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `,"b":1}`,
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `,"b":1}`,
	`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `,"b":1}`,
	`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `,"b":1}`,
}

func TestTopKeysAsDecoder(t *testing.T) {
	for _, in := range topKeysCases {
		got, want := topKeys([]byte(in)), topKeysDecoder([]byte(in))
		if !maps.Equal(got, want) {
			t.Errorf("topKeys(%.60q) = %v, the Decoder's %v", in, got, want)
		}
	}
}

func TestTopKeys(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`{"a":1,"b":{"c":2},"d":[3]}`, []string{"a", "b", "d"}},
		{`{"a":1,"b":NaN,"c":3}`, []string{"a", "b"}}, // stops at the value encoding/json refuses
		{`{"a":1,"b":"cut sho`, []string{"a", "b"}},   // a line cut at 64 KiB keeps the key it stops in
		{`{"a\u005fb":1}`, []string{"a_b"}},
	} {
		got := topKeys([]byte(c.in))
		if len(got) != len(c.want) {
			t.Errorf("topKeys(%q) = %v, want %v", c.in, got, c.want)
		}
		for _, k := range c.want {
			if !got[k] {
				t.Errorf("topKeys(%q) = %v, want %v", c.in, got, c.want)
			}
		}
	}
}

func FuzzTopKeys(f *testing.F) {
	for _, in := range topKeysCases {
		if len(in) < 1000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, want := topKeys(in), topKeysDecoder(in)
		if !maps.Equal(got, want) {
			t.Errorf("topKeys(%q) = %v, the Decoder's %v", in, got, want)
		}
	})
}

// FuzzJSONValid: jsonValid says what json.Valid says, NaN, deep nesting,
// bad numbers and escapes, blanks and bytes after the value included.
func FuzzJSONValid(f *testing.F) {
	for _, in := range topKeysCases {
		if len(in) < 1000 {
			f.Add([]byte(in))
		}
	}
	for _, in := range []string{"", " ", "{}", ` {"a": [1, -0.5e+3, true, null, "x\u00e9\n"]} `, `{"a": NaN}`, "[Infinity]", "[-Infinity]",
		"01", "1.", "-", "1e", `"\x"`, `"\ud800"`, "\"\xff\"", `{"a":1}x`, `{"a":1}{}`, "[1,]", `{"a" 1}`, "\"a\tb\"", "\x00",
		strings.Repeat("[", 2000) + strings.Repeat("]", 2000), strings.Repeat("[", 11000) + strings.Repeat("]", 11000)} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := jsonValid(in), json.Valid(in); got != want {
			t.Errorf("jsonValid(%q) = %v, json.Valid %v", in, got, want)
		}
	})
}
