package replay

// Walking and skipping raw JSON values, and replacing Python's NaN/Infinity.

import (
	"bytes"
	"encoding/json"
	"unsafe"
)

// eachMember calls fn with each key (unescaped) and raw value of a JSON
// object that json.Valid accepted. It reports false when data is not an
// object. It never indexes out of range, whatever data holds.
func eachMember(data []byte, fn func(key, val []byte)) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		kEnd := skipString(data, i)
		key := data[i+1 : max(i+1, kEnd-1)]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if json.Unmarshal(data[i:kEnd], &s) == nil {
				key = []byte(s)
			}
		}
		i = skipSpace(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vEnd := skipValue(data, i)
		fn(key, data[i:vEnd])
		i = vEnd
	}
}

func skipSpace(b []byte, i int) int {
	// Most calls meet no space at all (compact JSON): a byte above ' '
	// is told by one test, not four.
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	if j := closingQuote(b, i+1); j >= 0 {
		return j + 1
	}
	return len(b)
}

// closingQuote returns the index of the '"' that ends a string whose
// content starts at b[i] (not inside an escape), or -1 when b ends first.
// It jumps from quote to quote with bytes.IndexByte (vectorised, unlike
// bytes.IndexAny with two bytes, which goes a byte at a time and was half
// of analyze's time on long lines) and tells an escaped quote by the
// parity of the backslashes before it: each backslash run is counted once,
// so the search stays linear.
func closingQuote(b []byte, i int) int {
	for i <= len(b) {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return -1
		}
		j := i + k
		if backslashesBefore(b, i, j)%2 == 0 {
			return j
		}
		i = j + 1
	}
	return -1
}

// backslashesBefore counts the backslashes right before b[j], down to b[from].
func backslashesBefore(b []byte, from, j int) int {
	n := 0
	for j--; j >= from && b[j] == '\\'; j-- {
		n++
	}
	return n
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		end, _ := SkipComposite(b, i)
		return end
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// SkipComposite returns the index after the object or array starting at
// b[i], and whether it closes before b ends (else the index is len(b)).
// Like every skip here it trusts b to be valid JSON (brackets in strings
// are passed over, nothing else is checked).
func SkipComposite(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); {
		switch b[j] {
		case '"':
			j = skipString(b, j)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
		j++
	}
	return len(b), false
}

// SkipString returns the index after the string starting at b[i] (a
// quote): past its closing quote, len(b) if it has none.
func SkipString(b []byte, i int) int { return skipString(b, i) }

// SkipValue returns the index after the valid JSON value starting at b[i].
func SkipValue(b []byte, i int) int { return skipValue(b, i) }

// StringStop returns the index of the first '"', '\\' or byte below 0x20
// in b[j:], or len(b): what a validating scan of a string's body stops at,
// eight bytes at a time.
func StringStop(b []byte, j int) int { return special(b, j) }

// StringEnd returns the index after the valid JSON string starting at
// b[i] (a quote), its escapes checked, or -1 when it is not one or does
// not close within b: the validating pass's reading (validString).
func StringEnd(b []byte, i int) int {
	end, _ := validString(b, i)
	return end
}

// sanitizeNonFinite replaces the bare tokens NaN, Infinity and -Infinity
// (outside strings) with null, keeping everything else byte for byte. It
// makes one copy of the line, only when there is something to replace.
func sanitizeNonFinite(line []byte) ([]byte, bool) {
	var out []byte // nil until the first token
	copied := 0    // line[:copied] is in out
	inStr := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		if c != 'N' && c != 'I' && c != '-' {
			continue
		}
		for _, tok := range nonFinite {
			if bytes.HasPrefix(line[i:], tok) {
				if out == nil {
					out = make([]byte, 0, len(line))
				}
				out = append(out, line[copied:i]...)
				out = append(out, "null"...)
				copied = i + len(tok)
				i = copied - 1
				break
			}
		}
	}
	if out == nil {
		return line, false
	}
	return append(out, line[copied:]...), true
}

var nonFinite = [][]byte{[]byte("-Infinity"), []byte("Infinity"), []byte("NaN")}

// ValidJSON reports whether s is one JSON value, white space around it
// allowed: json.Valid without its copy of a string or its state machine
// a byte (validValueWalk, which accepts what json.Valid does plus NaN
// and the infinities, and says when it met one).
func ValidJSON(s string) bool {
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	i := skipSpace(b, 0)
	end, _, nonFinite := validValueWalk(b, i)
	return end >= 0 && !nonFinite && skipSpace(b, end) == len(b)
}
