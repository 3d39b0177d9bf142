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
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// flatKeys finds a flat reader's field from a key of 8 bytes or fewer
// by its masked word (keyWord's) in one probe: a table of 64 slots
// indexed by the word's product with a multiplier chosen so that no two
// names share a slot. An empty slot holds word 0 and field -1 (the empty
// key's word is 0: no field).
type flatKeys struct {
	mul   uint64
	word  [64]uint64
	field [64]int8
	// ok: the names allow the fast reading (each ASCII with no quote,
	// backslash or control byte, so a key that is a name's bytes is that
	// name as JSON reads it) and a multiplier was found.
	ok bool
}

// flatSlot is the slot of word w under multiplier mul.
func flatSlot(w, mul uint64) uint64 { return w * mul >> 58 }

func newFlatKeys(names []string) *flatKeys {
	fk := &flatKeys{}
	for _, name := range names {
		for i := 0; i < len(name); i++ {
			if c := name[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return fk
			}
		}
	}
	// Odd multipliers from a fixed sequence until one puts the short
	// names in distinct slots: with nine names of 64 slots one in two
	// does.
	mul := uint64(0x9e3779b97f4a7c15)
search:
	for try := 0; try < 1000; try++ {
		mul += 0x6a09e667f3bcc908
		mul |= 1
		var used uint64
		for _, name := range names {
			if len(name) > 8 || name == "" {
				continue
			}
			s := flatSlot(shortWord(name), mul)
			if used>>s&1 != 0 {
				continue search
			}
			used |= 1 << s
		}
		fk.mul, fk.ok = mul, true
		break
	}
	if !fk.ok {
		return fk
	}
	for s := range fk.field {
		fk.field[s] = -1
	}
	for f, name := range names {
		if len(name) > 8 || name == "" {
			continue
		}
		s := flatSlot(shortWord(name), fk.mul)
		fk.word[s], fk.field[s] = shortWord(name), int8(f)
	}
	return fk
}

// flatLine fills vals with the members of a flat line named by p.keys,
// as parseFieldsCopy(line[:end], p.keys, vals, cp) does, null being nil,
// and returns end, the index after the object's closing brace, for a
// line that starts with one JSON object whose keys are ASCII with no
// escape and which holds no newline; the outputs are written through cp
// as scanLineCopy writes them. What follows the object is the caller's
// to check (blanks to the line's end; or a newline, where line holds the
// lines after too: flatLineStep). It returns -1 for any other line
// (invalid, cut, a key escaped or not ASCII, NaN or Infinity, white
// space other than blanks between tokens) without a verdict: the caller
// reads that line from its start the general way, with vals zeroed, and
// the text cp wrote is written over. The keys of a flat reader are the
// fields' names in the fields' order, so a key's index in keys is its
// field.
//
// A newline can lie within a valid object only as white space in a
// nested value (validValue's), which is tested for one: anywhere else it
// is a control byte, which stops a string, a number, a literal or a key
// and is no token flatLine takes.
func (p *stepPaths) flatLine(line []byte, vals *[numStepFields]rawValue, cp *lineCopy) int {
	n := len(line)
	if n < 2 || line[0] != '{' {
		return -1
	}
	i := flatBlanks(line, 1)
	p.numAt = [2]uintptr{}
	prev := 0 // the member before: 0 none, 1 one of no field, f+2 field f's
	for {
		// The whole member as a line before had it after the same
		// member (p.members: its key, value and the ", " or "}" after
		// them, the same bytes), taken with no reading: a kind, an
		// error, a score, a location repeat from line to line.
		from, at := i, prev&15
		if m := &p.members[at]; m.n != 0 && i+24 <= n && (wordAt(line, i)^m.w[0])|(wordAt(line, i+8)&m.m[1]^m.w[1])|(wordAt(line, i+16)&m.m[2]^m.w[2]) == 0 {
			field := int(m.field)
			if uint(field) < numStepFields { // no bounds test: always
				setValue(&vals[field], line, i+int(m.vs), i+int(m.ve))
			}
			if m.num {
				p.numAt[1], p.num[1] = addrAt(line, i+int(m.vs)), m.d
			}
			i += int(m.n)
			if m.end {
				return i
			}
			prev = field + 2
			continue
		}
		// The member noted before it (p.older): a member that
		// alternates between two values (an error true and false, two
		// actions) is taken again. The same reading, written again:
		// one test of either cost the first's hits more (steps +1 M).
		if m := &p.older[at]; m.n != 0 && i+24 <= n && (wordAt(line, i)^m.w[0])|(wordAt(line, i+8)&m.m[1]^m.w[1])|(wordAt(line, i+16)&m.m[2]^m.w[2]) == 0 {
			field := int(m.field)
			if uint(field) < numStepFields { // no bounds test: always
				setValue(&vals[field], line, i+int(m.vs), i+int(m.ve))
			}
			if m.num {
				p.numAt[1], p.num[1] = addrAt(line, i+int(m.vs)), m.d
			}
			i += int(m.n)
			if m.end {
				return i
			}
			prev = field + 2
			continue
		}
		// The key and its ": " as a line before had them after the same
		// member (p.next: the lines of a log repeat their keys in one
		// order), 8 to 16 bytes told by two words; any other key is
		// read by flatKey, which notes it there for the lines after.
		var field int
		// A key not yet noted has w1 0, which no key's word is: its
		// first byte is its quote (a word 0 taken for it leaves i where
		// it is, at a NUL byte, which is no value: -1).
		if t := &p.next[prev&15]; i+16 <= n && wordAt(line, i) == t.w1 && wordAt(line, i+8)&t.m2 == t.w2 {
			field, i = int(t.field), i+int(t.n)
		} else if field, i = p.flatKey(line, i, t); i < 0 {
			return -1
		}
		if i >= n {
			return -1
		}
		start := i
		switch c := line[i]; {
		case c == '"':
			// An action, a kind, a location: short, and told in line by
			// its first two words when it ends within them with no
			// escape (flatString without the call).
			if field == sfOutput && cp != nil {
				i = cp.copy(line, i)
			} else if i+17 > n {
				i = flatString(line, i)
			} else if m := stopMask(wordAt(line, i+1)); m != 0 {
				if j := i + 1 + bits.TrailingZeros64(m)>>3; line[j] == '"' {
					i = j + 1
				} else {
					i = flatString(line, i)
				}
			} else if m := stopMask(wordAt(line, i+9)); m != 0 {
				if j := i + 9 + bits.TrailingZeros64(m)>>3; line[j] == '"' {
					i = j + 1
				} else {
					i = flatString(line, i)
				}
			} else {
				i = flatString(line, i)
			}
		case '0' <= c && c <= '9':
			// A step number or a score: digits (one 0 alone), and
			// jsonNumber for a fraction or an exponent. The step's and
			// the score's number of 1 to 15 digits is kept for stepOf
			// (smallDecimal's, read here as the digits are passed).
			if s := &p.stepNext; field == sfStep && i+8 <= n && wordAt(line, i)&s.m == s.w {
				// The step after the line before's, as predicted
				// (stepNext): its digits and the comma after them.
				i += int(s.k)
				p.numAt[0], p.num[0] = addrAt(line, start), s.d
				// The next: the last digit plus one in place, or
				// carry's past a 9.
				if s.w&s.last != s.nine {
					s.w += s.unit
					s.d++
				} else {
					s.carry()
				}
				break
			}
			d := uint64(c - '0')
			i++
			if c != '0' {
				for i < n && line[i]-'0' <= 9 {
					d = d*10 + uint64(line[i]-'0')
					i++
				}
			}
			if i < n && (line[i] == '.' || line[i]|0x20 == 'e') {
				i = jsonNumber(line, start)
			} else if i-start <= 15 && (field == sfStep || field == sfScore) {
				k := field & 1 // 0: the step (sfStep 0), 1: the score (sfScore 5)
				p.numAt[k], p.num[k] = addrAt(line, start), d
				if k == 0 && start+8 <= n {
					p.stepNext.after(wordAt(line, start), i-start, d)
				}
			}
		case c == '-':
			i = jsonNumber(line, i) // -1 for -Infinity: the general way
		case c == 't':
			if i+4 > n || string(line[i:i+4]) != "true" {
				return -1
			}
			i += 4
		case c == 'f':
			if i+5 > n || string(line[i:i+5]) != "false" {
				return -1
			}
			i += 5
		case c == 'n':
			if i+4 > n || string(line[i:i+4]) != "null" {
				return -1
			}
			i += 4
			if prev = field + 2; field >= 0 {
				vals[field] = nil // null is absent, as lineStep reads it
			}
			goto next
		case c == '[':
			i = flatArray(line, i)
		case c == '{':
			if i = validValue(line, i); i >= 0 && bytes.IndexByte(line[start:i], '\n') >= 0 {
				return -1
			}
		default:
			return -1 // NaN, Infinity or not JSON: the general way
		}
		if i < 0 {
			return -1
		}
		if prev = field + 2; uint(field) < numStepFields { // field >= 0, and no bounds test
			setValue(&vals[field], line, start, i)
			if i+1 < n && pairAt(line, i) == ','|' '<<8 {
				i += 2
				if memberNoted>>field&1 != 0 {
					p.noteMember(at, line, from, start, i, field, false)
				}
				continue
			}
			if i < n && line[i] == '}' {
				if memberNoted>>field&1 != 0 {
					p.noteMember(at, line, from, start, i+1, field, true)
				}
				return i + 1
			}
		}
	next:
		if i+1 < n && pairAt(line, i) == ','|' '<<8 {
			i += 2
			continue
		}
		i = flatBlanks(line, i)
		if i >= n {
			return -1
		}
		switch line[i] {
		case ',':
			i = flatBlanks(line, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// flatArray is the end of the array at line[i] == '[' for flatLine:
// validValue's, and -1 for an array that holds a newline (white space
// flatLine does not take). An array of strings written ", " between
// them (an attempts record's blockers and completed work: mostly empty
// or one string) is read here, each string by flatString, and holds no
// newline (a string's is a control byte, invalid); any other goes to
// validValue from its start, and is searched for a newline.
func flatArray(line []byte, i int) int {
	start, n := i, len(line)
	if i+1 < n && line[i+1] == ']' {
		return i + 2
	}
	for i++; i < n && line[i] == '"'; i += 2 {
		if i = flatString(line, i); i < 0 || i >= n {
			break
		}
		if line[i] == ']' {
			return i + 1
		}
		if i+1 >= n || pairAt(line, i) != ','|' '<<8 {
			break
		}
	}
	if i = validValue(line, start); i >= 0 && bytes.IndexByte(line[start:i], '\n') >= 0 {
		return -1
	}
	return i
}

// flatLineStep is lineStepInto of the line rest starts with, where rest
// holds whole lines (recordSource.pending), for a line flatLine reads
// whole that ends in "}\n" and is shorter than max+2 bytes (as nextLine
// cuts it): the line's length, its newline counted, and the step's
// reason. It returns 0 for any other line, which the caller then reads
// by nextLine: flatLine's reading finds the line's end, where nextLine
// searched the line for it first.
func flatLineStep(r *stepRecord, rest []byte, p *stepPaths, max int) (n int, reason string) {
	var vals [numStepFields]rawValue
	var cp *lineCopy
	if p.copies != nil && copyStrings {
		cp = &p.outCopy
		cp.c, cp.at, cp.open = p.copies, nil, true
	}
	end := p.flatLine(rest, &vals, cp)
	if cp != nil {
		cp.open = false
	}
	if end < 0 || end >= len(rest) || rest[end] != '\n' || end >= max+2 {
		p.outCopy.at, p.numAt = nil, [2]uintptr{}
		return 0, ""
	}
	return end + 1, stepInto(r, &vals, p)
}

// flatNext is a key and its ": " as flatLine last read them after a
// member (stepPaths.next): their first 8 bytes w1 and the n-8 after,
// w2 (masked by m2), and the key's field (-1 none). n is 0 until one is
// noted.
type flatNext struct {
	w1, w2, m2 uint64
	n          uint8
	field      int8
	// long is a key and its ": " of 17 to 24 bytes (an attempts record's
	// completed_work), told by flatKey before it reads the key: flatLine
	// tests only the short one, in two words, w1 0 when it is long.
	long flatLong
}

// flatLong is a key and its ": " of 17 to 24 bytes as flatKey last read
// it after a member: its words w (the third masked by m3), its length n
// (0 none) and field.
type flatLong struct {
	w     [3]uint64
	m3    uint64
	n     uint8
	field int8
}

// flatKey reads the key at line[i] and the colon after it for flatLine:
// the key's field (-1 none) and the index of the value after it, -1 for
// a key flatLine does not read (the general way). A key and ": " of 8 to
// 16 bytes are noted in t.
func (p *stepPaths) flatKey(line []byte, i int, t *flatNext) (int, int) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	fk := p.flatKeys
	n := len(line)
	// A key, from one 8-byte load when it ends within 8 bytes: its
	// closing quote found in the word (a quote's byte XORed to zero),
	// the bytes after masked off, the word looked up. A name's
	// bytes need no more checking; any other key's are checked for
	// what validString rejects or escapes, and for bytes over 0x7f.
	if i+10 > n || line[i] != '"' {
		return -1, -1 // "{}" and a line ending in a short key too: the general way
	}
	if l := &t.long; l.n != 0 && i+24 <= n && wordAt(line, i) == l.w[0] && wordAt(line, i+8) == l.w[1] && wordAt(line, i+16)&l.m3 == l.w[2] {
		return int(l.field), i + int(l.n)
	}
	from, field := i, -1
	w := wordAt(line, i+1)
	q := w ^ ones*'"'
	var mask uint64
	if qm := (q - ones) &^ q & highs; qm != 0 {
		mask = (qm ^ (qm - 1)) >> 8
		w &= mask
		i += bits.TrailingZeros64(qm)>>3 + 2
	} else if line[i+9] == '"' {
		mask = ^uint64(0)
		i += 10
	} else {
		end, esc := validString(line, i)
		if end < 0 || esc {
			return -1, -1
		}
		key := line[i+1 : end-1]
		for f := p.keys.first[min(len(key), 63)]; f >= 0; f = p.keys.next[f] {
			if string(key) == p.keys.names[f] {
				field = int(f)
				break
			}
		}
		if field < 0 {
			// A name is ASCII, and needs no test (an attempts
			// record's completed_work, read every line).
			for _, c := range key {
				if c >= 0x80 {
					return -1, -1
				}
			}
		}
		i = end
		goto colon
	}
	if s := flatSlot(w, fk.mul); fk.word[s] == w {
		field = int(fk.field[s])
	}
	if field < 0 && (stopMask(w)|w)&highs&mask != 0 {
		return -1, -1
	}
colon:
	if i+1 < n && pairAt(line, i) == ':'|' '<<8 {
		i += 2
		if k := i - from; k >= 8 && k <= 16 && from+16 <= n {
			// Noted as its bytes, which are valid: the same bytes
			// are the same key and ": ".
			t.w1, t.m2 = wordAt(line, from), ^uint64(0)>>(128-8*k)
			t.w2 = wordAt(line, from+8) & t.m2
			t.n, t.field = uint8(k), int8(field)
		} else if k > 16 && k <= 24 && from+24 <= n {
			l := &t.long
			l.m3 = ^uint64(0) >> (192 - 8*k)
			l.w = [3]uint64{wordAt(line, from), wordAt(line, from+8), wordAt(line, from+16) & l.m3}
			l.n, l.field = uint8(k), int8(field)
		}
	} else {
		i = flatBlanks(line, i)
		if i >= n || line[i] != ':' {
			return -1, -1
		}
		i = flatBlanks(line, i+1)
	}
	return field, i
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

// wordAt is the 8 bytes of b from b[i] on, little-endian, loaded with no
// bounds check: the caller has checked that i >= 0 and i+8 <= len(b).
func wordAt(b []byte, i int) uint64 {
	// An array pointer, not unsafe.Slice, whose check that the pointer
	// does not wrap was four instructions a load.
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))[:])
}

// pairAt is the 2 bytes of b from b[i] on, little-endian, loaded with no
// bounds check (": " and ", " told by one compare): the caller has
// checked that i >= 0 and i+2 <= len(b).
func pairAt(b []byte, i int) uint16 {
	return binary.LittleEndian.Uint16((*[2]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))[:])
}

// setBytes sets *b to line[start:end:end], 0 <= start <= end <= len(line)
// and start < len(line) (the pointer stays within line's array, for the
// GC), with no bounds test and no mask for an empty slice's pointer (the
// slice's three words and its write barrier alone: 19 instructions where
// a slice expression takes ~30 with its bounds spilled).
func setBytes(b *[]byte, line []byte, start, end int) {
	*(*sliceHeader)(unsafe.Pointer(b)) = sliceHeader{unsafe.Add(unsafe.Pointer(unsafe.SliceData(line)), start), end - start, end - start}
}

// setValue sets *v to line[start:end:end], 0 <= start < end <= len(line),
// as setBytes sets a slice.
func setValue(v *rawValue, line []byte, start, end int) {
	setBytes((*[]byte)(v), line, start, end)
}

// sliceHeader is a slice's layout, its pointer a pointer to the GC.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// addrAt is the address of line[i], 0 <= i < len(line), as a number:
// flatLine notes where a number it read starts (stepPaths.numAt) only to
// tell that value again, and a number is stored with no write barrier.
func addrAt(line []byte, i int) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(line))) + uintptr(i)
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
