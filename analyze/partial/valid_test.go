package partial

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// validEnd accepts only what json.Valid accepts, finds the same end, and
// accepts the JSON a part holds.
var validCases = []string{
	`{}`, `[]`, `{"a":1}`, ` { "a" : [ 1 , 2.5e-3 , -0 , true , false , null , "x\"\\\/\b\f\n\r\t\u00e9" ] } `,
	`{"a":{"b":{"c":[[],{}]}}}`, `["` + "\xff\xfe" + `"]`, `{"log":0,"json":{"episode_id":"e","firings":[{"turn":1}]},"text":"t"}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":+1}`, `{"a":NaN}`, `{"a":tru}`, `{"a":nul}`,
	`{"a":"` + "\x01" + `"}`, `{"a":"\q"}`, `{"a":"\u12G4"}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `{,}`, `{"a":1}}`, `[1 2]`,
	`{"a":1`, `{"a":"x`, `{"a":"x\`, `{"a":"\u12`, `["a",`, `{"a":[1,{"b":`, `{'a':1}`, `{"a":1}x`,
	`[` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `]`,
	`[` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `]`,
}

func checkValidEnd(t *testing.T, in string) {
	b := []byte(in)
	end := validEnd(b, skipSpace(b, 0))
	switch {
	case end >= 0 && !json.Valid(b[:end]):
		t.Fatalf("validEnd(%.80q) = %d; json.Valid(%.80q) is false", in, end, b[:end])
	case end >= 0 && skipSpace(b, end) == len(b) && !json.Valid(b):
		t.Fatalf("validEnd(%.80q) takes it all; json.Valid says no", in)
	}
	// A valid value cut anywhere is cut, never taken, and whole, taken to
	// its end (objects and arrays: they close).
	if json.Valid(b) && len(b) > 0 && (b[skipSpace(b, 0)] == '{' || b[skipSpace(b, 0)] == '[') {
		trimmed := strings.TrimRight(in, " \t\r\n")
		if end >= 0 && end != len(trimmed) {
			t.Fatalf("validEnd(%.80q) = %d, want %d", in, end, len(trimmed))
		}
		for k := skipSpace(b, 0) + 1; k < len(trimmed); k += 1 + k/8 {
			if e := validEnd(b[:k], skipSpace(b, 0)); e >= 0 {
				t.Fatalf("validEnd(%.80q cut at %d) = %d", in, k, e)
			}
		}
	}
}

func TestValidEndAsJSONValid(t *testing.T) {
	for _, in := range validCases {
		checkValidEnd(t, in)
	}
	// Generated episodes: every one taken.
	r := rand.New(rand.NewSource(3))
	for range 2000 {
		obj := randomEpisodeJSON(r)
		if !json.Valid([]byte(obj)) {
			continue
		}
		checkValidEnd(t, obj)
		if end := validEnd([]byte(obj), 0); end != len(obj) {
			t.Fatalf("validEnd(%.80q) = %d, want %d", obj, end, len(obj))
		}
	}
	deep := `[` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `]`
	if validEnd([]byte(deep), 0) != len(deep) {
		t.Error("1,000 levels refused")
	}
}

func FuzzValidEnd(f *testing.F) {
	for _, in := range validCases {
		if len(in) < 200 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkValidEnd(t, string(in)) })
}
