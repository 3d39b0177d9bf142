package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// genReader yields parts produced on demand, so a test's input of tens of
// MB is never held by the test itself.
type genReader struct {
	next func(i int) string // "" ends the input
	i    int
	cur  string
}

func (g *genReader) Read(p []byte) (int, error) {
	for g.cur == "" {
		if g.cur = g.next(g.i); g.cur == "" {
			return 0, io.EOF
		}
		g.i++
	}
	n := copy(p, g.cur)
	g.cur = g.cur[n:]
	return n, nil
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// heldBy is the bytes of heap f leaves live: the live heap after f
// less before it, each measured after two collections (the second
// frees what pools held over the first). What f keeps must be reachable
// until the caller has read heldBy's result (assigned to a variable
// outside f and used after).
func heldBy(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

var stepFields = map[string]string{"step": "step"}

// A JSON array is read element by element: a trajectory of 2,000 steps
// padded to 40 MB with white space (between elements and between an
// element's tokens) allocates a small fraction of its size, where reading
// the document whole allocated all of it and more.
func TestDocumentStreamsElements(t *testing.T) {
	const steps, pad = 2000, 20_000
	spaces := strings.Repeat(" ", pad/2-1) + "\n"
	gen := func(i int) string { // "[", then 5 parts a step, the spaces shared
		k, part := (i-1)/5+1, (i-1)%5
		switch {
		case i == 0:
			return "["
		case k > steps:
			if k == steps+1 && part == 0 {
				return "]\n"
			}
			return ""
		case part == 0 && k > 1:
			return ","
		case part == 0:
			return " "
		case part == 1 || part == 3:
			return spaces
		case part == 2:
			return fmt.Sprintf(`{"step": %d,`, k)
		}
		return ` "action": "ls  -la", "output": "a\nb"}`
	}
	var eps []*Episode
	var err error
	n := allocated(func() {
		eps, err = Read(&genReader{next: gen}, "trajectory.json", "t", Options{Format: FormatSteps, Fields: stepFields})
	})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes, %v", len(eps), err)
	}
	ep := eps[0]
	if len(ep.Turns) != steps || ep.Diag.Skipped != 0 {
		t.Fatalf("%d turns, %d skipped (%v); want %d, 0", len(ep.Turns), ep.Diag.Skipped, ep.Diag.Problems, steps)
	}
	// Strings keep their spaces; only those between tokens collapse.
	if got := ep.Str(ep.Turns[0].Action); got != "ls  -la" {
		t.Errorf("action %q, want %q", got, "ls  -la")
	}
	if got := ep.Str(ep.Outputs[0]); got != "a\nb" {
		t.Errorf("output %q", got)
	}
	size := uint64(steps * pad)
	if n > size/8 {
		t.Errorf("reading a %d MB trajectory allocated %d MB; want under %d MB (an element at a time)", size>>20, n>>20, size>>23)
	}
}

// The same bound for a log that only starts with '[' (auto-detection sends
// it to the trajectory reader whatever its name): "[", 64 MB of spaces,
// "]" costs next to nothing and is a log with no steps.
func TestDocumentOfSpacesIsBounded(t *testing.T) {
	const chunks = 1024
	block := strings.Repeat(" \n", 32<<10)
	gen := func(i int) string {
		switch {
		case i == 0:
			return "["
		case i <= chunks:
			return block
		case i == chunks+1:
			return "]"
		}
		return ""
	}
	var err error
	n := allocated(func() {
		_, err = Read(&genReader{next: gen}, "episode_log.jsonl", "e", Options{Format: FormatAuto})
	})
	var ne *NoEventsError
	if !errors.As(err, &ne) {
		t.Fatalf("err %v, want no events", err)
	}
	if n > 8<<20 {
		t.Errorf("a %d MB array of spaces allocated %d MB; want under 8 MB", chunks*len(block)>>20, n>>20)
	}
}

// The size cap is per element, not per file: an element over it is a
// problem at its line, skipped without being held, and the elements
// after it are read; a file many times the cap is read whole.
func TestDocumentElementCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("[\n")
	for i := 1; i <= 50; i++ {
		out := "ok"
		if i == 7 {
			out = strings.Repeat("x", 500)
		}
		if i > 1 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"step": %d, "action": "a%d", "output": %q}`, i, i%3, out)
	}
	b.WriteString("\n]\n")
	if b.Len() < 10*200 {
		t.Fatal("the file should be many times the cap")
	}
	eps, err := Read(strings.NewReader(b.String()), "trajectory.json", "t", Options{Format: FormatSteps, Fields: stepFields, MaxLineBytes: 200})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes, %v", len(eps), err)
	}
	ep := eps[0]
	if len(ep.Turns) != 50 || !ep.Turns[6].Filled || ep.Diag.Skipped != 1 || ep.Diag.Lines != 50 {
		t.Errorf("%d turns, %d skipped of %d; want 50 (step 7 a gap filled), 1 of 50", len(ep.Turns), ep.Diag.Skipped, ep.Diag.Lines)
	}
	rtWantProblem(t, ep.Diag, "trajectory.json:8: array element longer than 200 bytes")
	if _, err := Read(strings.NewReader(b.String()), "trajectory.json", "t", Options{Format: FormatSteps, Fields: stepFields, MaxLineBytes: 200, Strict: true}); err == nil ||
		!strings.Contains(err.Error(), "array element longer than 200 bytes") {
		t.Errorf("--strict: %v", err)
	}
}

// The structure's problems keep their words and lines, streamed.
func TestDocumentStructureProblems(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[{"step": 1, "action": "a"}` + "\n", "trajectory.json:2: the JSON array is not closed"},
		{`[{"step": 1, "action": "a"},` + "\n" + `{"step": 2, "action": "a",}]`, "trajectory.json:2: invalid JSON in the array: invalid character '}'"},
		{`[{"step": 1, "action": "a"} {"step": 2}]`, "trajectory.json:1: invalid JSON in the array: invalid character '{' after array element"},
		{`[{"step": 1, "action": "a"},]`, "trajectory.json:1: invalid JSON in the array: invalid character ']' looking for beginning of value"},
		{`[{"step": 1, "action": "a"}, {"step": 2, "action": "b` + "\n\n", "trajectory.json:1: invalid JSON in the array: unexpected EOF"},
		{"[{\"step\": 1, \"action\": \"a\"}]\n\n  x", "trajectory.json:3: text after the JSON array's closing ]"},
	} {
		eps, err := Read(strings.NewReader(c.in), "trajectory.json", "t", Options{Format: FormatSteps, Fields: stepFields})
		if err != nil || len(eps) != 1 {
			t.Errorf("%q: %d episodes, %v", c.in, len(eps), err)
			continue
		}
		if len(eps[0].Turns) != 1 {
			t.Errorf("%q: %d turns, want the 1 before the problem", c.in, len(eps[0].Turns))
		}
		rtWantProblem(t, eps[0].Diag, c.want)
	}
}

// The streamed reader agrees with encoding/json on any input (NaN and
// infinities read as null): an array it
// reads without a problem is valid JSON, and one encoding/json accepts it
// reads whole, element for element (white space between tokens aside).
func FuzzDocumentStream(f *testing.F) {
	for _, s := range []string{`[]`, `[1, "a", {"b": [2, {"c": "]"}]}]`, ` [ {"a":"\"}"} , null ] `, `[{"a": 1} {"b": 2}]`,
		`[1,]`, `[,1]`, "[\"a\nb\"]", `{"sessionId": "s", "messages": []}`, `[1] x`, `[tru]`, `["\\"]`, `[-1.5e3,true,false]`, `[NaN, {"a": -Infinity}]`, `[Nan]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		trimmed := bytes.TrimLeft(in, " \t\r\n")
		if len(trimmed) == 0 || (trimmed[0] != '[' && trimmed[0] != '{') {
			return // read as lines, not a document
		}
		var got [][]byte
		fn := func(line int, raw []byte) error { got = append(got, bytes.Clone(raw)); return nil }
		skip := func(int, string) error { t.Fatal("no element is over the cap"); return nil }
		err := readDocument(bufio.NewReaderSize(bytes.NewReader(in), 16), 1<<20, fn, skip)
		var de *docError
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("%q: an error not a docError: %v", in, err)
		}
		// Python's NaN and infinities are read as null, as in a JSONL line.
		ref, _ := sanitizeNonFinite(in)
		if trimmed[0] == '{' {
			if (err == nil) != json.Valid(ref) {
				t.Fatalf("%q: object read %v, json.Valid %v", in, err, json.Valid(ref))
			}
			return
		}
		var want []json.RawMessage
		werr := json.Unmarshal(ref, &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: streamed %v, encoding/json %v", in, err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d elements, want %d", in, len(got), len(want))
		}
		for i := range got {
			var a, b bytes.Buffer
			g, _ := sanitizeNonFinite(got[i])
			if json.Compact(&a, g) != nil || json.Compact(&b, want[i]) != nil || a.String() != b.String() {
				t.Fatalf("%q: element %d %q, want %q", in, i, got[i], want[i])
			}
		}
	})
}

// A JSONL steps log's padding is not held either: a line of 64 MB of
// spaces before a record costs next to nothing, and is no problem.
func TestStepsLinePaddingIsBounded(t *testing.T) {
	const chunks = 1024
	block := strings.Repeat(" ", 64<<10)
	gen := func(i int) string {
		switch {
		case i < chunks:
			return block
		case i == chunks:
			return `{"step": 1, "action": "ls", "output": "x"}` + "\n"
		}
		return ""
	}
	var eps []*Episode
	var err error
	n := allocated(func() {
		eps, err = Read(&genReader{next: gen}, "steps.jsonl", "s", Options{Format: FormatSteps, Fields: stepFields})
	})
	if err != nil || len(eps) != 1 || len(eps[0].Turns) != 1 || eps[0].Diag.Skipped != 0 {
		t.Fatalf("%d episodes, %v", len(eps), err)
	}
	if n > 8<<20 {
		t.Errorf("a 64 MB line of spaces allocated %d MB; want under 8 MB", n>>20)
	}
}
