package replay

// A step record's values: dotted paths, text, numbers and flags (mapStep).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

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

// asText reads a value as text: a string as is, anything else as its
// compact JSON (a structured tool result is still an output).
func asText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// MaxStepNumber is the largest step number: 2^53, beyond which a JSON
// number (a float64 to most writers) no longer holds every integer.
const MaxStepNumber = 1 << 53

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

// floatInteger converts an integral f to an int, range-checked first.
func floatInteger(f float64) (int, bool) {
	switch {
	case math.IsNaN(f) || f != math.Trunc(f):
		return 0, false
	case f >= math.MaxInt64:
		return math.MaxInt64, true
	case f <= math.MinInt64:
		return math.MinInt64, true
	}
	return int(f), true
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
