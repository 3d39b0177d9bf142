package detect

// A mirror keeps the last cap values pushed, oldest first, as one slice
// (window) that no push copies: the value pushed at position p (the
// values pushed, modulo cap) is written at p and at p+cap of an array of
// 2·cap, so the last n values are always the n contiguous ones ending
// at cap past the next position. The OpenHands detector pushes an action
// and an observation at each step, and a ring's push, which slides its
// window along its array, rewrote the window's slice header (a pointer,
// tested for the write barrier, its length and capacity, and the value
// let go of cleared) and copied the window back every cap pushes: some
// 67 instructions a push, where a mirror's are some 25. It holds the
// values a ring holds (each twice), no more: the last cap ones.
type mirror[T any] struct {
	all  []T // 2·cap values
	next int // the position of the next value, in [0, cap)
	n    int // the values held, up to cap
	cap  int
}

func newMirror[T any](capacity int) mirror[T] {
	c := max(capacity, 1)
	return mirror[T]{all: make([]T, 2*c), cap: c}
}

func (r *mirror[T]) push(v T) {
	p := r.next
	r.all[p], r.all[p+r.cap] = v, v
	if p++; p == r.cap { // wrapped by a compare, where % divided
		p = 0
	}
	r.next = p
	if r.n < r.cap {
		r.n++
	}
}

// window returns the values held, oldest first; the slice is the
// mirror's until the next push or reset.
func (r *mirror[T]) window() []T {
	end := r.next + r.cap
	return r.all[end-r.n : end : end]
}

// back returns the k-th value from the latest (1: the latest), for k in
// [1, n]: pushRuns reads the last two so, where a window's slice
// expression tested its bounds and masked its pointer.
func (r *mirror[T]) back(k int) T { return r.all[r.next+r.cap-k] }

// last returns the last n values, nil when there are fewer.
func (r *mirror[T]) last(n int) []T {
	if r.n < n {
		return nil
	}
	end := r.next + r.cap
	return r.all[end-n : end : end]
}

// reset empties the mirror, letting go of its values.
func (r *mirror[T]) reset() {
	clear(r.all)
	r.next, r.n = 0, 0
}
