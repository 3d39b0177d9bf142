package replay

// A memo of the objects last written canonically: an OpenHands V1 log
// writes the same objects again and again (a terminal observation's
// metadata, a thought, an action repeated by a loop), each time
// collected, sorted and written member by member for the event's key.
// An object whose bytes are, byte for byte, those of one written before,
// in the same way, is written as that one was: what is written is a
// function of the bytes and the way alone (not while long strings are
// keyed: their Syms, and the record's strings noted in keyed, are the
// writer's state).

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// memoMin is the shortest object memoized: a shorter one is written
// about as fast as it is looked up. memoMax is the longest, so that the
// memo holds 1.3 MB at most (memoSlots of 4 KB read and twice 8 KB
// written, keep's bound), whatever the records' size.
const (
	memoMin = 48
	memoMax = 4 << 10
)

// memoLevels is how many objects within one another are memoized: each
// is copied into the memo when written, so that an object nested deep
// in objects is copied memoLevels times at most, not once a level.
const memoLevels = 3

// The memo holds memoSlots objects: the few an event repeats, and those
// of the events before it, few enough sharing a slot.
const (
	memoBits  = 6
	memoSlots = 1 << memoBits
)

// How an object was written: appendCanon (canonical or not), or
// appendCanonBoth.
const (
	memoPlain uint8 = iota
	memoCanonical
	memoBoth
)

// canonMemo holds objects written and what was written, in slots chosen
// by their bytes. open counts the memoized objects being written.
type canonMemo struct {
	slots [memoSlots]memoSlot
	open  int
}

// memoizes says v, an object, is looked up and kept: w.syms unset, v of
// memoMin to memoMax bytes, within fewer than memoLevels objects being
// written to be kept.
func (w *canonWriter) memoizes(v rawValue) bool {
	return w.syms == nil && len(v) >= memoMin && len(v) <= memoMax && w.memo.open < memoLevels
}

type memoSlot struct {
	seen      uint64 // the tag of the last object written that the slot did not hold
	tag       uint64
	mode      uint8
	skip      map[string]bool // the keys left out (the same map)
	raw       []byte          // the object as read
	out, both []byte          // as written into buf, and into both (memoBoth)
}

// find returns the slot for v written in mode less skip, and whether it
// holds it (then its out and both are what is written). The slot is
// chosen by v's length and its first and last eight bytes, not a hash
// of all of it: an object not written before mostly differs in length
// from the slot's, which bytes.Equal tells at once, and one written
// before is compared once.
func (m *canonMemo) find(v rawValue, mode uint8, skip map[string]bool) (s *memoSlot, tag uint64, hit bool) {
	n := len(v) // memoMin or more
	tag = uint64(n) ^ binary.LittleEndian.Uint64(v) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(v[n-8:]), 29)
	tag *= 0x9E3779B97F4A7C15
	s = &m.slots[tag>>(64-memoBits)]
	hit = s.tag == tag && s.mode == mode && sameMap(s.skip, skip) && bytes.Equal(s.raw, v)
	return s, tag, hit
}

// keep puts v, written in mode less skip as out (and both), into slot s
// (find's), if what was written is short enough (an escape written
// out can be six bytes for one read), the second time it is written
// there: the first, only its tag is noted (seen), and the slot keeps
// what it held. Most of a V1 log's objects written once (an
// observation, its content holding a tool's output) were copied twice
// into the memo for nothing (memmove, ~4.6 M of 349 M).
func (s *memoSlot) keep(tag uint64, v rawValue, mode uint8, skip map[string]bool, out, both []byte) {
	if s.seen != tag {
		s.seen = tag
		return
	}
	if len(out) > 2*memoMax || len(both) > 2*memoMax {
		s.raw = s.raw[:0] // holds nothing: no object is empty
		return
	}
	s.tag, s.mode, s.skip = tag, mode, skip
	s.raw = append(s.raw[:0], v...)
	s.out = append(s.out[:0], out...)
	s.both = append(s.both[:0], both...)
}

// sameMap says a and b are the same map (or both nil): a skip map is
// one of a few package variables, compared as such, not by contents. A
// map value is a pointer to the map's header.
func sameMap(a, b map[string]bool) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}
