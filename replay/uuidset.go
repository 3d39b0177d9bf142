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
// keeps them in a table of its own.
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
func (s *idSet) addParsed(id string, u [16]byte, isUUID bool) (seen bool) {
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
// itself). Its digits are looked up in hexDigit, a byte that is not one
// marking the UUID bad, with no branch a digit: crypto.randomUUID's
// digits are random, and a test of digit against letter mispredicted
// about every third of them (parseUUID was 3% of a session's CPU).
// parseUUIDRef (uuidset_test.go) is the reading it replaced.
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	var bad byte
	for j, i := range uuidDigitAt {
		hi, lo := hexDigit[s[i]], hexDigit[s[i+1]]
		bad |= hi | lo
		u[j] = hi<<4 | lo
	}
	return u, bad&0xF0 == 0
}

// uuidDigitAt is where each of a UUID's 16 bytes is written in its
// 8-4-4-4-12 form.
var uuidDigitAt = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexDigit is a lowercase hex digit's value, 0xFF for any other byte.
var hexDigit = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		default:
			t[c] = 0xFF
		}
	}
	return t
}()

// uuidTable is a set of UUIDs, open addressing with linear probing: a
// slot is the 16 bytes of one UUID, the zero UUID (an empty slot) kept
// aside. A slot's place is a multiplicative hash of the UUID's two
// halves, which needs no call (crypto.randomUUID's bits are random, but
// ids written by hand, as in tests, run in sequence in their last bytes).
type uuidTable struct {
	slots []([16]byte) // a power of two of them, at most 3/4 used
	n     int          // UUIDs in slots
	zero  bool         // the zero UUID is in the set
}

// add adds u and says whether it was there already.
func (t *uuidTable) add(u [16]byte) (seen bool) {
	if u == ([16]byte{}) {
		seen, t.zero = t.zero, true
		return seen
	}
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	if t.insert(u) {
		return true
	}
	t.n++
	return false
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
func (t *uuidTable) prefetch(u [16]byte) {
	if len(t.slots) >= prefetchMin {
		prefetch(unsafe.Pointer(&t.slots[t.home(u)]))
	}
}

// home is u's first slot.
func (t *uuidTable) home(u [16]byte) uint64 {
	lo, hi := binary.LittleEndian.Uint64(u[:8]), binary.LittleEndian.Uint64(u[8:])
	h := (lo ^ bits.RotateLeft64(hi, 31)) * 0x9E3779B97F4A7C15
	return (h ^ h>>29) & uint64(len(t.slots)-1)
}

// insert puts u in its slot, or finds it there (true).
func (t *uuidTable) insert(u [16]byte) (found bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.home(u); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case u:
			return true
		case [16]byte{}:
			t.slots[i] = u
			return false
		}
	}
}

// grow doubles the table (64 slots at first) and puts the UUIDs back.
func (t *uuidTable) grow() {
	old := t.slots
	t.slots = make([]([16]byte), max(64, 2*len(old)))
	for _, u := range old {
		if u != ([16]byte{}) {
			t.insert(u)
		}
	}
}
