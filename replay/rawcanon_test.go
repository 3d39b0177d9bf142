package replay

import (
	"encoding/json"
	"testing"
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
