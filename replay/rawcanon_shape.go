package replay

// The shapes of the objects last written canonically: an OpenHands V1
// log writes objects of the same members again and again with other
// values (an observation: content, is_error, command, exit_code, …; a
// text block: cache_prompt, type, text), which the memo of whole objects
// (canonMemo) misses. Each was collected (keepAll), sorted (sortMembers)
// and had every key tested and written (appendKeyColon), some 200
// instructions a member. An object whose keys are, byte for byte and in
// order, those of a shape noted before is written from that shape: its
// members in the order the sort gave, each key as written then, with
// only the values written anew.

import "unsafe"

// shapeBits sizes the memo of shapes; shapeMembers and shapeKeyLen bound
// the objects noted (members, and each key's bytes: compared as one to
// three words), so that a slot holds some 1.5 KB at most.
const (
	shapeBits    = 5
	shapeSlots   = 1 << shapeBits
	shapeMembers = 24
	shapeKeyLen  = 24
)

// objShape is an object's keys as read (each key's length, its first
// eight bytes, masked to a short key's length, its last eight when
// longer, and its bytes 8 to 16 when longer than 16), and
// how it is written: the members written in order (perm, indexes into
// the object's members; a repeated key's last) and each one's key with
// its quotes and colon (in keys, the j-th ending at ends[j]).
type objShape struct {
	seen uint64 // the tag of the last object of its slot that it did not hold
	n    int    // members; 0 holds nothing
	busy int    // writings from it under way: it is not written over
	lens [shapeMembers]uint8
	head [shapeMembers]uint64
	tail [shapeMembers]uint64
	mid  [shapeMembers]uint64
	perm []uint8
	keys []byte
	ends []uint16
}

// shapeMemo's slots are allocated at the first shape noted.
type shapeMemo struct {
	slots *[shapeSlots]objShape
}

// shapeKeyWords are key m's words as objShape holds them, and whether it
// can be so held: no escape, shapeKeyLen bytes or fewer, 8 bytes
// readable from its start within base (up to last), ASCII (with no
// escape and valid JSON, its bytes are then the key).
func shapeKeyWords(p unsafe.Pointer, last int, m *ixMember) (head, tail, mid uint64, ok bool) {
	const highs = 0x8080808080808080
	n := int(m.keyEnd - m.key)
	if m.esc || n > shapeKeyLen || int(m.key) > last {
		return 0, 0, 0, false
	}
	head = wordAtPtr(p, m.key)
	if n <= 8 {
		head &= lowBytes[n&15]
		return head, 0, 0, head&highs == 0
	}
	tail = wordAtPtr(p, m.keyEnd-8)
	if n > 16 {
		mid = wordAtPtr(p, m.key+8)
	}
	return head, tail, mid, (head|tail|mid)&highs == 0
}

// shapeSlot is the slot for an object of n members whose first key's
// head word is head.
func shapeSlot(n int, head uint64) uint {
	return uint(((uint64(n) << 56) ^ head) * 0x9E3779B97F4A7C15 >> (64 - shapeBits))
}

// find returns the shape of the object whose noted members are ms in
// base, when its slot holds it; else the slot and the object's tag (0
// when it cannot be noted), for note.
func (sm *shapeMemo) find(base []byte, ms []ixMember) (s *objShape, tag uint64, hit bool) {
	n := len(ms)
	if n == 0 || n > shapeMembers {
		return nil, 0, false
	}
	p, last := unsafe.Pointer(unsafe.SliceData(base)), cap(base)-8
	h0, t0, m0, ok := shapeKeyWords(p, last, &ms[0])
	if !ok {
		return nil, 0, false
	}
	if sm.slots == nil {
		sm.slots = new([shapeSlots]objShape)
	}
	s = &sm.slots[shapeSlot(n, h0)&(shapeSlots-1)]
	if s.n == n && s.lens[0] == uint8(ms[0].keyEnd-ms[0].key) && s.head[0] == h0 && s.tail[0] == t0 && s.mid[0] == m0 {
		k := 1
		for ; k < n; k++ {
			m := &ms[k]
			h, t, md, ok := shapeKeyWords(p, last, m)
			if !ok || s.lens[k] != uint8(m.keyEnd-m.key) || s.head[k] != h ||
				s.tail[k] != t || s.mid[k] != md {
				break
			}
		}
		if k == n {
			return s, 0, true
		}
	}
	// The tag of its keys, to note it the second time it is seen.
	const mul = 0x9E3779B97F4A7C15
	tag = uint64(n)
	for k := range ms {
		h, t, md, ok := shapeKeyWords(p, last, &ms[k])
		if !ok {
			return nil, 0, false
		}
		tag = (tag ^ h ^ t<<1 ^ md<<2 ^ uint64(ms[k].keyEnd-ms[k].key)<<58) * mul
	}
	return s, tag | 1, false
}

// note puts the shape of the object whose noted members are ms (find's
// tag and slot) in s the second time such an object is seen there (the
// first, only its tag is noted), unless a writing from s is under way.
// It reports whether s then holds it.
func (s *objShape) note(tag uint64, base []byte, ms []ixMember) bool {
	if s == nil || tag == 0 || s.busy > 0 {
		return false
	}
	if s.seen != tag {
		s.seen = tag
		return false
	}
	p, last := unsafe.Pointer(unsafe.SliceData(base)), cap(base)-8
	n := len(ms)
	key := func(i uint8) []byte { m := &ms[i]; return base[m.key:m.keyEnd] }
	for k := range ms {
		s.lens[k] = uint8(ms[k].keyEnd - ms[k].key)
		s.head[k], s.tail[k], s.mid[k], _ = shapeKeyWords(p, last, &ms[k])
	}
	// The order sortMembers gives (stable, by key), a repeated key's
	// last kept as writeMembers keeps it.
	s.perm = s.perm[:0]
	for k := 0; k < n; k++ {
		s.perm = append(s.perm, uint8(k))
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && string(key(s.perm[j])) < string(key(s.perm[j-1])); j-- {
			s.perm[j], s.perm[j-1] = s.perm[j-1], s.perm[j]
		}
	}
	kept := s.perm[:0]
	for j, i := range s.perm {
		if j+1 < n && string(key(s.perm[j+1])) == string(key(i)) {
			continue
		}
		kept = append(kept, i)
	}
	s.perm = kept
	s.keys, s.ends = s.keys[:0], s.ends[:0]
	for _, i := range s.perm {
		s.keys = appendKeyColon(s.keys, key(i))
		s.ends = append(s.ends, uint16(len(s.keys)))
	}
	s.n = n
	return true
}

// appendShaped writes the object whose noted members are ms as shape s
// holds it: each member s writes, in its order, its key as s wrote it
// and its value by ix.appendCanon.
func (w *canonWriter) appendShaped(ix *valueIndex, s *objShape, ms []ixMember, canonical bool) {
	base := ix.base
	p, c := unsafe.Pointer(unsafe.SliceData(base)), cap(base)
	s.busy++
	w.buf = append(w.buf, '{')
	from := 0
	for j, i := range s.perm {
		if j > 0 {
			w.buf = append(w.buf, ',')
		}
		to := int(s.ends[j])
		w.buf = append(w.buf, s.keys[from:to]...)
		from = to
		m := &ms[i]
		// As keepAll slices it: within base, to base's end.
		var val rawValue
		*(*sliceHeader)(unsafe.Pointer(&val)) = sliceHeader{unsafe.Add(p, m.val), int(m.end - m.val), c - int(m.val)}
		ix.appendCanon(w, val, canonical, nil)
	}
	w.buf = append(w.buf, '}')
	s.busy--
}
