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
	base   []byte    // the record the offsets are in
	spans  []ixSpan  // by start
	frames []ixFrame // the pass's open containers (rawindex_pass.go)
	off    bool      // the record is too long for int32 offsets: nothing indexed
	// nonFinite says the pass met NaN or an infinity, which it accepts
	// (Python's, read as null) where JSON.parse refuses the record: a
	// reader of JSON proper needs no second search of the record for
	// them (hasNonFinite).
	nonFinite bool
	// The members of the objects of the record's first memberDepth
	// levels, noted by the validating pass: members reads them from
	// here rather than scanning the object again. Objects of one level
	// never hold one another, so each one's members are a run of its
	// level's list.
	objs []ixObject
	mems [memberDepth][]ixMember
	// lines is how many newlines passLines passed: the value's lines
	// less one (last: the pass's fields keep their offsets).
	lines int
}

type ixSpan struct{ start, end int32 }

// memberDepth is how many levels of objects have their members noted:
// the agents' readers walk a record, its message or payload, and the
// content blocks in an array under it (four levels), and hardly ever
// deeper (a tool call's arguments are written as they stand).
const memberDepth = 4

// ixObject is an object at [start, end), its members mems[depth][first:last].
type ixObject struct {
	start, end, first, last int32
	depth                   int8
}

// ixMember is an object's member: its key's body at [key, keyEnd), esc
// when it holds a backslash, and its value at [val, end).
type ixMember struct {
	key, keyEnd, val, end int32
	esc                   bool
}

func (ix *valueIndex) reset(b []byte) {
	ix.base, ix.spans = b, ix.spans[:0]
	ix.off, ix.nonFinite = len(b) > math.MaxInt32, false
	ix.objs = ix.objs[:0]
	for d := range ix.mems {
		ix.mems[d] = ix.mems[d][:0]
	}
}

// scanKey reads the key at v[i] (a '"', in a value already validated):
// the key's bytes, the index past its closing quote, and whether it must
// be unescaped (a backslash, or bytes that are not UTF-8, read as an
// escape). A key is short: one pass finds its end, a backslash or a byte
// that is not ASCII (then checked as UTF-8), eight bytes at a time
// (stopMask; a valid key holds no control byte), the high bits of the
// bytes before the stop gathered on the way. members' scan and the
// Gemini reader's scanFields read keys through it.
func scanKey(v []byte, i int) (key []byte, kEnd int, esc bool) {
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
	esc = j < len(v) && v[j] == '\\'
	kEnd = j + 1
	if esc {
		kEnd = skipString(v, i)
	}
	key = v[i+1 : kEnd-1]
	return key, kEnd, esc || high >= utf8.RuneSelf && !utf8.Valid(key)
}

// memberKey checks `"key" :` at b[i] and returns where its value starts.
func memberKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	// A key that ends within its first 16 bytes with no escape (most
	// keys) is told here by its words' stops (stopMask; a valid string's
	// first stop is its closing quote), with no call; any other string
	// by validString. k stays where the words hold no stop, at a byte
	// that is not a quote.
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
			return -1
		}
	}
	j := skipSpace(b, end)
	if j >= len(b) || b[j] != ':' {
		return -1
	}
	return skipSpace(b, j+1)
}

// offsetIn is where v begins in b, when v is a slice of b; a v of other
// memory gives an offset outside [0, len(b)-len(v)], which callers test.
func offsetIn(b, v []byte) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// noted is the members noted of object v, a slice of the record
// validated (ok false when v is not one of its objects so noted).
func (ix *valueIndex) noted(v rawValue) (ms []ixMember, ok bool) {
	off := offsetIn(ix.base, v)
	if off < 0 || off > len(ix.base)-len(v) {
		return nil, false
	}
	for k := range ix.objs {
		if o := &ix.objs[k]; int(o.start) == off && int(o.end) == off+len(v) {
			return ix.mems[o.depth][o.first:o.last], true
		}
	}
	return nil, false
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
		off := offsetIn(ix.base, v)
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
	if ix != nil && len(ix.objs) > 0 {
		if ms, ok := ix.noted(v); ok {
			base := ix.base
			p := unsafe.Pointer(unsafe.SliceData(base))
			for k := range ms {
				m := &ms[k]
				key := base[m.key:m.keyEnd]
				// As below: bytes that are not UTF-8 are read as an escape.
				esc := m.esc || !asciiAt(p, m.key, m.keyEnd) && !keyValid(p, m.key, m.keyEnd, key)
				if !fn(key, esc, base[m.val:m.end]) {
					return
				}
			}
			return
		}
	}
	i := skipSpace(v, 1)
	for i < len(v) && v[i] == '"' {
		key, kEnd, esc := scanKey(v, i)
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

// asciiAt says the bytes at [from, to) of the record at base, a key,
// are ASCII alone (then valid UTF-8), or false (then utf8.Valid tells),
// with no call: a key of eight bytes or fewer (most keys) is the top
// bytes of the word that ends with it, read in one load when the record
// holds eight bytes up to there (the key's opening quote and what comes
// before it), one of 16 bytes or fewer its first word and its last. An
// empty key's word, bytes before it, may say false.
func asciiAt(base unsafe.Pointer, from, to int32) bool {
	const highs = 0x8080808080808080
	if to < 8 {
		return false
	}
	last := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, to-8))[:])
	switch n := to - from; {
	case n <= 8:
		return last>>((64-8*n)&63)&highs == 0
	case n <= 16:
		return (last|binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, from))[:]))&highs == 0
	}
	return false
}

// keyValid is utf8.Valid(key) for a key at [from, to) of the record at
// base that asciiAt did not tell ASCII: one of more than 16 bytes is
// first read in words (the last ending with it), where utf8.Valid read
// its first bytes one at a time (an OpenHands action's
// confirmation_state and wait_for_response: utf8.Valid was 1.2% of a V0
// events log). A loop of its own, so that asciiAt stays inlined.
func keyValid(base unsafe.Pointer, from, to int32, key []byte) bool {
	const highs = 0x8080808080808080
	if to-from > 16 {
		last := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, to-8))[:])
		for i := from; i < to-8; i += 8 {
			last |= binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, i))[:])
		}
		if last&highs == 0 {
			return true
		}
	}
	return utf8.Valid(key)
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
		// An object written before (canonMemo) is written again from the
		// memo; not while w.syms keys long strings (the form holds Syms,
		// and the record's strings are noted in w.keyed).
		mode := memoPlain
		if canonical {
			mode = memoCanonical
		}
		var slot *memoSlot
		var tag uint64
		if w.memoizes(v) {
			var hit bool
			if slot, tag, hit = w.memo.find(v, mode, skip); hit {
				w.buf = append(w.buf, slot.out...)
				return
			}
			w.memo.open++
		}
		from := len(w.buf)
		// appendObject's members, each value skipped over with the index.
		base := len(w.members)
		if skip == nil && ix != nil && len(ix.objs) > 0 {
			ms, ok := ix.noted(v)
			if !ok {
				ix.members(v, w.keep(nil))
			} else if s, stag, hit := w.shapes.find(ix.base, ms); hit || s.note(stag, ix.base, ms) {
				// Keys as an object of its shape wrote them
				// (rawcanon_shape.go): no member collected or sorted.
				w.appendShaped(ix, s, ms, canonical)
				if slot != nil {
					w.memo.open--
					slot.keep(tag, v, mode, skip, w.buf[from:], nil)
				}
				return
			} else {
				w.keepNoted(ix, ms) // the noted members in one loop, no visitor
			}
		} else if skip == nil {
			w.keepAll(ix, v)
		} else {
			ix.members(v, w.keep(skip))
		}
		// writeMembers' loop, each value written by appendCanon here,
		// where a closure was made for each object and called for each
		// member.
		sortMembers(w.members[base:])
		w.buf = append(w.buf, '{')
		first := true
		for i := base; i < len(w.members); i++ {
			m := &w.members[i] // not used past the call, which may grow w.members
			if i+1 < len(w.members) && bytes.Equal(w.members[i+1].key, m.key) {
				continue // a repeated key decodes as its last value
			}
			if !first {
				w.buf = append(w.buf, ',')
			}
			first = false
			w.buf = appendKeyColon(w.buf, m.key)
			ix.appendCanon(w, m.val, canonical, nil)
		}
		w.buf = append(w.buf, '}')
		clear(w.members[base:])
		w.members = w.members[:base]
		if slot != nil {
			w.memo.open--
			slot.keep(tag, v, mode, skip, w.buf[from:], nil)
		}
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
