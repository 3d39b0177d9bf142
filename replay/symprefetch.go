package replay

import (
	"encoding/json"
	"hash/maphash"
	"unsafe"
)

// Prefetching a line's new strings.
//
// A new string's lookup misses the cache (and, in a table of hundreds of
// MB, would miss the TLB too): the slot it probes is anywhere in the
// index. A map_movement_update names a new room by its id and its name,
// and the name is interned folded as well: three misses one after the
// other, when the CPU could wait for all three at once. The prefetch
// calls read the slots each string will probe before the lookups run,
// so their misses overlap (issue 23: in an episode of millions of
// distinct rooms, these lookups were a third of the time). They change
// nothing but the cache: the lookups run as before.

// prefetch notes the slot b's lookup will probe, unless the index is
// small enough to stay in the caches (no recent array yet), recent
// already holds b's entry, or four slots are noted already; load reads
// them.
func (t *symtab) prefetch(b []byte) {
	x := &t.ids
	if x.recent == nil || len(b) == 0 || x.npend == len(x.pend) {
		return
	}
	h := maphash.Bytes(symSeed, b)
	if e := x.recent[uint32(h)&(recentLen-1)]; e != 0 && uint32(e>>32) == uint32(h>>32) {
		return
	}
	x.pend[x.npend] = uint32(h>>32) >> x.shift
	x.npend++
}

// load reads the slots prefetch noted, one right after the other: the
// CPU waits for their misses together only if it meets the loads within
// its reorder window, which a hash and a fold between them outgrow. The
// sum is kept so the loads are not dropped as unused.
func (t *symtab) load() {
	x := &t.ids
	var sum uint64
	for _, i := range x.pend[:x.npend] {
		sum += x.slots[i]
	}
	x.touched += sum
	x.npend = 0
}

// prefetchRoomID prefetches a room id as roomID would intern it.
func (t *symtab) prefetchRoomID(v json.RawMessage) {
	if len(v) == 0 || t.ids.recent == nil {
		return
	}
	var buf [24]byte
	if key, ok := roomIDKey(buf[:0], v); ok {
		t.prefetch(key)
	}
}

// prefetchName prefetches a room name as text would intern it, and its
// folded form as folded would.
func (t *symtab) prefetchName(v json.RawMessage) {
	if len(v) == 0 || t.ids.recent == nil {
		return
	}
	raw, ok := plainBytes(v)
	if !ok {
		return
	}
	t.prefetch(raw)
	// appendFoldASCII keeps nothing of the string it reads.
	if b, ok := appendFoldASCII(t.scratch[:0], unsafe.String(unsafe.SliceData(raw), len(raw))); ok {
		t.scratch = b
		t.prefetch(b)
	}
}
