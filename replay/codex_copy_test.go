package replay

import (
	"strings"
	"testing"
)

// codexPreCases are lines whose output preOutput writes as it validates
// it (a string of 40 bytes or more), read in this order by compareCodexSkip
// against readLine: JSON texts and others, escapes, bytes past ASCII,
// invalid ones, an output written twice, one in a line of no output, and
// lines that readItem leaves to readLine after the output was written.
var codexPreCases = []string{
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"p1"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p1","output":"{\"output\": \"--- FAIL: TestDivide (0.00s)\\nFAIL\\n and more than forty bytes of it\\n\", \"metadata\": {\"exit_code\": 1, \"duration_seconds\": 0.4}}"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p1","output":"{\"output\": \"ok  \\tcalc\\t0.002s\\n\", \"metadata\": {\"exit_code\": 0, \"duration_seconds\": 0.4}}\n        state buffer config result line import self\nwrite read from open def import test state\n        write write path\n"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p2","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM calc.go\n\u00e9\ud83d\ude00 é done"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p3","output":"Exit code: 2\nWall time: 0.1 seconds\nOutput:\n` + "\xff\xfe invalid bytes, \u00e9 and more past the forty bytes" + `"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p4","output":"   {\"output\": \"a\", \"metadata\": {\"exit_code\": 3}} spaced JSON past forty bytes"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p5","output":"{\"output\": \"first, more than forty bytes long, read over\"}","output":"{\"output\": \"second, the one read, forty bytes and more\"}"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p6","output":"{\"output\": \"first, more than forty bytes long, read over\"}","output":"short"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p6","output":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","output":[{"type":"input_text","text":"the array read"}]}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p6","output":"a text of forty bytes and more, written twice","output":null}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","output":"an output in a message, forty bytes and more","content":"hi"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p7","output":"a text of forty bytes and more, then NaN","x":NaN}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p7","output":"a text of forty bytes and more, then a key","n\u0061me":"x"}}`,
	`{"timestamp":"t\"x","type":"response_item","payload":{"type":"function_call_output","call_id":"p8","output":"a text of forty bytes and more, bad timestamp"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p9","output":"a text of forty bytes and more with \q a bad escape"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p9","output":"a text of forty bytes and more with a control ` + "\x01" + `"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p9","output":"a text of forty bytes and more, cut`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p9","output":"` + strings.Repeat(`long \"text\"\n`, 2000) + `"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p9","output":"{` + strings.Repeat(`long \"text\"\n`, 2000) + `"}}`,
	`{"timestamp":"t","type":"compacted","payload":{"message":"a summary of forty bytes and more","output":"{\"output\": \"not read: a compacted line, forty bytes\"}"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p10","output":"{\"output\": \"the last line, forty bytes and more\", \"metadata\": {\"exit_code\": 0, \"duration_seconds\": 1}}"}}`,
}

// TestCodexPreText: lines whose output is written as validated read as
// readLine reads them.
func TestCodexPreText(t *testing.T) {
	var lines [][]byte
	for _, c := range codexPreCases {
		lines = append(lines, []byte(c))
	}
	compareCodexSkip(t, lines)
}
