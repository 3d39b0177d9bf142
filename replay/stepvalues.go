package replay

// What the readers share of a value: its text (asText, the slow path of
// rawValue.Text), the step numbers' range, a float read as an integer.

import (
	"encoding/json"
	"math"
)

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
