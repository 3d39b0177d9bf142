package replay

// What the readers share of a value: its text (asText, the slow path of
// rawValue.Text), the step numbers' range, a float read as an integer.

import (
	"encoding/json"
	"math"
	"unsafe"
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

// equalShort is a == b, told in line by two loads of each for strings of
// 8 to 16 bytes (their first 8 bytes and their last 8, which overlap):
// a step's action or location, compared with the one before at every
// step, where == calls memequal and memeqbody once the lengths agree
// (some 25 instructions a compare). Other lengths go to ==: a case for
// 4 to 7 bytes too was not inlined, and cost more than it saved (steps
// +0.19 M).
func equalShort(a, b string) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	if n < 8 || n > 16 {
		return a == b
	}
	pa, pb := unsafe.Pointer(unsafe.StringData(a)), unsafe.Pointer(unsafe.StringData(b))
	return *(*uint64)(pa) == *(*uint64)(pb) && *(*uint64)(unsafe.Add(pa, n-8)) == *(*uint64)(unsafe.Add(pb, n-8))
}
