package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// nonFiniteCases are values with and without NaN and the infinities, as
// tokens and inside strings, at every depth, valid or not.
var nonFiniteCases = []string{
	`NaN`, `Infinity`, `-Infinity`, `-Inf`, `Na`, `"NaN"`, `["NaN", "Infinity", "-Infinity"]`,
	`[1, NaN]`, `{"a": Infinity}`, `{"a": [{"b": -Infinity}]}`, `{"NaN": 1, "Infinity": "x"}`,
	`{"a": "x NaN y", "b": "\"Infinity\""}`, `[0, -1.5e3, true, false, null]`, `{}`, `[]`,
	`{"a": NaNx}`, `[Infinityy]`, `[-NaN]`, `[NaN,]`, `{"a": [NaN}`, `"\u004eaN"`, `{"a\"NaN": 2}`,
	`{"a": "\\", "b": NaN}`, `{"a": "\\\"NaN"}`, `[[[[NaN]]]]`, `[[[["Infinity"]]]]`,
	`[` + strings.Repeat(`"NaN", `, 20) + `1]`, `[` + strings.Repeat(`1, `, 20) + `Infinity]`,
}

// TestValidValueWalk holds validValueWalk's flag to hasNonFinite (which
// asks json.Valid of a value holding the letters) and its lines to
// bytes.Count on every value validValue accepts, and its end to
// validValue's, at every start; and validValueLinesNF's to the same,
// with and without an index.
func TestValidValueWalk(t *testing.T) {
	for _, c := range nonFiniteCases {
		checkValidValueWalk(t, []byte(c))
		checkValidValueWalk(t, []byte(" "+c+" ,"))
		// Pretty-printed, as a SWE-agent .traj is (every blank a
		// newline and an indentation, around every ':' too).
		var pretty bytes.Buffer
		if json.Indent(&pretty, []byte(c), "\n", "\t ") == nil {
			checkValidValueWalk(t, pretty.Bytes())
			checkValidValueWalk(t, bytes.ReplaceAll(pretty.Bytes(), []byte(":"), []byte("\r\n:\n ")))
		}
	}
}

func FuzzValidValueWalk(f *testing.F) {
	for _, c := range nonFiniteCases {
		f.Add([]byte(c))
	}
	f.Add([]byte("{\n \"a\" \n:\n [1,\n\t2\r\n ], \"b\":\n{\n}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) { checkValidValueWalk(t, b) })
}

func checkValidValueWalk(t *testing.T, b []byte) {
	t.Helper()
	for i := range b {
		end, lines, nf := validValueWalk(b, i)
		if want := validValue(b, i); end != want {
			t.Fatalf("validValueWalk(%q, %d) = %d, validValue %d", b, i, end, want)
		}
		if end < 0 {
			continue
		}
		if nf != hasNonFinite(b[i:end]) {
			t.Fatalf("validValueWalk(%q, %d) says nonFinite %v, hasNonFinite %v", b, i, nf, !nf)
		}
		if want := bytes.Count(b[i:end], newline); lines != want {
			t.Fatalf("validValueWalk(%q, %d) counts %d lines, bytes.Count %d", b, i, lines, want)
		}
	}
	for _, ix := range []*valueIndex{nil, new(valueIndex)} {
		end, lines, nf := validValueLinesNF(b, ix)
		if want := validValue(b, 0); end != want {
			t.Fatalf("validValueLinesNF(%q, ix %v) = %d, validValue %d", b, ix != nil, end, want)
		}
		if end <= 0 {
			continue
		}
		if want := bytes.Count(b[:end], newline); lines != want {
			t.Fatalf("validValueLinesNF(%q, ix %v) counts %d lines, bytes.Count %d", b, ix != nil, lines, want)
		}
		if nf != hasNonFinite(b[:end]) {
			t.Fatalf("validValueLinesNF(%q, ix %v) says nonFinite %v, hasNonFinite %v", b, ix != nil, nf, !nf)
		}
	}
}
