package replay

import "testing"

// codexMemoCases are call lines read in this order by compareCodexSkip
// against readLine: calls read again (their values told by the memo),
// values of a slot's first and last words with other bytes between, a
// slot's value with more after it, another name or type with a slot's
// value, an input hinted in a line whose call reads its arguments, a
// call whose forms are its name.
var codexMemoCases = []string{
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","call_id":"m1"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"m2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: calc.go\n@@\n-\treturn a / b, nil\n*** End Patch\n"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","call_id":"m3"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"m4","name":"apply_patch","input":"*** Begin Patch\n*** Update File: calc.go\n@@\n-\treturn a / b, nil\n*** End Patch\n"}}`,
	// The first and last words of a slot's value, other bytes between.
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go vet ./...\"],\"workdir\":\"/w\"}","call_id":"m5"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test \"],\"workdir\":\"/w\"}","call_id":"m5"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./a..\"],\"workdir\":\"/w\"}","call_id":"m5"}}`,
	// A slot's value with more after it: not valid.
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}"x,"call_id":"m6"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}`,
	// Another name, another type, a key written twice.
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","call_id":"m7"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"shell","input":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","call_id":"m8"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"workdir\":\"/w\",\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"m8"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"shell","input":"{\"workdir\":\"/w\",\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"m8"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: calc.go\n@@\n-\treturn a / b, nil\n*** End Patch\n","arguments":"{\"command\":[\"bash\",\"-lc\",\"go vet ./...\"],\"workdir\":\"/w\"}","call_id":"m9"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","arguments":"{\"command\":[\"ls\"]}","call_id":"m10"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","x":NaN,"call_id":"m11"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","input":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","content":"hi"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","call_id":"m12"}}`,
	// A call of null arguments, its forms its name (a view of its line
	// until copied), returned once its output's line is read over it.
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"probe_null_args","arguments":null,"call_id":"n1"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"n1","output":"done, read after the call's line was written over"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"probe_null_args","arguments":null,"call_id":"n2"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"n2","output":"done again, the call found in the memo by its name"}}`,
}

// TestCodexMemoString: calls whose values the memo tells read as
// readLine reads them, and a value read again is told by it.
func TestCodexMemoString(t *testing.T) {
	var lines [][]byte
	for _, c := range codexMemoCases {
		lines = append(lines, []byte(c))
	}
	compareCodexSkip(t, lines)

	c := &codexReader{}
	line := []byte(codexMemoCases[0])
	c.recordRaw(line, 1)
	v := len(`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":`)
	want, _ := validString(line, v)
	if end := c.memoString(line, v); end != want {
		t.Errorf("memoString of a call read before: %d, want %d", end, want)
	}
	if _, _, ok := c.hinted('f', "shell", rawValue(line[v:want])); !ok {
		t.Errorf("a call read before: not hinted")
	}
	other := []byte(codexMemoCases[4])
	if end := c.memoString(other, v); end != -1 {
		t.Errorf("memoString of another value: %d, want -1", end)
	}
}
