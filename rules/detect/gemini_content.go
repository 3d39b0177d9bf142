package detect

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// chunkScan is the state of LoopDetectionService's content scan
// (analyzeContentChunksForLoop), kept so that a step allocates nothing
// once the buffers have grown:
//
//   - positions are absolute (counted since the detector was made), so a
//     truncation or a reset moves a boundary instead of shifting every
//     stored position: live are the positions at or after base;
//   - each recorded chunk occurrence is an entry, appended in scan order
//     (positions never decrease), linked to the previous occurrence of the
//     same chunk, so the live ones are a suffix of the entries and a
//     chunk's last T occurrences are T-1 links back from its newest;
//   - a chunk's newest entry is found through a table of buckets, each
//     the head of a chain, newest first, of the newest entries of the
//     distinct chunks hashed there (an entry found moves to the head as
//     its successor takes its place), so a chain is sorted by entry and
//     its live part is a prefix: nothing is ever deleted, a walk stops at
//     the first entry that is not live, and a reset or a truncation
//     empties chains by moving liveFrom; the table (ints, no pointers)
//     doubles when the live entries outnumber its buckets;
//   - a chunk's key is what live hashes, createHash('sha256').update(chunk):
//     Node encodes the string to UTF-8, so a surrogate the chunk does not
//     pair (a lone one, or half of a pair the chunk's edge cuts) counts
//     as U+FFFD (keyUnit). Keys are hashed with a rolling polynomial hash
//     modulo 2^61−1 over those units, with a random base (so that no
//     input can be written to collide; a collision only costs a
//     comparison). As isLoopDetectedForChunk does, a chunk whose key has
//     live occurrences is recorded only when its code units equal theirs
//     (isActualContentMatch compares the C code units at the key's first
//     recorded position, and every occurrence recorded since has the
//     same units); otherwise it is not recorded at all, and is no loop.
type chunkScan struct {
	c, t, maxHist int

	buf   []uint16 // code units from absolute position start
	start int
	base  int // the history's first position
	pos   int // scan position (lastContentIndex)

	ents     []chunkEntry // entries from absolute index entStart
	entStart int
	liveFrom int // first live entry

	heads []int32 // bucket → its chain's first entry, < liveFrom for none
	shift uint8   // 32 - log2(len(heads))
	stale []bool  // grow's scratch: entries a newer one of their chunk follows

	// deferred: the last add found no loop possible and left its chunks
	// unscanned (pos unmoved); a reset drops them, the next add scans
	// them, before truncating the history or with its own chunks. gain
	// counts the scans a reset dropped less those made late, so that a
	// stream that rarely resets stops paying for the check.
	deferred bool
	gain     int
	// stuck is the last position a scan stopped at (it found a loop
	// there): the next scan records it again, as the live scan pushes
	// its index again, so until it leaves the history a chunk's entries
	// may share a position, which noLoopPossible does not count.
	stuck int
	// counts are noLoopPossible's counters, of the grams at the
	// positions of [countBase, counted) while a scan is put off: those
	// at the multiples of stride (sparseStride) until one reaches its
	// bound, then (dense) every one. countBase is the history's base
	// when they started; a truncation during the deferral moves the
	// base past it (add), and the grams before the base only add to
	// the counts. countFloor and countTop are the current count's
	// (newCount): an entry's count is its value above countFloor.
	counts               []uint8
	countFloor, countTop uint8
	counted              int
	countBase            int
	stride               int
	dense                bool
	// carry is the step of the current count when it is a carry count
	// (carryCount: addPending's bytes, sparse or dense, from carryFrom
	// grams), 0 when it counts above countFloor.
	carry     uint8
	carryFrom int
	// surrEnd bounds the surrogates of the text: none at or after it.
	surrEnd int

	// pending: the history is pb, ASCII bytes, its code units, from the
	// base; buf holds none of it (addPending).
	pending bool
	pb      []byte

	hpos     int    // position whose chunk hash is h, -1 for none
	h        uint64 // rolling hash of the chunk at hpos
	mul, top uint64 // the base and base^(c-1)
	hashMask uint32 // all ones; tests clear bits to force collisions
	recent   []int  // scratch: a chunk's last T positions
	// renumberAt bounds the entry indices (int32, so that a probe of the
	// heads and an entry take fewer cache lines): at it they are
	// renumbered from 0. Tests lower it.
	renumberAt int
}

type chunkEntry struct {
	pos  int
	prev int32  // the chunk's previous entry, -1 for none
	next int32  // the next (older) entry of its bucket's chain, -1 for none
	ord  int32  // 1 + the previous entry's ord: an upper bound of the live count
	hash uint32 // the chunk's hash, folded to 32 bits
}

const mersenne61 = 1<<61 - 1

func mulMod61(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	r := (hi<<3 | lo>>61) + lo&mersenne61
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

func newChunkScan(c, t, maxHist int) chunkScan {
	s := chunkScan{c: c, t: t, maxHist: maxHist, hpos: -1, stuck: -1, hashMask: ^uint32(0), renumberAt: 1 << 30,
		carryFrom: carryGrams,
		stride:    sparseStride(c, t)}
	s.mul = 1<<32 + rand.Uint64N(mersenne61-1<<33)
	s.top = 1
	for range c - 1 {
		s.top = mulMod61(s.top, s.mul)
	}
	return s
}

func (s *chunkScan) end() int { return s.start + len(s.buf) }

// reset is resetContentTracking: the text, the chunks and the scan
// position go.
func (s *chunkScan) reset() {
	e := s.end() + len(s.pb) // the positions pb would have taken
	s.pending, s.pb = false, s.pb[:0]
	s.buf, s.start, s.base, s.pos = s.buf[:0], e, e, e
	s.liveFrom = s.entStart + len(s.ents)
	s.ents, s.entStart = s.ents[:0], s.liveFrom
	s.hpos = -1
	if s.deferred {
		s.deferred, s.gain = false, min(s.gain+1, maxGain)
	}
}

// empty reports whether nothing was added since the detector was made
// or last reset: its state is then reset's, and a reset changes nothing.
func (s *chunkScan) empty() bool { return !s.pending && s.end() == s.base }

// add appends a message's text (streamContentHistory += content), keeps
// the last maxHist code units (truncateAndUpdate) and scans the new
// chunks.
func (s *chunkScan) add(content string) bool {
	if s.addPending(content) {
		return false
	}
	if k := s.base - s.start; k > 0 && k >= len(s.buf)/2 {
		// Drop the code units before the history, keeping the one the
		// rolling hash would remove next, and those a deferred check
		// counts from next (a truncation may leave them behind the
		// history).
		k = min(k, max(0, s.hpos-s.start))
		if s.deferred {
			k = min(k, s.counted-s.start)
		}
		if k > 0 {
			s.buf = append(s.buf[:0], s.buf[k:]...)
			s.start += k
		}
	}
	put := s.end()
	var surrogates bool
	if s.buf, surrogates = appendUTF16(s.buf, content); surrogates {
		s.surrEnd = s.end()
	}
	if e := s.end(); e-s.base > s.maxHist {
		if s.deferred && s.surrEnd > s.base {
			// The chunks put off are scanned before the history loses
			// any code unit, as they would have been: a chunk is not
			// recorded when its key's live occurrences hold other
			// units, and the truncation would end some. This scan finds
			// no loop (noLoopPossible held). Without a surrogate in the
			// history, keys are units and no chunk is left unrecorded so:
			// the chunks put off stay put off across the truncation. Of
			// those the truncation ends, the scan would record entries
			// no longer live, which nothing reads (a chain, a walk back
			// and isLoop stop at the first entry not live); those left
			// are recorded later as they would have been now, but for
			// their links back to and ord past the entries ended (ord
			// stays a bound of the live ones). A long message put off
			// and a short one after it no longer scan the whole history.
			s.undefer()
			s.scan(put)
		}
		s.base = e - s.maxHist
		s.pos = max(s.pos, s.base)
		last := s.entStart + len(s.ents)
		for s.liveFrom < last && s.ents[s.liveFrom-s.entStart].pos < s.base {
			s.liveFrom++
		}
		if k := s.liveFrom - s.entStart; k > 0 && k >= len(s.ents)/2 {
			s.ents = append(s.ents[:0], s.ents[k:]...)
			s.entStart = s.liveFrom
		}
	}
	// Chunks put off and not scanned above are scanned with the new ones,
	// now or later: the scan of [pos, end) in one go records, from the same
	// state, what the scans of its parts would have.
	if s.gain > -maxGain && s.stuck < s.base && 2*(s.end()-s.pos) >= s.end()-s.base && s.noLoopPossible() {
		s.deferred = true
		return false
	}
	if s.deferred {
		s.undefer()
	}
	return s.scan(s.end())
}

// undefer ends a deferral that saved nothing.
func (s *chunkScan) undefer() { s.deferred, s.gain = false, max(s.gain-2, -maxGain) }

// units returns the code units of [from, to).
func (s *chunkScan) units(from, to int) []uint16 { return s.buf[from-s.start : to-s.start] }

// hashAt returns the hash of the chunk at p, rolled from p-1's when it
// can, folded to 32 bits.
func (s *chunkScan) hashAt(p int) uint32 {
	switch {
	case s.hpos == p:
	case s.hpos == p-1 && s.hpos >= s.start && !s.surrogateAt(p-1) && !s.surrogateAt(p) &&
		!s.surrogateAt(p+s.c-2) && !s.surrogateAt(p+s.c-1):
		// No surrogate where keys and code units can differ: q, the
		// unit rolled out, and the two units at each edge of p's window.
		h := s.h + mersenne61 - mulMod61(uint64(s.buf[p-1-s.start]), s.top)
		s.h = mulMod61(h, s.mul) + uint64(s.buf[p-1+s.c-s.start])
		if s.h >= mersenne61 {
			s.h -= mersenne61
		}
	case s.hpos == p-1 && s.hpos >= s.start:
		q, last := p-1, p+s.c-1
		h := s.h + mersenne61 - mulMod61(uint64(s.keyUnit(q, q)), s.top)
		s.h = mulMod61(h, s.mul) + uint64(s.keyUnit(p, last))
		if s.h >= mersenne61 {
			s.h -= mersenne61
		}
		if s.c >= 2 {
			// A unit both windows hold is keyed alike except at the
			// edges: p loses its predecessor, last-1 gains its successor.
			s.h = (s.h + s.edgeDelta(q, p, p, s.top)) % mersenne61
			if last-1 != p {
				s.h = (s.h + s.edgeDelta(q, p, last-1, s.mul)) % mersenne61
			}
		}
	default:
		var h uint64
		for i := p; i < p+s.c; i++ {
			h = mulMod61(h, s.mul) + uint64(s.keyUnit(p, i))
			if h >= mersenne61 {
				h -= mersenne61
			}
		}
		s.h = h
	}
	s.hpos = p
	return uint32(s.h^s.h>>32) & s.hashMask
}

// keyUnit is the code unit at i as the key of the chunk at p holds it: a
// surrogate not paired inside [p, p+c) is U+FFFD, as Node's UTF-8
// encoding of the chunk writes it (EF BF BD). Keys are equal exactly when
// their units are: UTF-8 is one to one on well-formed UTF-16.
func (s *chunkScan) keyUnit(p, i int) uint16 {
	u := s.buf[i-s.start]
	switch {
	case u < 0xD800 || u > 0xDFFF:
		return u
	case u < 0xDC00: // high: its low must follow in the chunk
		if i+1 < p+s.c {
			if n := s.buf[i+1-s.start]; n >= 0xDC00 && n <= 0xDFFF {
				return u
			}
		}
	default: // low: its high must precede in the chunk
		if i > p {
			if n := s.buf[i-1-s.start]; n >= 0xD800 && n < 0xDC00 {
				return u
			}
		}
	}
	return 0xFFFD
}

// surrogateAt reports whether the code unit at i is a surrogate.
func (s *chunkScan) surrogateAt(i int) bool { return s.buf[i-s.start]&0xF800 == 0xD800 }

// edgeDelta is (keyUnit(p, i) − keyUnit(q, i))·w modulo 2^61−1.
func (s *chunkScan) edgeDelta(q, p, i int, w uint64) uint64 {
	if u := s.buf[i-s.start]; u < 0xD800 || u > 0xDFFF {
		return 0
	}
	a, b := uint64(s.keyUnit(p, i)), uint64(s.keyUnit(q, i))
	if a == b {
		return 0
	}
	return mulMod61(a+mersenne61-b, w)
}

// scan is analyzeContentChunksForLoop over the chunks that end by end:
// it stays at the position where a loop is found, so the next message
// finds it again.
func (s *chunkScan) scan(end int) bool {
	for ; s.pos+s.c <= end; s.pos++ {
		e := s.record(s.pos, s.hashAt(s.pos))
		if e >= 0 && int(s.ents[e-s.entStart].ord) >= s.t && s.isLoop(e) {
			s.stuck = s.pos
			return true
		}
	}
	return false
}

// isLoop is isLoopDetectedForChunk after the push, e the newest entry.
func (s *chunkScan) isLoop(e int) bool {
	t, c := s.t, s.c
	if cap(s.recent) < t {
		s.recent = make([]int, t)
	}
	recent := s.recent[:t]
	for i := t - 1; i >= 0; i-- {
		if e < s.liveFrom {
			return false // fewer than T live occurrences
		}
		ent := &s.ents[e-s.entStart]
		recent[i] = ent.pos
		e = int(ent.prev)
	}
	// The average distance (last − first)/(T−1) must be at most 5·C.
	if recent[t-1]-recent[0] > 5*c*(t-1) {
		return false
	}
	// At most T/2 distinct periods, the texts between occurrences.
	distinct := 0
	for i := range t - 1 {
		p := s.units(recent[i], recent[i+1])
		seen := false
		for j := range i {
			if recent[j+1]-recent[j] == len(p) && slices.Equal(s.units(recent[j], recent[j+1]), p) {
				seen = true
				break
			}
		}
		if !seen {
			if distinct++; distinct > t/2 {
				return false
			}
		}
	}
	return true
}

func (s *chunkScan) bucket(h uint32) int { return int((h * 0x9E3779B1) >> s.shift) }

// record appends an entry for the chunk at p and returns its index, or
// -1 when the chunk's key has live occurrences of other code units
// (isActualContentMatch fails: live records nothing).
func (s *chunkScan) record(p int, h uint32) int {
	e := s.entStart + len(s.ents)
	if e >= s.renumberAt {
		s.renumber()
		e = s.entStart + len(s.ents)
	}
	if e-s.liveFrom >= len(s.heads) {
		s.grow()
	}
	prev, ord := int32(-1), int32(1)
	b := s.bucket(h)
	for before, x := -1, int(s.heads[b]); x >= s.liveFrom; {
		old := &s.ents[x-s.entStart]
		if old.hash == h {
			if s.sameChunk(old.pos, p) {
				prev, ord = int32(x), min(old.ord, math.MaxInt32-1)+1
				// Unlinked: the new entry heads the chain in its place.
				if before < 0 {
					s.heads[b] = old.next
				} else {
					s.ents[before-s.entStart].next = old.next
				}
				break
			}
			if s.sameKey(old.pos, p) {
				return -1
			}
		}
		before, x = x, int(old.next)
	}
	// The entry is written field by field in place: built on the stack
	// and copied, its narrow stores fed a wide load that could not be
	// forwarded, the hottest instruction of the scan.
	if len(s.ents) < cap(s.ents) {
		s.ents = s.ents[:len(s.ents)+1]
	} else {
		s.ents = append(s.ents, chunkEntry{})
	}
	ent := &s.ents[len(s.ents)-1]
	ent.pos, ent.prev, ent.next, ent.ord, ent.hash = p, prev, s.heads[b], ord, h
	s.heads[b] = int32(e)
	return e
}

// renumber numbers the entries from 0 again; a link to an entry that
// is not live becomes -1, which stays below liveFrom as it did.
func (s *chunkScan) renumber() {
	d := s.entStart
	at := func(x int32) int32 {
		if int(x) < s.liveFrom {
			return -1
		}
		return int32(int(x) - d)
	}
	for i := range s.ents {
		s.ents[i].prev, s.ents[i].next = at(s.ents[i].prev), at(s.ents[i].next)
	}
	for i := range s.heads {
		s.heads[i] = at(s.heads[i])
	}
	s.liveFrom -= d
	s.entStart = 0
}

func (s *chunkScan) sameChunk(a, b int) bool {
	return a == b || slices.Equal(s.units(a, a+s.c), s.units(b, b+s.c))
}

// sameKey reports whether the chunks at a and b have the same key (their
// UTF-8 encodings are equal).
func (s *chunkScan) sameKey(a, b int) bool {
	for j := range s.c {
		if s.keyUnit(a, a+j) != s.keyUnit(b, b+j) {
			return false
		}
	}
	return true
}

// grow doubles the buckets (at least 256) and chains the live entries
// again: the newest of each chunk, oldest first.
func (s *chunkScan) grow() {
	n := max(256, 2*len(s.heads))
	s.heads = make([]int32, n)
	s.shift = uint8(32 - bits.TrailingZeros(uint(n)))
	for i := range s.heads {
		s.heads[i] = -1
	}
	live := s.ents[s.liveFrom-s.entStart:]
	if cap(s.stale) < len(live) {
		s.stale = make([]bool, len(live))
	}
	stale := s.stale[:len(live)]
	clear(stale)
	for _, ent := range live {
		if int(ent.prev) >= s.liveFrom {
			stale[int(ent.prev)-s.liveFrom] = true
		}
	}
	for i := range live {
		if !stale[i] {
			b := s.bucket(live[i].hash)
			live[i].next = s.heads[b]
			s.heads[b] = int32(s.liveFrom + i)
		}
	}
}
