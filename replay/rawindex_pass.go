package replay

// The indexing validator: validValue's pass over a record, building its
// valueIndex on the way (validValueIx with an index). Every agent reader
// but steps and attempts validates its records here, most of them a key
// and a short value every 20 to 30 bytes, so the pass is written for the
// member: a key of up to 16 bytes is read by its words' stops here, the
// colon and the value's first byte found with no call when the JSON is
// compact, a string value of under shortString bytes (uuids and
// timestamps too) told by its words, an integer read here, and the
// member noted in its level's list in place, its end written through a
// pointer to it. It was validValue's loop testing for an index at each
// step and calling out (not inlined) to note a key, to note its value's
// end and to push the container it opened: a noted member cost some 160
// instructions of bookkeeping and calls around the bytes read.

import (
	"bytes"
	"math/bits"
	"unsafe"
)

// ixFrame is an open container of the pass: where its span is in spans,
// its objs index when it is an object whose members are noted (else -1),
// and the byte that closes it.
type ixFrame struct {
	span, obj int32
	closer    byte
}

// shortString is how long a string value the pass reads by its words in
// line, five words of eight bytes written out, before it calls
// validString: past it the call's vector scan is cheaper than more words
// (48 and 64 measured the same).
const shortString = 5 * 8

// keyRoom is how many bytes from a key's first byte on the pass needs
// in b to read the key by its first two words (eight more for the
// third): the words, and the three bytes after the closing quote when
// it is a word's last (the colon, a space and the value's first byte),
// read with no bounds test. A key nearer b's end goes to keyCarry; a
// member's value and the closing bracket follow any valid key, so that
// is only the record's last key or two when they are short.
const keyRoom = 16 + 3

// byteAt is b[k] for a k known to be in b (a stop found in a word
// read), with no bounds test.
func byteAt(b []byte, k int) byte {
	return *(*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), k))
}

// word is the eight bytes of b at k, k+8 <= len(b) (the caller tests),
// read with no bounds check. The bytes are put together here, as
// binary.LittleEndian.Uint64 does (the compiler makes them one load),
// rather than by calling it: its inlined call left a NOP in the code at
// every word read (an inlining mark with no instruction of its own
// line to stand on), some 1.4 M instructions of OpenHands V1's 379 M.
func word(b []byte, k int) uint64 {
	p := (*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), k))
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}

// word32 is the four bytes of b at k, k+4 <= len(b) (the caller tests),
// read as word is.
func word32(b []byte, k int) uint32 {
	p := (*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), k))
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
}

// pass validates the value at b[i] as validValue does, returning the same
// end, and indexes it: its long strings' and containers' spans, its first
// memberDepth levels' objects and members, and whether it holds NaN or
// an infinity. The lists stay in ix (a local copy of each slice was
// kept in registers at the cost of shuffling a dozen of them between
// the pass's branches); where it is in the record (passLevel: the depth,
// the innermost container's closing byte, the member whose value is
// read) is held in registers: every call the pass makes carries it
// through (rawindex_carry.go), so that it is live across none and
// spilled nowhere. A member is noted when that byte is a brace and the
// depth under memberDepth.
//
// passLines is a copy of it (rawindex_pass_lines.go, written from it by
// TestPassLinesCopy) with lines true: the same pass counting the
// newlines it passes, for a reader of a document.
func (ix *valueIndex) pass(b []byte, i int) int {
	// lines says the pass counts the newlines it passes into ix.lines:
	// a constant, so that pass compiles as if the counting were not
	// written (a flag read in the pass, as a parameter, a second result
	// or a field, cost every other format's pass 0.4-2.3 M; so did a
	// type parameter choosing between the two, its dictionary moving
	// the pass's registers).
	const lines = false
	ix.reset(b)
	if lines {
		ix.lines = 0
	}
	if ix.off {
		// Offsets past int32: nothing indexed, the value checked alone.
		end := validValue(b, i)
		ix.nonFinite = end >= 0 && hasNonFinite(b[i:end])
		if lines && end >= 0 {
			ix.lines = bytes.Count(b[i:end], newline)
		}
		return end
	}
	ix.frames = ix.frames[:0]
	var (
		c      byte
		lv     passLevel
		end, j int
		k      int // a key's closing quote, once its words are read
		esc    bool
		from   int
		f      ixFrame
		// sink is lv.last where no member's value is read: written,
		// never read, so that a value's end is stored with no test.
		sink ixMember
	)
	lv.last = &sink
	n := len(b)
	b = b[:n:n] // its capacity its length: one value fewer held

value: // a value at b[i]
	if uint(i) >= uint(n) { // unsigned: i is then known in b, with no bounds test
		return -1
	}
	c = b[i]
	switch {
	case c == '"':
		// A string of under shortString bytes (most values: names,
		// timestamps, uuids) is told by its words' first stop, a quote,
		// with no call (looseStopMask: a space, a '!' or a byte over
		// 0x7f stops it too); any other by longString. The five words are written out: a loop's
		// counter and limit took two of the registers the words' masks
		// need, and the allocator moved four values about at each word.
		if k := i + 1; k+shortString <= n {
			// Each word's stop is counted in its own branch, where the
			// compiler knows its mask nonzero (one BSF, where a count
			// after the branches merged also tested for zero).
			if m := looseStopMask(word(b, k)); m != 0 {
				k += bits.TrailingZeros64(m) / 8
			} else if m := looseStopMask(word(b, k+8)); m != 0 {
				k += 8 + bits.TrailingZeros64(m)/8
			} else if m := looseStopMask(word(b, k+16)); m != 0 {
				k += 16 + bits.TrailingZeros64(m)/8
			} else if m := looseStopMask(word(b, k+24)); m != 0 {
				k += 24 + bits.TrailingZeros64(m)/8
			} else if m := looseStopMask(word(b, k+32)); m != 0 {
				k += 32 + bits.TrailingZeros64(m)/8
			} else {
				goto long
			}
			if byteAt(b, k) == '"' {
				i = k + 1
				goto after
			}
		}
	long:
		if i, lv = ix.longString(b, i, lv); i < 0 {
			return -1
		}
		goto after
	case c == '{' || c == '[':
		if lv.d+1 >= maxNesting { // the line's own object is one level
			return -1
		}
		if len(ix.frames) == cap(ix.frames) || len(ix.spans) == cap(ix.spans) || len(ix.objs) == cap(ix.objs) {
			i, c, lv = ix.roomToOpen(i, c, lv)
		}
		cl := byte('}')
		if c == '[' {
			cl = ']'
		}
		from = i
		if i++; uint(i) >= uint(n) {
			return -1 // an opening bracket ending the record
		}
		if b[i] <= ' ' {
			// A pretty-printed document's newline and indentation,
			// eight spaces a word in line, up to four words written out
			// (blankCarry's call here, or a loop, shuffled the compact
			// path's registers: V1 +0.8%, +0.4%).
			if b[i] == '\n' {
				i++
				if lines {
					ix.lines++
				}
			}
			if i+32 <= n {
				y := word(b, i) ^ spaces
				if y != 0 {
					goto blankEnd
				}
				i += 8
				if y = word(b, i) ^ spaces; y != 0 {
					goto blankEnd
				}
				i += 8
				if y = word(b, i) ^ spaces; y != 0 {
					goto blankEnd
				}
				i += 8
				if y = word(b, i) ^ spaces; y != 0 {
					goto blankEnd
				}
				i += 8
				goto blankRest
			blankEnd:
				i += bits.TrailingZeros64(y) / 8
			}
		blankRest:
			if lines {
				i = ix.spaceLines(b, i)
			} else {
				i = skipSpace(b, i)
			}
			if i < n && b[i] == cl {
				// An empty container with space in it, as long as that is.
				i++
				if i-from >= indexMin {
					lv = ix.addSpan(from, i, lv)
				}
				goto after
			}
		} else if b[i] == cl {
			i++ // an empty container, too short for a span
			goto after
		}
		// Each written in place, as a member is (key, below), in the
		// room made above.
		obj := int32(-1)
		if c == '{' && lv.d < memberDepth {
			k := len(ix.objs)
			ix.objs = ix.objs[:k+1]
			ix.objs[k] = ixObject{start: int32(from), first: int32(len(ix.mems[lv.d])), depth: int8(lv.d)}
			obj = int32(k)
		}
		k := len(ix.frames)
		ix.frames = ix.frames[:k+1]
		ix.frames[k] = ixFrame{span: int32(len(ix.spans)), obj: obj, closer: cl}
		k = len(ix.spans)
		ix.spans = ix.spans[:k+1]
		ix.spans[k] = ixSpan{start: int32(from)}
		lv = passLevel{last: &sink, d: lv.d + 1, closer: cl}
		if c == '[' {
			goto value
		}
		goto key
	case c == 't':
		if i+4 > n || string(b[i:i+4]) != "true" {
			return -1
		}
		i += 4
	case c == 'f':
		if i+5 > n || string(b[i:i+5]) != "false" {
			return -1
		}
		i += 5
	case c == 'n':
		if i+4 > n || string(b[i:i+4]) != "null" {
			return -1
		}
		i += 4
	case '0' <= c && c <= '9':
		// An integer (most numbers: counts, exit codes) read here; a
		// fraction or an exponent by jsonNumber.
		from = i
		if i++; c != '0' {
			for i < n && '0' <= b[i] && b[i] <= '9' {
				i++
			}
		}
		if i < n && (b[i] == '.' || b[i]|0x20 == 'e') {
			if i, lv = numberCarry(b, from, lv); i < 0 {
				return -1
			}
		}
	default: // a negative number, NaN, an infinity, or not a value
		if i, lv = ix.otherValue(b, i, lv); i < 0 {
			return -1
		}
	}

after: // after a value: close containers or go on to the next value
	// The end of a noted member's value (else the sink's). The top
	// value's end (lv.d == 0) is told on the paths that do not go on
	// (b's end, a blank, a byte that is not the closer), and by a
	// closer of 0 after a comma, where every value was tested for it.
	lv.last.end = int32(i)
	if !lines && i+3+keyRoom <= n && lv.closer == '}' {
		// The next member's key after a comma, as compact JSON writes it
		// (`,"`) or Python's json.dumps (`, "`): told by one load and a
		// compare each, where the steps below read, tested and branched
		// on the comma, the blank and the quote one byte at a time; the
		// key's words are in b (keyRoom from the quote on), tested here
		// once for both. Not in passLines: a pretty-printed document's
		// comma or closer has a newline after or before it, and the
		// compares that fail there cost the trajectory 4.0 M and
		// SWE-agent 4.8 M (Gemini CLI's .json, read by pass, pays them:
		// 103.8 -> 110.0 M of its pass).
		if w := word32(b, i); w&0xFFFF == ','|'"'<<8 {
			i++
			goto keyWords
		} else if w&0xFFFFFF == ','|' '<<8|'"'<<16 {
			i += 2
			goto keyWords
		}
	}
	if uint(i) >= uint(n) {
		if lv.d == 0 {
			return i
		}
		return -1
	}
	if c = b[i]; c <= ' ' {
		if lv.d == 0 {
			return i
		}
		if lines {
			i, lv = ix.blankLines(b, i, lv)
		} else {
			i, lv = blankCarry(b, i, lv)
		}
		if i >= n {
			return -1
		}
		c = b[i]
	}
	if c == ',' {
		// The next byte read once: a key's quote is told here, where
		// the key's step read it again. A run of blanks (a pretty-printed
		// document's newline and indentation) goes the key's way.
		if i++; uint(i) < uint(n) {
			if c = b[i]; c <= ' ' {
				if i+1 >= n || c != ' ' || b[i+1] <= ' ' {
					if lines {
						i, lv = ix.blankLines(b, i, lv)
					} else {
						i, lv = blankCarry(b, i, lv)
					}
					goto commaBlank
				}
				i++ // Python's json.dumps' one space, with no call
				c = b[i]
			}
		} // past b's end, c is the comma: neither a quote nor read as a value
		if lv.closer == '}' {
			if c == '"' {
				goto keyQuote
			}
			return -1
		}
	commaBlank:
		if lv.closer == '}' {
			goto key
		}
		if lv.closer == ']' {
			goto value
		}
		// The top value (a closer of 0), ending at the comma: back
		// over the blanks passed after it, their newlines not its own.
		for i--; b[i] != ','; i-- {
			if lines && b[i] == '\n' {
				ix.lines--
			}
		}
		return i
	}
	if c != lv.closer {
		if lv.d == 0 {
			return i
		}
		return -1
	}
	i++
	lv.d--
	f = ix.frames[lv.d]
	ix.frames = ix.frames[:lv.d]
	if s := &ix.spans[f.span]; i-int(s.start) < indexMin {
		ix.spans = ix.spans[:f.span] // short: what it holds is shorter still
	} else {
		s.end = int32(i)
	}
	if f.obj >= 0 {
		o := &ix.objs[f.obj]
		o.end, o.last = int32(i), int32(len(ix.mems[lv.d]))
	}
	if lv.closer, lv.last = 0, &sink; lv.d > 0 {
		if lv.closer = ix.frames[lv.d-1].closer; lv.closer == '}' && lv.d <= memberDepth {
			// Back in a noted object: its member whose value ended is
			// the last of its level.
			ms := ix.mems[lv.d-1]
			lv.last = &ms[len(ms)-1]
		}
	}
	goto after

key: // a member of the innermost open object, its key at b[i]
	if uint(i) >= uint(n) || b[i] != '"' {
		return -1
	}
keyQuote: // b[i] is the key's opening quote
	// A key that ends within its first 24 bytes with no escape (most
	// keys, and Gemini CLI's token counts' names) is told here by its
	// words' stops (looseStopMask; a valid string's first stop is its
	// closing quote, and a key holds a space, a '!' or a byte over 0x7f
	// but rarely); any other string by validString. memberKey reads a key's
	// first two words the same way; the reading is written out here
	// rather than shared because a function of it costs 128 against the
	// inliner's 80, and the call a key measured +0.6% of Codex's and
	// +1.3% of Gemini CLI .jsonl's instructions. A position missed (no
	// stop found, or one that is not a quote) lands on a byte that is
	// not the closing quote and goes to validString.
	if i+1+keyRoom > n {
		goto keySlow
	}
keyWords: // b[i] is the key's opening quote, i+1+keyRoom <= n
	esc = false
	k = i + 1
	if m := looseStopMask(word(b, k)); m != 0 {
		k += bits.TrailingZeros64(m) / 8
	} else if m := looseStopMask(word(b, k+8)); m != 0 {
		k += 8 + bits.TrailingZeros64(m)/8
	} else if k+keyRoom+8 <= n {
		if m := looseStopMask(word(b, k+16)); m != 0 {
			k += 16 + bits.TrailingZeros64(m)/8
		}
	}
	// The closing quote, the colon and the value's first byte: next
	// to each other in compact JSON, told by one load and a compare
	// (then the value's byte, or pretty-printed JSON's `": "` and the
	// value's byte after it). The quote is at most the last word's
	// last byte, keyRoom-4 bytes before n: its next three bytes are
	// in b.
	if w := word32(b, k); w&0xFFFF == '"'|':'<<8 {
		end, j = k+1, k+2
		if byte(w>>16) > ' ' {
			goto noted
		}
		if byte(w>>16) == ' ' && byte(w>>24) > ' ' {
			j++
			goto noted
		}
		goto colon
	} else if byte(w) == '"' {
		end = k + 1
		goto colon
	}
keySlow:
	if i, end, esc, lv = keyCarry(b, i, lv); end < 0 {
		return -1
	}
colon: // the colon after the key ending at b[end-1], with space about it
	j = end
	if j < n && b[j] != ':' {
		if lines {
			j = ix.spaceLines(b, j)
		} else {
			j = skipSpace(b, j)
		}
	}
	if j >= n || b[j] != ':' {
		return -1
	}
	if j++; j < n && b[j] <= ' ' {
		if j+1 < n && b[j] == ' ' && b[j+1] > ' ' {
			j++ // pretty-printed JSON's one space, with no loop
		} else if lines {
			j = ix.spaceLines(b, j)
		} else {
			j = skipSpace(b, j)
		}
	}
noted: // the member's key ends at b[end-1], its value starts at b[j]
	lv.last = &sink
	if l := uint(lv.d - 1); l < memberDepth { // d >= 1 in an object
		// Lengthened in place, its fields written there (an appended
		// literal was built on the stack and copied by wider loads than
		// its stores, which the CPU cannot forward); end is written
		// after the value. The slot is addressed past the list's length
		// (k < its capacity), with none of a reslice's bounds tests.
		ms := &ix.mems[l]
		if k := len(*ms); k < cap(*ms) {
			*ms = (*ms)[:k+1]
			lv.last = (*ixMember)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(*ms)), uintptr(k)*unsafe.Sizeof(ixMember{})))
			lv.last.key, lv.last.keyEnd, lv.last.val, lv.last.esc = int32(i+1), int32(end-1), int32(j), esc
		} else {
			lv = ix.noteGrown(ixMember{key: int32(i + 1), keyEnd: int32(end - 1), val: int32(j), esc: esc}, lv)
		}
	}
	i = j
	goto value
}
