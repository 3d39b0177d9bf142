package replay

// The members a Gemini CLI reader looks for in an object, read as
// JavaScript reads them (the last of a repeated name, names unescaped as
// JSON.parse does): jsKeys, the names sought by length, and jsFields,
// which reads an object from the members the validating pass noted or
// by scanning it.

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// jsKeys are the member names a reader looks for in an object, by
// length: a member whose name has none of those lengths (most of a
// record's: timestamps, tokens, model, thoughts, …) is passed over after
// one test, and one that has is compared with those names only, where it
// was compared with each name.
type jsKeys struct {
	names []string   // distinct, 64 at most
	first [64]int8   // by length (63: 63 or more), the first name of it; -1: none
	next  [64]int8   // the next name of the same length; -1: none
	ascii uint64     // bit i: names[i] is ASCII (parseFields)
	word  [64]uint64 // names[i]'s bytes when 8 or fewer, little-endian (parseFields)
	// head, tail: names[i]'s first and last 8 bytes when it has 9 to 16
	// (jsFields compares such a name as two words). Arrays, not slices:
	// a name's index, below 64, needs no bounds check.
	head, tail [64]uint64
	// allASCII: every name is (set).
	allASCII bool
}

func newJSKeys(names ...string) *jsKeys {
	n := len(names)
	ks := &jsKeys{names: names}
	for i := range ks.first {
		ks.first[i] = -1
	}
	for i := len(names) - 1; i >= 0; i-- {
		if slices.Contains(names[:i], names[i]) || n > 64 {
			panic("jsKeys: " + names[i] + " twice, or too many names") // a name matches one val
		}
		l := min(len(names[i]), 63)
		ks.next[i], ks.first[l] = ks.first[l], int8(i)
		if isASCII(names[i]) {
			ks.ascii |= 1 << i
		}
		ks.word[i] = shortWord(names[i])
		if l := len(names[i]); l > 8 && l <= 16 {
			ks.head[i] = binary.LittleEndian.Uint64([]byte(names[i][:8]))
			ks.tail[i] = binary.LittleEndian.Uint64([]byte(names[i][l-8:]))
		}
	}
	ks.allASCII = ks.ascii == 1<<len(names)-1
	return ks
}

// jsFields fills vals with the members named by keys, as JavaScript reads
// an object (the last of a repeated key); nil for a key not there or v
// not an object. ix is v's record's index, or nil. vals holds nils on
// entry: its callers' arrays are new ones, zeroed inline, where a clear
// here was a call (memclrHasPointers) for every object read.
func jsFields(ix *valueIndex, v rawValue, keys *jsKeys, vals []rawValue) {
	if ix != nil && len(ix.objs) > 0 && v.Kind() == '{' {
		if ms, ok := ix.noted(v); ok {
			// The members the validating pass noted, read in this loop
			// where members handed each to a callback with its name
			// checked as UTF-8 (a name's bytes need no check: set).
			// The pass noted each member's value within ix.base: a value
			// found is sliced with no bounds check (as notedMember),
			// where its slicing of base took ~30 instructions, spilled.
			p, last := unsafe.Pointer(unsafe.SliceData(ix.base)), cap(ix.base)-8
			// A name found is stored at vals' pointer: its index is
			// below len(keys.names), and vals holds that many (sliced
			// so here), where vals[i]'s bounds test kept vals' length
			// in a register through the loop.
			vp := unsafe.Pointer(unsafe.SliceData(vals[:len(keys.names)]))
			k := 0
			if keys.allASCII {
				// set's reading when every name is ASCII, in this loop
				// (set is not inlined, and its call passed four slices):
				// a name not escaped is the name whose bytes it is, else
				// none (not UTF-8, it reads with U+FFFD). An escaped name,
				// or one longer than 16 bytes of a length sought, ends
				// this loop: set reads it and the members after it
				// (below), so that no call is within this loop, whose
				// values were spilled at their definition for every
				// member, around the calls, taken or not.
			noted:
				for ; k < len(ms); k++ {
					m := &ms[k]
					if m.esc {
						break
					}
					// A name of 8 bytes or fewer is compared as one
					// word (keyWord), one of 9 to 16 as two (the
					// record's longer names, "toolCalls",
					// "resultDisplay", "functionResponse"), where each
					// was a call to compare strings.
					n := uint(m.keyEnd - m.key)
					// The chain of the names of its length, when 16 or
					// fewer (n&63 is n): a longer name's is read below,
					// where a clamp of n to 63 here was spilled.
					i := keys.first[n&63]
					// The key's words are loaded at base's pointer, where
					// its slicing of base took ~11 instructions with its
					// bounds and the empty slice's mask: the pass noted it
					// within base, and a short key's word is loaded at
					// once when base's array holds 8 bytes from its
					// start (up to last), as keyWord loads it.
					switch {
					case n > 16:
						if keys.first[min(n, 63)] >= 0 {
							// A name of its length (none of the
							// readers' is): set compares it, below,
							// as it reads an escaped name.
							break noted
						}
						continue
					case i < 0:
						continue // no name of its length
					case n <= 8:
						if int(m.key) > last {
							// Within base's last 8 bytes (a record's
							// last member, hardly ever): read by set,
							// below, where a loop here for it cost
							// registers.
							break noted
						}
						w := wordAtPtr(p, m.key) & lowBytes[n&15]
						for ; i >= 0 && w != keys.word[i&63]; i = keys.next[i&63] {
						}
					default:
						// Its first and last 8 bytes (overlapping): the
						// names of the chain are of the key's length.
						h, t := wordAtPtr(p, m.key), wordAtPtr(p, m.keyEnd-8)
						for ; i >= 0 && (h != keys.head[i&63] || t != keys.tail[i&63]); i = keys.next[i&63] {
						}
					}
					if i >= 0 {
						// Its three words set as setBytes sets them: a
						// value is never empty, so its pointer is within
						// base, and unsafe.Slice's tests of its length (6
						// instructions for each value found) are not
						// needed.
						n := int(m.end - m.val)
						*(*sliceHeader)(unsafe.Add(vp, uintptr(i)*unsafe.Sizeof(rawValue(nil)))) = sliceHeader{unsafe.Add(p, m.val), n, n}
					}
				}
			}
			// base and vals taken again from ix and vp: held through the
			// loop above for this one, they took six registers, and the
			// loop's own values were spilled for every member.
			// (Taken only when a member is left: most objects have none.)
			if k < len(ms) {
				base, vals := ix.base, unsafe.Slice((*rawValue)(vp), len(keys.names))
				for ; k < len(ms); k++ {
					m := &ms[k]
					keys.set(base[m.key:m.keyEnd], m.esc, base[m.val:m.end], vals)
				}
			}
			return
		}
	}
	scanFields(ix, v, keys, vals)
}

// set is jsFields' for one member: its name's body k, esc when it holds a
// backslash (or, from members, is not UTF-8). A name that is the bytes
// of one sought, UTF-8, is it; one that is not, and is UTF-8, is none;
// one that is not UTF-8 reads with U+FFFD, which no ASCII name holds, so
// it is passed over unchecked when every name is ASCII.
func (ks *jsKeys) set(k []byte, esc bool, val rawValue, vals []rawValue) {
	if !esc {
		for i := ks.first[min(len(k), 63)]; i >= 0; i = ks.next[i] {
			// Names of one length mostly differ in their first or last
			// byte ("timestamp" and "toolCalls"): tested before the call
			// that compares the rest.
			name := ks.names[i]
			if len(k) > 0 && (k[0] != name[0] || k[len(k)-1] != name[len(name)-1]) {
				continue
			}
			if string(k) == name {
				if ks.ascii>>i&1 != 0 || utf8.Valid(k) {
					vals[i] = val
					return
				}
				break // bytes that are not UTF-8 read otherwise
			}
		}
		if ks.allASCII || asciiOrUTF8(k) {
			return
		}
	}
	ks.setEscaped(k, val, vals)
}

// setEscaped is jsFields' for a member whose name is escaped (or not
// UTF-8), read as JSON.parse reads it.
func (ks *jsKeys) setEscaped(k []byte, val rawValue, vals []rawValue) {
	q := make([]byte, 0, len(k)+2)
	key, _ := jsUnquote(append(append(append(q, '"'), k...), '"'))
	if i := slices.Index(ks.names, key); i >= 0 {
		vals[i] = val
	}
}

// find is the index of the name whose bytes key's are, or -1: set's
// reading of a name not escaped when every name is ASCII, by words as
// jsFields' loop reads a noted member's, for scanFields, whose call to
// set passed four slices and compared a name found by a call (memequal).
// jsFields keeps its loop inline: calling find from it cost more.
func (ks *jsKeys) find(key []byte) int {
	i := ks.first[min(len(key), 63)]
	switch n := len(key); {
	case i < 0:
	case n <= 8:
		w, _ := keyWord(key)
		for ; i >= 0 && w != ks.word[i&63]; i = ks.next[i&63] {
		}
	case n <= 16:
		h, t := binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[n-8:])
		for ; i >= 0 && (h != ks.head[i&63] || t != ks.tail[i&63]); i = ks.next[i&63] {
		}
	default:
		for ; i >= 0 && string(key) != ks.names[i]; i = ks.next[i] {
		}
	}
	return int(i)
}

// lowBytes[n] keeps a word's first n bytes, 0 <= n <= 8 (little-endian):
// a load, where 1<<(8*n)-1 took five instructions with Go's test of a
// shift of 64.
var lowBytes = [16]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xff_ffffffff, 0xffff_ffffffff, 0xffffff_ffffffff, ^uint64(0)}

// wordAtPtr is the 8 bytes from p+at on, little-endian, loaded with no
// bounds check: the caller knows them within its slice's array.
func wordAtPtr(p unsafe.Pointer, at int32) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, at))[:])
}
