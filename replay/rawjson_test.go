package replay

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRawValueReads(t *testing.T) {
	rec := []byte(` {"a": "x\u00e9\n", "b": {"c": [1, 2.5, "s", null, true]}, "n": NaN, "k\u0065y": 3, "a": "last", "big": 1e400, "t": false} `)
	v, err := parseRecord(rec, true)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := v.Get("a").Str(); !ok || s != "last" {
		t.Errorf(`Get("a") = %q, %v; want the last of a repeated key`, s, ok)
	}
	if got := v.Get("key"); string(got) != "3" {
		t.Errorf(`Get("key") (escaped key) = %q`, got)
	}
	if !v.Get("n").IsNull() || v.Get("n").Present() {
		t.Errorf("NaN should read as null")
	}
	if v.Get("missing") != nil || v.Get("missing").Present() || v.Get("missing").IsNull() {
		t.Errorf("absent key should be nil, neither present nor null")
	}
	if n := v.Path("b", "c").Len(); n != 5 {
		t.Errorf("len = %d", n)
	}
	if got := v.Path("b").Text(); got != `{"c":[1,2.5,"s",null,true]}` {
		t.Errorf("Text = %s", got)
	}
	if b, ok := v.Get("t").Bool(); !ok || b {
		t.Errorf("Bool = %v %v", b, ok)
	}
	if v.Get("big").Number() != "1e400" {
		t.Errorf("Number = %q", v.Get("big").Number())
	}
	var keys []string
	vals := make([]rawValue, 3)
	v.Fields([]string{"t", "key", "zzz"}, vals)
	for _, x := range vals {
		keys = append(keys, string(x))
	}
	if !reflect.DeepEqual(keys, []string{"false", "3", ""}) {
		t.Errorf("Fields = %q", keys)
	}
	if !v.Get("a").StrEq("last") || v.Get("a").StrEq("x") {
		t.Errorf("StrEq")
	}
}

func TestParseRecordErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1} {"b":2}`, "more than one JSON value on the line"},
		{`{"a":}`, "invalid JSON"},
		{`[1]`, "not a JSON object"},
		{`"s"`, "not a JSON object"},
		{"{\"a\":\"\x01\"}", "invalid JSON"},
		{``, "invalid JSON"},
	} {
		_, err := parseRecord([]byte(c.in), true)
		if err == nil || err.Error() != c.want {
			t.Errorf("parseRecord(%q) = %v, want %s", c.in, err, c.want)
		}
	}
}

// FuzzRawValue checks the in-place reading against decodeObject (which
// decodes with encoding/json): the same records accepted, and every
// member read the same way, as Any, Text, Str.
func FuzzRawValue(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"a":"\ud800x","b":[{"c":NaN}]}`, `{"k\"":{"x":-Infinity}}`,
		`{"a":"\xff\xfe"}`, `{"a":1,"a":2}`, `{"<":"&>"}`, `{"a":[1,{"b":"\u2028"}],"c":1.50}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := decodeObject(raw)
		v, rerr := parseRecord(raw, true)
		if rerr != nil {
			if err == nil && !bytes.ContainsAny(bytes.TrimSpace(raw[bytes.LastIndexByte(raw, '}'):]), "]}") {
				t.Fatalf("parseRecord refused %q (%v), decodeObject read it", raw, rerr)
			}
			return
		}
		if err != nil {
			t.Fatalf("parseRecord read %q, decodeObject refused it: %v", raw, err)
		}
		n := 0
		v.Members(func(k []byte, esc bool, val rawValue) bool {
			n++
			key := string(k)
			if esc {
				key = unquoteKey(k)
			}
			last := v.Get(key)
			if !reflect.DeepEqual(last.Any(), m[key]) {
				t.Fatalf("%q: Any = %#v, encoding/json %#v", key, last.Any(), m[key])
			}
			if got, want := last.Text(), asText(m[key]); got != want {
				t.Fatalf("%q: Text = %q, asText %q", key, got, want)
			}
			if s, ok := last.Str(); ok != (last.Kind() == '"') || ok && s != m[key] {
				t.Fatalf("%q: Str = %q, %v", key, s, ok)
			}
			return true
		})
		if len(m) > n {
			t.Fatalf("%d members, encoding/json %d", n, len(m))
		}
	})
}

// FuzzJSONString holds jsonString to the json.Encoder (SetEscapeHTML
// false) it stands for.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"a", "<&>", "\u2028\x00\"\\", "\xff\xfe", "é\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := jsonString(s), strings.TrimSuffix(out.String(), "\n"); got != want {
			t.Fatalf("%q: %s, encoding/json %s", s, got, want)
		}
	})
}

// FuzzValidJSON holds ValidJSON to json.Valid.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{``, ` {"a": [1, 2.5e3, "x\u0041", null, true]} `, `{"a":NaN}`, `["NaN", "Infinity"]`,
		`[-Infinity]`, `{"a":1}{}`, `{"a":"\x01"}`, "\"\xff\"", `[1,]`, `01`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidJSON(s), json.Valid([]byte(s)); got != want {
			t.Fatalf("ValidJSON(%q) = %v, json.Valid %v", s, got, want)
		}
	})
}
