package replay

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
