package partial

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readScanEpisode reads what json.Decoder (unknown fields refused)
// decodes from an episode object into a scanEpisode, when it reads it.
func TestReadScanEpisodeAsDecoder(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	fast := 0
	for range 20000 {
		obj := randomEpisodeObject(r)
		withRow := r.Intn(2) == 0
		want := &scanEpisode{}
		got := &scanEpisode{}
		if withRow {
			want.JSON.row, got.JSON.row = &EpisodeRow{}, &EpisodeRow{}
		}
		dec := json.NewDecoder(strings.NewReader(obj))
		dec.DisallowUnknownFields()
		werr := dec.Decode(want)
		if !json.Valid([]byte(obj)) || !readScanEpisode([]byte(obj), got) {
			continue
		}
		fast++
		if werr != nil {
			t.Fatalf("%s: read, the Decoder says %v", obj, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s (row %v):\ngot  %+v\nwant %+v", obj, withRow, got, want)
		}
	}
	if fast == 0 {
		t.Fatal("every object left to the Decoder")
	}
}

// The first pass reads the same from every part, fast or through the
// Decoder: the same totals, rows and episodes, or the same error.
func TestScanEpisodesFastAsDecoder(t *testing.T) {
	names := writeAnalyzeParts(t, 2, 4)
	variants := map[string][2]string{
		"as written":            {`"episodes":[`, `"episodes":[`},
		"white space":           {`"episodes":[`, "\"episodes\": [ \n"},
		"space before ]":        {`}}],"totals"`, "}} \n ],\"totals\""},
		"escaped key":           {`{"log":2,`, `{"l\u006fg":2,`},
		"upper-case key":        {`{"log":2,`, `{"LOG":2,`},
		"unknown member":        {`{"log":2,`, `{"other":1,"log":2,`},
		"log twice":             {`{"log":2,`, `{"log":0,"log":2,`},
		"log a float":           {`{"log":2,`, `{"log":2.0,`},
		"log out of order":      {`{"log":2,`, `{"log":0,`},
		"log out of range":      {`{"log":2,`, `{"log":3,`},
		"not json":              {`{"log":2,`, `{"log":2,,`},
		"text":                  {`{"log":2,`, `{"log":2,"text":"hi",`},
		"text empty":            {`{"log":2,`, `{"log":2,"text":"",`},
		"text not a string":     {`{"log":2,`, `{"log":2,"text":5,`},
		"no json":               {`,"json":{"episode_id":"ep-2"}`, ``},
		"row type":              {`{"episode_id":"ep-2"}`, `{"episode_id":7}`},
		"an array":              {`[{"log":0,`, `[[],{"log":0,`},
		"cut":                   {`}}],"totals"`, `}}`},
		"bad after the array":   {`],"totals"`, `],"totals" x`},
		"unknown after":         {`],"totals"`, `],"zzz":1,"totals"`},
		"bad end of document":   {`"errors":[]}}`, `"errors":[]}]`},
		"data after":            {`"errors":[]}}`, `"errors":[]}}x`},
		"episodes null":         {`"episodes":[`, `"episodes":null,"x":[`},
		"episodes empty, twice": {`"episodes":[`, `"episodes":[],"episodes":[`},
	}
	// The parts as written are read fast: the Decoder after their
	// arrays is a new one.
	parts := openAll(t, names)
	m, err := Merge(parts, names)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Analyze(nil); err != nil || parts[0].offsetShift == 0 || parts[1].offsetShift == 0 {
		t.Fatalf("read fast: %v, offset shifts %d, %d", err, parts[0].offsetShift, parts[1].offsetShift)
	}
	// A body before its header is read where it is held, alone.
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.TrimSpace(string(data))
	at := strings.Index(doc, `,"body":`)
	if at < 0 || !strings.HasSuffix(doc, "}") {
		t.Fatalf("%s: no body last", names[0])
	}
	heldFirst := filepath.Join(t.TempDir(), "held.json")
	if err := os.WriteFile(heldFirst, []byte(`{"body":`+doc[at+len(`,"body":`):len(doc)-1]+","+doc[1:at]+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	variants["body first"] = [2]string{"", ""}
	variants["body first, bad end"] = [2]string{"", `"episodes":[],"zzz"`}
	for name, v := range variants {
		part := names[0]
		switch {
		case strings.HasPrefix(name, "body first") && v[1] != "":
			part = edited(t, heldFirst, `"episodes":[`, v[1]+`:[`)
		case strings.HasPrefix(name, "body first"):
			part = heldFirst
		case v[0] != v[1]:
			part = edited(t, names[0], v[0], v[1])
		}
		for _, withRow := range []bool{false, true} {
			fast := analyzeScanResult(t, []string{part, names[1]}, withRow, true)
			slow := analyzeScanResult(t, []string{part, names[1]}, withRow, false)
			if fast != slow {
				t.Errorf("%s (row %v):\nfast %s\nslow %s", name, withRow, fast, slow)
			}
		}
	}
}

// analyzeScanResult is what Merger.Analyze gives, spelled out.
func analyzeScanResult(t *testing.T, names []string, withRow, fast bool) string {
	t.Helper()
	defer func(f bool) { fastEpisodes = f }(fastEpisodes)
	fastEpisodes = fast
	var parts []*File
	for _, name := range names {
		p, err := Open(name)
		if err != nil {
			return "open: " + err.Error()
		}
		defer p.Close()
		parts = append(parts, p)
	}
	m, err := Merge(parts, names)
	if err != nil {
		return "merge: " + err.Error()
	}
	var rows []string
	var row func(int, *EpisodeRow)
	if withRow {
		row = func(log int, r *EpisodeRow) { rows = append(rows, fmt.Sprintf("%d %+v", log, *r)) }
	}
	a, err := m.Analyze(row)
	if err != nil {
		return "analyze: " + err.Error()
	}
	var eps []string
	err = a.Each(true, true, func(js []byte, text string) error {
		eps = append(eps, string(js)+" "+text)
		return nil
	})
	return fmt.Sprintf("%+v %d %v rows %q episodes %q each %v", a.Totals, a.Episodes, a.Texts, rows, eps, err)
}
