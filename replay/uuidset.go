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
// itself). Its 32 digits are read eight at a time (hexWord): four words,
// no branch a digit (crypto.randomUUID's digits are random, and a test
// of digit against letter mispredicted about every third of them), where
// a table lookup a digit took 337 instructions a UUID (2% of a
// Claude Code session's). parseUUIDRef (uuidset_test.go) is the reading
// it replaced.
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	p := (*[36]byte)(unsafe.Pointer(unsafe.StringData(s))) // 36 bytes: len(s)
	a, badA := hexWord(binary.LittleEndian.Uint64(p[0:8]))
	b, badB := hexWord(uint64(binary.LittleEndian.Uint32(p[9:13])) | uint64(binary.LittleEndian.Uint32(p[14:18]))<<32)
	c, badC := hexWord(uint64(binary.LittleEndian.Uint32(p[19:23])) | uint64(binary.LittleEndian.Uint32(p[24:28]))<<32)
	d, badD := hexWord(binary.LittleEndian.Uint64(p[28:36]))
	binary.LittleEndian.PutUint32(u[0:], a)
	binary.LittleEndian.PutUint32(u[4:], b)
	binary.LittleEndian.PutUint32(u[8:], c)
	binary.LittleEndian.PutUint32(u[12:], d)
	return u, badA|badB|badC|badD == 0
}

// hexWord reads eight lowercase hex digits, the first in x's low byte,
// as four bytes (the first two digits the low byte's); bad is not zero
// when one of the eight is no such digit (its byte's high bit). Each byte is tested against the two ranges
// by adding to it, which carries into its high bit alone once every
// byte is under 0x80: b >= '0' sets it in b+0x50, b > '9' in b+0x46,
// and the same for 'a' and 'f'.
func hexWord(x uint64) (v uint32, bad uint64) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	digit := (x + ones*(0x80-'0')) &^ (x + ones*(0x80-'9'-1))
	letter := (x + ones*(0x80-'a')) &^ (x + ones*(0x80-'f'-1))
	bad = (x | ^(digit | letter)) & highs
	// A digit's value is its low four bits, a letter's those plus 9
	// (bit 6 tells a letter from a digit).
	n := x&(ones*0x0F) + (x>>6&ones)*9
	// Each pair of digits into one byte, the first its high four bits,
	// then the four bytes together.
	t := (n<<4 | n>>8) & 0x00FF00FF00FF00FF
	t = (t | t>>8) & 0x0000FFFF0000FFFF
	t = t | t>>16
	return uint32(t), bad
}

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

// uuidTableMin is a table's first size: 16 KB, where a table of 64
// slots grew four times more before a session's first 768 records.
const uuidTableMin = 1 << 10

// grow doubles the table (uuidTableMin slots at first) and puts the
// UUIDs back, each in the first empty slot from its home: they are
// distinct, so none is compared with the slots it passes, as insert
// compares them (grow put back as many UUIDs as a session adds, some
// half of insert's instructions).
func (t *uuidTable) grow() {
	old := t.slots
	slots := make([]([16]byte), max(uuidTableMin, 2*len(old)))
	t.slots = slots
	mask := uint64(len(slots) - 1)
	// A slot is told empty by its two words, loaded where it lies,
	// where comparing it with the zero UUID copied it to the stack and
	// compared it with a zero in memory.
	for k := range old {
		u := &old[k]
		if binary.LittleEndian.Uint64(u[:8])|binary.LittleEndian.Uint64(u[8:]) == 0 {
			continue
		}
		i := t.home(*u)
		for binary.LittleEndian.Uint64(slots[i][:8])|binary.LittleEndian.Uint64(slots[i][8:]) != 0 {
			i = (i + 1) & mask
		}
		slots[i] = *u
	}
}
