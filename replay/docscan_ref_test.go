package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

// valueRef is value as it was before its strings were copied whole: a
// stop at every escape (special). It reads the JSON value at the next byte (after skipSpace): an
// object or array to its matching bracket, a string to its closing quote,
// anything else to the next delimiter. It is delimited, not validated. A
// run of white space between tokens is held as one space; a value over
// max bytes so held is read to its end and returned as tooLong.
func (d *docScanner) valueRef() (raw []byte, line int, tooLong bool, err error) {
	line = d.line
	var buf []byte
	if d.reuse {
		buf = d.spare[:0]
		defer func() { d.spare = buf[:0] }()
	}
	hold := func(b []byte) {
		if !tooLong && len(buf)+len(b) <= d.max {
			buf = append(buf, b...)
			return
		}
		tooLong, buf = true, nil
	}
	depth, inStr, esc, space, scalar, started := 0, false, false, false, false, false
	for {
		if _, err := d.br.Peek(1); err != nil {
			if err == io.EOF && scalar {
				break // a number or literal ends with the input
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, line, false, err
		}
		chunk, _ := d.br.Peek(d.br.Buffered())
		i, done := 0, false
	scan:
		for i < len(chunk) {
			c := chunk[i]
			switch {
			case !started:
				started = true
				switch c {
				case '{', '[':
					depth = 1
				case '"':
					inStr = true
				default:
					scalar = true // its first byte is held even if a delimiter: the reason names it
				}
				hold(chunk[i : i+1])
				i++
			case inStr:
				if esc {
					esc = false
					hold(chunk[i : i+1])
					i++
					continue
				}
				// Copy up to the next quote, backslash or control byte
				// (a newline, counted) at once, eight bytes a step.
				j := special(chunk, i)
				if j >= len(chunk) {
					hold(chunk[i:])
					i = len(chunk)
					continue
				}
				hold(chunk[i : j+1])
				i = j + 1
				switch chunk[j] {
				case '\\':
					esc = true
				case '\n':
					d.line++
				case '"':
					inStr = false
					if depth == 0 {
						done = true
						break scan
					}
				}
			case scalar:
				switch c {
				case ',', ']', '}', '[', '{', '"', ' ', '\t', '\r', '\n':
					done = true
					break scan
				}
				hold(chunk[i : i+1])
				i++
			default:
				start := i
				i++
				switch c {
				case ' ', '\t', '\r', '\n':
					if c == '\n' {
						d.line++
					}
					space = true
					for i < len(chunk) && chunk[i] == ' ' {
						i++ // a pretty-printed document's indentation
					}
					continue
				case '"':
					inStr = true
				case '{', '[':
					depth++
				case '}', ']':
					depth--
				default:
					// A run of other bytes (a number, a literal, ':' and
					// ',') is held at once.
				run:
					for i < len(chunk) {
						switch chunk[i] {
						case ' ', '\t', '\r', '\n', '"', '{', '[', '}', ']':
							break run
						}
						i++
					}
				}
				if space {
					hold(oneSpace)
					space = false
				}
				hold(chunk[start:i])
				if depth == 0 {
					done = true
					break scan
				}
			}
		}
		d.consume(i)
		if done {
			break
		}
	}
	if tooLong {
		return nil, line, true, nil
	}
	return buf, line, false, nil
}

var oneSpace = []byte{' '}

// scanValues reads in's values one after the other, as readDocument
// reads its elements, a byte consumed between two (the ',' or ']'):
// each value's bytes, line, tooLong and error, and the line after.
func scanValues(in []byte, size, max int, ref bool) []any {
	d := &docScanner{br: bufio.NewReaderSize(bytes.NewReader(in), size), max: max, line: 1}
	var out []any
	for n := 0; n < 64; n++ {
		if _, err := d.skipSpace(); err != nil {
			return append(out, "end", d.line, err)
		}
		var raw []byte
		var line int
		var tooLong bool
		var err error
		if ref {
			raw, line, tooLong, err = d.valueRef()
		} else {
			raw, line, tooLong, err = d.value()
		}
		out = append(out, string(raw), line, tooLong, err, d.line)
		if err != nil {
			return out
		}
		if _, err := d.br.ReadByte(); err == io.EOF {
			return append(out, "eof")
		}
	}
	return out
}

// FuzzDocScannerValue holds value's strings copied whole to the byte-wise
// reading it replaced (valueRef): the same bytes held, the same lines
// counted (a raw newline in a string, escaped or not), the same cap, at
// every chunk boundary bufio gives (buffers of 16 to 64 bytes).
func FuzzDocScannerValue(f *testing.F) {
	for _, s := range []string{
		`["a\"b", "c\\", "\\\"d\"", {"e": "f\ng"}]`, "[\"a\nb\", \"c\\\nd\"]", `"abc"`, `["` + "x\\" + `"]`,
		`[{"k": "` + "0123456789abcdef0123456789abcdef\\n0123456789abcdef\\\\" + `"}, "\\\\\\\\\\\\\\\"x"]`,
		"[\"\\\n\n\\\\\n\"]", `[1, true, null, "a"] x`, `["unclosed`, `[{"a": [1, 2], "b": {"c": "}"}}]`,
		// A chunk (16 bytes) ending in a backslash: an escaped quote, an
		// escaped backslash, and an escaped newline next.
		`["0123456789abc\"x"]`, `["0123456789ab\\"]`, "[\"0123456789abc\\\n\"]",
		// Pretty-printed (json.dumps(indent=2)): runs of white space made
		// one space, one kept in place; strings past shortString bytes,
		// their quotes and newlines escaped or not, across chunks.
		"[\n  {\n    \"id\": 1,\n    \"content\": \"x\",\t\"e\": {}\n  },\r\n  [ 1 ,2 ]\n]",
		`[{"c": "` + strings.Repeat("ab\\", 12) + `\"q\\\"` + strings.Repeat("z", 40) + `"}, "` + strings.Repeat("y", 40) + "\n\\\n\\\\\n" + `"]`,
		`["` + strings.Repeat("x", 40) + "\\\ny\\\"z\n" + `"]`, "{\"a\": 1, \n \"b\": 2 }",
	} {
		f.Add([]byte(s), uint8(0), uint16(1<<10))  // a buffer of 16 bytes
		f.Add([]byte(s), uint8(48), uint16(1<<10)) // of 64
	}
	f.Fuzz(func(t *testing.T, in []byte, size uint8, max uint16) {
		sz := 16 + int(size)%49
		got, want := scanValues(in, sz, int(max), false), scanValues(in, sz, int(max), true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q (buffer %d, cap %d):\n got %v\nwant %v", in, sz, max, got, want)
		}
	})
}

// BenchmarkDocScanner delimits the elements of a generated OpenHands
// trajectory (json.dumps(indent=2), as .ci/agentlogs.py writes it) with
// value and with valueRef, in MB/s of the document:
//
//	go test ./replay -run '^$' -bench DocScanner
func BenchmarkDocScanner(b *testing.B) {
	data := agentBenchLog(b, b.TempDir(), "openhands-trajectory")
	for _, ref := range []bool{false, true} {
		name := "value"
		if ref {
			name = "valueRef"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				d := &docScanner{br: bufio.NewReaderSize(bytes.NewReader(data), 1<<20), max: 1 << 20, line: 1, reuse: true}
				d.consume(1) // the array's '['
				for {
					if _, err := d.skipSpace(); err != nil {
						b.Fatal(err)
					}
					var err error
					if ref {
						_, _, _, err = d.valueRef()
					} else {
						_, _, _, err = d.value()
					}
					if err != nil {
						b.Fatal(err)
					}
					c, _ := d.skipSpace()
					d.consume(1)
					if c == ']' {
						break
					}
				}
			}
		})
	}
}

// readOHDoc reads a trajectory with readDocumentIx into an OpenHands V0
// reader, as readSteps reads one (in place, indexed): what each element
// gives (its line, steps and reason), the history's events, the live
// verdicts and the error, read with a buffer of size bytes, elements over
// max skipped.
func readOHDoc(doc []byte, size, max int) []any {
	ep := newStepTable("d", "s").ep
	o := &openHandsReader{}
	o.start(ep)
	var ix valueIndex
	var out []any
	err := readDocumentIx(bufio.NewReaderSize(bytes.NewReader(doc), size), max, true, &ix, func(line int, raw []byte) error {
		v := rawValue(raw)
		if v.Kind() != '{' {
			out = append(out, line, "not an object")
			return nil
		}
		recs, reason := o.recordValueIx(v, &ix)
		out = append(out, line, fmt.Sprintf("%+v", recs), reason)
		return nil
	}, func(line int, reason string) error {
		out = append(out, line, "skipped: "+reason)
		return nil
	})
	out = append(out, fmt.Sprint(err), fmt.Sprintf("%+v", o.finish()), ep.Live)
	for _, e := range ep.OpenHands {
		out = append(out, e.N, e.Class, e.InHistory, e.Ask, e.Depth, ep.Str(e.Key), ep.Str(e.Text))
	}
	return out
}

// FuzzDocInPlace holds a trajectory's elements read in place (inPlace:
// their white space as written) to the same read with each held
// (value: white space made one space): the same steps, reasons, events,
// lines and errors, with buffers of 16 to 527 bytes, which cut elements
// anywhere, and elements of over 32 to 1055 bytes skipped.
func FuzzDocInPlace(f *testing.F) {
	traj, err := os.ReadFile("../testdata/steps/openhands/trajectory.json")
	if err != nil {
		f.Fatal(err)
	}
	events, err := os.ReadFile("../testdata/steps/openhands/events.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	// The events as json.dumps(indent=2) writes a trajectory, and with
	// tabs, CRLF and spaces around every token.
	var pretty bytes.Buffer
	arr := append(append([]byte("["), bytes.Join(bytes.Fields(bytes.ReplaceAll(bytes.TrimSpace(events), []byte("\n"), []byte(" , "))), []byte(" "))...), ']')
	if err := json.Indent(&pretty, arr, "", "  "); err == nil {
		f.Add(pretty.Bytes(), uint16(0), uint16(1<<10))
		f.Add(bytes.ReplaceAll(pretty.Bytes(), []byte("\n"), []byte("\r\n\t ")), uint16(100), uint16(200))
	}
	f.Add(traj, uint16(0), uint16(1<<10))
	f.Add(traj, uint16(300), uint16(120))
	f.Add([]byte("[\n {\"id\": 1, \"action\": \"run\", \"args\": {\"command\": \"ls\"}},\n {\"id\": 2, \"cause\": 1, \"observation\": \"run\", \"content\": \"a\\nb\", \"extras\": {\"metadata\": {\"exit_code\": NaN}}},\n [1, 2], 3, {\"id\": 3,}\n]"), uint16(0), uint16(1<<10))
	f.Fuzz(func(t *testing.T, doc []byte, size, maxSize uint16) {
		sz, max := 16+int(size)%512, 32+int(maxSize)%1024
		docInPlace = false
		want := readOHDoc(doc, sz, max)
		docInPlace = true
		got := readOHDoc(doc, sz, max)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("buffer %d, max %d:\n got %v\nwant %v", sz, max, got, want)
		}
	})
}
