package replay

// A memo of the event keys last entered in the history's table
// (Episode.historyBytes), by the bytes they were written from: an
// OpenHands event's key is its action's or observation's members written
// canonically (collected, sorted, every string checked and copied) and
// then entered in the history's table, for an equality the detector
// alone reads. A loop repeats its actions and outputs byte for byte (a
// generated V1 log repeats 63% of its actions, 25% of its observations),
// and a key written from the same bytes is the same key: the memo finds
// it by comparing those bytes, with no writing and no table entry.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// keyMemoBits sizes the memo: the keys of the last events, by a tag of
// their parts. keyMemoMax bounds the bytes a slot holds (the parts, the
// key and the second form: 24 KB a slot, 3 MB at most).
const (
	keyMemoBits  = 7
	keyMemoSlots = 1 << keyMemoBits
	keyMemoMax   = 8 << 10
)

// keyMemo holds the keys of events written before. Its slots are
// allocated at the first key kept, so a reader that writes none holds
// none.
type keyMemo struct {
	slots *[keyMemoSlots]keySlot
}

// keySlot is one key: the parts it was written from (way tells the
// writing: the parts of an action and an observation are not the same
// things), the key written and its Sym, and the second form written
// with it (an action's step action), if any.
type keySlot struct {
	tag  uint64
	way  uint8
	n    uint8
	ends [4]int32 // the parts' ends in raw
	raw  []byte   // the parts, one after another
	key  []byte   // the key as written, entered as sym
	sym  Sym
	both []byte
}

// keyParts are what a key is written from: each part's bytes, and what
// writes them (way).
type keyParts struct {
	way uint8
	n   int
	p   [4][]byte
}

// tag is a hash of the parts' lengths and, of each of eight bytes or
// more, its first, middle and last eight bytes: not of all of them,
// since a hit compares them all anyway, and a miss mostly differs in a
// length or in those words (a short part, an action's name, is told by
// its length and the args after it).
func (k *keyParts) tag() uint64 {
	const mul = 0x9E3779B97F4A7C15
	h := uint64(k.way)<<56 | uint64(k.n)
	for _, p := range k.p[:k.n] {
		h = (h ^ uint64(len(p))) * mul
		if n := len(p); n >= 8 {
			h ^= binary.LittleEndian.Uint64(p) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(p[n-8:]), 21) ^
				bits.RotateLeft64(binary.LittleEndian.Uint64(p[(n-8)/2:]), 42)
		}
	}
	return h * mul
}

// find returns the Sym of the key written from parts k in t, when a
// slot holds it: the same way, the same parts byte for byte, and its
// Sym's string in t the key it wrote (t may be another table than the
// one the slot's Sym was of: the history's table of a replay as read is
// made anew, its Syms renumbered, and a Sym of the old one names
// another string or none). slot and tag are for keep.
func (m *keyMemo) find(t *symtab, k *keyParts) (s *keySlot, tag uint64, hit bool) {
	tag = k.tag()
	if m.slots == nil {
		return nil, tag, false
	}
	s = &m.slots[tag>>(64-keyMemoBits)]
	if s.tag != tag || s.way != k.way || int(s.n) != k.n {
		return s, tag, false
	}
	from := int32(0)
	for i, p := range k.p[:k.n] {
		if !bytes.Equal(s.raw[from:s.ends[i]], p) {
			return s, tag, false
		}
		from = s.ends[i]
	}
	return s, tag, t.str(s.sym) == string(s.key)
}

// keep puts the key written from k, entered as sym, and the second
// form both, in slot s (find's; nil before the first), if they are
// short enough.
func (m *keyMemo) keep(s *keySlot, tag uint64, k *keyParts, key []byte, sym Sym, both []byte) {
	size := len(key) + len(both)
	for _, p := range k.p[:k.n] {
		size += len(p)
	}
	if size > keyMemoMax || sym == 0 {
		return
	}
	if s == nil {
		m.slots = new([keyMemoSlots]keySlot)
		s = &m.slots[tag>>(64-keyMemoBits)]
	}
	s.tag, s.way, s.n, s.sym = tag, k.way, uint8(k.n), sym
	s.raw = s.raw[:0]
	for i, p := range k.p[:k.n] {
		s.raw = append(s.raw, p...)
		s.ends[i] = int32(len(s.raw))
	}
	s.key = append(s.key[:0], key...)
	s.both = append(s.both[:0], both...)
}

// The ways keys are written (keyParts.way).
const (
	keyV0Action     uint8 = iota + 1 // the args canonically
	keyV0ActionBoth                  // and the step's action
)
