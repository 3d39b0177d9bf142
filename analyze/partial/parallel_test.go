package partial

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// randomEpisodeJSON is an episode object as a part holds it, with what
// rowMembers must get right: keys in other cases, repeated, escaped or
// non-ASCII, values of the wrong type, nested objects and strings holding
// braces, quotes and backslashes, members it drops (firings).
func randomEpisodeJSON(r *rand.Rand) string {
	keys := append(append([]string{}, rowFields...), "Episode_ID", "SOURCE", "firings", "x", `episode\u005fid`, "s\u017Fource", "Termination", "live", "trace")
	vals := []string{`"a"`, `"b\"}{]["`, `"\\"`, `3`, `-1.5e3`, `true`, `null`, `{"turn":5,"turns_stuck":40,"score":1}`,
		`{"agrees":true}`, `{"skipped":2,"problems":["x}",{"y":"]"}]}`, `[1,{"a":[2,"\"]"]}]`, `"\u00e9"`, `{}`, `[]`, `0`, `"x\\\\"`}
	var b strings.Builder
	b.WriteString("{")
	for i := range r.Intn(12) {
		if i > 0 {
			b.WriteString([]string{",", " , ", ",\n"}[r.Intn(3)])
		}
		k, _ := json.Marshal(keys[r.Intn(len(keys))])
		if r.Intn(8) == 0 {
			k = []byte(`"` + keys[r.Intn(len(keys))] + `"`) // raw: \u escapes kept
		}
		fmt.Fprintf(&b, "%s%s:%s%s", k, []string{"", " "}[r.Intn(2)], []string{"", " "}[r.Intn(2)], vals[r.Intn(len(vals))])
	}
	b.WriteString([]string{"}", " }"}[r.Intn(2)])
	return b.String()
}

// json.Unmarshal decodes into an EpisodeRow from rowMembers(b) what it
// decodes from b: the same row, or the same error.
func TestRowMembersAsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	kept := 0
	for range 20000 {
		b := randomEpisodeJSON(r)
		if !json.Valid([]byte(b)) {
			t.Fatalf("invalid test object: %s", b)
		}
		var want, got EpisodeRow
		werr := json.Unmarshal([]byte(b), &want)
		m := rowMembers([]byte(b))
		gerr := json.Unmarshal(m, &got)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nmembers %s\nwant %+v (%v)\ngot  %+v (%v)", b, m, want, werr, got, gerr)
		}
		if len(m) > 2 {
			kept++
		}
	}
	if kept == 0 {
		t.Fatal("no member ever kept")
	}
}

// FuzzRowMembers: on any valid JSON, rowMembers never panics and gives
// json.Unmarshal what b gives it.
func FuzzRowMembers(f *testing.F) {
	r := rand.New(rand.NewSource(2))
	for range 8 {
		f.Add(randomEpisodeJSON(r))
	}
	f.Fuzz(func(t *testing.T, b string) {
		if !json.Valid([]byte(b)) {
			rowMembers([]byte(b)) // never panics, whatever it returns
			return
		}
		var want, got EpisodeRow
		werr := json.Unmarshal([]byte(b), &want)
		gerr := json.Unmarshal(rowMembers([]byte(b)), &got)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nwant %+v (%v)\ngot  %+v (%v)", b, want, werr, got, gerr)
		}
	})
}
