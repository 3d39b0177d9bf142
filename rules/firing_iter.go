package rules

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Reading a FiringList back (firinglist.go): a firing at a time into one
// reused Firing.

// A FiringIter reads a FiringList from its start (FiringList.Iter).
type FiringIter struct {
	l *FiringList
	// b is the block being read, its index in l.blocks block (l.cur
	// at len(l.blocks)): a firing tests only its position against b's
	// length, where it looked b up at each (a loop's test of block and
	// position, and the block's slice loaded).
	b     []byte
	block int
	pos   int // in b
	tag   int
	set   uint64 // the fields (their bits) the last NextOver set
	// unit, when not "", is the Unit NextOver gives every firing, over
	// the one recorded (Finish's: as Env.Report sets it), where Finish
	// stored it after each NextOver had cleared it (a string store and
	// its write barrier's test, tens of thousands of times an episode).
	unit string
}

// Iter starts reading l; l must not be added to while it is read.
func (l *FiringList) Iter() FiringIter {
	it := FiringIter{l: l, b: l.cur}
	if len(l.blocks) > 0 {
		it.b = l.blocks[0]
	}
	return it
}

// nextBlock moves it to the next block with a firing left to read, false
// when none.
func (it *FiringIter) nextBlock() bool {
	l := it.l
	for it.pos >= len(it.b) {
		if it.block >= len(l.blocks) {
			return false // b is l.cur
		}
		it.block, it.pos = it.block+1, 0
		it.b = l.cur
		if it.block < len(l.blocks) {
			it.b = l.blocks[it.block]
		}
	}
	return true
}

// Tag is the tag the firing Next last read was added with.
func (it *FiringIter) Tag() int { return it.tag }

// Next reads the next firing into f, false at the end (f then zero). A
// firing sets two or three of its fields: they are read walking the
// mask's set bits (in Add's order, the bits'), where each of the 27
// fields was tested in turn, and a varint of one byte, most of them, is
// read inline.
func (it *FiringIter) Next(f *Firing) bool {
	*f = Firing{}
	it.set = 0
	return it.NextOver(f)
}

// NextOver is Next into the Firing the last NextOver read, or a zero
// one, unchanged since (but for its Unit, which it sets: the iterator's
// unit when it has one, else the one recorded or ""): it clears only the fields
// that firing set and this one does not, where Next clears all of f
// (336 bytes, ~45 instructions, a fourth of a firing's reading when it
// sets two or three fields). Finish reads a replay's firings so, tens of
// thousands an episode on a steps log, and its report changes none.
func (it *FiringIter) NextOver(f *Firing) bool {
	if it.pos >= len(it.b) && !it.nextBlock() {
		return false
	}
	l := it.l
	d := firingReader{b: it.b, p: it.pos}
	h := &l.heads[d.uvarint()]
	it.tag = h.tag
	// The mask and a turn of four bytes are one word: one load and one
	// test of the block's length, where each was read by its own.
	mt := d.u64()
	mask := mt & (1<<32 - 1)
	turn := mt >> 32
	if mask&fTurnLong != 0 {
		d.p -= 4
		turn = d.u64()
	}
	const flags = fHasBase | fLowConfidence | fRejected | fTurnLong
	// Only the fields the last firing set and this one does not are
	// cleared, where the whole Firing (336 bytes) was zeroed when any was.
	for m := it.set &^ mask; m != 0; m &= m - 1 {
		switch bits.TrailingZeros64(m) {
		case bCause:
			f.Cause = ""
		case bUrgency:
			f.Urgency = ""
		case bTurnsStuck:
			f.TurnsStuck = 0
		case bTurnsUntilDeath:
			f.TurnsUntilDeath = 0
		case bScore:
			f.Score = 0
		case bVisits:
			f.Visits = 0
		case bPenalty:
			f.Penalty = 0
		case bBase:
			f.Base = 0
		case bAdjusted:
			f.Adjusted = 0
		case bPattern0:
			f.Pattern[0] = ""
		case bPattern1:
			f.Pattern[1] = ""
		case bLocation:
			f.Location = ""
		case bDestination:
			f.Destination = ""
		case bAction:
			f.Action = ""
		case bProposal:
			f.Proposal = ""
		case bSignature:
			f.Signature = ""
		case bSimilarity:
			f.Similarity = 0
		case bMatchedStep:
			f.MatchedStep = 0
		case bTaskID:
			f.TaskID = ""
		case bLoopType:
			f.LoopType = ""
		case bRecommendation:
			f.Recommendation = ""
		case bAttemptCount:
			f.AttemptCount = 0
		case bCycleLength:
			f.CycleLength = 0
		}
	}
	f.Turn, f.Rule, f.Kind, f.Unit = int(turn), h.rule, h.kind, it.unit
	it.set = mask &^ flags
	f.HasBase = mask&fHasBase != 0
	f.LowConfidence = mask&fLowConfidence != 0
	f.Rejected = mask&fRejected != 0
	for m := it.set; m != 0; m &= m - 1 {
		switch bits.TrailingZeros64(m) {
		case bCause:
			f.Cause = l.strs[d.uvarint()]
		case bUrgency:
			f.Urgency = l.strs[d.uvarint()]
		case bTurnsStuck:
			f.TurnsStuck = d.varint()
		case bTurnsUntilDeath:
			f.TurnsUntilDeath = d.varint()
		case bScore:
			f.Score = d.float()
		case bVisits:
			f.Visits = d.varint()
		case bPenalty:
			f.Penalty = d.float()
		case bBase:
			f.Base = d.float()
		case bAdjusted:
			f.Adjusted = d.float()
		case bPattern0:
			f.Pattern[0] = l.strs[d.uvarint()]
		case bPattern1:
			f.Pattern[1] = l.strs[d.uvarint()]
		case bLocation:
			f.Location = l.strs[d.uvarint()]
		case bDestination:
			f.Destination = l.strs[d.uvarint()]
		case bAction:
			f.Action = l.strs[d.uvarint()]
		case bProposal:
			f.Proposal = l.strs[d.uvarint()]
		case bSignature:
			f.Signature = l.strs[d.uvarint()]
		case bSimilarity:
			f.Similarity = d.float()
		case bMatchedStep:
			f.MatchedStep = d.varint()
		case bTaskID:
			f.TaskID = l.strs[d.uvarint()]
		case bLoopType:
			f.LoopType = l.strs[d.uvarint()]
		case bRecommendation:
			f.Recommendation = l.strs[d.uvarint()]
		case bAttemptCount:
			f.AttemptCount = d.varint()
		case bCycleLength:
			f.CycleLength = d.varint()
		case bUnit:
			if u := l.strs[d.uvarint()]; it.unit == "" {
				f.Unit = u
			}
		}
	}
	it.pos = d.p
	return true
}

// firingReader reads a packed firing's values from b at p.
type firingReader struct {
	b []byte
	p int
}

// uvarint is small enough to be inlined, its call made only for a value
// of two bytes or more.
func (d *firingReader) uvarint() uint64 {
	if c := d.b[d.p]; c < 0x80 {
		d.p++
		return uint64(c)
	}
	return d.uvarintLong()
}

func (d *firingReader) uvarintLong() uint64 {
	v, n := binary.Uvarint(d.b[d.p:])
	d.p += n
	return v
}

func (d *firingReader) u64() uint64 {
	v := binary.LittleEndian.Uint64(d.b[d.p:])
	d.p += 8
	return v
}

func (d *firingReader) varint() int {
	u := d.uvarint()
	return int(int64(u>>1) ^ -int64(u&1)) // binary.Varint's zig-zag
}

func (d *firingReader) float() float64 {
	x := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.p:]))
	d.p += 8
	return x
}
