package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzSortedTop holds sortedTop's in-place reading to the decoded one
// (map[string]json.RawMessage, keys written back with json.Marshal) on the
// valid JSON toolCallOf hands it, and appendSortedTop to it after a
// buffer's contents, its members' list reused from the call before.
func FuzzSortedTop(f *testing.F) {
	for _, s := range []string{
		`{"path":"a.go","content":"x"}`, `{"b": [1, 2], "a": {"z": 1, "y": 2}}`, `{"a":1,"a":2,"b":3,"a":4}`,
		`{"task_progress":"- [x] a","cmd":"ls"}`, `{"<":1,"é":2,"a\u0062":3}`, `{}`, `[1, 2]`, `null`, `"s"`,
		`{"k": "v w", "j":	true }`, `{"":0,"A":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	var members []topMember
	f.Fuzz(func(t *testing.T, args []byte) {
		if !json.Valid(args) {
			return
		}
		for _, ignored := range []map[string]bool{nil, clineIgnored} {
			if got, want := sortedTop(args, ignored), sortedTopDecoded(args, ignored); got != want {
				t.Fatalf("%q: in place %q, decoded %q", args, got, want)
			}
			// Appended after what a buffer holds (the rules' signatures
			// reuse one): that is left as it was.
			if got, want := string(appendSortedTop([]byte("name\n"), args, ignored, &members)), "name\n"+sortedTopDecoded(args, ignored); got != want {
				t.Fatalf("%q: appended %q, decoded %q", args, got, want)
			}
		}
	})
}

// TestSortedTopKeyBytes: a key holding any one byte (at its start, middle
// or end, in a valid object) is sorted in place as decoded, the table of
// bytes read in place (plainKeyByte) held to json.Marshal's escaping, and
// its members' list reused from call to call.
func TestSortedTopKeyBytes(t *testing.T) {
	var members []topMember
	for c := range 256 {
		for _, key := range []string{string(rune(0)) + "k", "k" + string(rune(0)) + "ey", "key" + string(rune(0))} {
			k := strings.Replace(key, string(rune(0)), string([]byte{byte(c)}), 1)
			args := []byte(`{"m":1,"` + k + `":[1, 2],"a":"x y"}`)
			if !json.Valid(args) {
				continue
			}
			for _, ignored := range []map[string]bool{nil, clineIgnored} {
				if got, want := string(appendSortedTop(nil, args, ignored, &members)), sortedTopDecoded(args, ignored); got != want {
					t.Fatalf("%q: in place %q, decoded %q", args, got, want)
				}
			}
		}
	}
}
