package replay

// A record's structural index: where its long values end, recorded by the
// validating pass (validValueIx) that reads every byte anyway, so that a
// reader walking the record level by level (Members, Elems) steps over a
// nested value with a binary search instead of scanning it again at
// every level above it: a Gemini CLI tool result four levels down was
// read seven times, once a level and once for its value.

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// indexMin is the shortest value indexed: a shorter one is skipped by
// scanning it, about as fast as a search.
const indexMin = 64

// valueIndex holds the spans of one validated record's strings and
// containers of indexMin bytes or more, in the order they start.
type valueIndex struct {
	base  []byte   // the record the offsets are in
	spans []ixSpan // by start
	opens []int32  // spans of the containers still open (while built)
	off   bool     // the record is too long for int32 offsets: nothing indexed
	// nonFinite says the pass met NaN or an infinity, which it accepts
	// (Python's, read as null) where JSON.parse refuses the record: a
	// reader of JSON proper needs no second search of the record for
	// them (hasNonFinite).
	nonFinite bool
}

type ixSpan struct{ start, end int32 }

func (ix *valueIndex) reset(b []byte) {
	ix.base, ix.spans, ix.opens = b, ix.spans[:0], ix.opens[:0]
	ix.off, ix.nonFinite = len(b) > math.MaxInt32, false
}

// add records a value (a string) at [from, to).
func (ix *valueIndex) add(from, to int) {
	if !ix.off {
		ix.spans = append(ix.spans, ixSpan{int32(from), int32(to)})
	}
}

// open records a container starting at i; close ends the innermost open
// one at i, dropping it with everything inside it when it is short
// (what it holds is shorter still, and was recorded after it).
func (ix *valueIndex) open(i int) {
	if !ix.off {
		ix.opens = append(ix.opens, int32(len(ix.spans)))
		ix.spans = append(ix.spans, ixSpan{start: int32(i)})
	}
}

func (ix *valueIndex) close(i int) {
	if ix.off {
		return
	}
	k := ix.opens[len(ix.opens)-1]
	ix.opens = ix.opens[:len(ix.opens)-1]
	if i-int(ix.spans[k].start) < indexMin {
		ix.spans = ix.spans[:k]
		return
	}
	ix.spans[k].end = int32(i)
}

// skip is skipValue(v, i) for v within the indexed record: the end of a
// long value from the index, anything else scanned. A nil index scans.
func (ix *valueIndex) skip(v rawValue, i int) int {
	if i < len(v) && v[i] == '"' {
		// A string shorter than indexMin (most keys' values) is not in
		// the index: its end is found by scanning its few bytes, eight at
		// a time (special: a valid string holds no control byte, so it
		// stops at a quote or a backslash), before any search. Its
		// escapes are valid: the byte after a backslash is never its
		// closing quote.
		stop := min(len(v), i+indexMin-1)
		for j := i + 1; j < stop; j += 2 {
			if j = special(v[:stop], j); j < stop && v[j] == '"' {
				return j + 1
			}
		}
	} else if i < len(v) && v[i] != '{' && v[i] != '[' {
		return skipValue(v, i) // a number or literal: never indexed
	}
	if ix != nil && len(ix.spans) > 0 && i < len(v) {
		// v's offset in the record: v is a slice of it, or of some other
		// memory, which lies wholly outside it.
		off := int(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(ix.base))))
		if off >= 0 && off <= len(ix.base)-len(v) {
			at := int32(off + i)
			lo, hi := 0, len(ix.spans)
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if ix.spans[m].start < at {
					lo = m + 1
				} else {
					hi = m
				}
			}
			if lo < len(ix.spans) && ix.spans[lo].start == at {
				return int(ix.spans[lo].end) - off
			}
		}
	}
	return skipValue(v, i)
}

// members is rawValue.Members, skipping with the index.
func (ix *valueIndex) members(v rawValue, fn func(key []byte, esc bool, val rawValue) bool) {
	if v.Kind() != '{' {
		return
	}
	i := skipSpace(v, 1)
	for i < len(v) && v[i] == '"' {
		// A key is short: one pass finds its end, a backslash or a byte
		// that is not ASCII (then checked as UTF-8), eight bytes at a
		// time (stopMask; a valid key holds no control byte), the high
		// bits of the bytes before the stop gathered on the way.
		const highs = 0x8080808080808080
		j, high := i+1, uint64(0)
		for j+8 <= len(v) {
			x := binary.LittleEndian.Uint64(v[j:])
			if m := stopMask(x); m != 0 {
				n := bits.TrailingZeros64(m) / 8
				high |= x & highs & (1<<(8*n) - 1)
				j += n
				break
			}
			high |= x & highs
			j += 8
		}
		for ; j < len(v) && v[j] != '"' && v[j] != '\\'; j++ {
			high |= uint64(v[j])
		}
		esc := j < len(v) && v[j] == '\\'
		kEnd := j + 1
		if esc {
			kEnd = skipString(v, i)
		}
		key := v[i+1 : kEnd-1]
		esc = esc || high >= utf8.RuneSelf && !utf8.Valid(key)
		i = skipSpace(v, kEnd)
		i = skipSpace(v, i+1) // past ':'
		vEnd := ix.skip(v, i)
		if !fn(key, esc, v[i:vEnd]) {
			return
		}
		i = skipSpace(v, vEnd)
		if i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
}

// elems is rawValue.Elems, skipping with the index.
func (ix *valueIndex) elems(v rawValue, fn func(i int, val rawValue) bool) {
	if v.Kind() != '[' {
		return
	}
	i := skipSpace(v, 1)
	for n := 0; i < len(v) && v[i] != ']'; n++ {
		end := ix.skip(v, i)
		if !fn(n, v[i:end]) {
			return
		}
		i = skipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
}

// get is rawValue.Get, skipping with the index.
func (ix *valueIndex) get(v rawValue, key string) rawValue {
	var got rawValue
	ix.members(v, func(k []byte, esc bool, val rawValue) bool {
		if keyIs(k, esc, key) {
			got = val
		}
		return true
	})
	return got
}

// appendCanon is w.appendValue(v, canonical, skip), skipping with the
// index: an OpenHands V1 event's key is its observation or action written
// canonically, a tool output inside it three levels down.
func (ix *valueIndex) appendCanon(w *canonWriter, v rawValue, canonical bool, skip map[string]bool) {
	switch v.Kind() {
	case '[':
		w.buf = append(w.buf, '[')
		ix.elems(v, func(i int, e rawValue) bool {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			ix.appendCanon(w, e, canonical, nil)
			return true
		})
		w.buf = append(w.buf, ']')
	case '{':
		// appendObject's members, each value skipped over with the index.
		base := len(w.members)
		ix.members(v, w.keep(skip))
		w.writeMembers(base, func(val rawValue) { ix.appendCanon(w, val, canonical, nil) })
	default:
		if w.syms != nil && v.Kind() == '"' && w.appendKeyed(v) {
			return
		}
		w.appendValue(v, canonical, nil)
	}
}

// keyMark, a byte no UTF-8 text and so no canonical value holds, begins
// a string written as its Sym (appendKeyed): five bytes of seven bits,
// each with its top bit set, so none is a NUL (what separates a key's
// parts).
const (
	keyMark  = 0xFF
	keyedLen = 64
)

// appendKeyed writes string v as keyMark and the Sym of the string it
// decodes to, if that string is keyedLen bytes or more, and says whether
// it did. Which strings are so written depends on the decoded string
// alone, which decodes to valid UTF-8 and which its canonical form
// (appendStringValue) writes one to one: two keys are equal exactly when
// their canonical forms are (the separators, keyMark and the Sym's bytes
// read back unambiguously).
func (w *canonWriter) appendKeyed(v rawValue) bool {
	body := v[1 : len(v)-1]
	if len(body)*utf8.UTFMax < keyedLen {
		return false // an escape or invalid byte decodes to three bytes at most
	}
	s := []byte(body)
	if valid := utf8.Valid(body); !valid || bytes.IndexByte(body, '\\') >= 0 {
		w.scratch = appendUnescaped(w.scratch[:0], body, valid) // as Str decodes
		s = w.scratch
	}
	if len(s) < keyedLen {
		return false
	}
	id := w.syms.bytes(s)
	w.keyed = append(w.keyed, keyedString{&v[0], id})
	w.buf = append(w.buf, keyMark, 0x80|byte(id>>28), 0x80|byte(id>>21)&0x7F, 0x80|byte(id>>14)&0x7F, 0x80|byte(id>>7)&0x7F, 0x80|byte(id)&0x7F)
	return true
}
