package detect

import "unsafe"

// countBits is the log2 of the slots of noLoopPossible's table of
// counts (countSlots bytes): the sparse count fails at 4 in one slot,
// and a long message's 1,666 grams (content_max_history 5000, a stride
// of 3) put 4 in one of 8,192 slots by chance in about a third of its
// counts (Poisson, λ = 0.2), each then counted again densely; with
// 16,384 slots the generated Codex log takes 0.9% fewer instructions
// (32,768: 1.1%, a table as large as the first-level cache).
const (
	countBits  = 14
	countSlots = 1 << countBits
)

// gramUnits is the length of the grams noLoopPossible counts (at most
// c), maxGain the bound of gain, gramStride the stride of its sparse
// count (sparseStride).
const (
	gramUnits  = 16
	maxGain    = 16
	gramStride = 3
)

// sparseStride is the stride m of noLoopPossible's sparse count for
// chunks of c units and a threshold of t, 1 for no sparse count. Every
// chunk must hold a gram at each residue modulo m (m ≤ c−gramUnits+1),
// and the sparse bound ⌈t/m⌉ be at least 2, or every count would reach
// it. On the generated coding agents' logs 1% of the sparse counts of 3
// reach their bound (and count again densely), 5% of those of 4.
func sparseStride(c, t int) int {
	m := min(gramStride, c-gramUnits+1)
	for m > 1 && (t+m-1)/m < 2 {
		m--
	}
	return max(m, 1)
}

// noLoopPossible reports whether no scan of the history can find a loop,
// so that a reset coming before the next message makes the scan
// needless (the detector resets at every tool call, and most messages
// are followed by one). A loop needs a chunk recorded T times, at T live
// positions holding its code units, so the gram of its first units
// occurs T times at positions of [base, end-c]: the dense count
// (countDense) counts those grams' occurrences by a hash of their units
// (a collision only adds to a count) and fails at the first count of T.
// The sparse count (countSparse) goes first and counts a third of the
// grams. Counting a gram costs a fraction of scanning a chunk, and the
// check runs only when at least half of what it counts is still to
// scan; while a scan is put off, the check counts only the grams added
// since (counted), from countBase: a truncation during the deferral
// leaves the grams before the new base in the counts, where they only
// add to them.
func (s *chunkScan) noLoopPossible() bool {
	if s.counts == nil {
		s.counts = make([]uint8, countSlots)
	}
	if !s.deferred {
		s.countBase, s.counted, s.dense = s.base, s.base, s.stride <= 1
	}
	to := s.end() - s.c
	if to-s.base+1 < max(1, min(s.t, 255)) {
		// Fewer grams than T in the history: no count can reach T. The
		// grams are counted later, if the history grows while the scan
		// is put off; most histories of the coding agents' logs are
		// this short (a reset at every tool call).
		return true
	}
	return s.countAll(to)
}

// countAll is noLoopPossible's counts of the grams of [counted, to]:
// the sparse one, then the dense one.
func (s *chunkScan) countAll(to int) bool {
	if !s.dense {
		if s.countSparse(to) {
			return true
		}
		// A gram reached the sparse bound: the dense count decides, for
		// the rest of this deferral (the sparse one would reach it again:
		// counts only grow while the base stays).
		s.dense, s.countBase, s.counted = true, s.base, s.base
	}
	return s.countDense(to)
}

// countSparse is noLoopPossible's first count: with m the stride, only
// the grams at positions that are multiples of m are counted, and it
// fails at a count of ⌈T/m⌉. A loop's chunk is recorded at T distinct
// positions p (distinct: noLoopPossible runs only when no scan is stuck
// in the history); ⌈T/m⌉ of them at least share a residue modulo m, and
// for those the multiple of m in [p, p+m) is p+j with the same j < m ≤
// c−gramUnits+1, a gram of the chunk's units at the same place: that gram
// is counted at ⌈T/m⌉ distinct positions, all ≤ end−c+m−1, of the
// positions [base, counted) the counts hold.
func (s *chunkScan) countSparse(to int) bool {
	m := s.stride
	counts := (*[countSlots]uint8)(s.counts)
	from, last := s.counted, to+m-1
	q := from + (m-from%m)%m // the first multiple of m from from
	if from == s.countBase {
		lim := uint8(min((s.t+m-1)/m, 255))
		// A long history at the usual stride, of addPending's bytes or
		// of buf's units, is counted by carry (the count's every call: a
		// history moved from bytes to buf starts from countBase again).
		if !(m == gramStride && q <= last && (last-q)/m+1 >= s.carryFrom && s.carryCount(lim)) {
			s.newCount(lim)
		}
	}
	floor, top := s.countFloor, s.countTop
	if q <= last && s.pending {
		b := s.pb[q-s.base : last-s.base+gramUnits]
		if s.carry != 0 {
			if !countGramBytesCarry(counts, b, gramStride, s.carry) {
				return false
			}
		} else if !countGramBytes(counts, b, m, floor, top) {
			return false
		}
	} else if q <= last {
		b := s.buf[q-s.start : last-s.start+gramUnits]
		if s.carry != 0 {
			if !countGramsCarry(counts, b, gramStride, s.carry) {
				return false
			}
		} else if !countGrams(counts, b, m, floor, top) {
			return false
		}
	}
	s.counted = last + 1
	return true
}

// countDense counts every gram of [counted, to], failing at a count of
// T.
func (s *chunkScan) countDense(to int) bool {
	counts := s.counts[:countSlots]
	from := s.counted
	if from == s.countBase {
		// The counts hold the grams of [countBase, counted), none: a
		// count starts only here, where the table was cleared at every
		// check, so that a check that counts nothing pays nothing. A long
		// history of addPending's bytes, or of buf's units in grams of
		// gramUnits, is counted by carry, as the sparse count counts it.
		lim := uint8(max(1, min(s.t, 255)))
		if !((s.pending || s.c >= gramUnits) && to-from+1 >= s.carryFrom && s.carryCount(lim)) {
			s.newCount(lim)
		}
	}
	lo, hi := uint32(s.countFloor), uint32(s.countTop)
	if to < from {
		return true
	}
	if s.pending { // addPending's bytes: a stride above 1, so c > gramUnits
		b := s.pb[from-s.base : to-s.base+gramUnits]
		if s.carry != 0 {
			if !countGramBytesCarry((*[countSlots]uint8)(counts), b, 1, s.carry) {
				return false
			}
		} else if !countGramBytes((*[countSlots]uint8)(counts), b, 1, s.countFloor, s.countTop) {
			return false
		}
		s.counted = to + 1
		return true
	}
	if g := s.c; g < gramUnits {
		b := s.buf[from-s.start : to-s.start+g]
		for i := 0; i+g <= len(b); i++ {
			h := uint64(0)
			for _, u := range b[i : i+g] {
				h = (h ^ uint64(u)) * 0x9E3779B97F4A7C15
			}
			k := h >> (64 - countBits)
			c := max(uint32(counts[k]), lo) + 1
			if counts[k] = uint8(c); c >= hi {
				return false
			}
		}
		s.counted = to + 1
		return true
	}
	b := s.buf[from-s.start : to-s.start+gramUnits]
	if s.carry != 0 {
		if !countGramsCarry((*[countSlots]uint8)(counts), b, 1, s.carry) {
			return false
		}
	} else if !countGrams((*[countSlots]uint8)(counts), b, 1, s.countFloor, s.countTop) {
		return false
	}
	s.counted = to + 1
	return true
}

// newCount starts a count of grams bounded by lim (the count that
// reaches lim fails) in the table, in place of clearing its 16 KB (as
// much as counting the grams of a coding agent's long message): an
// entry at or below floor reads as zero, and a count writes floor plus
// the count, so raising floor to the last count's top (no entry is above
// it: a count stops at it, and the next one starts here) empties the
// table. It is cleared only when the new count's top would pass 255,
// about once every 60 counts of the sparse bound 4.
func (s *chunkScan) newCount(lim uint8) {
	if int(s.countTop)+int(lim) > 255 {
		clear(s.counts)
		s.countTop = 0
	}
	s.countFloor, s.countTop, s.carry = s.countTop, s.countTop+lim, 0
}

// countGrams counts the grams of gramUnits code units at b[0], b[m],
// ... that b holds whole, and reports whether none reached its bound:
// an entry's count is its value less floor (none below floor), and a
// count reaches its bound at top (newCount). A gram's
// four words are loaded through a pointer that moves m units a gram:
// reslicing b (b = b[m:]) spent a third of the loop's instructions on
// the slice's length, capacity and the mask that keeps a pointer from
// passing the end, and indexing tested both ends of every gram; the
// hash is written out here, where a call a gram (too large to be
// inlined) kept the loop's variables on the stack. The words are read
// in the machine's order (on a little-endian one, as
// countGramsRef builds them): any one order hashes equal grams alike,
// all the counts need.
func countGrams(counts *[countSlots]uint8, b []uint16, m int, floor, top uint8) bool {
	if len(b) < gramUnits {
		return true
	}
	if m < 1 || m > gramUnits {
		// Not a stride the counts use (sparseStride's is at most
		// gramStride); read by index, so that no pointer below passes
		// the end of b.
		for i := 0; m >= 1 && i+gramUnits <= len(b); i += m {
			if !countGrams(counts, b[i:i+gramUnits], 1, floor, top) {
				return false
			}
		}
		return true
	}
	switch m {
	case 1:
		return countGrams1(counts, b, floor, top)
	case gramStride:
		return countGrams3(counts, b, floor, top)
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	lo, hi := uint32(floor), uint32(top) // compared in 32 bits: a conditional move, where bytes branched
	//
	// Two grams an iteration, as countGramBytes counts them: n is the
	// grams' starts left, and a second gram is read only when its start,
	// m units on, is one of them.
	step := 2 * m
	n := len(b) - gramUnits + 1
	for ; n > m; n -= 2 * m {
		a0, a1 := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))
		a2, a3 := *(*uint64)(unsafe.Add(p, 16)), *(*uint64)(unsafe.Add(p, 24))
		q := unsafe.Add(p, step) // the second gram: m < n, within b
		b0, b1 := *(*uint64)(q), *(*uint64)(unsafe.Add(q, 8))
		b2, b3 := *(*uint64)(unsafe.Add(q, 16)), *(*uint64)(unsafe.Add(q, 24))
		ka := ((a0 ^ a1*0x9E3779B97F4A7C15 ^ a2*0xC2B2AE3D27D4EB4F ^ a3*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		kb := ((b0 ^ b1*0x9E3779B97F4A7C15 ^ b2*0xC2B2AE3D27D4EB4F ^ b3*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		ca := max(uint32(counts[ka]), lo) + 1
		if counts[ka] = uint8(ca); ca >= hi {
			return false
		}
		cb := max(uint32(counts[kb]), lo) + 1
		if counts[kb] = uint8(cb); cb >= hi {
			return false
		}
		p = unsafe.Add(q, step)
	}
	if n > 0 { // one gram left
		x0, x1 := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))
		x2, x3 := *(*uint64)(unsafe.Add(p, 16)), *(*uint64)(unsafe.Add(p, 24))
		k := ((x0 ^ x1*0x9E3779B97F4A7C15 ^ x2*0xC2B2AE3D27D4EB4F ^ x3*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c := max(uint32(counts[k]), lo) + 1
		if counts[k] = uint8(c); c >= hi {
			return false
		}
	}
	return true
}

// addPending is add for most messages of the coding agents' logs, while
// noLoopPossible finds no loop: ASCII messages from the start of a
// history (the detector resets at every tool call). Their code units are
// their bytes: they are kept as bytes (pb), their grams counted on them
// by countAll (countGramBytes), their scan put off. Most messages are
// followed by a tool call's reset, which drops them unconverted. It
// reports false for a message it does not take, the history then in buf
// (unpend) and add's to read it: as it would have been, but for the
// counts, made again.
func (s *chunkScan) addPending(content string) bool {
	if !s.pending && (s.deferred || s.pos != s.base || s.end() != s.base || s.stride <= 1 ||
		s.gain <= -maxGain || s.stuck >= s.base) {
		// Not the history's start, or no deferral (noLoopPossible
		// would not be asked, or would count densely).
		return false
	}
	if s.pending && len(s.pb)+len(content) > s.maxHist || !isASCII(content) {
		s.unpend()
		return false
	}
	if s.counts == nil {
		s.counts = make([]uint8, countSlots)
	}
	skip := 0
	if !s.pending {
		// The history is empty (end = base: a reset, or none yet), so
		// buf is empty (start = base). Of a message that overfills it only its
		// last maxHist code units are kept, as add's truncation would
		// keep them: those before are skipped, their positions passed.
		skip = max(0, len(content)-s.maxHist)
		s.start += skip
		s.base, s.pos = s.start, s.start
		s.countBase, s.counted, s.dense = s.base, s.base, false
	}
	n := len(s.pb)
	s.pb = append(s.pb, content[skip:]...)
	s.pending = true
	// noLoopPossible's first test, then its counts.
	if to := s.base + len(s.pb) - s.c; to-s.base+1 >= max(1, min(s.t, 255)) && !s.countAll(to) {
		s.pb = s.pb[:n]
		if n == 0 { // the history's start again, for add
			s.start -= skip
			s.base, s.pos = s.start, s.start
		}
		s.unpend()
		return false
	}
	s.deferred = true
	return true
}

// unpend writes the history addPending kept as bytes into buf, its
// code units; its grams, counted by another hash, are counted again.
func (s *chunkScan) unpend() {
	if !s.pending {
		return
	}
	s.buf, _ = appendUTF16(s.buf, unsafe.String(unsafe.SliceData(s.pb), len(s.pb))) // ASCII: no surrogate
	s.pending, s.pb = false, s.pb[:0]
	s.counted = s.countBase
}

// isASCII reports whether s is all ASCII: a long message's whole blocks
// by vector (asciiBlocks, fuzzy_repeat's: 128 bytes a step with AVX2,
// some 13 instructions where the loop below took some 50), then 32 bytes
// at a time (the loop's test and step, three instructions, once for four
// words), then eight, then the last eight (or the bytes of a string
// shorter than eight). asciiBlocks stops before a block past ASCII, which
// the loops then find.
func isASCII(s string) bool {
	var or uint64
	p := unsafe.Pointer(unsafe.StringData(s))
	i := 0
	if len(s) >= asciiBlocksFrom {
		i = asciiBlocks(s)
	}
	for ; i+32 <= len(s); i += 32 { // within s: i+32 <= len(s)
		or |= *(*uint64)(unsafe.Add(p, i)) | *(*uint64)(unsafe.Add(p, i+8)) |
			*(*uint64)(unsafe.Add(p, i+16)) | *(*uint64)(unsafe.Add(p, i+24))
	}
	for ; i+8 <= len(s); i += 8 {
		or |= *(*uint64)(unsafe.Add(p, i)) // within s: i+8 <= len(s)
	}
	if i < len(s) && len(s) >= 8 {
		// The last eight bytes, which hold those left and some read
		// already: one load where a loop took each byte (a tool call's
		// key, jsUTF8's, is some 12 bytes).
		return (or|*(*uint64)(unsafe.Add(p, len(s)-8)))&ascii64 == 0
	}
	for ; i < len(s); i++ {
		or |= uint64(s[i])
	}
	return or&ascii64 == 0
}

// countGramBytes is countGrams over ASCII bytes, each a code unit: the
// grams of gramUnits bytes at b[0], b[m], ... that b holds whole,
// loaded through a pointer as countGrams loads its words, their two
// words hashed. The counts are not countGrams' (another hash): those of
// a deferral are made by one or the other from the cleared table.
func countGramBytes(counts *[countSlots]uint8, b []byte, m int, floor, top uint8) bool {
	if len(b) < gramUnits || m < 1 || m > gramUnits {
		return len(b) < gramUnits // not a stride the counts use
	}
	switch m {
	case 1:
		return countGramBytes1(counts, b, floor, top)
	case gramStride:
		return countGramBytes3(counts, b, floor, top)
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	lo, hi := uint32(floor), uint32(top) // compared in 32 bits: a conditional move, where bytes branched
	// Two grams an iteration while both start before the last start: the
	// loop's own instructions (the pointer's test and step, the
	// constants loaded again, the table's nil test) were half of a
	// gram's twenty. They are counted in order, the first before the
	// second, so a second of the same hash reads the first's count.
	n := len(b) - gramUnits + 1 // grams' starts
	for ; n > m; n -= 2 * m {
		a0, a1 := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))
		b0, b1 := *(*uint64)(unsafe.Add(p, m)), *(*uint64)(unsafe.Add(p, m+8)) // m < n: within b
		ka := ((a0 ^ a1*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		kb := ((b0 ^ b1*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		ca := max(uint32(counts[ka]), lo) + 1
		if counts[ka] = uint8(ca); ca >= hi {
			return false
		}
		cb := max(uint32(counts[kb]), lo) + 1
		if counts[kb] = uint8(cb); cb >= hi {
			return false
		}
		p = unsafe.Add(p, 2*m)
	}
	if n > 0 { // one gram left
		x0, x1 := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))
		k := ((x0 ^ x1*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c := max(uint32(counts[k]), lo) + 1
		if counts[k] = uint8(c); c >= hi {
			return false
		}
	}
	return true
}

// countGramBytes3 is countGramBytes at the stride of the sparse count
// (gramStride, the stride of most grams counted), eight grams an
// iteration: the grams' offsets are constants, each load's
// displacement, where countGramBytes computed the second's from m, and
// the loop's test and step and the hash's constants are paid once for
// eight grams (four: 3.7% more instructions on the Codex log's grams).
// The counts are written out: a function for them, inlined, added an
// inlining mark (a NOP) a gram.
func countGramBytes3(counts *[countSlots]uint8, b []byte, floor, top uint8) bool {
	const m = gramStride
	p := unsafe.Pointer(unsafe.SliceData(b))
	t := counts[:] // nil-checked here, not at each gram
	lo, hi := uint32(floor), uint32(top)
	n := len(b) - gramUnits + 1 // grams' starts, at least one (countGramBytes)
	for ; n > 7*m; n -= 8 * m {
		// In order, each count stored before the next is loaded: a gram
		// of the same slot reads the count before it. 7m < n: the eight
		// within b.
		k0 := ((*(*uint64)(p) ^ *(*uint64)(unsafe.Add(p, 8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c0 := max(uint32(t[k0]), lo) + 1
		if t[k0] = uint8(c0); c0 >= hi {
			return false
		}
		k1 := ((*(*uint64)(unsafe.Add(p, m)) ^ *(*uint64)(unsafe.Add(p, m+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c1 := max(uint32(t[k1]), lo) + 1
		if t[k1] = uint8(c1); c1 >= hi {
			return false
		}
		k2 := ((*(*uint64)(unsafe.Add(p, 2*m)) ^ *(*uint64)(unsafe.Add(p, 2*m+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c2 := max(uint32(t[k2]), lo) + 1
		if t[k2] = uint8(c2); c2 >= hi {
			return false
		}
		k3 := ((*(*uint64)(unsafe.Add(p, 3*m)) ^ *(*uint64)(unsafe.Add(p, 3*m+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c3 := max(uint32(t[k3]), lo) + 1
		if t[k3] = uint8(c3); c3 >= hi {
			return false
		}
		k4 := ((*(*uint64)(unsafe.Add(p, 4*m)) ^ *(*uint64)(unsafe.Add(p, 4*m+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c4 := max(uint32(t[k4]), lo) + 1
		if t[k4] = uint8(c4); c4 >= hi {
			return false
		}
		k5 := ((*(*uint64)(unsafe.Add(p, 5*m)) ^ *(*uint64)(unsafe.Add(p, 5*m+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c5 := max(uint32(t[k5]), lo) + 1
		if t[k5] = uint8(c5); c5 >= hi {
			return false
		}
		k6 := ((*(*uint64)(unsafe.Add(p, 6*m)) ^ *(*uint64)(unsafe.Add(p, 6*m+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c6 := max(uint32(t[k6]), lo) + 1
		if t[k6] = uint8(c6); c6 >= hi {
			return false
		}
		k7 := ((*(*uint64)(unsafe.Add(p, 7*m)) ^ *(*uint64)(unsafe.Add(p, 7*m+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c7 := max(uint32(t[k7]), lo) + 1
		if t[k7] = uint8(c7); c7 >= hi {
			return false
		}
		p = unsafe.Add(p, 8*m)
	}
	for ; n > 0; n -= m { // up to seven grams left
		k := bytesGramSlot(p)
		c := max(uint32(t[k]), lo) + 1
		if t[k] = uint8(c); c >= hi {
			return false
		}
		p = unsafe.Add(p, m)
	}
	return true
}

// countGramBytes1 is countGramBytes3 at the dense count's stride, 1
// (a deferral's count once the sparse one reached its bound), eight
// grams an iteration at constant offsets, where countGramBytes' loop
// counted two and computed the second's offset from m.
func countGramBytes1(counts *[countSlots]uint8, b []byte, floor, top uint8) bool {
	p := unsafe.Pointer(unsafe.SliceData(b))
	t := counts[:] // nil-checked here, not at each gram
	lo, hi := uint32(floor), uint32(top)
	n := len(b) - gramUnits + 1 // grams' starts, at least one (countGramBytes)
	for ; n > 7; n -= 8 {
		// In order, each count stored before the next is loaded, as
		// countGramBytes3's. 7 < n: the eight within b.
		k0 := ((*(*uint64)(p) ^ *(*uint64)(unsafe.Add(p, 8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c0 := max(uint32(t[k0]), lo) + 1
		if t[k0] = uint8(c0); c0 >= hi {
			return false
		}
		k1 := ((*(*uint64)(unsafe.Add(p, 1)) ^ *(*uint64)(unsafe.Add(p, 1+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c1 := max(uint32(t[k1]), lo) + 1
		if t[k1] = uint8(c1); c1 >= hi {
			return false
		}
		k2 := ((*(*uint64)(unsafe.Add(p, 2)) ^ *(*uint64)(unsafe.Add(p, 2+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c2 := max(uint32(t[k2]), lo) + 1
		if t[k2] = uint8(c2); c2 >= hi {
			return false
		}
		k3 := ((*(*uint64)(unsafe.Add(p, 3)) ^ *(*uint64)(unsafe.Add(p, 3+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c3 := max(uint32(t[k3]), lo) + 1
		if t[k3] = uint8(c3); c3 >= hi {
			return false
		}
		k4 := ((*(*uint64)(unsafe.Add(p, 4)) ^ *(*uint64)(unsafe.Add(p, 4+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c4 := max(uint32(t[k4]), lo) + 1
		if t[k4] = uint8(c4); c4 >= hi {
			return false
		}
		k5 := ((*(*uint64)(unsafe.Add(p, 5)) ^ *(*uint64)(unsafe.Add(p, 5+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c5 := max(uint32(t[k5]), lo) + 1
		if t[k5] = uint8(c5); c5 >= hi {
			return false
		}
		k6 := ((*(*uint64)(unsafe.Add(p, 6)) ^ *(*uint64)(unsafe.Add(p, 6+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c6 := max(uint32(t[k6]), lo) + 1
		if t[k6] = uint8(c6); c6 >= hi {
			return false
		}
		k7 := ((*(*uint64)(unsafe.Add(p, 7)) ^ *(*uint64)(unsafe.Add(p, 7+8))*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c7 := max(uint32(t[k7]), lo) + 1
		if t[k7] = uint8(c7); c7 >= hi {
			return false
		}
		p = unsafe.Add(p, 8)
	}
	for ; n > 0; n-- { // up to seven grams left
		k := bytesGramSlot(p)
		c := max(uint32(t[k]), lo) + 1
		if t[k] = uint8(c); c >= hi {
			return false
		}
		p = unsafe.Add(p, 1)
	}
	return true
}

// bytesGramSlot is the slot of the gram of gramUnits bytes at p: its two
// words hashed. The unrolled loops of countGramBytes1 and countGramBytes3
// write it out: its inlined call left an inlining mark, a NOP, at each
// gram (12 instructions a gram where 13); their last grams call it.
func bytesGramSlot(p unsafe.Pointer) uint64 {
	x0, x1 := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))
	return ((x0 ^ x1*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
}
