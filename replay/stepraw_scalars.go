package replay

// A steps record's scalar fields (its kind, numbers and booleans) read in
// place, as mapStep's conversions (asInteger, asFloat, asBool) read the
// decoded map's: the same values and refusals (stepraw.go reads the
// record; this file was split from it when it passed 600 lines).

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// rawKind is a kind field lower-cased and trimmed; the usual plain
// lower-case words are returned without a copy. Those are known by their
// bytes, quotes included (StrEq searched each body for a backslash and
// checked the word's UTF-8, three times a record); one written another
// way (escaped, spaced, capitalised) is read as before and comes out the
// same word.
func rawKind(x rawValue) string {
	switch string(x) {
	case `"action"`:
		return "action"
	case `"message"`:
		return "message"
	case `"condensation"`:
		return "condensation"
	}
	return strings.ToLower(strings.TrimSpace(x.Text()))
}

// rawNumberText is the text asInteger and asFloat read: a number's
// literal or a string's trimmed content; ok is false for anything else.
// A literal is x's bytes as they stand, not a copy (a step number's was
// an allocation a step): its callers only parse it, and strconv copies
// what it keeps of its input (NumError.Num).
func rawNumberText(x rawValue) (s string, ok bool) {
	switch x.Kind() {
	case '0':
		return unsafe.String(unsafe.SliceData(x), len(x)), true
	case '"':
		s, _ := x.Str()
		return strings.TrimSpace(s), true
	}
	return "", false
}

// smallDecimal is s read as a decimal number when it is 1 to 15 ASCII digits
// and nothing else, the value strconv's ParseInt and ParseFloat give it
// (under 10^15 < 2^53, exact as a float64): a step number and a score
// are such, at every record, and strconv's general parsers were 2% of
// a steps log's reading.
func smallDecimal(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	return n, true
}

// rawInteger is asInteger of a value read in place.
func rawInteger(x rawValue) (int, bool) {
	s, ok := rawNumberText(x)
	if !ok {
		return 0, false
	}
	if n, ok := smallDecimal(s); ok {
		return int(n), true
	}
	return parseInteger(s)
}

// parseInteger reads a number's text as asInteger does: an int64, or a
// float (out of range too) that is an integer.
func parseInteger(s string) (int, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return int(i), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return floatInteger(f)
}

// rawInt is asInt of a value read in place.
func rawInt(x rawValue) (int, bool) {
	n, integral := rawInteger(x)
	return n, integral && n >= -MaxStepNumber && n <= MaxStepNumber
}

// rawFloat is asFloat of a value read in place.
func rawFloat(x rawValue) (float64, bool) {
	s, ok := rawNumberText(x)
	if !ok {
		return 0, false
	}
	if n, ok := smallDecimal(s); ok {
		return float64(n), true
	}
	return parseFloat(s)
}

// parseFloat reads a number's text as asFloat does: a finite float64.
func parseFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// rawTruthy is asBool of a value read in place.
func rawTruthy(x rawValue) bool {
	switch x.Kind() {
	case 't':
		return true
	case '0':
		f, err := strconv.ParseFloat(string(x), 64)
		return err == nil && f != 0
	case '"':
		s, _ := x.Str()
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "", "false", "0", "no", "ok", "success", "none", "null":
			return false
		}
		return true
	}
	return false
}
