package replay

// An object's key as the canonical writer appends it (appendKeyColon, for
// rawcanon.go's appendCanon and keepAll): the plain key, nearly every
// key, tested and stored by words.

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// plainKeyByte marks the bytes appendGoString writes as they are (with
// html): printable ASCII but '"', '\\', '<', '>' and '&'.
var plainKeyByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7F; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendKeyColon appends an object's key as appendGoString(dst, k,
// true) does, and the colon after it: a key of plain bytes (keyStop), as
// nearly every key is, between quotes at once. Its bytes are tested
// eight at a time, where a loop looked each up in plainKeyByte (~4
// instructions a byte, 2% of an OpenHands log's reading); a key of fewer
// than 8 bytes is one word when its array holds 8 from its start (a key
// in a record is followed by its quote, a colon and a value), the bytes
// past it taken as plain. A plain key of 16 bytes or fewer read in words
// (nearly every key) is stored as the words it was tested in, with its
// quotes and the colon, into room for 19 bytes (the bytes past the key's
// end written over): three appends, the key's a call to memmove, took
// ~25 instructions more, and the colon's append (the writers' own,
// after an appendKey) ~5. Those words may write up to 19 bytes past len(dst),
// past the slice returned: k must not be a view of dst's array (a key is
// a view of its record or a copy of its own, never of the buffer
// written).
func appendKeyColon(dst, k []byte) []byte {
	const ones = 0x0101010101010101
	var first, last uint64 // with words, k's first and last words
	stop, words := uint64(0), false
	n := len(k)
	switch {
	case n > 16:
		for i := 0; i < n-8; i += 8 {
			stop |= keyStop(binary.LittleEndian.Uint64(k[i:]))
		}
		stop |= keyStop(binary.LittleEndian.Uint64(k[n-8:]))
	case n >= 8:
		first, last = binary.LittleEndian.Uint64(k), binary.LittleEndian.Uint64(k[n-8:])
		stop, words = keyStop(first)|keyStop(last), true
	case cap(k) >= 8:
		in := uint64(1)<<(8*n) - 1
		first = binary.LittleEndian.Uint64(k[:8])
		stop, words = keyStop(first&in|ones*'a'&^in), true
	default:
		for _, c := range k {
			if !plainKeyByte[c] {
				stop = 1
			}
		}
	}
	if words && stop == 0 {
		// The first word (with n < 8, the bytes after the key too), the
		// last (the word that ends the key, with n > 8), the closing quote
		// and the colon over the bytes past the key's end.
		// Stored through a pointer into the room made: slices of dst
		// cost a bounds test each.
		at := len(dst)
		if cap(dst)-at < keyWordsRoom {
			dst = growKey(dst)
		}
		p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(dst)), at)
		*(*byte)(p) = '"'
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, 1))[:], first)
		if n > 8 {
			binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, n-7))[:], last)
		}
		binary.LittleEndian.PutUint16((*[2]byte)(unsafe.Add(p, n+1))[:], '"'|':'<<8)
		return dst[:at+n+3]
	}
	if stop != 0 {
		dst = appendGoString(dst, k, true)
	} else {
		dst = append(dst, '"')
		dst = append(dst, k...)
		dst = append(dst, '"')
	}
	return append(dst, ':')
}

// keyWordsRoom is the room appendKeyColon's words need: a quote, 16 bytes of
// key, a quote and a colon.
const keyWordsRoom = 19

// growKey is slices.Grow(dst, keyWordsRoom), out of appendKeyColon's line.
//
//go:noinline
func growKey(dst []byte) []byte { return slices.Grow(dst, keyWordsRoom) }

// keyStop is nonzero when x holds a byte appendGoString (with html)
// does not write as it is: below 0x20, '"', '\\', '<', '>', '&', or over
// 0x7f (its high bit marks the lowest such byte; those above it may be
// marked or not, appendKeyColon asks only whether there is one). As stopMask:
// XOR with 0x02 moves '"' to 0x20 and the control bytes among
// themselves, so that exactly they are below 0x21; ORed with 0x02,
// exactly '<' and '>' are '>'; a byte equal to one sought is zero after
// the XOR and borrows on subtracting 1; x's own high bits flag the bytes
// over 0x7f. A borrow runs on only from a byte marked. Fifteen
// operations and six constants, where a test a byte (0x7f too, which
// appendGoString writes as it is) took 22 and nine.
func keyStop(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quoteCtl := (x ^ ones*0x02) - ones*0x21
	angle := ((x | ones*0x02) ^ ones*'>') - ones
	amp, bs := (x^ones*'&')-ones, (x^ones*'\\')-ones
	return (quoteCtl | angle | amp | bs | x) & highs
}
