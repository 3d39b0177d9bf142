package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
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
