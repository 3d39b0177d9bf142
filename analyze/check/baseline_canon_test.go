package check

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// decodeBoth decodes data as a canonical baseline and through
// encoding/json (decodeBaseline), returning each one's head and entries.
func decodeBoth(data []byte) (canon, std *Baseline, canonOK, stdOK bool) {
	var ce, se []Entry
	canon, canonOK = decodeCanonical(bytes.NewReader(data), func(e *Entry) { ce = append(ce, *e) }, nil, nil)
	std, stdOK = decodeBaseline(bytes.NewReader(data), func(e *Entry) { se = append(se, *e) })
	if canon != nil {
		canon.Episodes = ce
	}
	if std != nil {
		std.Episodes = se
	}
	return canon, std, canonOK, stdOK
}

// oddBaseline is a baseline whose entries hold what the canonical form
// writes in its less usual ways: escaped and non-ASCII strings, invalid
// UTF-8 (made valid), floats written with and without exponents, negative
// and huge numbers, no checkpoints, no firing counts.
func oddBaseline(r *rand.Rand, n int) *Baseline {
	b := NewBaseline(rules.Default())
	strs := []string{"plain", `quo"te`, `back\slash`, "tab\there", "caf\u00e9", "bad\xffutf8", "<html>&", "", "line\nbreak", "\u2028", `": 1,`}
	floats := []float64{0, -0.5, 1e-7, 1e21, 123456789.125, -1e300, math.MaxFloat64, 5e-324, 1.5}
	for i := range n {
		e := randomEntry(r)
		e.EpisodeID = fmt.Sprintf("%s-%d", strs[r.Intn(len(strs))], i)
		e.Source = "s/" + strs[r.Intn(len(strs))]
		e.LLMCallsMethod = strs[r.Intn(len(strs))]
		e.LogHash = HashBytes([]byte(e.EpisodeID))
		e.FinalScore = floats[r.Intn(len(floats))]
		e.ScoreForfeited = floats[r.Intn(len(floats))]
		e.RecordedTurns = []int{0, -3, math.MaxInt, math.MinInt, 42}[r.Intn(5)]
		if e.Checkpoints == nil {
			e.Checkpoints = []int{}
		}
		switch r.Intn(4) {
		case 0:
			e.FiringCounts = map[string]int{}
		case 1:
			e.FiringCounts[strs[r.Intn(len(strs))]] = r.Intn(3) - 1
		}
		b.Episodes = append(b.Episodes, e)
	}
	// Through JSON and back, as a file holds them (invalid UTF-8 made
	// valid), then sorted.
	back, err := ParseBaseline(b.Encode())
	if err != nil {
		panic(err)
	}
	back.Sort()
	return back
}

// A baseline in its canonical form is read by decodeCanonical, with what
// encoding/json reads from it: the head and every entry.
func TestDecodeCanonicalAsJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := range 30 {
		b := oddBaseline(r, n)
		data := b.Encode()
		canon, std, canonOK, stdOK := decodeBoth(data)
		if !canonOK || !stdOK {
			t.Fatalf("%d entries: canonical %v, json %v:\n%s", n, canonOK, stdOK, data)
		}
		if !reflect.DeepEqual(canon, std) {
			t.Fatalf("%d entries:\ncanonical %+v\njson      %+v", n, canon, std)
		}
		if len(canon.Episodes) != n {
			t.Fatalf("%d entries read of %d", len(canon.Episodes), n)
		}
	}
}

// Whatever bytes decodeCanonical accepts, encoding/json reads the same
// from; anything it is not sure of it refuses (and the file is read by
// encoding/json). Mutations of canonical files: a byte changed, a line
// dropped or doubled, a cut.
func TestDecodeCanonicalNeverDiffers(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	accepted, refused := 0, 0
	for trial := range 3000 {
		data := oddBaseline(r, 1+r.Intn(3)).Encode()
		lines := bytes.SplitAfter(data, []byte("\n"))
		switch trial % 5 {
		case 0:
			data[r.Intn(len(data))] = "0123456789 ,:\"\\{}[]-+.eEnul\n"[r.Intn(28)]
		case 1:
			i := r.Intn(len(lines))
			lines = append(lines[:i:i], lines[i+1:]...)
			data = bytes.Join(lines, nil)
		case 2:
			i := r.Intn(len(lines))
			lines = append(lines[:i+1:i+1], lines[i:]...)
			data = bytes.Join(lines, nil)
		case 3:
			data = data[:r.Intn(len(data))]
		case 4:
			i := r.Intn(len(data))
			data = append(data[:i:i], append([]byte(" "), data[i:]...)...)
		}
		canon, std, canonOK, stdOK := decodeBoth(data)
		if !canonOK {
			refused++
			continue
		}
		accepted++
		if !stdOK || !reflect.DeepEqual(canon, std) {
			t.Fatalf("canonical read differs from encoding/json's (json ok %v):\n%s\ncanonical %+v\njson      %+v", stdOK, data, canon, std)
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("%d mutations accepted, %d refused: the test tests nothing", accepted, refused)
	}
}

// FuzzDecodeCanonical: any bytes decodeCanonical accepts read the same
// through encoding/json, and it never panics.
func FuzzDecodeCanonical(f *testing.F) {
	r := rand.New(rand.NewSource(3))
	for n := range 4 {
		f.Add(oddBaseline(r, n).Encode())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		canon, std, canonOK, stdOK := decodeBoth(data)
		if canonOK && (!stdOK || !reflect.DeepEqual(canon, std)) {
			t.Fatalf("canonical read differs from encoding/json's (json ok %v):\ncanonical %+v\njson      %+v", stdOK, canon, std)
		}
		if canonOK {
			canonFiltered(t, data, canon.Episodes)
		}
	})
}

// canonFiltered: a canonical read that passes over the entries want
// refuses (by the id and source read from their first lines) hands on
// exactly the others of the whole read, and counts the rest.
func canonFiltered(t *testing.T, data []byte, all []Entry) {
	t.Helper()
	want := func(id, src []byte) bool { return (len(id)+len(src))%2 == 0 }
	var got []Entry
	skipped := 0
	_, ok := decodeCanonical(bytes.NewReader(data), func(e *Entry) { got = append(got, *e) }, want, func() { skipped++ })
	var exp []Entry
	for _, e := range all {
		if want([]byte(e.EpisodeID), []byte(e.Source)) {
			exp = append(exp, e)
		}
	}
	if !ok || !reflect.DeepEqual(got, exp) || skipped != len(all)-len(exp) {
		t.Fatalf("filtered read (ok %v, %d skipped): %+v\nwant %+v", ok, skipped, got, exp)
	}
}

// TestDecodeCanonicalFiltered: the filtered read of baselines of escaped
// and odd ids and sources.
func TestDecodeCanonicalFiltered(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for n := range 40 {
		data := oddBaseline(r, n).Encode()
		canon, _, ok, _ := decodeBoth(data)
		if !ok {
			t.Fatalf("%d entries: not canonical", n)
		}
		canonFiltered(t, data, canon.Episodes)
	}
}

// readStore reads a large canonical baseline without encoding/json, and
// a hand-edited one (not canonical) as before, from its start: the same
// store either way.
func TestReadStoreCanonicalAndNot(t *testing.T) {
	b := oddBaseline(rand.New(rand.NewSource(4)), 500)
	dir := t.TempDir()
	canonFile := filepath.Join(dir, "canon.json")
	data := b.Encode()
	if err := os.WriteFile(canonFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The same baseline, its last entry's keys in another order: valid
	// JSON, not canonical, read by encoding/json after the canonical
	// reader handed on 499 entries.
	i := bytes.LastIndex(data, []byte(`      "source"`))
	j := bytes.Index(data[i:], []byte("\n")) + i + 1
	k := bytes.LastIndex(data, []byte(`      "log_hash"`))
	l := bytes.Index(data[k:], []byte("\n")) + k + 1
	edited := append(append(append(append(append([]byte{}, data[:i]...), data[k:l]...), data[j:k]...), data[i:j]...), data[l:]...)
	editFile := filepath.Join(dir, "edited.json")
	if err := os.WriteFile(editFile, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeCanonical(bytes.NewReader(data), func(*Entry) {}, nil, nil); !ok {
		t.Fatal("canonical file refused")
	}
	if _, ok := decodeCanonical(bytes.NewReader(edited), func(*Entry) {}, nil, nil); ok {
		t.Fatal("edited file accepted as canonical")
	}
	for _, file := range []string{canonFile, editFile} {
		s, _, err := readStore(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadBaseline(file)
		if err != nil {
			t.Fatal(err)
		}
		if s.n() != len(b.Episodes) || !reflect.DeepEqual(got, b) {
			t.Fatalf("%s: %d entries in the store, %d read, want %d", file, s.n(), len(got.Episodes), len(b.Episodes))
		}
		for j := range b.Episodes {
			if e := s.entry(j); !reflect.DeepEqual(*e, b.Episodes[j]) {
				t.Fatalf("%s: entry %d\ngot  %+v\nwant %+v", file, j, *e, b.Episodes[j])
			}
		}
	}
	if strings.Count(string(data), "\n    {\n") != 500 {
		t.Fatal("not 500 entries")
	}
}

// Firing counts written to a spill file read back equal: a map met
// again by its set's number (the same map back), past countSetsMax sets
// in full, nil as an empty map.
func TestCountKeysSets(t *testing.T) {
	defer func(n int) { countSetsMax = n }(countSetsMax)
	countSetsMax = 2
	a, b, c := map[string]int{"x/y": 1}, map[string]int{"x/y": 2, "z/w": 0}, map[string]int{"q/r": 3}
	var ck countKeys
	var recs [][]byte
	ms := []map[string]int{a, b, a, c, c, nil, b}
	for _, m := range ms {
		recs = append(recs, ck.appendCounts(nil, m))
	}
	if len(recs[2]) != 2 || len(recs[3]) <= 2 {
		t.Fatalf("a again: %d bytes (want its number); c past the bound: %d bytes (want in full)", len(recs[2]), len(recs[3]))
	}
	for i, rec := range recs {
		d := decoder{b: rec}
		got, ok := ck.readCounts(&d, 100)
		want := ms[i]
		if want == nil {
			want = map[string]int{}
		}
		if !ok || d.bad || len(d.b) != 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d: %v %v, want %v", i, got, ok, want)
		}
	}
	d := decoder{b: []byte{0, 9}}
	if _, ok := ck.readCounts(&d, 100); ok {
		t.Fatal("a set never written read back")
	}
}
