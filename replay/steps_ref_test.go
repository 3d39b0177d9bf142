package replay

// The steps format's reading before rawValue (encoding/json into a map,
// then dotted paths): the reference FuzzValueStep holds valueStep to.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// lookup follows a dotted path into nested objects.
func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return cur, cur != nil
}

// mapStep reads one record of the steps format through fields (field →
// dotted path; a field not in the map is read under its own name).
func mapStep(m map[string]any, fields map[string]string) (stepRecord, string) {
	path := func(f string) string {
		if p, ok := fields[f]; ok {
			return p
		}
		return f
	}
	var r stepRecord
	if v, ok := lookup(m, path("step")); ok {
		n, integral := asInteger(v)
		if !integral {
			return r, fmt.Sprintf("step %s is not an integer", asText(v))
		}
		if n < 0 || n > MaxStepNumber {
			return r, fmt.Sprintf("step %s is out of range (valid: 0 to 2^53)", asText(v))
		}
		r.n, r.hasStep = n, true
	}
	if v, ok := lookup(m, path("action")); ok {
		r.action, r.hasAction = asText(v), true
	}
	if v, ok := lookup(m, path("output")); ok {
		r.output, r.hasText = asText(v), true
	}
	r.info.Kind = StepAction
	if v, ok := lookup(m, path("kind")); ok {
		switch k := strings.ToLower(strings.TrimSpace(asText(v))); k {
		case "action", "":
		case "message":
			r.info.Kind = StepMessage
		case "condensation":
			r.info.Kind = StepCondensation
		default:
			return r, fmt.Sprintf("kind %q is not action, message or condensation", k)
		}
	} else if !r.hasAction {
		r.info.Kind = StepMessage // text without a call is the agent speaking
	}
	if v, ok := lookup(m, path("error")); ok {
		r.info.Error = asBool(v)
	}
	if v, ok := lookup(m, path("exit_code")); ok {
		if c, ok := asInt(v); ok {
			r.setExitCode(c)
		}
	}
	if v, ok := lookup(m, path("llm_loop")); ok {
		r.info.LLMLoop = asBool(v)
	}
	if v, ok := lookup(m, path("score")); ok {
		if f, ok := asFloat(v); ok {
			r.score, r.hasScore = f, true
		}
	}
	if v, ok := lookup(m, path("location")); ok {
		if s := asText(v); strings.TrimSpace(s) != "" {
			r.location, r.hasLoc = s, true
		}
	}
	return r, ""
}

// stepFieldMaps are the --field mappings the fuzz target tries.
var stepFieldMaps = []map[string]string{
	nil,
	{"step": "iteration", "output": "result.text", "action": "call.name"},
	{"step": "a.b.c", "score": "s.v", "location": "s.v", "kind": "k", "error": "e.0", "exit_code": "r.code", "llm_loop": "r.loop"},
	{"step": "iteration", "output": "result", "kind": "k"}, // flat: a name each
	{"score": "location"}, // two fields of one name: not flat
}

// TestStepPathsFlat: lineStep's straight reading (flat) is taken for the
// default fields and names of their own, not for paths or a shared name.
func TestStepPathsFlat(t *testing.T) {
	for i, want := range []bool{true, false, false, true, false} {
		if got := newStepPaths(stepFieldMaps[i]).flat; got != want {
			t.Errorf("fields %v: flat %v, want %v", stepFieldMaps[i], got, want)
		}
	}
}

// FuzzValueStep checks that a steps record read in place gives what the
// decoded map gave: the same step or the same reason.
func FuzzValueStep(f *testing.F) {
	for _, s := range []string{
		`{"step":1,"action":"go","output":"x"}`,
		`{"step":"  7 ","action":{"b":1,"a":[1.50,"x"]},"output":null,"kind":" Message ","error":"OK","exit_code":1e3,"score":"2.5","location":" Room "}`,
		`{"step":1e400,"action":NaN}`, `{"step":9007199254740993}`, `{"step":-1}`, `{"step":1.5}`, `{"step":[1]}`,
		`{"iteration":3,"result":{"text":"t\u00e9"},"call":{"name":"ls"}}`,
		`{"a":{"b":{"c":2}},"s":{"v":Infinity},"k":"condensation","e":{"0":1},"r":{"code":"12","loop":true}}`,
		`{"step":1,"kind":"bogus","error":0.0,"llm_loop":"no"}`, `{"step":1,"step":2,"output":"\ud800"}`,
		`{"step":null,"action":null,"output":null,"error":null,"kind":null,"score":NaN,"location":null,"exit_code":-Infinity,"llm_loop":null}`,
		`{"iteration":null,"result":"r","k":null,"output":"not this one"}`, `{"output":Infinity,"action":"a"}`,
	} {
		for i := range stepFieldMaps {
			f.Add([]byte(s), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, which uint8) {
		fields := stepFieldMaps[int(which)%len(stepFieldMaps)]
		m, err := decodeObject(raw)
		v, rerr := parseRecord(raw, true)
		line, lineReason := lineStep(raw, newStepPaths(fields))
		if rerr != nil && lineReason != rerr.Error() {
			t.Fatalf("line reason %q, parseRecord's %q", lineReason, rerr)
		}
		if err != nil || rerr != nil {
			return // FuzzRawValue holds the two to the same records
		}
		want, wantReason := mapStep(m, fields)
		got, gotReason := valueStep(v, newStepPaths(fields))
		if gotReason != wantReason {
			t.Fatalf("reason %q, the map's %q", gotReason, wantReason)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %+v, the map's %+v", got, want)
		}
		if lineReason != wantReason || !reflect.DeepEqual(line, want) {
			t.Fatalf("line step %+v %q, the map's %+v %q", line, lineReason, want, wantReason)
		}
	})
}

// The map readings the in-place ones replaced, kept as their references
// (decodeObject is encoding/json with Python's NaN as null).

// decodeObject decodes one record, numbers kept as json.Number.
func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if san, ok := sanitizeNonFinite(raw); ok {
			return decodeObject(san)
		}
		return nil, fmt.Errorf("invalid JSON")
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}

// asInt reads an integral number, or a string holding one, of at most
// MaxStepNumber either way.
func asInt(v any) (int, bool) {
	n, integral := asInteger(v)
	return n, integral && n >= -MaxStepNumber && n <= MaxStepNumber
}

// asInteger reads an integral number, or a string holding one: integral
// is false for anything else. n is exact for an integer written in full;
// one beyond int64 or written with an exponent is read through float64
// (and clamped to int64's range, past MaxStepNumber either way).
func asInteger(v any) (n int, integral bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = strings.TrimSpace(x)
	case float64:
		return floatInteger(x)
	default:
		return 0, false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return int(i), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return floatInteger(f)
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return x, true
	}
	return 0, false
}

// asBool reads a flag: a boolean, a non-zero number, or a string such as
// "true" / "error".
func asBool(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "", "false", "0", "no", "ok", "success", "none", "null":
			return false
		}
		return true
	}
	return false
}

// sortedKeys lists a map's keys in order, for deterministic actions.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
