package replay

import (
	"strings"
	"testing"
)

// codexRecycleLines read calls whose steps the queue recycles
// (stepQueue.recycle) and whose ids are views of their lines (push
// copies them, stepQueue.lastID):
// an id used twice, results out of order, steps handed out between
// calls still waiting, an output of no call, each as readLine reads it
// (no timestamp) and as readItem does.
var codexRecycleLines = []string{
	`{"type":"response_item","payload":{"type":"function_call","name":"A","arguments":"{}","call_id":"x"}}`,
	`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"t1"}]}}`,
	`{"type":"response_item","payload":{"type":"function_call","name":"B","arguments":"{}","call_id":"x"}}`,
	`{"type":"response_item","payload":{"type":"custom_tool_call","name":"C","input":"i","call_id":"y"}}`,
	`{"type":"response_item","payload":{"type":"function_call_output","call_id":"y","output":"cy"}}`,
	`{"type":"response_item","payload":{"type":"message","role":"assistant","content":"t2"}}`,
	`{"type":"response_item","payload":{"type":"local_shell_call","action":{"command":["ls"]},"call_id":"z\u0031"}}`,
	`{"type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":"cx"}}`,
	`{"type":"response_item","payload":{"type":"function_call_output","call_id":"z1","output":"cz"}}`,
	`{"type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":"again"}}`,
	`{"type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
	`{"type":"response_item","payload":{"type":"function_call","name":"E","arguments":"{\"a\":1}","call_id":"a long call id, longer than a word or two"}}`,
	`{"type":"response_item","payload":{"type":"message","role":"user","content":"between"}}`,
	`{"type":"response_item","payload":{"type":"function_call_output","call_id":"a long call id, longer than a word or two","output":"cw"}}`,
	`{"type":"response_item","payload":{"type":"function_call","name":"F","arguments":"{}","call_id":"v"}}`,
	`{"type":"response_item","payload":{"type":"message","role":"assistant","content":"t3"}}`,
}

// TestCodexRecycledSteps holds the reader, whose queue recycles the
// steps it hands out and whose call ids are views of their lines, to
// its encoding/json reference, each line read from one buffer written
// over by the next and every record compared again at the end
// (compareReaders): a step recycled while still in use, or an id kept
// as a view of its line, reads other records.
func TestCodexRecycledSteps(t *testing.T) {
	for _, ts := range []string{"", `"timestamp":"2025-01-01T00:00:00.000Z",`} {
		var b strings.Builder
		for _, l := range codexRecycleLines {
			b.WriteString("{" + ts + l[1:] + "\n")
		}
		compareReaders(t, []byte(b.String()), &codexReaderOld{}, &codexReader{})
	}
}
