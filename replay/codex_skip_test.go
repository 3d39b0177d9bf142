package replay

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// codexSkipCases are rollout lines, read in this order, and whether
// skipNoStep passes each over (the rest are read by readLine).
var codexSkipCases = []struct {
	line string
	skip bool
}{
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"agent_reasoning","text":"**Running**\n\nI will."}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"fix it","images":[]}}`, true},
	// A byte changed in each part of the heads skipNoStep compares.
	{`{"timestamp":"t","type":"evenT_msg","payload":{"type":"user_message","message":"m"}}`, false},
	{`{"timestamp":"t","type":"event_msg","payloaD":{"type":"user_message","message":"m"}}`, false},
	{`{"timestamp":"t","type":"turn_cOntext","payload":{"cwd":"/"}}`, false},
	{`{"timestamp":"t","type":"turn_context","payloaD":{"cwd":"/"}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload" :{"cwd":"/"}}`, false},
	{`{"timestamp":"t","type":"response_Item","payload":{"type":"message","role":"user","content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payloaD":{"type":"message","role":"user","content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"messaGe","role":"user","content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"mEssage","role":"user","content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","rolE":"user","content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c2"}}`, false},
	// A key written twice: the last one read.
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","type":"agent_message","message":"m"}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","type":"user_message"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","role":"assistant","content":"hi"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","type":"reasoning","summary":[{"type":"summary_text","text":"s"}]}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}`, false},
	// A field of a wrong type: no prompt, or a reason.
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","role":5}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","call_id":null,"name":"n"}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":7}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":null}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","name":5,"content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":null,"content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"system","content":"x"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"x","status":{"a":[1,2,{"b":true}]}}}`, true},
	// Escapes: read by readLine.
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user\u005fmessage"}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"t\u0079pe":"user_message"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assis\u0074ant","content":"x"}}`, false},
	{`{"timestamp":"t\"x","type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"a\","type":"event_msg","payload":{}}`, false},
	// A timestamp's first stop not its closing quote, the rest of the
	// line as after one: readLine, which tells it is not valid.
	{`{"timestamp":"a\,"type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.100Z\,"type":"turn_context","payload":{}}`, false},
	{`{"timestamp":"a` + "\x01" + `,"type":"response_item","payload":{"type":"message","role":"user","content":"x"}}`, false},
	{`{"timestamp":"a\,"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c9"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.100Z` + "\x1f" + `,"type":"compacted","payload":{"message":"m"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.100Z","type":"event_msg","payload":{"type":"user_message"}}`, true},
	// A timestamp of 24 bytes, read with no loop when its three words
	// hold no stop: a stop in any of them (a control byte, a quote, an
	// escape) before a quote at the 25th byte goes the loop's way.
	{`{"timestamp":"202` + "\x01" + `-11-20T11:00:00.100Z","type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"2026-11-2` + "\x1f" + `T11:00:00.100Z","type":"turn_context","payload":{}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.1` + "\x7f\x01" + `Z","type":"turn_context","payload":{}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.1"Z","type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.1\qZ","type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.10\"","type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.1\u0030Z","type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.100Z"`, false},
	{`{"timestamp":"2026-11-20T11:00:00.100Z"}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.100ZZ","type":"event_msg","payload":{"type":"user_message"}}`, true},
	{`{"timestamp":"2026-11-20T11:00:00.100","type":"event_msg","payload":{"type":"user_message"}}`, true},
	{`{"timestamp":"é026-11-20T11:00:00.10Z","type":"event_msg","payload":{"type":"user_message"}}`, true},
	{"{\"timestamp\":\"\xff026-11-20T11:00:00.100Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\"}}", true},
	{`{"timestamp":"2026-11-20T11:00:0","type":"turn_context","payload":{}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"a\"b\\c\u00e9 ` + "\xff\u00e9" + `"}}`, true},
	// NaN and Infinity: a reason, or read as text by readLine.
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total":NaN}}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","x":-Infinity}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","x":Infinity}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":["Infinity and NaN"]}}`, true}, // strings
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":["x",{"a":[1,NaN]}]}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"NaN"}],"x":{"y":-Infinity}}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"sandbox_policy":{"mode":"Infinity"},"n":[Infinity]}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total":12,"rate":-1.5e3},"n":-3}}`, true},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"NaN Infinity"}}`, true},
	// Turn contexts, whatever they hold.
	{`{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w","type":5,"sandbox_policy":{"mode":"workspace-write","network_access":false}}}`, true},
	{`{"timestamp":"t","type":"turn_context","payload":{}}`, true},
	// Not valid, or not this shape: a reason from readLine, or read.
	{`{"timestamp":"t","type":"turn_context","payload":{"a":"\q"}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","a\:1,"b":"a longer value than forty bytes"}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","m":"a\,"n":1,"o":"a longer value than forty bytes"}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","m":"a\}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","c\"":1,"content":"a longer value than forty bytes"}}`, false}, // an escaped key
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"a\"b","images":[],"x":"a longer value than forty bytes"}}`, true},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":1}}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":1},}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":1},"type":"response_item"}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":1}} `, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":1,}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a" :1}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":1 }}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":[1,}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":tru}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":"` + "\x01" + `"}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a"}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{"a":}}`, false},
	{`{"timestamp":"t","type":"turn_context","payload":{`, false},
	{`{"timestamp":"t","type":"event_msg","payload":"x"}`, false},
	{`{"timestamp":"t,"type":"event_msg","payload":{}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","images":[` + strings.Repeat("[", codexSkipMax) + `]}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c3"}}`, false},
	// Nested as deep as a line may be, and a level more: readLine
	// (codexSkipMax), which refuses the second.
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","images":` + strings.Repeat("[", maxNesting-3) + strings.Repeat("]", maxNesting-3) + `}}`, false},
	{`{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","images":` + strings.Repeat("[", maxNesting-2) + strings.Repeat("]", maxNesting-2) + `}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","action":` + strings.Repeat("[", maxNesting-3) + strings.Repeat("]", maxNesting-3) + `}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","action":` + strings.Repeat("[", maxNesting-2) + strings.Repeat("]", maxNesting-2) + `}}`, false},
	{`{"type":"event_msg","payload":{"type":"user_message"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c4"}}`, false},
}

// compareCodexSkip reads lines with recordRaw (skipNoStep first) and with
// readLine alone: the same records, reasons and prompt after each line.
// skipped counts the lines skipNoStep passed over.
func compareCodexSkip(t *testing.T, lines [][]byte) (skipped []bool) {
	t.Helper()
	fast, plain := &codexReader{}, &codexReader{}
	var buf []byte
	for n, line := range lines {
		before := fast.q.prompt
		probe := &codexReader{}
		_, ok, _ := probe.skipNoStep(slices.Clone(line))
		skipped = append(skipped, ok)
		// The fast reader reads each line from one buffer, as the
		// reader's lines are read in place: what it holds of the last
		// line (its index) is over the same bytes.
		buf = append(buf[:0], line...)
		rf, wf := fast.recordRaw(buf, n+1)
		rp, wp := plain.readLine(slices.Clone(line))
		if wf != wp {
			t.Fatalf("line %d %q: reason %q, readLine's %q", n+1, line, wf, wp)
		}
		if !reflect.DeepEqual(rf, rp) {
			t.Fatalf("line %d %q:\n got %+v\nwant %+v", n+1, line, rf, rp)
		}
		if fast.q.prompt != plain.q.prompt {
			t.Fatalf("line %d %q: prompt %v (was %v), readLine's %v", n+1, line, fast.q.prompt, before, plain.q.prompt)
		}
	}
	if rf, rp := fast.finish(), plain.finish(); !reflect.DeepEqual(rf, rp) {
		t.Fatalf("finish:\n got %+v\nwant %+v", rf, rp)
	}
	return skipped
}

// TestCodexSkipSame: a line skipNoStep passes over reads as readLine
// reads it, and the lines listed as passed over are.
func TestCodexSkipSame(t *testing.T) {
	var lines [][]byte
	for _, c := range codexSkipCases {
		lines = append(lines, []byte(c.line))
	}
	skipped := compareCodexSkip(t, lines)
	for i, c := range codexSkipCases {
		if skipped[i] != c.skip {
			t.Errorf("%q: passed over %v, want %v", c.line, skipped[i], c.skip)
		}
	}
}

// TestCodexSkipLog: the generated log's lines of no step (a quarter of
// its bytes) are passed over, and read the same.
func TestCodexSkipLog(t *testing.T) {
	data := []byte(strings.Join([]string{
		`{"timestamp":"2026-11-20T11:00:00.100Z","type":"session_meta","payload":{"id":"0199a1b2","cli_version":"0.46.0","instructions":null,"git":{"branch":"main"}}}`,
		`{"timestamp":"2026-11-20T11:00:00.300Z","type":"turn_context","payload":{"cwd":"/home/dev/calc","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write","network_access":false},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}`,
		`{"timestamp":"2026-11-20T11:00:00.400Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"The divide test fails. Fix it."}]}}`,
		`{"timestamp":"2026-11-20T11:00:00.500Z","type":"event_msg","payload":{"type":"user_message","message":"The divide test fails. Fix it.","images":[]}}`,
		`{"timestamp":"2026-11-20T11:00:00.600Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Running the tests**"}],"content":null,"encrypted_content":"gAAAAABo-fake"}}`,
		`{"timestamp":"2026-11-20T11:00:00.700Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"**Running the tests**"}}`,
		`{"timestamp":"2026-11-20T11:00:00.800Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"go\",\"test\"]}","call_id":"call_A1"}}`,
		`{"timestamp":"2026-11-20T11:00:00.900Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_A1","output":"{\"output\": \"FAIL\\n\", \"metadata\": {\"exit_code\": 1}}"}}`,
		`{"timestamp":"2026-11-20T11:00:01.100Z","type":"event_msg","payload":{"type":"agent_message","message":"Patching it."}}`,
		`{"timestamp":"2026-11-20T11:00:01.150Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10}},"rate_limits":null}}`,
	}, "\n"))
	lines := bytes.Split(data, []byte("\n"))
	skipped := compareCodexSkip(t, lines)
	want := []bool{false, true, true, true, false, true, false, false, true, true}
	if !reflect.DeepEqual(skipped, want) {
		t.Errorf("passed over %v, want %v", skipped, want)
	}
}

// FuzzCodexSkip: lines read with skipNoStep and readItem first read as
// readLine reads them.
func FuzzCodexSkip(f *testing.F) {
	for _, c := range codexSkipCases {
		f.Add(codexSkipCases[0].line + "\n" + c.line + "\n" + codexSkipCases[5].line)
	}
	for _, c := range codexItemCases {
		f.Add(codexItemCases[0].line + "\n" + c.line + "\n" + codexItemCases[1].line)
	}
	for _, c := range codexPreCases {
		f.Add(codexItemCases[0].line + "\n" + c + "\n" + codexPreCases[1])
	}
	for _, c := range codexMemoCases {
		f.Add(codexMemoCases[0] + "\n" + c + "\n" + codexMemoCases[1])
	}
	f.Fuzz(func(t *testing.T, data string) {
		compareCodexSkip(t, bytes.Split([]byte(data), []byte("\n")))
	})
}

// codexItemCases are rollout lines, read in this order, and whether
// readItem reads each (the rest are passed over, or read by readLine).
var codexItemCases = []struct {
	line string
	item bool
}{
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","call_id":"c1"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\": \"--- FAIL: TestDivide (0.00s)\\nFAIL\\n\", \"metadata\": {\"exit_code\": 1, \"duration_seconds\": 0.4}}"}}`, true},
	{`{"timestamp":"2026-11-20T11:00:01.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Divide does not guard against zero; patching it, with a text of more than sixty-four bytes."}]}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"output_text","text":"b"},{"type":"image"}]}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Running the tests**\n\nI will run the tests to see the failure, at more than sixty-four bytes."}],"content":null,"encrypted_content":"gAAAAABo-fake"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"content":[{"type":"reasoning_text","text":"r"}]}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: calc.go\n@@\n-\treturn a / b, nil\n*** End Patch\n"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM calc.go\n"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":"c3","status":"completed","action":{"type":"exec","command":["ls","-la"],"env":{"B":"2","A":"1"}}}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":[{"type":"input_text","text":"out"},{"type":"input_image","image_url":"x"}]}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"go errors"}}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"not json","call_id":"c4"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":{"command":["ls"]},"call_id":"c5"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c5","output":null}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c9","output":"no call"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"unknown_item","x":[1,{"a":true}]}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{}}`, true},
	// A key written twice: the last one read.
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a","name":"b","arguments":"{}","call_id":"c6","call_id":"c7"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","type":"message","role":"assistant","content":"hi","call_id":"c7","output":"x"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","role":"user","content":"hi"}}`, true},
	// Keys that open as one Codex writes: read as keys of no field.
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_idx":"c1","outputs":"x","call_id":"c1","output":"ok"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","contents":[1],"content":"hi"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","argumentsX":"{}","arguments":"{}","call_id":"c9"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","typeX":"message","name":"shell","arguments":"{}","call_id":"c9"}}`, true},
	// Strings with escapes and bytes past ASCII, read as readLine reads them.
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"sh\u0065ll","arguments":"{\"a\":\"\\u00e9\"}","call_id":"c\"8"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assis\u0074ant","content":"x\u00e9 ` + "\xff" + `"}}`, true},
	{"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"\xff\":1,\"role\":\"assistant\",\"content\":\"x\"}}", true},
	// Short strings past ASCII, read as views only when plain: a byte
	// that is not UTF-8 in the word of the closing quote, or in a word
	// before it (a name, an id, told from their decoding's U+FFFD).
	{"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"call_id\":\"c\xff\",\"name\":\"sh\xff\",\"arguments\":\"{\\\"command\\\":[\\\"ls\\\",\\\"-la\\\"]}\"}}", true},
	{"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c\xef\xbf\xbd\",\"output\":\"x, with more than forty bytes after the id\"}}", true},
	{"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"call_id\":\"abcdefgh\xc3ijklmnopqrst\",\"name\":\"abcdefg\xffhijklmnopq\",\"arguments\":\"{\\\"command\\\":[\\\"ls\\\",\\\"-la\\\"]}\"}}", true},
	{"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"abcdefgh\xef\xbf\xbdijklmnopqrst\",\"output\":\"y, with more than forty bytes after the id\"}}", true},
	{"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\xc3\xa9\",\"content\":\"x, with more than forty bytes after the role\"}}", true},
	// A line read after one read with its index, its content's block at
	// the same place and of the same length: read from no index (the
	// last line's is not over it).
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"firstxx"}],"n\u0061me":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","x":1,"text":"f"}]}}`, true},
	// A field of a wrong type, an escaped key, NaN or Infinity: readLine.
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":5,"arguments":"{}","call_id":"c1"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":7}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id":["c"]}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":{},"content":"x"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","n\u0061me":"x","arguments":"{}"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":NaN}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","action":{"timeout":Infinity}}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","action":{"command":["NaN"]}}}`, true}, // a string
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":-Infinity}}`, false},
	// Not valid, or not this shape.
	{`{"timestamp":"t\"x","type":"response_item","payload":{"type":"function_call","name":"a"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.1` + "\x01" + `Z","type":"response_item","payload":{"type":"function_call","name":"a"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.1"Z","type":"compacted","payload":{"message":"m"}}`, false},
	{`{"timestamp":"2026-11-20T11:00:00.100Z","type":"compacted","payload":{"message":"m"}}`, true},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a"},"x":1}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a"}} `, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a"}}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a",}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name" :"a"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name"x"a"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id";"c1","names"x"a"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","encrypted_content"x"a"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a\q"}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","x":[1,]}}`, false},
	{`{"timestamp":"t","type":"response_item","payload":"x"}`, false},
	{`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","x":[` + strings.Repeat("[", codexSkipMax) + `]}}`, false},
	// Compacted lines.
	{`{"timestamp":"t","type":"compacted","payload":{"message":"summary of the conversation so far\n\u00e9"}}`, true},
	{`{"timestamp":"t","type":"compacted","payload":{"message":[{"type":"output_text","text":"a"},{"type":"output_text","text":"b"}],"replacement_history":[{"type":"message"}]}}`, true},
	{`{"timestamp":"t","type":"compacted","payload":{}}`, true},
	{`{"timestamp":"t","type":"compacted","payload":{"message":null}}`, true},
	{`{"timestamp":"t","type":"compacted","payload":{"message":"m","type":5}}`, false},
	{`{"timestamp":"t","type":"compacted","payload":{"message":NaN}}`, false},
	{`{"timestamp":"t","type":"compacted","payload":"m"}`, false},
	{`{"timestamp":"t","type":"compactedx","payload":{"message":"m"}}`, false},
	{`{"timestamp":"t","type":"custom","payload":{"message":"m"}}`, false},
	{`{"type":"response_item","payload":{"type":"function_call","name":"a"}}`, false},
}

// TestCodexItemSame: a line readItem reads reads as readLine reads it,
// and the lines listed as read by readItem are.
func TestCodexItemSame(t *testing.T) {
	var lines [][]byte
	for _, c := range codexItemCases {
		lines = append(lines, []byte(c.line))
	}
	compareCodexSkip(t, lines)
	for _, c := range codexItemCases {
		probe := &codexReader{}
		line := []byte(c.line)
		_, skip, item := probe.skipNoStep(line)
		read := false
		if !skip && item > 0 {
			_, read = probe.readItem(line, item)
		}
		if read != c.item {
			t.Errorf("%q: read by readItem %v, want %v", c.line, read, c.item)
		}
	}
}
