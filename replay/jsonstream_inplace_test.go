package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// streamDocs are documents for the jsonStream tests: the agents' own
// (a Gemini CLI session, a SWE-agent trajectory, Cline's task files)
// and short ones cut, invalid or ending in a scalar, with values longer
// than the smallest buffers.
func streamDocs(t testing.TB) [][]byte {
	var docs [][]byte
	for _, p := range []string{
		"../testdata/steps/gemini-cli/session.json",
		sweAgentFixture,
		"../testdata/agents/cline/tasks/1763632800000/api_conversation_history.json",
		"../testdata/agents/cline/tasks/1763632800000/ui_messages.json",
		"../testdata/agents/roo/tasks/0b7c9e2a-4f1d-4a8e-9c3b-5d6e7f8a9b0c/api_conversation_history.json",
	} {
		data, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, data)
	}
	long := strings.Repeat("y", 300)
	for _, s := range []string{
		``, ` `, `{`, `[`, `[1`, `[1,`, `{"a"`, `{"a":`, `{"a":1`, `12`, `12 `, ` 1.5e3`, `true`, `truex`, `"abc`, `"abc"`,
		`{"a": [1, 2, {"b": "c"}], "d": "` + long + `", "e": NaN}`,
		"[\n  {\"x\": \"" + long + "\"},\n  " + long[:40] + ",\n  [\"" + long + "\", 1e400, -0]\n]\n",
		"{\"messages\": [{\"id\": \"a\", \"content\": \"" + long + "\"}, 3, \"s\", null]\n, \"k\": {\"z\": [[[[]]]]}} trailing",
		`["` + long + long + long + `", {"` + long + `": 0}, 00]`,
		`[{"a":1}{"b":2}]`, `[1 2]`, `{"a" 1}`, `{1: 2}`, "[\"a\\\"b\", \"\\u00e9\", \"\xff\"]",
	} {
		docs = append(docs, []byte(s))
	}
	return docs
}

// walkStream reads a document through every method of js the readers
// call (value, valueIx, key, skip, expect, peek, atEnd), as they call
// them, and records what each returned, the line, and the window the
// Cline reader reads at an error (js.buf[js.pos:] at the end).
func walkStream(js *jsonStream) []string {
	var out []string
	rec := func(what string, raw []byte, line int, err error) {
		out = append(out, fmt.Sprintf("%s %q %d %d %v", what, raw, line, js.line, err))
	}
	c, ok := js.peek()
	out = append(out, fmt.Sprintf("peek %q %v", c, ok))
	switch {
	case !ok:
		return out
	case c == '{':
		js.pos++
		for i := 0; ; i++ {
			if js.expect('}') {
				out = append(out, "}")
				break
			}
			if i > 0 && !js.expect(',') {
				out = append(out, "no ,")
				break
			}
			k, err := js.key()
			rec("key "+k, nil, 0, err)
			if err != nil {
				break
			}
			if len(k)%2 == 0 {
				rec("skip", nil, 0, js.skip())
				continue
			}
			var ix valueIndex
			raw, line, err := js.valueIx(&ix)
			rec("valueIx", raw, line, err)
			if err != nil {
				break
			}
		}
	case c == '[':
		js.pos++
		for i := 0; ; i++ {
			if js.expect(']') {
				out = append(out, "]")
				break
			}
			if i > 0 && !js.expect(',') {
				out = append(out, "no ,")
				break
			}
			raw, line, err := js.value()
			rec("value", raw, line, err)
			if err != nil {
				break
			}
		}
	default:
		raw, line, err := js.value()
		rec("value", raw, line, err)
	}
	out = append(out, fmt.Sprintf("atEnd %v eof %v err %v", js.atEnd(), js.eof, js.err))
	if js.eof {
		out = append(out, fmt.Sprintf("rest %q", js.buf[js.pos:]))
	}
	return out
}

// TestJSONStreamInPlace holds a jsonStream reading its bufio.Reader's
// buffer in place (fillInPlace) to the same stream reading it through a
// buffer of its own: the same values, lines and errors, with bufio
// buffers of 16 bytes to 4 KiB (values longer than the buffer are held),
// short reads, and reads that fail.
func TestJSONStreamInPlace(t *testing.T) {
	defer func() { streamInPlace = true }()
	readers := map[string]func([]byte) io.Reader{
		"whole":   func(b []byte) io.Reader { return bytes.NewReader(b) },
		"onebyte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":    func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"dataerr": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"fails": func(b []byte) io.Reader {
			return io.MultiReader(bytes.NewReader(b[:len(b)*2/3]), iotest.ErrReader(fmt.Errorf("disk gone")))
		},
	}
	for di, doc := range streamDocs(t) {
		for name, mk := range readers {
			for _, size := range []int{16, 17, 64, 300, 4096} {
				walk := func(inPlace bool) []string {
					streamInPlace = inPlace
					br := bufio.NewReaderSize(mk(doc), size)
					br.Peek(min(size, 8)) // as the readers' detection peeks first
					js := newJSONStream(br, 0)
					if js.inBR != inPlace {
						t.Fatalf("inBR %v with streamInPlace %v", js.inBR, inPlace)
					}
					return walkStream(js)
				}
				want, got := walk(false), walk(true)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("doc %d (%.40q), %s reads, buffer %d:\n got %q\nwant %q", di, doc, name, size, got, want)
				}
			}
		}
	}
}

// TestJSONStreamInPlaceReaders holds the Gemini CLI, SWE-agent and Cline
// readers of a document to the same reading with the stream's own
// buffer, with bufio buffers of 16 bytes to 4 KiB.
func TestJSONStreamInPlaceReaders(t *testing.T) {
	defer func() { streamInPlace = true }()
	for di, doc := range streamDocs(t) {
		for _, size := range []int{16, 33, 512, 4096} {
			read := func(inPlace bool) []string {
				streamInPlace = inPlace
				var out []string
				for i, rd := range []docStepReader{&geminiReader{}, &sweAgentReader{}, &clineReader{}} {
					var ev docEvents
					br := bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(doc)), size)
					err := rd.readDoc(br, ev.add, ev.skip)
					out = append(out, fmt.Sprint(i, err))
					out = append(out, ev.events...)
				}
				return out
			}
			want, got := read(false), read(true)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("doc %d (%.40q), buffer %d:\n got %q\nwant %q", di, doc, size, got, want)
			}
		}
	}
}
