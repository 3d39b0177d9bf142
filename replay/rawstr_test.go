package replay

import (
	"encoding/json"
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
	})
}
