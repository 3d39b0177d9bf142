package replay

// Reading a flat steps line (stepPaths.flat: every field a top-level
// member of its own name) in one loop: the members' keys matched as
// they are scanned, values validated in line where they are numbers,
// literals and short strings. scanLineCopy, which it stands for, hands
// each member to a callback (parseFieldsCopy's), validates each key
// through validString and each number through jsonNumber, and skipped
// white space in a call a token: two thirds of the reader's own work on
// a steps log.

import (
	"encoding/binary"
	"math/bits"
)

// flatLine fills vals with the members of a flat line named by p.keys,
// as parseFieldsCopy(raw, p.keys, vals, cp) does, null being nil, and
// reports true, for a line that is one JSON object whose keys are ASCII
// with no escape; the outputs are written through cp as scanLineCopy
// writes them. It reports false for any other line (invalid, cut, a key
// escaped or not ASCII, NaN or Infinity, white space other than blanks
// between tokens) without a verdict: the caller reads that line from its
// start the general way, with vals zeroed, and the text cp wrote is
// written over. The keys of a flat reader are the fields' names in the
// fields' order, so a key's index in keys is its field.
func (p *stepPaths) flatLine(line []byte, vals *[numStepFields]rawValue, cp *lineCopy) bool {
	keys := p.keys
	n := len(line)
	if n < 2 || line[0] != '{' {
		return false
	}
	i := 1
	for {
		i = flatBlanks(line, i)
		if i >= n || line[i] != '"' {
			// Not a key: "{}" and "{ }" are read the general way.
			return false
		}
		// The key, ASCII, from one 8-byte load when it ends within it:
		// the names are compared with its masked word (keyWord).
		field := -1
		if i+10 <= n {
			w := binary.LittleEndian.Uint64(line[i+1:])
			k := 8
			if m := stopMask(w); m != 0 {
				k = bits.TrailingZeros64(m) / 8
			}
			if line[i+1+k] != '"' {
				goto long
			}
			if k < 8 {
				w &= 1<<(8*k) - 1
			}
			if w&0x8080808080808080 != 0 {
				return false // not ASCII: asciiOrUTF8 and unquoteKey read it
			}
			for f := keys.first[k]; f >= 0; f = keys.next[f] {
				if keys.word[f] == w {
					field = int(f)
					break
				}
			}
			i += k + 2
			goto colon
		}
	long:
		{
			end, esc := validString(line, i)
			if end < 0 || esc {
				return false
			}
			key := line[i+1 : end-1]
			for _, c := range key {
				if c >= 0x80 {
					return false
				}
			}
			for f := keys.first[min(len(key), 63)]; f >= 0; f = keys.next[f] {
				if string(key) == keys.names[f] {
					field = int(f)
					break
				}
			}
			i = end
		}
	colon:
		i = flatBlanks(line, i)
		if i >= n || line[i] != ':' {
			return false
		}
		i = flatBlanks(line, i+1)
		if i >= n {
			return false
		}
		start := i
		switch c := line[i]; {
		case c == '"':
			if field == sfOutput && cp != nil {
				i = cp.copy(line, i)
			} else {
				i = flatString(line, i)
			}
		case '1' <= c && c <= '9':
			// A step number or a score: digits, and jsonNumber for a
			// fraction or an exponent.
			i++
			for i < n && line[i]-'0' <= 9 {
				i++
			}
			if i < n && (line[i] == '.' || line[i]|0x20 == 'e') {
				i = jsonNumber(line, start)
			}
		case c == '-' || c == '0':
			i = jsonNumber(line, i) // -1 for -Infinity: the general way
		case c == 't':
			if i+4 > n || string(line[i:i+4]) != "true" {
				return false
			}
			i += 4
		case c == 'f':
			if i+5 > n || string(line[i:i+5]) != "false" {
				return false
			}
			i += 5
		case c == 'n':
			if i+4 > n || string(line[i:i+4]) != "null" {
				return false
			}
			i += 4
		case c == '{' || c == '[':
			i = validValue(line, i)
		default:
			return false // NaN, Infinity or not JSON: the general way
		}
		if i < 0 {
			return false
		}
		if field >= 0 {
			if line[start] == 'n' {
				vals[field] = nil // null is absent, as lineStep reads it
			} else {
				vals[field] = line[start:i]
			}
		}
		i = flatBlanks(line, i)
		if i >= n {
			return false
		}
		switch line[i] {
		case ',':
			i++
		case '}':
			return flatBlanks(line, i+1) == n
		default:
			return false
		}
	}
}

// flatBlanks passes the blanks at line[i:]: most calls meet none, and the
// rest one (Python's json.dumps writes ", " and ": "). Other white space
// stops it, and flatLine hands its line to the general reading.
func flatBlanks(line []byte, i int) int {
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

// flatString is validString's end of the string at line[i] == '"' (-1
// when invalid or cut): a string that ends within its first 16 bytes
// with no escape is told by two words here (an action, a kind, a
// location), without the call.
func flatString(line []byte, i int) int {
	if i+17 <= len(line) {
		if m := stopMask(binary.LittleEndian.Uint64(line[i+1:])); m != 0 {
			if j := i + 1 + bits.TrailingZeros64(m)/8; line[j] == '"' {
				return j + 1
			}
		} else if m := stopMask(binary.LittleEndian.Uint64(line[i+9:])); m != 0 {
			if j := i + 9 + bits.TrailingZeros64(m)/8; line[j] == '"' {
				return j + 1
			}
		}
	}
	end, _ := validString(line, i)
	return end
}
