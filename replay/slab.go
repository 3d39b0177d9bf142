package replay

import (
	"strings"
	"unsafe"
)

// slab hands out short slices of one allocation at a time: a Gemini CLI
// session's messages and their steps, two small allocations a message,
// were each made alone (a message's steps copied out at their number).
// A slab is let go once every slice of it is: its holders clear what
// they let go (a message handed over), so that what a slice held (its
// strings) goes before the slab does.
type slab[T any] struct{ free []T }

// slabLen is how many values a slab holds, or the slice, if longer.
const slabLen = 64

// take returns a slice of n zero values, whose appends do not reach the
// rest of the slab.
func (s *slab[T]) take(n int) []T {
	if n > len(s.free) {
		s.free = make([]T, max(n, slabLen))
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// makeNoZero returns an empty slice of at least n bytes' room that the
// allocator did not clear first, for the blocks that are only ever
// appended to and read back where written (symtab's arena, outputCopies):
// make clears each block of up to a MiB before the appends write it over,
// 0.7% of an OpenHands V1 run for each of the two (memclrNoHeapPointers).
// strings.Builder's Grow is the standard library's way to such memory
// (bytealg.MakeNoZero); the builder is dropped and its one byte's string
// with it, so the block is the slice's alone.
func makeNoZero(n int) []byte {
	var b strings.Builder
	b.Grow(max(n, 1))
	b.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(b.String()), max(n, 1))[:0]
}
