package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// codexOwnLines read every kind of output the Codex reader writes: a
// string, one read from the scratch (JSON with an exit code, JSON of
// another shape, an output of null), a freeform exit, content blocks
// (one, several, an image), a reasoning's summary and content, a
// compacted record, each followed by lines that write over the scratch.
var codexOwnLines = []string{
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cat\",\"a long name: the scratch is grown to hold it first\"]}","call_id":"z"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"z","output":"{\"output\": \"z\"}"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"a"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"a","output":"{\"output\": \"one\\ntwo\", \"metadata\": {\"exit_code\": 1}}"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"pwd\"]}","call_id":"b"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"b","output":"{\"x\": 1} not the shape"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"{\"output\": null}"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n","call_id":"d"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"d","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. \u00e9"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"e","output":[{"type":"input_text","text":"a"},{"type":"input_image"}]}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"f","output":{"k":[1, 2]}}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done \"here\"\n"}]}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"one"},{"type":"output_text","text":"two"}]}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":"plain \ud83d\ude00"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"content":[{"type":"reasoning_text","text":" more"}]}}`,
	`{"timestamp":"t","type":"compacted","payload":{"message":"summary of it all"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cat\",\"a long file name that fills the scratch\"]}","call_id":"g"}}`,
	`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"g","output":"{\"output\": \"overwritten?\"}"}}`,
}

// compareCodexOwn reads data with a reader started for a table, each
// line from one buffer written over by the next, and with one that is
// not: the same records but for outCopied, which the started reader sets
// on every step; compared again at the end, so that an output over the
// line or the scratch, written over since, shows.
func compareCodexOwn(t *testing.T, data []byte) {
	t.Helper()
	table, plain := &codexReader{}, &codexReader{}
	table.start(nil)
	var got, want [][]stepRecord
	var buf []byte
	check := func(recs []stepRecord) {
		for i := range recs {
			if !recs[i].outCopied {
				t.Fatalf("%+v: not marked a copy of its own", recs[i])
			}
			recs[i].outCopied = false
		}
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		buf = append(buf[:0], line...)
		rt, wt := table.recordRaw(buf, n+1)
		rp, wp := plain.recordRaw(slices.Clone(line), n+1)
		if wt != wp {
			t.Fatalf("line %d: reason %q, want %q", n+1, wt, wp)
		}
		rt = slices.Clone(rt)
		check(rt)
		got, want = append(got, rt), append(want, cloneStrings(slices.Clone(rp))) // as read
		for i := range buf {
			buf[i] = '#'
		}
	}
	ft, fp := table.finish(), plain.finish()
	ft = slices.Clone(ft)
	check(ft)
	got, want = append(got, ft), append(want, cloneStrings(fp))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records, compared after the last line:\n got %+v\nwant %+v", got, want)
	}
}

// TestCodexOwnOutputs: the outputs a reader started for a table marks
// as strings of their own are: no view of a line or of the scratch.
func TestCodexOwnOutputs(t *testing.T) {
	compareCodexOwn(t, []byte(codexJoin(codexOwnLines)))
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "agents", "codex", "sessions", "*", "*", "*", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no Codex session in testdata")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		compareCodexOwn(t, data)
	}
}

// TestCodexOwnPastQueued: more calls waiting than the queue holds
// (maxQueued), then steps that wait on nothing (pushReady behind a full
// queue hands the oldest calls out with them): every step handed out is
// marked, those that came out of the queue too.
func TestCodexOwnPastQueued(t *testing.T) {
	var lines []string
	for i := range maxQueued + 3 {
		lines = append(lines, fmt.Sprintf(`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"A","arguments":"{}","call_id":"c%d"}}`, i))
		if i >= maxQueued {
			lines = append(lines, `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"t"}]}}`)
		}
	}
	compareCodexOwn(t, []byte(codexJoin(lines)))
}

// FuzzCodexOwn: as TestCodexOwnOutputs, of any lines.
func FuzzCodexOwn(f *testing.F) {
	f.Add([]byte(codexJoin(codexOwnLines)))
	for _, l := range codexOwnLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareCodexOwn(t, data)
	})
}

func codexJoin(lines []string) string {
	var b bytes.Buffer
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}
