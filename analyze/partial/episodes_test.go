package partial

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"
)

// randomEpisodeObject is an episode of a part as the second reading may
// meet it: keys in other cases, repeated, escaped or unknown; log as an
// integer, a float, null or too large; json values of every kind; text
// plain, escaped, null or not a string.
func randomEpisodeObject(r *rand.Rand) string {
	keys := []string{"log", "json", "text", "LOG", "Json", "TEXT", `l\u006fg`, "lo\u0261", "other"}
	vals := map[string][]string{
		"log":  {"0", "7", "-3", "12345678901234567890", "1.5", "1e2", "null", `"3"`},
		"json": {`{"episode_id":"a"}`, `{"s":"}\"]","n":[1,{"x":"{"}]}`, "null", "[]", `"x"`, "5"},
		"text": {`"plain text"`, `"line\nbreak\t\"q\""`, `"caf\u00e9"`, "null", "3", `""`},
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range r.Intn(5) {
		if i > 0 {
			b.WriteString([]string{",", " ,\n "}[r.Intn(2)])
		}
		k := keys[r.Intn(len(keys))]
		vs := vals[strings.ToLower(k)]
		if vs == nil {
			vs = vals["json"]
		}
		kb := `"` + k + `"`
		if !strings.Contains(k, `\`) {
			m, _ := json.Marshal(k)
			kb = string(m)
		}
		fmt.Fprintf(&b, "%s%s:%s", kb, []string{"", " "}[r.Intn(2)], vs[r.Intn(len(vs))])
	}
	b.WriteString([]string{"}", " }"}[r.Intn(2)])
	return b.String()
}

// decodeEpisode decodes what json.Decoder (unknown fields refused)
// decodes from an episode object: the same episode, or an error.
func TestDecodeEpisodeAsDecoder(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	fast := 0
	for range 20000 {
		obj := randomEpisodeObject(r)
		keepJSON, keepText := r.Intn(2) == 0, r.Intn(2) == 0
		want := &mergeEpisode{JSON: keptJSON{keep: keepJSON}, Text: keptText{keep: keepText}}
		dec := json.NewDecoder(strings.NewReader(obj))
		dec.DisallowUnknownFields()
		werr := dec.Decode(want)
		got := &mergeEpisode{JSON: keptJSON{keep: keepJSON, data: []byte("stale")}, Text: keptText{keep: keepText, text: "stale"}, Log: 99}
		gerr := decodeEpisode([]byte(obj), got)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("%s: error %v, want %v", obj, gerr, werr)
		}
		if werr == nil && (got.Log != want.Log || !bytes.Equal(got.JSON.data, want.JSON.data) || got.Text.text != want.Text.text) {
			t.Fatalf("%s (keep json %v, text %v):\ngot  %d %q %q\nwant %d %q %q", obj, keepJSON, keepText, got.Log, got.JSON.data, got.Text.text, want.Log, want.JSON.data, want.Text.text)
		}
		probe := &mergeEpisode{JSON: keptJSON{keep: keepJSON}, Text: keptText{keep: keepText}}
		if readEpisode([]byte(obj), probe) {
			fast++
		}
	}
	if fast == 0 {
		t.Fatal("every object left to encoding/json")
	}
}

// The reader splits an episodes array as json.Decoder does, whatever the
// white space and however small its reads, and hashes what it read as
// hashRange does.
func TestEpisodeReaderSplits(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for trial := range 300 {
		var doc strings.Builder
		var want []string
		ws := func() string { return []string{"", " ", "\n  ", "\t"}[r.Intn(4)] }
		doc.WriteString("[" + ws())
		n := 1 + r.Intn(6)
		for i := range n {
			if i > 0 {
				doc.WriteString(ws() + "," + ws())
			}
			o := randomEpisodeObject(r)
			want = append(want, o)
			doc.WriteString(o)
		}
		end := doc.Len()
		doc.WriteString(ws() + "]")
		data := []byte(doc.String())
		er := newEpisodeReader(&smallReader{data: data, max: 1 + r.Intn(7)})
		er.buf = make([]byte, 1+r.Intn(8))
		for i := range n {
			elem, ok := er.next()
			if !ok || string(elem) != want[i] {
				t.Fatalf("trial %d, episode %d: %q %v, want %q", trial, i, elem, ok, want[i])
			}
		}
		sum, err := hashRange(bytes.NewReader(data), 0, int64(end))
		if err != nil || er.h.Sum64() != sum {
			t.Fatalf("trial %d: hash of what was read differs from the first pass's", trial)
		}
		if _, ok := er.next(); ok {
			t.Fatalf("trial %d: an episode past the array's end", trial)
		}
	}
}

// smallReader reads at most max bytes at a time.
type smallReader struct {
	data []byte
	max  int
}

func (s *smallReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), s.max)], s.data)
	s.data = s.data[n:]
	return n, nil
}

// A part changed between the merge's two readings (same length, a byte
// of an episode's JSON changed) is an error naming it, not another
// output.
func TestMergeAnalyzeChangedPart(t *testing.T) {
	names := writeAnalyzeParts(t, 2, 3)
	data, err := os.ReadFile(names[1])
	if err != nil {
		t.Fatal(err)
	}
	parts := []*File{openAll(t, names[:1])[0]}
	p2, err := ReadBytes(names[1], data)
	if err != nil {
		t.Fatal(err)
	}
	parts = append(parts, p2)
	m, err := Merge(parts, names)
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.Analyze(nil)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"ep-5"`))
	data[i+4] = '9' // ep-5 → ep-9: valid, and not what was checked
	err = a.Each(true, false, func([]byte, string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), names[1]+": changed while merging") {
		t.Fatalf("changed part: %v", err)
	}
	data[i+4] = '5'
	n := 0
	if err := a.Each(true, false, func([]byte, string) error { n++; return nil }); err != nil || n != 6 {
		t.Fatalf("unchanged again: %d episodes, %v", n, err)
	}
	if !reflect.DeepEqual(names, m.names) {
		t.Fatal("names changed")
	}
}
