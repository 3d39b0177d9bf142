package replay

// flatMember is a whole member as flatLine last read it after a member
// (stepPaths.members, by the index of stepPaths.next): its key, its ": ",
// its value and the ", " or "}" after it, n bytes, 8 to 24, in three
// words (w, masked by m), the value at [vs, ve) in them. The same bytes
// at the same place of a later line are the same member, read the same:
// flatLine takes them with no reading. n is 0 until one is noted.
type flatMember struct {
	w, m   [3]uint64
	n      uint8
	vs, ve uint8
	field  int8
	// end says the member ends the object (its "}").
	end bool
	// num says the value is the score read as 1 to 15 digits, d
	// (stepPaths.numAt[1], num[1]).
	num bool
	d   uint64
}

// memberNoted are the fields whose members noteMember notes: not the
// step, whose number changes every line, nor the output, long and
// written as it is read (lineCopy).
const memberNoted = (1<<numStepFields - 1) &^ (1<<sfStep | 1<<sfOutput)

// noteMember notes the member of field f at line[from:to] (its value at
// [start, to-2) or, ending the object, [start, to-1)) in p.members[at]
// for the lines after, when it is 8 to 24 bytes.
func (p *stepPaths) noteMember(at int, line []byte, from, start, to, f int, end bool) {
	k := to - from
	if uint(k-8) > 16 || from+24 > len(line) {
		return
	}
	m := &p.members[at&15]
	p.older[at&15] = *m // the member noted before, which flatLine tests second
	m.n, m.vs, m.ve, m.field, m.end = uint8(k), uint8(start-from), uint8(k-2), int8(f), end
	if end {
		m.ve = uint8(k - 1)
	}
	m.m = memberMasks[k-8]
	m.w[0], m.w[1], m.w[2] = wordAt(line, from), wordAt(line, from+8)&m.m[1], wordAt(line, from+16)&m.m[2]
	m.num, m.d = false, 0
	if f == sfScore && p.numAt[1] == addrAt(line, start) {
		m.num, m.d = true, p.num[1]
	}
}

// memberMasks are the masks of a member of 8 to 24 bytes' three words,
// by its length less 8: the bytes of each word in the member, 8, then
// k-8 and k-16 from 0 to 8.
var memberMasks = func() (mm [17][3]uint64) {
	for k := 8; k <= 24; k++ {
		mm[k-8] = [3]uint64{^uint64(0), ^uint64(0) >> (64 - 8*uint(min(k-8, 8))), ^uint64(0) >> (64 - 8*uint(max(k-16, 0)))}
	}
	return mm
}()
