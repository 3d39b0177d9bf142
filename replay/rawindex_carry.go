package replay

// The pass's calls out (rawindex_pass.go). Each takes the pass's level
// and hands it back unchanged, so that the pass holds no value of its
// own across a call: Go's register allocator spills a value live across
// a call at the block that dominates every reload after one, which for
// the pass's depth, closing byte and last member was the head of its
// value and key steps, four stores at every value and three at every
// key of every record (and reloads inside the short-string loop, the
// registers taken). A function that carries them spills them itself, on
// its own path only. Each is kept out of line (go:noinline): inlined,
// its call's liveness is the pass's again.

import "slices"

// passLevel is where the pass is in the record: d open containers, the
// innermost one's closing byte (0 at the top), and the member noted
// whose value is read (the pass's sink, never nil, when the innermost
// container is not an object whose members are noted; a member's list
// grows only while an object of its level is the innermost container,
// so the pointer holds).
type passLevel struct {
	last   *ixMember
	d      int
	closer byte
}

// longString validates the string at b[i] that the pass did not tell by
// its words, noting its span when it is long enough. The string's first
// word holds no closing quote for the pass's first stop, or it is within
// shortString bytes of b's end: it goes straight to stringClose, which
// reads any string from its body to its end as validString does, where
// validString would test that first word again before calling it.
//
//go:noinline
func (ix *valueIndex) longString(b []byte, i int, lv passLevel) (int, passLevel) {
	var end int
	if stringCloses && len(b) >= 32 {
		end, _ = stringClose(b, i+1)
	} else {
		end, _ = validString(b, i)
	}
	if end-i >= indexMin {
		ix.spans = append(ix.spans, ixSpan{int32(i), int32(end)})
	}
	return end, lv
}

// addSpan notes a span (an empty container with space in it).
//
//go:noinline
func (ix *valueIndex) addSpan(from, to int, lv passLevel) passLevel {
	ix.spans = append(ix.spans, ixSpan{int32(from), int32(to)})
	return lv
}

// numberCarry is jsonNumber(b, i).
//
//go:noinline
func numberCarry(b []byte, i int, lv passLevel) (int, passLevel) {
	return jsonNumber(b, i), lv
}

// otherValue reads the value at b[i] that starts with none of the bytes
// the pass reads itself: a negative number, NaN or an infinity (noted in
// ix.nonFinite), or -1.
//
//go:noinline
func (ix *valueIndex) otherValue(b []byte, i int, lv passLevel) (int, passLevel) {
	switch b[i] {
	case '-':
		if i+1 < len(b) && b[i+1] == 'I' {
			i = literal(b, i, "-Infinity")
			ix.nonFinite = ix.nonFinite || i >= 0
			return i, lv
		}
		return jsonNumber(b, i), lv
	case 'N':
		i = literal(b, i, "NaN")
	case 'I':
		i = literal(b, i, "Infinity")
	default:
		return -1, lv
	}
	ix.nonFinite = ix.nonFinite || i >= 0
	return i, lv
}

// keyCarry is validString(b, i), for a key; it hands back the key's
// start too.
//
//go:noinline
func keyCarry(b []byte, i int, lv passLevel) (_, end int, esc bool, _ passLevel) {
	end, esc = validString(b, i)
	return i, end, esc, lv
}

// noteGrown appends m to its level's members, whose list is full, and
// makes it the member whose value is read.
//
//go:noinline
func (ix *valueIndex) noteGrown(m ixMember, lv passLevel) passLevel {
	ms := append(ix.mems[lv.d-1], m)
	ix.mems[lv.d-1] = ms
	lv.last = &ms[len(ms)-1]
	return lv
}

// roomToOpen gives the frames, spans and objects room for one more
// each, for the container at b[i] == c the pass opens.
//
//go:noinline
func (ix *valueIndex) roomToOpen(i int, c byte, lv passLevel) (int, byte, passLevel) {
	ix.frames = slices.Grow(ix.frames, 1)
	ix.spans = slices.Grow(ix.spans, 1)
	ix.objs = slices.Grow(ix.objs, 1)
	return i, c, lv
}
