package replay

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The one-pass decoder of relevant lines. It accepts exactly what
// json.Valid accepts after sanitizeNonFinite (Python's NaN, Infinity and
// -Infinity read as null), checked by FuzzScanLine against encoding/json,
// and collects the top-level members on the way. Strings are skipped with
// closingQuote (a vectorised search for '"') and then checked for control
// bytes and escapes in a tight loop; json.Valid's per-byte state machine
// was a quarter of analyze's time. Only an invalid line goes the slow way,
// through encoding/json, for its error message.

// maxNesting is encoding/json's limit: a deeper value is invalid JSON.
const maxNesting = 10000

var nullLit = []byte("null")

// scanLine validates line as one JSON object and calls fn with each
// top-level member: its key (unescaped by the caller when esc) and raw
// value, NaN and infinities given as null. It reports false when line is
// not exactly one valid JSON object; fn may have been called by then.
func scanLine(line []byte, fn func(key []byte, esc bool, val []byte)) bool {
	return scanLineCopy(line, fn, nil)
}

// scanLineCopy is scanLine that, with cp, has cp validate the string
// value of each member whose key is written cp.name, unescaped
// (lineCopy.copy: the text a reader keeps written in the validating
// pass, not in a second one).
func scanLineCopy(line []byte, fn func(key []byte, esc bool, val []byte), cp *lineCopy) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return skipSpace(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return false
		}
		kEnd, kEsc := validString(line, i)
		if kEnd < 0 {
			return false
		}
		key := line[i+1 : kEnd-1]
		i = skipSpace(line, kEnd)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		i = skipSpace(line, i+1)
		var vEnd int
		if i < len(line) && line[i] == '"' {
			// Most values are strings: checked at once, not through
			// validValue's walk of containers.
			if cp != nil && !kEsc && string(key) == cp.name {
				vEnd = cp.copy(line, i)
			} else {
				vEnd, _ = validString(line, i)
			}
		} else {
			vEnd = validValue(line, i)
		}
		if vEnd < 0 {
			return false
		}
		v := line[i:vEnd]
		if nonFiniteToken(v) {
			v = nullLit
		}
		fn(key, kEsc, v)
		i = skipSpace(line, vEnd)
		if i >= len(line) {
			return false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return skipSpace(line, i+1) == len(line)
		default:
			return false
		}
	}
}

func nonFiniteToken(v []byte) bool {
	return len(v) > 2 && (v[0] == 'N' || v[0] == 'I' || v[0] == '-' && v[1] == 'I')
}

// validString checks the string starting at b[i] == '"' and returns the
// index after it (-1 when invalid or cut) and whether it holds an escape.
// One pass, eight or 32 bytes at a time (stopscan.go), finds what matters
// in a string: its closing quote, a backslash, a control byte (which
// JSON forbids there). A string stops every 11 to 17 bytes (keys, lines
// between newline escapes), and a call was a tenth of the validating
// pass: a string that ends within its first word with no escape is told
// here. Any other goes to stringClose where the CPU has AVX2 (one call to
// the closing quote, the escapes passed on the way), else to
// validStringRuns.
//
// i is an index of b (b[i] is the opening quote): the first word is
// read without a bounds check (word), and its stop's byte taken from it.
func validString(b []byte, i int) (end int, esc bool) {
	j := i + 1
	if j+8 <= len(b) {
		x := word(b, j)
		if m := stopMask(x); m != 0 {
			n := bits.TrailingZeros64(m) // the stop's high bit: 8k+7
			if byte(x>>((n-7)&63)) == '"' {
				return j + n/8 + 1, false
			}
		}
		if stringCloses && len(b) >= 32 {
			return stringClose(b, j)
		}
	}
	return validStringRuns(b, j)
}

// validStringRuns is validString from the string's body at b[j], a run
// at a time. Without the vector scans (vectorStops) it tests a run's
// words itself, the last few bytes of b going to special; with them only
// a run's first word, a longer run going to stringRun, which also passes
// the two-byte escapes up to the next stop.
func validStringRuns(b []byte, j int) (end int, esc bool) {
	for {
		for {
			if j+8 > len(b) {
				j = special(b, j)
				break
			}
			if m := stopMask(binary.LittleEndian.Uint64(b[j:])); m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
			j += 8
			if vectorStops {
				var e bool
				j, e = stringRun(b, j)
				esc = esc || e
				break
			}
		}
		if j >= len(b) {
			return -1, false
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc
		case c < 0x20:
			return -1, false
		}
		esc = true // a backslash: check its escape
		j++
		if j >= len(b) {
			return -1, false
		}
		switch b[j] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j++
		case 'u':
			if j+5 > len(b) {
				return -1, false
			}
			for _, h := range b[j+1 : j+5] {
				if !isHex(h) {
					return -1, false
				}
			}
			j += 5
		default:
			return -1, false
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// validValue checks the value starting at b[i] and returns the index after
// it, or -1. Arrays and objects are walked with an explicit stack, so a
// deep line costs no recursion.
func validValue(b []byte, i int) int {
	end, _, _ := validValueWalk(b, i)
	return end
}

// validValueWalk is validValue that also counts the value's newlines
// (all in its white space: a valid string holds none) and says whether it
// holds NaN or an infinity outside its strings: what bytes.Count and
// hasNonFinite say of the value validValue accepts (it accepts exactly
// what json.Valid does plus those tokens), told by the walk that passes
// them, where bytes.Count read the value again and hasNonFinite searched
// it twice more (bytes.Contains of "NaN", "Infinity"): 2% and 7% of
// SWE-agent's instructions, on the values jsonStream.skip passes. A
// newline is counted where white space is passed byte by byte
// (skipSpaceLines), which compact JSON never reaches.
func validValueWalk(b []byte, i int) (end, lines int, nonFinite bool) {
	var stack []byte // '{' or '[' of the open containers
	for {
		// A value at b[i].
		if i >= len(b) {
			return -1, 0, false
		}
		switch c := b[i]; {
		case c == '"':
			if i, _ = validString(b, i); i < 0 {
				return -1, 0, false
			}
		case c == '{' || c == '[':
			if len(stack)+1 >= maxNesting { // the line's own object is one level
				return -1, 0, false
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			i, lines = skipSpaceLines(b, i+1, lines)
			if i < len(b) && b[i] == closer {
				i++
				break // an empty container is a whole value
			}
			stack = append(stack, c)
			if c == '{' {
				if i, lines = memberKeyLines(b, i, lines); i < 0 {
					return -1, 0, false
				}
			}
			continue // its first value
		case c == 't':
			if i = literal(b, i, "true"); i < 0 {
				return -1, 0, false
			}
		case c == 'f':
			if i = literal(b, i, "false"); i < 0 {
				return -1, 0, false
			}
		case c == 'n':
			if i = literal(b, i, "null"); i < 0 {
				return -1, 0, false
			}
		case c == 'N':
			if i = literal(b, i, "NaN"); i < 0 {
				return -1, 0, false
			}
			nonFinite = true
		case c == 'I':
			if i = literal(b, i, "Infinity"); i < 0 {
				return -1, 0, false
			}
			nonFinite = true
		case c == '-' && i+1 < len(b) && b[i+1] == 'I':
			if i = literal(b, i, "-Infinity"); i < 0 {
				return -1, 0, false
			}
			nonFinite = true
		case c == '-' || '0' <= c && c <= '9':
			if i = jsonNumber(b, i); i < 0 {
				return -1, 0, false
			}
		default:
			return -1, 0, false
		}
		// After a value: close containers or go on to the next value.
		for {
			if len(stack) == 0 {
				return i, lines, nonFinite
			}
			open := stack[len(stack)-1]
			i, lines = skipSpaceLines(b, i, lines)
			if i >= len(b) {
				return -1, 0, false
			}
			if c := b[i]; c == ',' {
				i, lines = skipSpaceLines(b, i+1, lines)
				if open == '{' {
					if i, lines = memberKeyLines(b, i, lines); i < 0 {
						return -1, 0, false
					}
				}
				break
			} else if open == '{' && c == '}' || open == '[' && c == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return -1, 0, false
		}
	}
}

// skipSpaceLines is skipSpace that adds the newlines it passes to lines.
func skipSpaceLines(b []byte, i, lines int) (int, int) {
	for i < len(b) && b[i] <= ' ' {
		switch b[i] {
		case '\n':
			lines++
		case ' ', '\t', '\r':
		default:
			return i, lines
		}
		i++
	}
	return i, lines
}

// memberKeyLines is memberKey (`"key" :` at b[i], where its value
// starts) that adds the newlines around the ':' to lines: its blanks
// passed by skipSpaceLines, its key read as memberKey reads it.
func memberKeyLines(b []byte, i, lines int) (int, int) {
	if i >= len(b) || b[i] != '"' {
		return -1, lines
	}
	end := -1
	if k := i + 1; k+16 <= len(b) {
		if m := stopMask(word(b, k)); m != 0 {
			k += bits.TrailingZeros64(m) / 8
		} else if m := stopMask(word(b, k+8)); m != 0 {
			k += 8 + bits.TrailingZeros64(m)/8
		}
		if b[k] == '"' {
			end = k + 1
		}
	}
	if end < 0 {
		if end, _ = validString(b, i); end < 0 {
			return -1, lines
		}
	}
	j, lines := skipSpaceLines(b, end, lines)
	if j >= len(b) || b[j] != ':' {
		return -1, lines
	}
	return skipSpaceLines(b, j+1, lines)
}

// validValueIx is validValue that also records, in ix when not nil, where
// the long strings and containers it passes end, and the members of the
// objects of its first levels (valueIndex, built by ix.pass).
func validValueIx(b []byte, i int, ix *valueIndex) int {
	if ix == nil {
		return validValue(b, i)
	}
	return ix.pass(b, i)
}

// validValueLines is validValueIx of the value at b[0] with the
// newlines in it counted, for a reader of a document: by the pass that
// validates it (passLines) when ix is not nil, where bytes.Count read
// the value a second time; else by validValueWalk. lines is b[:end]'s
// newlines when end > 0.
func validValueLines(b []byte, ix *valueIndex) (end, lines int) {
	end, lines, _ = validValueLinesNF(b, ix)
	return end, lines
}

// validValueLinesNF is validValueLines that also says whether the value
// holds NaN or an infinity outside its strings (hasNonFinite): by the
// pass (valueIndex.nonFinite) or by validValueWalk.
func validValueLinesNF(b []byte, ix *valueIndex) (end, lines int, nonFinite bool) {
	if ix != nil {
		end = ix.passLines(b, 0)
		return end, ix.lines, ix.nonFinite
	}
	return validValueWalk(b, 0)
}

func literal(b []byte, i int, lit string) int {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// jsonNumber checks a JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// sniffLine tells whether a line is relevant (sniffEventType) and, when
// it is not, returns its own episode_id (topEpisodeID), in one walk of
// the line's structure: strings are jumped over with closingQuote, and
// every key of every level named event_type is looked at, as the byte
// search of sniffEventType does. A line the walk cannot vouch for (broken
// structure, escaped top-level keys or event types, which Python's
// json.dumps never writes) goes through the two searches instead.
//
// With outputs (Options.Outputs), a zork_response line is relevant too,
// as isZorkResponse's search finds it: the same walk tells, rather than a
// second search through every line the walk called irrelevant.
func sniffLine(line []byte, outputs bool) (relevant bool, id []byte) {
	if bytes.IndexByte(line, 0) >= 0 {
		// A raw NUL is never JSON (Python writes \u0000), and one
		// between "event_type" and its value hides the event from both
		// searches: the line is decoded, so it is reported as invalid
		// rather than passed over as irrelevant.
		return true, nil
	}
	set := relevantEvents
	if outputs {
		set = relevantWithOutputs
	}
	if relevant, id, ok := walkLine(line, set); ok {
		if relevant {
			return true, nil
		}
		return false, id
	}
	if relevant, _ = sniffEventType(line); relevant || outputs && isZorkResponse(line) {
		return true, nil
	}
	return false, topEpisodeID(line)
}

// walkLine is sniffLine's walk; ok is false when the line must be read
// the slow way. id is the last top-level episode_id, else the last one of
// the last extras object.
func walkLine(line []byte, set map[string]bool) (relevant bool, id []byte, ok bool) {
	var top, extras []byte
	var xRelevant bool // an extras object's, walked by the member func
	end, relevant, ok := walkMembers(line, 0, set, func(key, v []byte) bool {
		switch string(key) {
		case "episode_id":
			top = v
		case "extras":
			if v[0] == '{' {
				var x []byte
				xEnd, r, ok := walkMembers(v, 0, set, func(key, v []byte) bool {
					if string(key) == "episode_id" {
						x = v
					}
					return true
				})
				if ok && xEnd < 0 {
					xRelevant = true // the line is relevant, whatever its id
					return true
				}
				if !ok || xEnd != len(v) {
					return false
				}
				xRelevant = xRelevant || r
				extras = x
			}
		}
		return true
	})
	if ok && end < 0 {
		return true, nil, true // a relevant top-level event_type: no need to look further
	}
	if !ok || skipSpace(line, end) != len(line) {
		return false, nil, false
	}
	relevant = relevant || xRelevant
	if present(top) {
		return relevant, top, true
	}
	if present(extras) {
		return relevant, extras, true
	}
	return relevant, nil, true
}

// walkMembers walks the object at b[i], calling member with each key and
// raw value (a false return fails the walk), and reports where the object
// ends and whether any event_type key in it, at any depth, names a
// relevant event. Nested objects and arrays are walked by walkNested,
// except extras, which member walks itself. A relevant event_type of the
// object itself ends the walk at once (end -1): the line is decoded
// anyway, and the search the walk stands for would have said relevant.
func walkMembers(b []byte, i int, set map[string]bool, member func(key, v []byte) bool) (end int, relevant, ok bool) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, false, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, false, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false, false
		}
		k := closingQuote(b, i+1)
		if k < 0 {
			return 0, false, false
		}
		key := b[i+1 : k]
		if bytes.IndexByte(key, '\\') >= 0 {
			return 0, false, false // an escaped key may spell event_type
		}
		i = skipSpace(b, k+1)
		if i >= len(b) || b[i] != ':' {
			return 0, false, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return 0, false, false
		}
		var vEnd int
		switch c := b[i]; {
		case c == '"':
			q := closingQuote(b, i+1)
			if q < 0 {
				return 0, false, false
			}
			if string(key) == "event_type" {
				s := b[i+1 : q]
				if bytes.IndexByte(s, '\\') >= 0 {
					return 0, false, false // an escaped event type may be a relevant one
				}
				if set[string(s)] {
					return -1, true, true
				}
			}
			vEnd = q + 1
		case c == '{' && string(key) == "extras":
			// member walks it; its end is found here, without looking
			// at keys (member's walk does).
			if vEnd = skipValue(b, i); vEnd > len(b) || b[vEnd-1] != '}' {
				return 0, false, false
			}
		case c == '{' || c == '[':
			var r bool
			if vEnd, r, ok = walkNested(b, i, set); !ok {
				return 0, false, false
			}
			relevant = relevant || r
		default:
			vEnd = i
			for vEnd < len(b) {
				c := b[vEnd]
				if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
					break
				}
				if c == '"' || c == '{' || c == '[' || c == ':' {
					return 0, false, false // not a scalar: broken
				}
				vEnd++
			}
			if vEnd == i {
				return 0, false, false
			}
		}
		if !member(key, b[i:vEnd]) {
			return 0, false, false
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			return 0, false, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, relevant, true
		default:
			return 0, false, false
		}
	}
}

// walkNested finds the end of the object or array at b[i] and whether a
// key event_type inside it names a relevant event: any string followed by
// ':' is a key there, as sniffEventType's byte search takes it.
func walkNested(b []byte, i int, set map[string]bool) (end int, relevant, ok bool) {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			k := closingQuote(b, i+1)
			if k < 0 {
				return 0, false, false
			}
			if string(b[i+1:k]) == "event_type" {
				if j := skipSpace(b, k+1); j < len(b) && b[j] == ':' {
					if j = skipSpace(b, j+1); j < len(b) && b[j] == '"' {
						q := closingQuote(b, j+1)
						if q < 0 {
							return 0, false, false
						}
						relevant = relevant || set[string(b[j+1:q])]
					}
				}
			}
			i = k + 1
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, relevant, true
			}
		}
		i++
	}
	return 0, false, false
}
