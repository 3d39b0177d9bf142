package rules

import (
	"encoding/json"
	"testing"
)

// FuzzSortedTop holds sortedTop's in-place reading to the decoded one
// (map[string]json.RawMessage, keys written back with json.Marshal) on the
// valid JSON toolCallOf hands it, and appendSortedTop to it after a
// buffer's contents.
func FuzzSortedTop(f *testing.F) {
	for _, s := range []string{
		`{"path":"a.go","content":"x"}`, `{"b": [1, 2], "a": {"z": 1, "y": 2}}`, `{"a":1,"a":2,"b":3,"a":4}`,
		`{"task_progress":"- [x] a","cmd":"ls"}`, `{"<":1,"é":2,"a\u0062":3}`, `{}`, `[1, 2]`, `null`, `"s"`,
		`{"k": "v w", "j":	true }`, `{"":0,"A":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
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
			if got, want := string(appendSortedTop([]byte("name\n"), args, ignored)), "name\n"+sortedTopDecoded(args, ignored); got != want {
				t.Fatalf("%q: appended %q, decoded %q", args, got, want)
			}
		}
	})
}
