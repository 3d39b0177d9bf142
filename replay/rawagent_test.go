package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// ambiguousKeys says a valid record holds an object with a key repeated,
// or two keys equal but for case: encoding/json and the readers that
// replaced it read those differently on purpose (rawagent.go), so the
// fuzz targets comparing them leave such records out.
func ambiguousKeys(raw []byte) bool {
	v, err := parseRecord(raw, false)
	if err != nil {
		return false
	}
	var walk func(v rawValue) bool
	walk = func(v rawValue) bool {
		switch v.Kind() {
		case '[':
			found := false
			v.Elems(func(_ int, el rawValue) bool { found = walk(el); return !found })
			return found
		case '{':
			var keys []string
			found := false
			v.Members(func(k []byte, esc bool, val rawValue) bool {
				key := string(keyBytes(k, esc))
				for _, o := range keys {
					if strings.EqualFold(o, key) || bytes.EqualFold([]byte(o), []byte(key)) {
						found = true
					}
				}
				keys = append(keys, key)
				found = found || walk(val)
				return !found
			})
			return found
		}
		return false
	}
	return walk(v)
}

// encodingJSONReason says a reason is encoding/json's own words (a type
// or syntax error), which the in-place readers put in their own.
func encodingJSONReason(r string) bool {
	return strings.Contains(r, "json: ") || strings.Contains(r, "invalid character") || strings.Contains(r, "unexpected end of JSON")
}

type recordReader interface {
	recordRaw(raw []byte, line int) ([]stepRecord, string)
	finish() []stepRecord
}

// compareReaders feeds each line of data to both readers and fails at the
// first difference: the steps, and the reasons (only both given when the
// old reason was encoding/json's). Lines whose keys are ambiguous are
// left out of both. Keys that differ only in case (see ambiguousKeys) are
// checked against the reader's own field names too.
func compareReaders(t *testing.T, data []byte, old, new recordReader) {
	t.Helper()
	// Every record read is compared again at the end: a string that is
	// a view of a reader's scratch, written over by a later line, shows.
	var allOld, allNew [][]stepRecord
	defer func() {
		if !t.Failed() && !reflect.DeepEqual(allOld, allNew) {
			t.Fatalf("records read, compared again after the last line:\n got %+v\nwant %+v", allNew, allOld)
		}
	}()
	// The new reader reads each line from one buffer, written over by
	// the next, as readRecordLines and recordSource read them in place:
	// a string it keeps that is a view of the line shows.
	var buf []byte
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || ambiguousKeys(line) || caseVariantKey(line) {
			continue
		}
		ro, wo := old.recordRaw(line, n+1)
		buf = append(buf[:0], line...)
		rn, wn := new.recordRaw(buf, n+1)
		if wo != wn && !(encodingJSONReason(wo) && wn != "") {
			t.Fatalf("line %d %q: reason %q, was %q", n+1, line, wn, wo)
		}
		if !reflect.DeepEqual(ro, rn) {
			t.Fatalf("line %d %q:\n got %+v\nwant %+v", n+1, line, rn, ro)
		}
		// Copies: ready's slice is reused at the next record.
		keep := slices.Clone(rn)
		if _, ok := new.(*clineReader); ok {
			// Its strings are written over once a later message starts
			// with nothing held (clineReader.text): stepTable.add has
			// copied them by then. The records compared above were read
			// after the ones held for them were written to.
			keep = cloneStrings(keep)
		}
		allOld, allNew = append(allOld, slices.Clone(ro)), append(allNew, keep)
		for i := range buf {
			buf[i] = '#' // the next line's read
		}
	}
	if fo, fn := old.finish(), new.finish(); !reflect.DeepEqual(fo, fn) {
		t.Fatalf("finish:\n got %+v\nwant %+v", fn, fo)
	}
}

// cloneStrings gives recs' strings memory of their own.
func cloneStrings(recs []stepRecord) []stepRecord {
	for i := range recs {
		r := &recs[i]
		r.action, r.output, r.location, r.canonical = strings.Clone(r.action), strings.Clone(r.output), strings.Clone(r.location), strings.Clone(r.canonical)
	}
	return recs
}

// agentFieldNames are the keys the old readers decoded into struct
// fields, which encoding/json matched regardless of case.
var agentFieldNames = []string{"type", "uuid", "isSidechain", "isMeta", "isCompactSummary", "message", "role", "content", "text",
	"thinking", "id", "name", "input", "tool_use_id", "is_error", "say", "ask", "payload", "record_type",
	"summary", "arguments", "call_id", "output", "action", "metadata", "exit_code", "observation"}

// caseVariantKey says a record has a key equal to a field name but for
// case ("Type"), which encoding/json took for the field.
func caseVariantKey(raw []byte) bool {
	if !json.Valid(raw) {
		return false
	}
	found := false
	var walk func(v rawValue)
	walk = func(v rawValue) {
		v.Members(func(k []byte, esc bool, val rawValue) bool {
			key := string(keyBytes(k, esc))
			for _, f := range agentFieldNames {
				if key != f && bytes.EqualFold([]byte(key), []byte(f)) {
					found = true
				}
			}
			walk(val)
			return !found
		})
		v.Elems(func(_ int, el rawValue) bool { walk(el); return !found })
	}
	walk(rawValue(bytes.TrimSpace(raw)))
	return found
}

// caseVariantText is caseVariantKey for a document that may be invalid
// JSON (both readers refuse it, after reading a prefix): a quoted field
// name spelled with other cases anywhere in it ("ACtion").
func caseVariantText(data []byte) bool {
	lower := make([]byte, len(data)) // ASCII only: indexes stay data's
	for i, c := range data {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	for _, f := range agentFieldNames {
		q := []byte(`"` + f + `"`)
		for i := 0; ; {
			j := bytes.Index(lower[i:], q)
			if j < 0 {
				break
			}
			if !bytes.Equal(data[i+j:i+j+len(q)], q) {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// addFileSeeds adds each line of an agent's fixtures as a seed.
func addFileSeeds(f *testing.F, paths ...string) {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzClaudeCodeRaw(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "agents", "claude-code", "*", "*", "*.jsonl"))
	addFileSeeds(f, paths...)
	for _, s := range []string{
		`{"type":"user","message":{"content":5}}`, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"x","input":{"b":[1, "\u0041<"],"a":null}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"image"},{"text":"x"}],"is_error":true}]}}`,
		`{"message":{"content":"x"},"type":"user","uuid":5}`, `{"type":"user","message":{"content":[null, {"text":null}]},"isMeta":true}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","input":NaN}]}}`, `{"type":"user"}}`,
		`{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}`,
		`{"type":"user","isCompactSummary":"yes","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`,
		`{"type":"progress","data":{"type":"agent_progress"}}` + "\n" + `{"type":"pr-link","prNumber":1}`,
		// A record written again (a resumed session), under its uuid, the
		// same in capitals, and a uuid with an escape.
		`{"type":"user","uuid":"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c","message":{"content":"a"}}` + "\n" +
			`{"type":"user","uuid":"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c","message":{"content":"a"}}` + "\n" +
			`{"type":"user","uuid":"3F2B6C1E-9A4D-4E8B-B1C2-0D9E8F7A6B5C","message":{"content":"a"}}` + "\n" +
			`{"type":"user","uuid":"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5\u0063","message":{"content":"a"}}`,
		// Tool uses repeated (callMemo): the same input under another
		// name, another input (spaced, absent, null) under the same name,
		// the first again after the lines were written over.
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"go test","z":[1,{"b":2,"a":"\u00e9"}]}}]}}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"b","name":"Read","input":{"command":"go test","z":[1,{"b":2,"a":"\u00e9"}]}}]}}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"server_tool_use","id":"c","name":"Bash","input":{"command": "go test","z":[1,{"b":2,"a":"\u00e9"}]}},{"type":"tool_use","id":"d","name":"Bash"},{"type":"tool_use","id":"e","name":"Bash","input":null}]}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"ok"}]}}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"f","name":"Bash","input":{"command":"go test","z":[1,{"b":2,"a":"\u00e9"}]}},{"type":"tool_use","id":"g","name":"Bash"},{"type":"tool_use","id":"h","name":"Read","input":{"command":"go test","z":[1,{"b":2,"a":"\u00e9"}]}}]}}`,
		// Keys written with escapes at every level (the record's, the
		// message's, a block's), beside keys that are not UTF-8: each
		// read as its unescaped name (the noted members' loops).
		`{"typ\u0065":"assistant","m\u0065ssage":{"rol\u0065":"assistant","cont\u0065nt":[{"typ\u0065":"tool_use","\u0069d":"a","nam\u0065":"Bash","inpu\u0074":{"c":1}},{"t\u0079pe":"text","t\u0065xt":"hi"}]},"\u0075uid":"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c","\u0069sSidechain":false}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_us\u0065_id":"a","cont\u0065nt":"out","is_\u0065rror":true}]},"uuid":"4f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"}` + "\n" +
			`{"type":"user","isM\u0065ta":true,"message":{"content":"injected"},"uuid":"5f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"}` + "\n" +
			`{"type":"user","isCompactSumm\u0061ry":true,"message":{"content":"summary"}}` + "\n" +
			"{\"type\":\"assistant\",\"\xff\":1,\"message\":{\"\xfe\":2,\"content\":[{\"\xfftype\":\"x\",\"type\":\"thinking\",\"thinking\":\"th\"}]}}" + "\n" +
			`{"type":"user","uuid":"4f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c","message":{"content":"again"}}` + "\n" +
			`{"type":"assistant","isSid\u0065chain":true,"message":{"content":[{"type":"text","text":"side"}]}}`,
		// Types read as written (wordView): escaped, of a wrong type.
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"x","input":{}},{"type":"t\u0065xt","text":"a"},{"type":["text"],"text":"b"}]}}`,
		// Blocks read from the objects the validating pass noted
		// (readBlocksText's cursor), elements that are no object and
		// objects nested in a block between them.
		`{"type":"user","message":{"content":[null,{"type":"text","text":"a"},"s",{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"x"}],"is_error":true},{ "type" : "text" , "text" : "b" },{},{"type":"text","text":"c"}]},"toolUseResult":{"a":{"b":1}}}`,
		// An injected user text (isMeta) is no prompt: the step after
		// it is not marked one.
		`{"type":"user","isMeta":true,"message":{"content":"injected"}}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"text","text":"after"}]}}`,
		// Steps recycled (stepQueue.recycle): an id used twice, results
		// out of order, steps handed out between calls still waiting.
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"x","name":"A"},{"type":"text","text":"t1"},{"type":"tool_use","id":"x","name":"B"},{"type":"tool_use","id":"y","name":"C"}]}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"y","content":"cy"}]}}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"text","text":"t2"},{"type":"tool_use","id":"z","name":"D"}]}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":"cx"},{"type":"tool_result","tool_use_id":"z","content":"cz"},{"type":"tool_result","tool_use_id":"x","content":"again"}]}}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"w","name":"E"},{"type":"text","text":"t3"}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareReaders(t, data, &claudeCodeReaderOld{}, newClaudeCodeReader())
	})
}

func FuzzClineRaw(f *testing.F) {
	for _, p := range []string{clineFixture, rooFixture} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		// One element a line, as readDocument passes them.
		var elems []json.RawMessage
		if err := json.Unmarshal(data, &elems); err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		for _, e := range elems {
			_ = json.Compact(&b, e)
			b.WriteByte('\n')
		}
		f.Add(b.Bytes())
	}
	for _, s := range []string{
		`{"role":"user","content":null}`, `{"role":"user"}`, `{"role":5,"content":"x"}`, `{"type":"say","say":"text"}`,
		// A message's members read as noted (clineReader.message): keys
		// escaped, repeated, not UTF-8, of a wrong type.
		`{"r\u006fle":"assistant","c\u006fntent":"x"}`, `{"role":"user","typ\u0065":5}`, `{"role":"user","role":3,"content":"x","say":[1]}`,
		"{\"role\":\"user\",\"con\xfftent\":\"x\",\"\xff\":1,\"content\":\"y\"}", `{"type":"ask","role":"","ask":"a"}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{"z":1,"a":"\u2028"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":{"a":[1, 2]}}]}`,
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"read_file\",\"input\":{}},{\"type\":\"tool_use\",\"id\":\"b\",\"name\":\"list_files\",\"input\":{}}]}\n" +
			"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"b\",\"content\":\"x\"},{\"type\":\"text\",\"text\":\"[read_file for 'a'] Result:\\n<error>no</error>\"}]}",
		// An environment dropped undecoded (readBlocksRawText), or not:
		// a result's body, escaped, a text of another type.
		"{\"role\":\"assistant\",\"content\":\"<read_file>\\n<path>a</path>\\n</read_file>\"}\n" +
			"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[read_file for 'a'] Result:\"},{\"type\":\"text\",\"text\":\"<environment_details>\\nx\"},{\"type\":\"text\",\"text\":\"<environment_details>\"}]}",
		// Types and roles read as written (wordView), escaped, of a
		// wrong type, null, and words it does not know.
		`{"role":"us\u0065r","content":[{"type":"te\u0078t","text":"a"},{"type":5,"text":"b"},{"type":null,"text":"c"},{"type":"image"},{"type":"text ","text":"d"}]}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"u","name":"n","input":{}},{"type":"tool_use","id":"v","name":"m","input":{}}]}` + "\n" +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"u","content":"r"},{"type":"tool_r\u0065sult","tool_use_id":"v","content":"s"}]}` + "\n" +
			`{"role":"assistant ","content":"x"}` + "\n" + `{"role":null,"content":"x"}` + "\n" + `{"role":"\u0075ser","content":"y"}`,
		// Blocks read from the objects the validating pass noted
		// (readBlocksText's cursor): elements that are no object between
		// them, objects nested in a block, one spaced, an empty one, and
		// the record's objects after its content.
		`{"role":"user","content":[null,"x",{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"in"}],"is_error":{"a":1}},{},5,{ "type" : "text" , "text" : "b" },[{"type":"text"}],{"type":"text","text":"c"}]}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{"a":{"b":{"c":{}}}}},{"type":"thinking","thinking":"th"},{"type":"text","text":"d"}]}` + "\n" +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"text","text":"e"}],"x":{"y":[{"z":{"w":1}}]}}`,
		`{"role":"user","content":[{"type":"text","text":"\u003cenvironment_details>"},{"type":"text","text":" <environment_details>"},{"type":"text","text":{"a":"<environment_details>"}}]}`,
		// Tool uses repeated (callMemo): the same body under another
		// tool, another body, and the first again once the texts it
		// was written into have been written over (a message started
		// with nothing held).
		"{\"role\":\"assistant\",\"content\":\"<read_file>\\n<path>a\\\"</path>\\n</read_file>\"}\n" +
			"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[read_file for 'a'] Result:\\nx\"}]}\n" +
			"{\"role\":\"assistant\",\"content\":\"<list_files>\\n<path>a\\\"</path>\\n</list_files><read_file><path>b</path></read_file>\"}\n" +
			"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[list_files for 'a'] Result:\\nyy\"}]}\n" +
			"{\"role\":\"assistant\",\"content\":\"<read_file>\\n<path>a\\\"</path>\\n</read_file><read_file>\\n<path>a\\\"</path>\\n</read_file>\"}\n" +
			"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[read_file for 'a'] Result:\\nz\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareReaders(t, data, &clineReaderOld{}, &clineReader{})
	})
}

func FuzzCodexRaw(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "agents", "codex", "sessions", "*", "*", "*", "*.jsonl"))
	addFileSeeds(f, paths...)
	for _, s := range []string{
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"], \"a\":1}","call_id":"c"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"{\"output\":\"x\",\"METADATA\":{\"exit_code\":\"2\"}}"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"x","arguments":null}}`,
		"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{}\",\"call_id\":\"c\"}}\n{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"exec command rejected by user\"}}",
		`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c","output":"apply_patch verification failed: no hunk"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Wall time: 1.0 seconds\naborted by user"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"x","arguments":" NaN "}}`,
		`{"id":"s","timestamp":"t","instructions":"i"}`, `{"record_type":"state"}`, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}`,
		`{"type":"event_msg","payload":{"type":5}}`, `{"type":"response_item","payload":"x","record_type":5}`,
		`{"type":"compacted","payload":{"message":"sum"}}`, `{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin","call_id":"d"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Exit code: -1
Wall time: 0.1 seconds
Output:
"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Exit code: +2
Wall time: 1 seconds
Output:
"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Exit code: 2147483648
Wall time: 1 seconds
"}}`,
		// Outputs and arguments holding JSON, read from the reader's
		// scratch: kept as written (not the shape, NaN, not JSON) or
		// read, each followed by another that writes over the scratch.
		"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"b\\\":2, \\\"a\\\":Infinity}\",\"call_id\":\"c\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\" {x \",\"call_id\":\"d\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"{\\\"output\\\": 5}\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"d\",\"output\":\"{\\\"output\\\":\\\"x\\\",\\\"n\\\":NaN}\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"e\",\"output\":\"{\\\"output\\\":\\\"a\\\\nb\\\",\\\"metadata\\\":{\\\"exit_code\\\":3}} \\n\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"f\",\"output\":\"{\\\"output\\\":null} and more\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"g\",\"output\":\"{\\u0022output\\u0022:\\\"\\xff\\\"}\"}}",
		// Calls repeated (callMemo): the same value as written under
		// another name or type, the same name with another value, and
		// the same call again after the memo's slots have all been
		// written over.
		"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"a\\\":1}\",\"call_id\":\"c\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"a\\\":1}\",\"call_id\":\"d\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"other\",\"arguments\":\"{\\\"a\\\":1}\",\"call_id\":\"e\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"custom_tool_call\",\"name\":\"shell\",\"input\":\"{\\\"a\\\":1}\",\"call_id\":\"f\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"a\\\":2}\",\"call_id\":\"g\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"local_shell_call\",\"action\":{\"command\":[\"ls\"]},\"call_id\":\"h\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"web_search_call\",\"action\":{\"command\":[\"ls\"]}}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"custom_tool_call\",\"name\":\"shell\",\"input\":{\"a\":1},\"call_id\":\"i\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":{\"a\":1},\"call_id\":\"j\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":null,\"call_id\":\"k\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"call_id\":\"l\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"a\\\":1}\",\"call_id\":\"m\"}}\n" +
			"{\"type\":\"response_item\",\"payload\":{\"type\":\"local_shell_call\",\"action\":{\"command\":[\"ls\"]},\"call_id\":\"n\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareReaders(t, data, &codexReaderOld{}, &codexReader{})
	})
}

// FuzzUnquote checks the one-pass unescaping against encoding/json's.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud800\udc00"`, `"\ud800\u0041"`, `"\udc00"`, "\"\xff\xfe a\"", `"\u00e9\/\\\""`, "\"\xed\xa0\x80\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := parseRecord(raw, false)
		if err != nil || v.Kind() != '"' {
			return
		}
		var want string
		if err := json.Unmarshal(v, &want); err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if got, ok := v.Str(); !ok || got != want {
			t.Fatalf("%q: Str %q, encoding/json %q", v, got, want)
		}
	})
}

// FuzzCallActionRaw checks the in-place spelling of a tool call against
// callAction's, which decodes and re-encodes with encoding/json.
func FuzzCallActionRaw(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x<\u2028"]}`, `{"a":1,"a":{"z":"\ud800","y":1.50e3}}`, `"s\n"`, `[]`, "{\"\xff\":\"\\u00e9\"}", `{ "k" : [ 1 , 2 ] }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := parseRecord(raw, false)
		if err != nil || hasNonFinite(raw) {
			return
		}
		wa, wc := callAction("tool", v)
		if a, c := callActionRaw("tool", v); a != wa || c != wc {
			t.Fatalf("%q:\n got %q %q\nwant %q %q", raw, a, c, wa, wc)
		}
		// Walked with the index of the record it is in, its members noted.
		var ix valueIndex
		rec := append(append([]byte(`{"input":`), raw...), '}')
		if validValueIx(rec, 0, &ix) != len(rec) {
			return // nested a level too deep
		}
		in := ix.get(rawValue(rec), "input")
		if a, c := callActionRawIx(&ix, "tool", in); a != wa || c != wc {
			t.Fatalf("%q indexed:\n got %q %q\nwant %q %q", raw, a, c, wa, wc)
		}
	})
}

// docEvents records what a docStepReader passes on.
type docEvents struct {
	events []string
}

func (d *docEvents) add(line int, recs []stepRecord) error {
	for _, r := range recs {
		live := ""
		if r.live != nil {
			live = fmt.Sprintf("%+v", *r.live)
		}
		r.live = nil
		d.events = append(d.events, fmt.Sprintf("%d %+v %s", line, r, live))
	}
	d.events = append(d.events, fmt.Sprintf("%d add", line))
	return nil
}

func (d *docEvents) skip(line int, reason string) error {
	if encodingJSONReason(reason) {
		reason, _, _ = strings.Cut(reason, ": json: ")
	}
	d.events = append(d.events, fmt.Sprintf("%d skip %s", line, reason))
	return nil
}

// FuzzSWEAgentDoc compares the streamed .traj reading with encoding/json's
// token stream: the same steps and skipped elements, on the same lines,
// and a document the old reader refused refused. The new reader also
// refuses what the old one let pass after the object (text, a ']').
func FuzzSWEAgentDoc(f *testing.F) {
	data, err := os.ReadFile(sweAgentFixture)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, s := range []string{
		"{\n  \"info\": {\"a\": [1, 2]},\n  \"trajectory\": [\n    {\"action\": \"ls\", \"observation\": \"a\"},\n    {\"observation\": \"b\"},\n    {\"action\": 5}\n  ]\n}\n",
		"{\"trajectory\": [null, {\"action\": null}, {\"action\": \" x \", \"observation\": null}, 5], \"history\": [{\"x\": NaN}]}",
		"{\"h\": 12, \"trajectory\": [\n{\"action\": \"a\\u0041\"}], \"trajectory\": []}", "{\"trajectory\": {}}", "[]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if json.Valid(data) && (ambiguousKeys(data) || caseVariantKey(data)) || caseVariantText(data) {
			return
		}
		var o, n docEvents
		oerr := (&sweAgentReaderOld{}).readDoc(bytes.NewReader(data), o.add, o.skip)
		nerr := (&sweAgentReader{}).readDoc(iotest.OneByteReader(bytes.NewReader(data)), n.add, n.skip)
		if oerr != nil && nerr == nil {
			t.Fatalf("%q: old refused it (%v), new read it", data, oerr)
		}
		if oerr == nil && nerr == nil && !reflect.DeepEqual(o.events, n.events) {
			t.Fatalf("%q:\n got %q\nwant %q", data, n.events, o.events)
		}
		// Both refused: the new reader may stop sooner ("00" is invalid at
		// once, where the Decoder read a 0 first), never read otherwise.
		if oerr != nil && nerr != nil && (len(n.events) > len(o.events) || !slices.Equal(o.events[:len(n.events)], n.events)) {
			t.Fatalf("%q:\n got %q (%v)\nwant a prefix of %q (%v)", data, n.events, nerr, o.events, oerr)
		}
		if oerr == nil && nerr != nil && !reflect.DeepEqual(o.events, n.events) {
			t.Fatalf("%q: new refused it (%v) and read otherwise:\n got %q\nwant %q", data, nerr, n.events, o.events)
		}
	})
}

// geminiTree is the Gemini CLI reader reading every record through
// parseJS, as it did before readRecordRaw.
type geminiTree struct{ geminiReader }

func (g *geminiTree) recordRaw(raw []byte, line int) ([]stepRecord, string) {
	return g.recordTree(raw, line)
}

// FuzzGeminiRaw compares the in-place reading of Gemini CLI records with
// parseJS's tree: the same steps, reasons and notes.
func FuzzGeminiRaw(f *testing.F) {
	for _, p := range []string{"session-2025-11-12T14-00-3f0c9a7e.jsonl", "session.json"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "gemini-cli", p))
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if json.Compact(&b, data) == nil {
			data = b.Bytes() // the document on one line
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"id":"a","type":"gemini","content":[{"text":"x","thought":0.0},{"text":"\ud800"}],"toolCalls":[{"name":" f ","args":{"2":1,"b":1e21,"1":"\u00e9","b":-0},"result":[{"functionResponse":{"response":{"output":"o","error":"e"}}}],"status":"error"},5]}`,
		`{"id":"b","type":"user","content":"System: Potential loop detected. Details: Repeated tool call: f with arguments {}. Please take a step back and confirm you're making forward progress."}`,
		`{"$set":{"sessionId":"s","messages":[{"id":"c","type":"user","content":[{"functionResponse":{}}]}]}}`, `{"$rewindTo":"a"}`,
		`{"$set":{"messages":[{"id":"d","type":"user","content":"q"}],"$set":1}}`, `{"$set":{"sessionId":"s","\u0024set":{}}}`, `{"$set":[{"messages":[]}]}`,
		`{"sessionId":"s","messages":[{"type":"gemini","content":"t"},3]}`, `{"type":"user","id":null}`, `{"id":"x","ty\u0070e":"gemini","content":{"text":"y"},"toolCalls":[{"args":""}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, n := &geminiTree{}, &geminiReader{}
		for i, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			ro, wo := o.recordRaw(line, i+1)
			rn, wn := n.recordRaw(line, i+1)
			if wo != wn || !reflect.DeepEqual(ro, rn) {
				t.Fatalf("line %d %q: got %+v %q, want %+v %q", i+1, line, rn, wn, ro, wo)
			}
		}
		fo, fn := o.finish(), n.finish()
		if !reflect.DeepEqual(fo, fn) || !reflect.DeepEqual(o.notes(), n.notes()) {
			t.Fatalf("finish:\n got %+v %q\nwant %+v %q", fn, n.notes(), fo, o.notes())
		}
	})
}

// FuzzClineDoc compares the streamed api_conversation_history.json with
// readDocument's reading of it: the same steps, skipped elements and
// problem, on the same lines.
// sameSpace reads an error's quoted white space as a space: the
// reference, readDocument, hands encoding/json an element whose white
// space it has compacted, so for `[{"":n<newline>}` it names ' ' where
// jsonStream names the byte the file holds, '\n' (the only difference
// FuzzClineDoc found, both refusing the same document).
func sameSpace(s string) string {
	return strings.NewReplacer(`'\n'`, `' '`, `'\r'`, `' '`, `'\t'`, `' '`).Replace(s)
}

func FuzzClineDoc(f *testing.F) {
	for _, p := range []string{clineFixture, rooFixture} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"[]", "[null, 5, {\"role\":\"user\",\"content\":\"x\"}]", "[{\"role\":\"user\",\"content\":\"x\"},]", "[{\"role\":\"user\"} {}]",
		"[{\"role\":\"user\",\"content\":\"x\"}", "[{\"role\":\"user\",\"content\":\"x", "[]\n x", "[NaN]", "[{\"a\":1}}]", "  [\n\n{\"role\":\"assistant\",\"content\":[]}\n]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if peekFirstByte(bufio.NewReader(bytes.NewReader(data))) != '[' {
			return
		}
		if hasNonFinite(data) {
			// The reference, readDocument, reads Python's NaN and
			// infinities as null (OpenHands' trajectories); Cline's file
			// is JSON.parse's, which refuses them, as jsonStream does.
			return
		}
		var o, n docEvents
		old := &clineReader{}
		oerr := readDocument(bufio.NewReader(bytes.NewReader(data)), DefaultMaxLineBytes, func(line int, raw []byte) error {
			recs, reason := old.recordRaw(raw, line)
			if reason != "" {
				return o.skip(line, reason)
			}
			return o.add(line, recs)
		}, o.skip)
		nerr := (&clineReader{}).readDoc(iotest.HalfReader(bytes.NewReader(data)), n.add, n.skip)
		if !reflect.DeepEqual(o.events, n.events) || sameSpace(fmt.Sprint(oerr)) != sameSpace(fmt.Sprint(nerr)) {
			t.Fatalf("%q:\n got %q %v\nwant %q %v", data, n.events, nerr, o.events, oerr)
		}
	})
}

// agentRecordRef is parseRecord(raw, true) as the readers that decoded into
// structs saw a record: null is an empty record (json.Unmarshal of null
// into a struct leaves it as it is), and a value other than an object
// followed by a stray ']' or '}' is "not a JSON object" (decodeObject's
// decoder stops before those).
func agentRecordRef(raw []byte) (rawValue, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return rawValue("{}"), nil
	}
	v, err := parseRecord(raw, true)
	if err == errRecordTwoValues {
		i := skipSpace(raw, 0)
		if j := skipSpace(raw, validValue(raw, i)); raw[i] != '{' && (raw[j] == ']' || raw[j] == '}') {
			return nil, errRecordNotObject
		}
	}
	return v, err
}

// FuzzAgentRecordIx holds agentRecordIx to agentRecordRef and
// hasNonFinite, the two readings it does in one pass.
func FuzzAgentRecordIx(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, " null \t", "\fnull", `{"a":NaN}`, `{"a":"NaN"}`, `[1]}`, `[1] x`, `{"a":1} {}`, `5`, `"x"`,
		`{"a":-Infinity,"b":[Infinity]}`, `{"a":1,}`, `  {"payload":{"x":"` + strings.Repeat("y", 80) + `"}}  `,
	} {
		f.Add([]byte(s))
	}
	var ix valueIndex
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, nonFinite, err := agentRecordIx(raw, &ix)
		want, wantErr := agentRecordRef(raw)
		if err != wantErr || !bytes.Equal(v, want) {
			t.Fatalf("%q: agentRecordIx = %q, %v; agentRecordRef %q, %v", raw, v, err, want, wantErr)
		}
		if err == nil && nonFinite != hasNonFinite(raw) {
			t.Fatalf("%q: nonFinite = %v, hasNonFinite %v", raw, nonFinite, !nonFinite)
		}
	})
}

// TestLineDroppersKeepNoLine holds the readers whose lines readSteps
// reads in place (keepsNoLine: the lineDroppers, and OpenHands', which
// reads views of the line) to keeping nothing of a line: each committed
// log read a line at a time from one buffer, overwritten once the line is
// read, gives the steps (and OpenHands events) it gives read from copies
// kept whole.
func TestLineDroppersKeepNoLine(t *testing.T) {
	codex, _ := filepath.Glob(filepath.Join("..", "testdata", "agents", "codex", "sessions", "*", "*", "*", "*.jsonl"))
	claude, _ := filepath.Glob(filepath.Join("..", "testdata", "agents", "claude-code", "*", "*", "*.jsonl"))
	if len(codex) == 0 || len(claude) == 0 {
		t.Fatal("no committed Codex or Claude Code logs")
	}
	openhands := []string{filepath.Join("..", "testdata", "steps", "openhands", "events.jsonl"),
		filepath.Join("..", "testdata", "openhands", "live-stuck.jsonl"), filepath.Join("..", "testdata", "openhands", "live-disagrees.jsonl")}
	var eps []*Episode
	for _, c := range []struct {
		paths []string
		new   func() rawStepReader
	}{
		{codex, func() rawStepReader { return &codexReader{} }},
		{claude, func() rawStepReader { return newClaudeCodeReader() }},
		{openhands, func() rawStepReader {
			o := &openHandsReader{}
			eps = append(eps, &Episode{})
			o.start(eps[len(eps)-1])
			return o
		}},
	} {
		for _, p := range c.paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !keepsNoLine(c.new()) {
				t.Fatalf("%s: the reader's lines are not read in place", p)
			}
			eps = eps[:0]
			kept, dropped := c.new(), c.new()
			var want, got []stepRecord
			var reasons []string
			var buf []byte
			for n, line := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				// An OpenHands step's action is a view of the reader's
				// buffer until the next record (held).
				_, views := kept.(*openHandsReader)
				recs, why := kept.recordRaw(bytes.Clone(line), n+1)
				if views {
					want = held(want, recs)
				} else {
					want = append(want, recs...)
				}
				buf = append(buf[:0], line...)
				recs, why2 := dropped.recordRaw(buf, n+1)
				if views {
					got = held(got, recs)
				} else {
					got = append(got, recs...)
				}
				reasons = append(reasons, why+" | "+why2)
				for i := range buf {
					buf[i] = '#'
				}
			}
			want, got = append(want, kept.finish()...), append(got, dropped.finish()...)
			if len(want) == 0 {
				t.Fatalf("%s: no steps", p)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: steps differ once the line is overwritten:\n got %+v\nwant %+v", p, got, want)
			}
			if len(eps) == 2 && !reflect.DeepEqual(eps[0], eps[1]) {
				t.Errorf("%s: OpenHands events differ once the line is overwritten:\n got %+v\nwant %+v", p, eps[1], eps[0])
			}
			for _, r := range reasons {
				if a, b, _ := strings.Cut(r, " | "); a != b {
					t.Errorf("%s: reason %q, read from a copy %q", p, b, a)
				}
			}
		}
	}
}

// TestIDView holds idView, a block's id, name and tool_use_id read by
// its two words, to rawStringView: every value of a string's shape (of
// 0 to 20 bytes, quotes included, each body byte a letter, a backslash,
// a quote, a byte over 0x7f, a control byte or a NUL, alone and beside
// others), and values that are no string, read the same. A body's bytes
// need not be valid JSON here: idView's test is its words' alone.
func TestIDView(t *testing.T) {
	specials := []byte{'\\', '"', 0x80, 0xc3, 0xa9, 0xff, 0x7f, 0x1f, 0, '/', 'u'}
	check := func(v rawValue) {
		t.Helper()
		gs, gok := idView(v)
		ws, wok := rawStringView(v)
		if gs != ws || gok != wok {
			t.Fatalf("idView(%q) = %q, %v; rawStringView %q, %v", v, gs, gok, ws, wok)
		}
	}
	for _, v := range []string{``, `null`, `5`, `true`, `{"a":"b"}`, `["abcdefgh"]`, `""`, `"a"`, `"é"`, `"\u00e9abcd"`, `"toolu_01"`, `"Bash"`} {
		check(rawValue(v))
	}
	for n := 0; n <= 18; n++ {
		body := bytes.Repeat([]byte{'a'}, n)
		check(rawValue(`"` + string(body) + `"`))
		for i := 0; i < n; i++ {
			for _, c := range specials {
				b := slices.Clone(body)
				b[i] = c
				check(rawValue(`"` + string(b) + `"`))
				for j := i + 1; j < n; j++ {
					b2 := slices.Clone(b)
					b2[j] = 0xe9
					check(rawValue(`"` + string(b2) + `"`))
				}
			}
		}
	}
}
