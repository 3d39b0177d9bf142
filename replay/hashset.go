package replay

// hashSet is a set of 64-bit hashes: open addressing, linear probing,
// a key's first slot its low bits. The keys are hashes already
// (maphash), so they are placed as they are, where a map[uint64]struct{}
// hashes each again and reaches it through a directory and a group's
// control word: looked up once for every message a Gemini CLI session
// read as replayed adds (wasHanded), the map was 4-5% of the reading's
// CPU. It only grows: a key is never removed.
type hashSet struct {
	slots []uint64 // a power of two of them; 0 is an empty slot
	n     int      // keys in slots
	zero  bool     // 0, which slots cannot hold, is in the set
}

// hashSetMin is the fewest slots of a set holding a key.
const hashSetMin = 64

// has says h is in the set.
func (s *hashSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false // the set is never full (grow): a probe ends
		}
	}
}

// add puts h in the set.
func (s *hashSet) add(h uint64) {
	if h == 0 {
		s.zero = true
		return
	}
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	if s.put(h) {
		s.n++
	}
}

// put places h in its slot, false when it is there already.
func (s *hashSet) put(h uint64) bool {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			return true
		}
	}
}

// grow doubles the slots (at most three in four are used, so a probe for
// a key not there ends after a few), placing each key again by its bits.
func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(hashSetMin, 2*len(old)))
	for _, h := range old {
		if h != 0 {
			s.put(h)
		}
	}
}
