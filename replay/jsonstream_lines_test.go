package replay

import (
	"bytes"
	"strings"
	"testing"
)

// lineElems are array elements with white space r at one place JSON
// allows it at a time (each place of each template in turn, the others
// left compact), so that each of the pass's blank paths is the only one
// a value takes; and compact ones (Python's ", " and ": " only) with
// newlines escaped in their strings.
func lineElems(r string) []string {
	long := strings.Repeat("v", 50)
	templates := []string{
		`{|"a"|:|1|,|"b"|:|"s"|}`,
		`[|1|,|{|"k":|[|]|}|,|[|"x"|]|]`,
		`{"a": {|"b": [|1,|2|],|"c": {}|},|"d": "` + long + `"|}`,
		`[[|],{|},{"a":{|}}]`, `{"a":[|` + strings.Repeat(" ", 70) + `]}`, `[{|` + strings.Repeat(" ", 70) + `}]`,
		`{"` + long + `"|:|1}`, `[1|]`, `{"a": 1|}`,
	}
	var elems []string
	for _, tm := range templates {
		parts := strings.Split(tm, "|")
		for at := 1; at < len(parts); at++ {
			elems = append(elems, strings.Join(parts[:at], "")+r+strings.Join(parts[at:], ""))
		}
	}
	return append(elems,
		`{"role": "user", "content": [{"type": "text", "text": "a\nb\n`+long+`"}], "n": 12, "ok": true}`,
		`{"k": "x\n", "`+long+`": [1, 2.5, "y"], "e": {"f": null}}`, `"s\n\n"`, `12`, `{"a":"b"}`)
}

// TestJSONStreamLines holds the lines valueIx reports (the value's line,
// and the stream's after it) to the newlines counted in the document,
// for values whose white space holds a newline at each place JSON
// allows one and values with none: a valueIx that skips counting the
// lines of a value the pass met no blank in is held by it.
func TestJSONStreamLines(t *testing.T) {
	for _, r := range blankRuns() {
		var doc bytes.Buffer
		doc.WriteString("[" + r)
		for k, e := range lineElems(r) {
			if k > 0 {
				doc.WriteString("," + r)
			}
			doc.WriteString(e)
		}
		doc.WriteString(r + "]")
		data := doc.Bytes()
		js := newJSONStream(bytes.NewReader(data), 0)
		if !js.expect('[') {
			t.Fatalf("%q: no '['", data)
		}
		cursor := 0
		for k := 0; ; k++ {
			if js.expect(']') {
				break
			}
			if k > 0 && !js.expect(',') {
				// A run that is not white space ends the document: the
				// lines before it were checked.
				break
			}
			var ix valueIndex
			raw, line, err := js.valueIx(&ix)
			if err != nil {
				break
			}
			off := cursor + bytes.Index(data[cursor:], raw)
			cursor = off + len(raw)
			if want := 1 + bytes.Count(data[:off], []byte{'\n'}); line != want {
				t.Fatalf("run %q, value %q: line %d, want %d", r, raw, line, want)
			}
			if want := 1 + bytes.Count(data[:cursor], []byte{'\n'}); js.line != want {
				t.Fatalf("run %q, value %q: line after %d, want %d", r, raw, js.line, want)
			}
		}
	}
}
