package replay

// Interning an episode's strings as Syms, in tables that grow linearly
// with the distinct strings of an episode of any size.

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// symtab interns an episode's strings as Syms (Episode.Str reads them).
//
// An episode of millions of distinct rooms, actions and replies (issue
// 23) must cost the same per string as one of thousands, with the
// collector running. So nothing grows by copying one huge array, and
// nothing holds a pointer per string for the collector to scan:
//   - a string's bytes go into chunks of a byte arena (chunks holds a
//     pointer per MiB, none per string), never moved once written, so
//     Str returns them without a copy;
//   - refs locates each Sym's bytes, in fixed pages of pointer-free
//     entries (a new page per 4,096 strings, no copy of the earlier ones);
//   - ids, the hash index, keeps 32 bits of each string's hash beside its
//     Sym, so a probe reads one 8-byte entry and touches a string's bytes
//     only when those 32 bits match, and it doubles from the tags alone;
//     a large one is backed by huge pages (adviseHuge), so a probe misses
//     the cache but not the TLB;
//   - fold, FoldName's Sym by Sym, is paged as refs is.
//
// Go maps of strings and a []string took two or three probes of bigger
// entries per new string, one heap object per string, and time grew 7x
// for 4x the turns.
type symtab struct {
	chunks [][]byte // the arena: strings' bytes; a chunk's bytes are never rewritten
	cur    int      // chunks[cur-1] takes short strings (0: none yet)
	stored int      // the bytes in chunks (arenaBytes)
	refs   paged[symRef]
	n      int // Syms in refs, Sym 0 ("") included; 0 before the first string

	ids  symIndex
	fold paged[Sym] // FoldName's Sym + 1 by Sym, computed once per distinct string (0: not yet)

	scratch []byte // an escaped or folded string, to be looked up
}

// symRef is where a Sym's string is in the arena.
type symRef struct{ chunk, off, n uint32 }

// The arena's chunks double from arenaMin to arenaMax bytes, so an
// episode of a few strings holds a few KB (a corpus may hold thousands
// of them) and a huge one a chunk per MiB; a string longer than arenaOwn
// gets a chunk of its own rather than leave the rest of one unused.
// Strings are held whole: a line, and so a string, is capped far below
// 4 GiB (MaxLineBytes), which is what symRef's 32 bits can say.
const (
	arenaMin = 1 << 10
	arenaMax = 1 << 20
	arenaOwn = arenaMax / 8
)

// store copies s into the arena.
func store[S string | []byte](t *symtab, s S) symRef {
	n := len(s)
	t.stored += n
	if n > arenaOwn {
		t.chunks = append(t.chunks, append(make([]byte, 0, n), s...))
		return symRef{chunk: uint32(len(t.chunks) - 1), n: uint32(n)}
	}
	if t.cur == 0 || cap(t.chunks[t.cur-1])-len(t.chunks[t.cur-1]) < n {
		size := arenaMin
		if t.cur != 0 {
			size = min(arenaMax, 2*cap(t.chunks[t.cur-1]))
		}
		t.chunks = append(t.chunks, makeNoZero(max(size, n)))
		t.cur = len(t.chunks)
	}
	c := t.chunks[t.cur-1]
	t.chunks[t.cur-1] = append(c, s...)
	return symRef{chunk: uint32(t.cur - 1), off: uint32(len(c)), n: uint32(n)}
}

// str returns Sym id's string ("" for 0 and for a Sym the table does not
// have), in place in the arena.
//
// Episode.Str calls it for every string a detector reads, so past the
// test of id it indexes with no bounds tests (strChecked is the same
// with them, and the tests hold the two equal): refs holds t.n entries
// or more (appendRef grows it before the Sym is counted), and a ref's
// chunk and bytes are the arena's (store wrote them there, and a chunk's
// bytes are never rewritten). The tests cost some 20 instructions a
// call, 5% of reading an attempts log. A ref of no bytes (none is
// stored: "" is Sym 0) is "", its offset not taken: it could point past
// its chunk.
func (t *symtab) str(id Sym) string {
	if id == 0 || int(id) >= t.n {
		return ""
	}
	page := *(*[]symRef)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(t.refs)), uintptr(id>>pagedBits)*unsafe.Sizeof([]symRef(nil))))
	r := *(*symRef)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(page)), uintptr(id&(pagedLen-1))*unsafe.Sizeof(symRef{})))
	if r.n == 0 {
		return ""
	}
	chunk := *(*[]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(t.chunks)), uintptr(r.chunk)*unsafe.Sizeof([]byte(nil))))
	return *(*string)(unsafe.Pointer(&stringHeader{unsafe.Add(unsafe.Pointer(unsafe.SliceData(chunk)), r.off), int(r.n)}))
}

// stringHeader is a string's layout, its pointer a pointer to the GC:
// str makes its string so, not by unsafe.String, whose tests (a
// negative length, one running past the address space, a nil pointer:
// panicunsafestringlen, panicunsafestringnilptr) the table's refs make
// needless.
type stringHeader struct {
	data unsafe.Pointer
	len  int
}

// strChecked is str with every index tested: what the tests hold str to.
func (t *symtab) strChecked(id Sym) string {
	if id == 0 || int(id) >= t.n {
		return ""
	}
	r := t.refs.at(int(id))
	if r.n == 0 {
		return ""
	}
	return unsafe.String(&t.chunks[r.chunk][r.off], int(r.n))
}

// arenaBytes is the size of the table's strings: counted as stored,
// where a loop over the chunks was run at each turn a steps table
// stepped (actionsStepped).
func (t *symtab) arenaBytes() int { return t.stored }

// len is the number of Syms, 0 included once a string was interned: Syms
// are below it.
func (t *symtab) len() int { return t.n }

// strings is the table without its index: what a built episode keeps.
func (t *symtab) strings() symtab {
	return symtab{chunks: t.chunks, cur: t.cur, stored: t.stored, refs: t.refs, n: t.n}
}

// reuse returns t's index, folded names and scratch, cleared, for the
// next episode's table (builder.reuse), without its strings: those are
// the built episode's (strings). A large index is not kept.
func (t *symtab) reuse() symtab {
	var next symtab
	if x := t.ids; x.recent == nil && len(x.slots) <= maxReusedPage {
		clear(x.slots)
		next.ids = symIndex{slots: x.slots, shift: x.shift}
	}
	next.fold = reusePaged(t.fold)
	if cap(t.scratch) <= maxReusedPage {
		next.scratch = t.scratch[:0]
	}
	return next
}

// paged is an array in pages of pagedLen elements: growing it allocates
// a page, never copies the pages before (only the first page, while it
// is the only one, grows as append does, so a small table stays small).
type paged[T any] [][]T

const (
	pagedBits = 12
	pagedLen  = 1 << pagedBits
)

func (p paged[T]) len() int {
	switch len(p) {
	case 0:
		return 0
	case 1:
		return len(p[0])
	}
	return len(p) * pagedLen
}

// get returns element i, zero beyond len.
func (p paged[T]) get(i int) T {
	if i >= p.len() {
		var zero T
		return zero
	}
	return *p.at(i)
}

// at returns element i (i < len).
func (p paged[T]) at(i int) *T { return &p[i>>pagedBits][i&(pagedLen-1)] }

// grow makes the array at least n long, the new elements zero.
func (p *paged[T]) grow(n int) {
	for p.len() < n {
		switch {
		case len(*p) == 0:
			*p = append(*p, make([]T, min(pagedLen, max(64, n))))
		case len(*p) == 1 && len((*p)[0]) < pagedLen:
			first := make([]T, min(pagedLen, max(2*len((*p)[0]), n)))
			copy(first, (*p)[0])
			(*p)[0] = first
		default:
			*p = append(*p, make([]T, pagedLen))
		}
	}
}

// symIndex maps a string's hash to its Sym. An entry is the hash's high
// 32 bits (its tag) << 32 | the Sym; 0 is empty (Sym 0, "", is never
// entered). Its top bits choose the first slot, probing goes on
// linearly, and the table doubles at three quarters full, rehashed from
// the tags alone without reading a string. At half full, as it was, an
// episode of 20M strings had an index of 512 MB (1 GB written, with the
// tables it outgrew): three quarters halves that, and the pages a
// lookup misses in, for probes of 8.5 slots at most on average for a
// new string (68 bytes, a line or two), 2.5 for a known one (Knuth's
// linear probing figures at 3/4).
type symIndex struct {
	slots []uint64
	shift uint8 // 32 - log2(len(slots))
	n     int

	// recent holds the entries last found or added, by the hash's low
	// bits, once slots outgrow the CPU caches: a log names a turn's
	// action, rooms and reply on several lines close together, and
	// those lookups then read this small array, not a random line of a
	// table of hundreds of MB (a cache and TLB miss each).
	recent *[recentLen]uint64

	// Slots a line's lookups will probe, read together before them
	// (symprefetch.go).
	pend    [4]uint32
	npend   int
	touched uint64
}

const (
	recentLen  = 1 << 12
	recentFrom = 1 << 16 // slots
)

// symSeed hashes every table; Syms are numbered in order of first
// appearance, so the hash never shows in output.
var symSeed = maphash.MakeSeed()

const symIndexMin = 1 << 6

// reserve makes room for one more entry.
func (x *symIndex) reserve() {
	if 4*(x.n+1) <= 3*len(x.slots) {
		return
	}
	size := max(symIndexMin, 2*len(x.slots))
	if size >= recentFrom && x.recent == nil {
		x.recent = new([recentLen]uint64)
	}
	old := x.slots
	x.slots = make([]uint64, size)
	if size >= hugeFrom {
		adviseHuge(x.slots)
		touchSlots(x.slots)
	}
	x.shift = uint8(32 - bits.Len(uint(size-1)))
	mask := uint32(size - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := uint32(e>>32) >> x.shift
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = e
	}
}

// hugeFrom is the size (slots) from which an index is asked to be backed
// by huge pages: 4 MiB, an index of 256k strings or more, so an episode
// of a few thousand strings never asks.
const hugeFrom = 1 << 19

// touchSlots writes a zero in each 4 KiB page of a new index before the
// rehash reads it: a page read first is mapped to the zero page and
// faulted again by the first write (for a huge page the copy cost ten
// times the faults of writing first); the writes come in order, where a
// rehash's reads of a huge table come as they fall.
func touchSlots(s []uint64) {
	for i := 0; i < len(s); i += 4096 / 8 {
		s[i] = 0
	}
}

// find returns s's Sym, or 0 and the empty slot where it goes (after
// reserve).
func find[S string | []byte](t *symtab, h uint64, s S) (Sym, uint32) {
	x := &t.ids
	tag := uint32(h >> 32)
	var r *uint64
	if x.recent != nil {
		r = &x.recent[uint32(h)&(recentLen-1)]
		if e := *r; e != 0 && uint32(e>>32) == tag && t.str(Sym(uint32(e))) == string(s) {
			return Sym(uint32(e)), 0
		}
	}
	mask := uint32(len(x.slots) - 1)
	for i := tag >> x.shift; ; i = (i + 1) & mask {
		e := x.slots[i]
		if e == 0 {
			return 0, i
		}
		if uint32(e>>32) == tag && t.str(Sym(uint32(e))) == string(s) {
			if r != nil {
				*r = e
			}
			return Sym(uint32(e)), i
		}
	}
}

// appendRef stores s in the arena as the table's next Sym, which it
// returns, with no index entry (add's storing, and appendUnindexed's).
func appendRef[S string | []byte](t *symtab, s S) Sym {
	if t.n == 0 {
		t.n = 1 // Sym 0 is "", its ref zero
	}
	id := Sym(t.n)
	t.refs.grow(t.n + 1)
	*t.refs.at(t.n) = store(t, s)
	t.n++
	return id
}

// add enters s, not in the table, at slot i found by find.
func add[S string | []byte](t *symtab, h uint64, i uint32, s S) Sym {
	id := appendRef(t, s)
	e := h>>32<<32 | uint64(id)
	t.ids.slots[i] = e
	t.ids.n++
	if t.ids.recent != nil {
		t.ids.recent[uint32(h)&(recentLen-1)] = e
	}
	return id
}

func (t *symtab) sym(s string) Sym {
	if s == "" {
		return 0
	}
	t.ids.reserve()
	h := maphash.String(symSeed, s)
	id, i := find(t, h, s)
	if id == 0 {
		id = add(t, h, i, s)
	}
	return id
}

// bytes is sym of string(b); b is copied into the arena when new.
func (t *symtab) bytes(b []byte) Sym {
	if len(b) == 0 {
		return 0
	}
	t.ids.reserve()
	h := maphash.Bytes(symSeed, b)
	id, i := find(t, h, b)
	if id == 0 {
		id = add(t, h, i, b)
	}
	return id
}

// reindex enters the strings anew (a built episode keeps its strings,
// not the index that interned them).
func (t *symtab) reindex() {
	t.ids = symIndex{}
	for k := 1; k < t.n; k++ {
		t.ids.reserve()
		s := t.str(Sym(k))
		h := maphash.String(symSeed, s)
		if id, i := find(t, h, s); id == 0 {
			t.ids.slots[i] = h>>32<<32 | uint64(k)
			t.ids.n++
		}
	}
}

// text reads a JSON value as text does and interns it; a plain string
// the table already has is looked up in place, so the lines of a long
// episode, which repeat a few actions and rooms, copy nothing.
func (t *symtab) text(v json.RawMessage) (Sym, bool) {
	if raw, ok := plainBytes(v); ok {
		return t.bytes(raw), true
	}
	if len(v) > 0 && v[0] == '"' {
		buf := t.scratch[:0]
		if cap(buf) < len(v) {
			// Room for the token, which unescapes to at most that (only
			// invalid UTF-8 grows), not grown from nothing by doubling:
			// five allocations of each episode's first escaped string.
			buf = make([]byte, 0, max(len(v), 256))
		}
		if b, ok := appendUnquoted(buf, v); ok {
			t.scratch = b
			return t.bytes(b), true
		}
	}
	s, ok := text(v)
	if !ok {
		return 0, false
	}
	return t.sym(s), true
}

// roomID reads a room id as roomID does and interns it, in place when
// it can.
func (t *symtab) roomID(v json.RawMessage) (Sym, bool) {
	var buf [24]byte
	if key, ok := roomIDKey(buf[:0], v); ok {
		return t.bytes(key), true
	}
	return t.roomIDString(v)
}

// roomIDKey returns the room id a plain string or an integer spells,
// as roomID reads it, in place or appended to buf; ok false for any
// other value (roomIDString reads those).
func roomIDKey(buf []byte, v json.RawMessage) ([]byte, bool) {
	if raw, ok := plainBytes(v); ok {
		raw = bytes.TrimSpace(raw)
		// A blank id is none; a number in a string is read as a number.
		return raw, len(raw) != 0 && !isNumberText(raw)
	}
	if f, ok := number(v); ok && f == math.Trunc(f) && math.Abs(f) < 1e18 {
		return strconv.AppendInt(buf, int64(f), 10), true
	}
	return nil, false
}

// isNumberText says whether strconv reads b as a number (number would).
func isNumberText(b []byte) bool {
	_, err := strconv.ParseFloat(string(b), 64)
	return err == nil
}

func (t *symtab) roomIDString(v json.RawMessage) (Sym, bool) {
	id, ok := roomID(v)
	if !ok {
		return 0, false
	}
	return t.sym(id), true
}

// folded returns the Sym of FoldName of a Sym's string, computed once.
func (t *symtab) folded(id Sym) Sym {
	if id == 0 {
		return 0
	}
	if int(id) < t.fold.len() {
		if f := *t.fold.at(int(id)); f != 0 {
			return f - 1
		}
	}
	var f Sym
	s := t.str(id)
	if b, ok := appendFoldASCII(t.scratch[:0], s); ok {
		t.scratch = b
		f = t.bytes(b) // no string made for a name the table has
	} else {
		f = t.sym(FoldName(s))
	}
	t.fold.grow(t.n)
	*t.fold.at(int(id)) = f + 1
	return f
}

// appendFoldASCII appends FoldName(s) to dst when s is ASCII (ok false,
// dst unchanged, otherwise): ToLower and Fields' white space agree with
// FoldName's on ASCII, and outside it FoldName is used.
func appendFoldASCII(dst []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return dst, false
		}
	}
	start, inWord := len(dst), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\t', '\n', '\v', '\f', '\r', ' ': // strings.Fields' ASCII space
			inWord = false
			continue
		}
		if !inWord && len(dst) > start {
			dst = append(dst, ' ')
		}
		inWord = true
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, true
}
