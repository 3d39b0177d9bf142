package replay

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// idSet is a set of record ids (Claude Code's uuids), one entry a record
// read: a resumed session writes some records again, and a record whose
// id was read is read once. An id written as Claude Code writes it (a
// lowercase UUID, crypto.randomUUID's 8-4-4-4-12 hex digits) is kept as
// its 16 bytes; any other string as itself, so two ids are one exactly
// when their strings are. A 100 MB session of 134,000 records kept each
// uuid as a string in a map[string]bool: a copy and a map entry, about
// 100 bytes a record, and 7% of its reading's CPU hashing and growing
// the map; as 16 bytes in a map[[16]byte], 10% of a session's CPU still
// went to hashing them with aeshash and to the map's growth: uuidTable
// keeps them in a table of its own, each as its two words (uuid128).
type idSet struct {
	uuids uuidTable
	other map[string]struct{}
}

// add adds id and says whether it was there already.
func (s *idSet) add(id string) (seen bool) {
	u, ok := parseUUID(id)
	return s.addParsed(id, u, ok)
}

// addParsed is add(id) of an id parseUUID read already (u, isUUID),
// its slot prefetched meanwhile (uuidTable.prefetch).
func (s *idSet) addParsed(id string, u uuid128, isUUID bool) (seen bool) {
	if isUUID {
		return s.uuids.add(u)
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	if _, seen = s.other[id]; !seen {
		s.other[string([]byte(id))] = struct{}{} // id may be a view of the line
	}
	return seen
}

// parseUUID reads a lowercase 8-4-4-4-12 hex UUID: each is the one
// string that gives its 16 bytes (uppercase is another string, kept as
// itself). Its 32 digits are read eight at a time (hexWord): four words,
// no branch a digit (crypto.randomUUID's digits are random, and a test
// of digit against letter mispredicted about every third of them), where
// a table lookup a digit took 337 instructions a UUID (2% of a
// Claude Code session's). The 16 bytes are the digits' values in an
// order of their own (uuidLayout in uuidset_test.go maps
// parseUUIDRef's, the UUID's bytes, to it): the set needs only one
// value a UUID, and a word's eight digits are left in four bytes apart,
// two words' bytes interleaved with a shift and an OR, where putting
// the digits in the UUID's order took a dozen more instructions a word.
func parseUUID(s string) (u uuid128, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	p := (*[36]byte)(unsafe.Pointer(unsafe.StringData(s))) // 36 bytes: len(s)
	a, badA := hexWord(binary.LittleEndian.Uint64(p[0:8]))
	b, badB := hexWord(uint64(binary.LittleEndian.Uint32(p[9:13])) | uint64(binary.LittleEndian.Uint32(p[14:18]))<<32)
	c, badC := hexWord(uint64(binary.LittleEndian.Uint32(p[19:23])) | uint64(binary.LittleEndian.Uint32(p[24:28]))<<32)
	d, badD := hexWord(binary.LittleEndian.Uint64(p[28:36]))
	return uuid128{a | b<<8, c | d<<8}, badA|badB|badC|badD == 0
}

// uuid128 is a UUID as parseUUID reads it, in two words: a struct of
// two words is passed and compared in registers, where a [16]byte was
// copied through the stack at each call and compare.
type uuid128 struct{ lo, hi uint64 }

// hexWord reads eight lowercase hex digits, the first in x's low byte:
// v holds each two digits' values in one byte, the first's its low four
// bits, in v's bytes 0, 2, 4 and 6 (the others zero); bad is not zero
// when one of the eight is no such digit. Each byte's value n is its
// low four bits, plus 9 for a letter (bit 6); the digit written for n
// (n+'0', plus 'a'-'0'-10 when n > 9: n+0x76 carries into its byte's
// high bit) is the byte itself exactly when the byte is a lowercase hex
// digit (n taken below 16: 'g' would give 16, written 'g').
func hexWord(x uint64) (v, bad uint64) {
	const ones = 0x0101010101010101
	n := (x&(ones*0x0F) + (x>>6&ones)*9) & (ones * 0x0F)
	bad = x ^ (n + ones*'0' + (n+ones*0x76)>>7&ones*('a'-'0'-10))
	return (n | n>>4) & 0x00FF00FF00FF00FF, bad
}

// uuidTable is a set of UUIDs, open addressing with linear probing: a
// slot is the 16 bytes of one UUID, the zero UUID (an empty slot) kept
// aside. A slot's place is a multiplicative hash of the UUID's two
// halves, which needs no call (crypto.randomUUID's bits are random, but
// ids written by hand, as in tests, run in sequence in their last bytes).
type uuidTable struct {
	slots []uuid128 // a power of two of them, at most 3/4 used
	n     int       // UUIDs in slots
	zero  bool      // the zero UUID is in the set
}

// add adds u and says whether it was there already: u is put in its
// slot, or found there, in a loop of add's own (a call of its own cost
// a record some 20 instructions).
func (t *uuidTable) add(u uuid128) (seen bool) {
	if u.lo|u.hi == 0 {
		seen, t.zero = t.zero, true
		return seen
	}
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(u); ; i = (i + 1) & mask {
		switch s := &t.slots[i]; {
		case *s == u:
			return true
		case s.lo|s.hi == 0:
			*s = u
			t.n++
			return false
		}
	}
}

// prefetchMin is the fewest slots worth a prefetch: a smaller table
// (256 KB) stays in the caches.
const prefetchMin = 1 << 14

// prefetch asks for the line of u's first slot, which add(u) reads
// first: in a session of 100,000 records the table is megabytes, and its
// slot, anywhere in it, missed the caches (and the TLB) at nearly every
// add, the CPU waiting on it (uuidTable.add was 4.4% of a session's
// CPU, nearly all of it on that load). Asked for before the record is
// read (claudeCodeReader.prefetchUUID), the miss overlaps its reading.
func (t *uuidTable) prefetch(u uuid128) {
	if len(t.slots) >= prefetchMin {
		prefetch(unsafe.Pointer(&t.slots[t.home(u)]))
	}
}

// home is u's first slot.
func (t *uuidTable) home(u uuid128) uint64 {
	h := (u.lo ^ bits.RotateLeft64(u.hi, 31)) * 0x9E3779B97F4A7C15
	return (h ^ h>>29) & uint64(len(t.slots)-1)
}

// uuidTableMin is a table's first size: 16 KB, where a table of 64
// slots grew four times more before a session's first 768 records.
const uuidTableMin = 1 << 10

// grow doubles the table (uuidTableMin slots at first) and puts the
// UUIDs back, each in the first empty slot from its home: they are
// distinct, so none is compared with the slots it passes, as add
// compares them (grow put back as many UUIDs as a session adds, some
// half of the probes' instructions).
func (t *uuidTable) grow() {
	old := t.slots
	slots := make([]uuid128, max(uuidTableMin, 2*len(old)))
	t.slots = slots
	mask := uint64(len(slots) - 1)
	// A slot is told empty by its two words, loaded where it lies.
	for k := range old {
		u := old[k]
		if u.lo|u.hi == 0 {
			continue
		}
		i := t.home(u)
		for slots[i].lo|slots[i].hi != 0 {
			i = (i + 1) & mask
		}
		slots[i] = u
	}
}
