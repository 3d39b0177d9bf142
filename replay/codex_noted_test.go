package replay

import (
	"reflect"
	"testing"
)

// codexNotedCases are rollout lines whose top level and payload are read
// from the members noted (their keys as written, or unescaped) or walked.
var codexNotedCases = []string{
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}`,
	`{"type":"response_item","type":5,"record_type":[],"id":1,"payload":{"type":"message","role":"user","role":7,"name":{}}}`,
	`{"ty\u0070e":"event_msg","payload":{"typ\u0065":"user_message","call_id":null}}`,
	"{\"type\xff\":5,\"\xfftype\":\"x\",\"type\":\"compacted\",\"payload\":{\"message\xff\":1,\"message\":\"m\",\"na\xc3\xa9me\":2}}",
	"{\"type\":\"response_item\",\"payload\":{\"\xe9\":1,\"output\":\"o\",\"call_id\":\"\xff\"}}",
	`{"type":"response_item","payload":{"type":"custom_tool_call","input":"i","name":"n","call_id":5,"action":{"a":1},"summary":[],"content":null}}`,
	`{"type":"x","payload":{}}`, `{}`,
}

// TestCodexNotedSame: a line's top level and payload read from the
// members noted as walking them (valueIndex.members) reads them.
func TestCodexNotedSame(t *testing.T) {
	for _, line := range codexNotedCases {
		checkCodexNoted(t, line)
	}
}

func FuzzCodexNoted(f *testing.F) {
	for _, line := range codexNotedCases {
		f.Add(line)
	}
	f.Fuzz(checkCodexNoted)
}

func checkCodexNoted(t *testing.T, line string) {
	var ix valueIndex
	v, _, err := agentRecordIx([]byte(line), &ix)
	if err != nil {
		return
	}
	got := readCodexLine(&ix, v)
	want := codexLine{typeOK: true}
	ix.members(v, func(k []byte, esc bool, val rawValue) bool {
		want.member(keyBytes(k, esc), val)
		return true
	})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: line %+v, walked %+v", line, got, want)
	}
	if got.payload.Kind() != '{' {
		return
	}
	var it codexItem
	bad := it.read(&ix, got.payload)
	var wantIt codexItem
	wantBad := ""
	ix.members(got.payload, func(k []byte, esc bool, val rawValue) bool {
		wantIt.noteBad(keyBytes(k, esc), val, &wantBad)
		return true
	})
	if !reflect.DeepEqual(it, wantIt) || bad != wantBad {
		t.Fatalf("%q: payload %+v (%q), walked %+v (%q)", line, it, bad, wantIt, wantBad)
	}
}
