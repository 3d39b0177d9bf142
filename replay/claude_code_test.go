package replay

import (
	"reflect"
	"testing"
)

// TestPrefetchUUIDHintTaken holds the uuid the record's reading takes
// from prefetchUUID (parsed once) to the record's own: a nested "uuid"
// standing where the last record's uuid stood is prefetched, but the
// record's uuid is read where it is (it fails with the hint taken
// whatever the place of the uuid read).
func TestPrefetchUUIDHintTaken(t *testing.T) {
	const a, b, c = "3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c", "4f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c", "5f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"
	head := `{"type":"assistant","isSidechain":false,"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},`
	ts := `,"timestamp":"2026-11-20T10:00:03.000Z"`
	plain := func(uuid string) []byte { return []byte(head + `"uuid":"` + uuid + `"` + ts + `}`) }
	// b's record holds c where a stood in a's, counted from the end.
	nested := []byte(head + `"uuid":"` + b + `","x":{"uuid":"` + c + `","timestamp":"2026-11-20T10:00:03.00Z"}}`)
	var r claudeCodeReader
	read := func(raw []byte, want int) {
		t.Helper()
		if steps, why := r.recordRaw(raw, 1); len(steps) != want || why != "" {
			t.Fatalf("%s: %d steps (%q), want %d", raw, len(steps), why, want)
		}
	}
	read(plain(a), 1)
	if !r.prefetchUUID(nested) || string(nested[r.hintAt+1:r.hintAt+37]) != c {
		t.Fatalf("the nested uuid is not hinted (at %d)", r.hintAt)
	}
	read(nested, 1)
	read(plain(b), 0) // b was read
	read(plain(c), 1) // c was not
	read(plain(c), 0) // hinted where c stood, and taken
	read(plain(a), 0)
}

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

// TestClaudeCodeOutputsCopied reads a session with outputCopies, as a
// replay as read does, each line from one buffer written over by the
// next: every step comes out marked outCopied, and its output still
// reads as the reader without copies gives it once the whole session is
// read (an output marked copied that were a view of the line, or of
// anything written over, shows; it fails with the texts read as views).
func TestClaudeCodeOutputsCopied(t *testing.T) {
	session := []string{
		`{"type":"user","message":{"role":"user","content":"fix the test"},"uuid":"u1"}`,
		`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"Run \"it\" first"},{"type":"text","text":"Running\nthe tests."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test"}}]},"uuid":"a1"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"FAIL\tcalc\n\u00e9","is_error":true}]},"uuid":"u2"}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"calc.go"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"ls"}}]},"uuid":"a2"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":[{"type":"text","text":"a.go\nb.go"}]},{"type":"tool_result","tool_use_id":"t2","content":"package calc"},{"type":"tool_result","tool_use_id":"t9","content":"late"}]},"uuid":"u3"}`,
		`{"type":"assistant","message":{"content":"plain text content"},"uuid":"a3"}`,
		`{"type":"user","isCompactSummary":true,"message":{"content":[{"type":"text","text":"Summary\none"},{"type":"text","text":" two"}]},"uuid":"u4"}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"go test"}}]},"uuid":"a4"}`,
	}
	var plain claudeCodeReader
	copied := newClaudeCodeReader()
	copied.copies = &outputCopies{}
	var want, got []stepRecord
	var buf []byte
	for n, line := range session {
		w, why := plain.recordRaw([]byte(line), n+1)
		if why != "" {
			t.Fatalf("line %d: %s", n+1, why)
		}
		want = append(want, w...)
		buf = append(buf[:0], line...)
		g, _ := copied.recordRaw(buf, n+1)
		got = append(got, g...)
		for i := range buf {
			buf[i] = '#'
		}
	}
	want, got = append(want, plain.finish()...), append(got, copied.finish()...)
	if len(got) != len(want) || len(got) < 8 {
		t.Fatalf("%d steps, want %d (8 or more)", len(got), len(want))
	}
	for i := range got {
		if !got[i].outCopied {
			t.Errorf("step %d: not marked outCopied", got[i].n)
		}
		got[i].outCopied = false
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("steps read with copies:\n got %+v\nwant %+v", got, want)
	}
}
