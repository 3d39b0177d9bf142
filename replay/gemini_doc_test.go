package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// FuzzGeminiSession compares the streamed session document (readSession:
// each message validated, indexed and reduced in place, read in short
// reads) with the whole document parsed by parseJS (recordTree): the
// same records or reason, the same steps and notes at the end. A
// document the tree refuses the stream refuses too.
func FuzzGeminiSession(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "gemini-cli", "session.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	long := bytes.Repeat([]byte("x"), 3*indexMin)
	for _, s := range []string{
		`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"gemini","content":[{"text":"x","thought":0.0},{"text":"\ud800"}],"toolCalls":[{"name":" f ","args":{"2":1,"b":1e21,"1":"\u00e9","b":-0},"result":[{"functionResponse":{"response":{"output":"o","error":"e"}}}],"status":"error"},5]}]}`,
		"{\n \"sessionId\": \"s\",\n \"messages\": [{\"type\": \"gemini\", \"content\": \"t\"}, 3],\n \"messages\": [{\"id\": \"b\", \"type\": \"user\", \"content\": \"q\"}]\n}",
		`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"gemini","toolCalls":[{"name":"f","args":{"x":"` + string(long) + `"},"result":[{"functionResponse":{"id":"c","response":{"output":"` + string(long) + `"}}},{"functionResponse":{"response":{"error":"e"}}}],"resultDisplay":"` + string(long) + `"}]}]}`,
		`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"user","content":[{"text":"` + string(long) + `"},{"functionResponse":{"response":{"output":"` + string(long) + `"}}}]},{"id":"b","type":"gemini","content":[{"text":"` + string(long) + `","thought":true},{"text":"y"}]}]}`,
		`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"user","content":"System: Potential loop detected. Details: Repeated tool call: f with arguments {}. Please take a step back and confirm you're making forward progress."}]}`,
		`{"sessionId":"s","projectHash":"p","messages":{}}`, `{"sessionId":"s","messages":[NaN]}`, `{"messages":[{"id":"a"}],"sessionId":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkGeminiSession)
}

// checkGeminiSession: the streamed session document reads data as the
// tree does (FuzzGeminiSession), handed over a few bytes a read (its
// values crossing the stream's window) and at once (each message whole
// in the window, where messageTop reads it).
func checkGeminiSession(t *testing.T, data []byte) {
	t.Helper()
	checkGeminiSessionFrom(t, data, bufio.NewReader(data2reader(data)))
	checkGeminiSessionFrom(t, data, bufio.NewReaderSize(bytes.NewReader(data), 1<<20))
	checkGeminiSessionHanded(t, data, func() *bufio.Reader { return bufio.NewReader(data2reader(data)) })
	checkGeminiSessionHanded(t, data, func() *bufio.Reader { return bufio.NewReaderSize(bytes.NewReader(data), 1<<20) })
}

// checkGeminiSessionHanded: a reader that hands the messages over as it
// reads them (speculate: readSession's gap skip, messageTop not counting
// lines, the handed-over error paths) reads data as one that holds them,
// or gives up with errRereadWhole (the caller then reads the file again
// whole, and drops what was handed over).
func checkGeminiSessionHanded(t *testing.T, data []byte, open func() *bufio.Reader) {
	t.Helper()
	if br := open(); peekFirstByte(br) != '{' || isJSONL(br) {
		return
	}
	var held, handed docEvents
	var hg, sg geminiReader
	sg.speculate = true
	herr := hg.readSession(open(), held.add, held.skip)
	serr := sg.readSession(open(), handed.add, handed.skip)
	if serr == errRereadWhole {
		return
	}
	if !reflect.DeepEqual(serr, herr) {
		t.Fatalf("%q: handed over, %#v; held, %#v", data, serr, herr)
	}
	if !reflect.DeepEqual(handed.events, held.events) {
		t.Fatalf("%q: handed over:\n got %q\nwant %q", data, handed.events, held.events)
	}
	if fh, fs := hg.finish(), sg.finish(); !reflect.DeepEqual(fs, fh) || !reflect.DeepEqual(sg.notes(), hg.notes()) {
		t.Fatalf("%q: finish, handed over:\n got %+v %q\nwant %+v %q", data, fs, sg.notes(), fh, hg.notes())
	}
}

func checkGeminiSessionFrom(t *testing.T, data []byte, br *bufio.Reader) {
	t.Helper()
	if peekFirstByte(br) != '{' || isJSONL(br) {
		return // read as lines: FuzzGeminiRaw
	}
	var n docEvents
	var ng geminiReader
	nerr := ng.readSession(br, n.add, n.skip)
	line := 1 + bytes.Count(data[:len(data)-len(bytes.TrimLeft(data, " \t\r\n"))], []byte("\n"))
	o := &geminiTree{}
	recs, reason := o.recordTree(data, line)
	if _, err := parseJS(data); err != nil {
		if nerr == nil && !(len(n.events) == 1 && bytes.Contains([]byte(n.events[0]), []byte(" skip "))) {
			t.Fatalf("%q: the tree refused it (%s), the stream read %q", data, reason, n.events)
		}
		return
	}
	if nerr != nil {
		t.Fatalf("%q: the stream refused it (%v), the tree read it (%q)", data, nerr, reason)
	}
	var o2 docEvents
	if reason != "" {
		o2.skip(line, reason)
	} else {
		o2.add(line, recs)
	}
	if !reflect.DeepEqual(o2.events, n.events) {
		t.Fatalf("%q:\n got %q\nwant %q", data, n.events, o2.events)
	}
	fo, fn := o.finish(), ng.finish()
	if !reflect.DeepEqual(fo, fn) || !reflect.DeepEqual(o.notes(), ng.notes()) {
		t.Fatalf("%q: finish:\n got %+v %q\nwant %+v %q", data, fn, ng.notes(), fo, o.notes())
	}
}

// data2reader hands data over a few bytes a read, so values cross the
// stream's window.
func data2reader(data []byte) *bufio.Reader {
	return bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(data)), 16)
}

// TestGeminiSessionErrorLine: a session document with a problem past
// its messages (at '@') is refused on that problem's line when its
// messages were held (not speculate, or not yet a session when they
// began), where messageTop counted the messages' lines; handed over as
// read, where messageTop counts none, it is read again whole.
func TestGeminiSessionErrorLine(t *testing.T) {
	msgs := `[{"id":"a","type":"user","content":"q"},{"id":"b","type":"gemini","content":"x","toolCalls":[{"name":"f","args":{"p":"a\nb"},"result":[{"functionResponse":{"response":{"output":"o"}}}]}]}]`
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(msgs), "  ", "  "); err != nil {
		t.Fatal(err)
	}
	for _, tail := range []string{"\n\n  @}", ",\n  @\"x\": 1}", ",\n  \"x\":\n @}", "}\n\n@", "\n, \"x\"@}"} {
		for _, head := range []string{"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": ", "{\n  \"sessionId\": \"s\",\n  \"messages\": "} {
			doc := head + b.String() + tail
			want := 1 + strings.Count(doc[:strings.IndexByte(doc, '@')], "\n")
			for _, speculate := range []bool{false, true} {
				for _, br := range []*bufio.Reader{data2reader([]byte(doc)), bufio.NewReaderSize(strings.NewReader(doc), 1<<20)} {
					var ev docEvents
					g := &geminiReader{speculate: speculate}
					err := g.readSession(br, ev.add, ev.skip)
					var de *docError
					switch {
					case speculate && strings.Contains(head, "projectHash"):
						if err != errRereadWhole {
							t.Errorf("%q, handed over as read: %v, want errRereadWhole", doc, err)
						}
					case !errors.As(err, &de) || de.line != want:
						t.Errorf("%q (speculate %v): %#v, want a docError on line %d", doc, speculate, err, want)
					}
				}
			}
		}
	}
}

// TestGeminiSessionHandedAsHeld: a session document read from a file,
// its messages handed over as read (readSession's comma and white space
// passed by sep or skipBlank, messageTop counting no lines), reads as
// the same document held to its end (from a bare reader), and is handed
// over to its end, not read again whole (which would hide a message
// misread): compact, indented as JSON.stringify writes it (the gap
// between two messages 7 bytes, sep's word), more deeply (past a word),
// with a tab, and with gaps that differ from message to message (a
// space before the comma, blank lines, none), some documents longer
// than the read's 1 MiB buffer.
func TestGeminiSessionHandedAsHeld(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(24, 13))
	// outs: the outputs as each turn is stepped as read (the replay lets
	// go of one once stepped).
	var outs []string
	stepper := func(*Episode) TurnStepper {
		return stepFunc(func(ep *Episode, i int) { outs = append(outs, ep.Output(ep.Turns[i].N)) })
	}
	dir := t.TempDir()
	gaps := []string{",", ", ", ",\n    ", ",\n        ", ",\n\t", " ,\n    ", ",\n\n    ", ",\r\n  ", ",\n       "}
	for round, n := range []int{6, 40, 200, 6000} {
		var doc struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(replaytest.GeminiDoc(rng, n, false), &doc); err != nil {
			t.Fatal(err)
		}
		for k, gap := range append(gaps, "mixed") {
			var b strings.Builder
			b.WriteString("{\n  \"sessionId\": \"s-1\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n    ")
			for i, m := range doc.Messages {
				if i > 0 {
					g := gap
					if gap == "mixed" {
						g = gaps[rng.IntN(len(gaps))]
					}
					b.WriteString(g)
				}
				if k%2 == 1 {
					var ind bytes.Buffer
					_ = json.Indent(&ind, m, "    ", "  ")
					m = ind.Bytes()
				}
				b.Write(m)
			}
			b.WriteString("\n  ]\n}\n")
			path := filepath.Join(dir, fmt.Sprintf("session-%d-%d.json", round, k))
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			outs = nil
			handed, err := ReadFile(path, nil, Options{Format: FormatAuto, Stepper: stepper})
			handedOuts := outs
			if err != nil || len(handed) != 1 || handed[0].Stepped == nil {
				t.Fatalf("%s: not handed over as read to its end: %d episodes, %v", path, len(handed), err)
			}
			held, err := Read(strings.NewReader(b.String()), path, DefaultEpisodeID(path), Options{Format: FormatAuto, Stepper: stepper})
			if err != nil || len(held) != 1 || held[0].Stepped != nil {
				t.Fatalf("%s: not held: %v", path, err)
			}
			outs = nil // held, from a reader read once: not stepped as read
			for i := range held[0].Turns {
				outs = append(outs, held[0].Output(held[0].Turns[i].N))
			}
			if len(held[0].Turns) < n/2 || !reflect.DeepEqual(spelledRows(handed[0]), spelledRows(held[0])) || !slices.Equal(handedOuts, outs) {
				t.Errorf("%s: handed over as read, %d turns, differs from held, %d", path, len(handed[0].Turns), len(held[0].Turns))
			}
		}
	}
}

// spelledRows is spelledTable with no outputs: a replay as read lets
// go of a turn's output once stepped.
func spelledRows(ep *Episode) []any {
	var rows []any
	for i := range ep.Turns {
		rows = append(rows, ep.Row(&ep.Turns[i]), ep.Steps[i])
	}
	return rows
}
