package replay

import (
	"bytes"
	"strings"
	"testing"
)

// checkCodexCopyString holds copyString, on a string ending a Codex
// line, to validString and appendText: the same end, and the text
// appendText writes of the string it accepts.
func checkCodexCopyString(t *testing.T, b []byte, i int) {
	t.Helper()
	wantEnd, _ := validString(b, i)
	end, text := copyString(b, i, make([]byte, len(b)-i))
	if end != wantEnd {
		t.Fatalf("copyString(%q, %d) ends at %d, validString at %d", b, i, end, wantEnd)
	}
	if end >= 0 {
		if want := appendText(nil, b[i+1:end-1]); !bytes.Equal(text, want) {
			t.Fatalf("copyString(%q, %d) = %q, appendText %q", b, i, text, want)
		}
	}
}

// TestCodexCopyString: strings of every length up to 100 bytes made of
// plain ASCII, escapes (two-byte, \u, surrogates, bad ones), multi-byte
// UTF-8, invalid bytes and control bytes, each piece at every place
// relative to copyStringRun's steps, closed and followed by 0 to 40
// bytes more of a line (the steps stop 32 bytes from its end), or cut.
func TestCodexCopyString(t *testing.T) {
	pieces := []string{"a", `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\u12`, `\x`, "é", "\xff", "\x01", "\x7f", `"`, "0123456789abcdef0123456789abcdef"}
	tails := []string{``, `\`, `"`, `"}`, `"}}`}
	for k := 1; k <= 40; k++ {
		tails = append(tails, `"`+strings.Repeat("}", k))
	}
	for n := range 101 {
		for i := range pieces {
			for j := range pieces {
				for _, tail := range tails {
					b := []byte(`{"output":"`)
					b = append(b, bytes.Repeat([]byte{'q'}, n)...)
					b = append(b, pieces[i]...)
					b = append(b, bytes.Repeat([]byte{'r'}, n%37)...)
					b = append(b, pieces[j]...)
					b = append(b, tail...)
					checkCodexCopyString(t, b, len(`{"output":`))
				}
			}
		}
	}
}

func FuzzCodexCopyString(f *testing.F) {
	for _, s := range []string{`{"output":"a\nb"}}`, `"0123456789abcdef0123456789abcdef0123456789\n\u00e9\ud800x"}}`, "\"\xff\xfe\\t\xc3 0123456789abcdef0123456789abcdef\"}", `"\ud800\\"`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, from uint8) {
		if len(b) == 0 {
			return
		}
		if i := bytes.IndexByte(b[int(from)%len(b):], '"'); i >= 0 {
			checkCodexCopyString(t, b, int(from)%len(b)+i)
		}
	})
}

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
