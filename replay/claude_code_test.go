package replay

import "testing"

// TestClaudeCodeRoleTyped holds the message's role to rawString's typing,
// its value not read: a string, null or absent is read, anything else
// skips the record with its name (it fails with a number taken).
func TestClaudeCodeRoleTyped(t *testing.T) {
	for _, tc := range []struct {
		role string // the member, "" for none
		why  string
	}{
		{`"role":"assistant",`, ""},
		{`"role":"\u0061",`, ""},
		{`"role":null,`, ""},
		{``, ""},
		{`"role":1,`, `not a Claude Code record: the message's "role" is not a string`},
		{`"role":[],`, `not a Claude Code record: the message's "role" is not a string`},
		{`"role":false,`, `not a Claude Code record: the message's "role" is not a string`},
	} {
		var r claudeCodeReader
		raw := []byte(`{"type":"assistant","message":{` + tc.role + `"content":[{"type":"text","text":"hi"}]},"uuid":"u1"}`)
		steps, why := r.recordRaw(raw, 1)
		if why != tc.why || (why == "") != (len(steps) == 1) {
			t.Errorf("%s: %d steps, %q; want %q", raw, len(steps), why, tc.why)
		}
	}
}
