package rules

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
)

// A FiringList keeps firings packed, in order: a Firing is about 300
// bytes, most of them empty fields, and a steps log of 100 MB fires
// 160,000 times (a third of its peak memory as structs). A ReadReplay
// holds its firings so until Finish, and the outputs that list every
// firing (report's JSON and verbose text) until they write them, each
// read back in turn into one reused Firing (Iter).
//
// Each firing is a few varints, in blocks of up to 64 KiB (a list grown
// by append would allocate, copy and fault in about twice what it holds,
// a large one five times): the caller's tag, its rule and kind
// (indexes of rules and kinds), its turn, a mask of its non-zero fields
// (4 bytes) and those fields, strings as indexes of strs. A string is kept once
// however often it fires (a loop repeats its signature, task, action),
// and copied, so a firing's string that is a view of an episode's table
// does not hold that table. TestFiringListRoundTrip sets every field of
// Firing in turn, so a field added to Firing and not here fails it.
type FiringList struct {
	blocks [][]byte
	strs   []string
	ids    map[string]uint32 // strs' indexes
	rules  []*Rule
	kinds  []*Kind
	n      int
	// last holds, for each string field, the string it held in the
	// firing added last and its index: a rule that fires again and again
	// fires with the same unit, signature or cause, which a look at the
	// map hashed each time.
	last [lastFields]struct {
		s  string
		id uint32
	}
}

// lastFields is how many last strings a FiringList keeps, one for each
// field bit below it (the string fields' are); a slot is right for any
// field, holding a string and its index.
const lastFields = 32

// The fields of a Firing past Turn, Rule and Kind, by the index of
// their bit in a packed firing's mask: FiringIter.Next switches on it,
// dense from 0 (a jump table, where the bits themselves were a binary
// search of five tests a field).
const (
	bCause = iota
	bUrgency
	bTurnsStuck
	bTurnsUntilDeath
	bScore
	bVisits
	bPenalty
	bBase
	bAdjusted
	bHasBase
	bLowConfidence
	bPattern0
	bPattern1
	bLocation
	bDestination
	bAction
	bProposal
	bRejected
	bSignature
	bSimilarity
	bMatchedStep
	bTaskID
	bLoopType
	bRecommendation
	bAttemptCount
	bCycleLength
	bUnit
)

// The fields' bits in a packed firing's mask.
const (
	fCause           = 1 << bCause
	fUrgency         = 1 << bUrgency
	fTurnsStuck      = 1 << bTurnsStuck
	fTurnsUntilDeath = 1 << bTurnsUntilDeath
	fScore           = 1 << bScore
	fVisits          = 1 << bVisits
	fPenalty         = 1 << bPenalty
	fBase            = 1 << bBase
	fAdjusted        = 1 << bAdjusted
	fHasBase         = 1 << bHasBase
	fLowConfidence   = 1 << bLowConfidence
	fPattern0        = 1 << bPattern0
	fPattern1        = 1 << bPattern1
	fLocation        = 1 << bLocation
	fDestination     = 1 << bDestination
	fAction          = 1 << bAction
	fProposal        = 1 << bProposal
	fRejected        = 1 << bRejected
	fSignature       = 1 << bSignature
	fSimilarity      = 1 << bSimilarity
	fMatchedStep     = 1 << bMatchedStep
	fTaskID          = 1 << bTaskID
	fLoopType        = 1 << bLoopType
	fRecommendation  = 1 << bRecommendation
	fAttemptCount    = 1 << bAttemptCount
	fCycleLength     = 1 << bCycleLength
	fUnit            = 1 << bUnit
)

// A packed firing's mask is 4 bytes: every bit fits (a constant that
// overflows uint32 does not compile).
const _ uint32 = 2*fUnit - 1

// firingBlock is the size of a FiringList's largest blocks.
const firingBlock = 64 << 10

// Add appends f with tag, a small number the caller reads back beside it
// (FiringIter.Tag; a ReadReplay's reporting stepper). tag must not be
// negative.
func (l *FiringList) Add(f *Firing, tag int) {
	if n := len(l.blocks); n == 0 || cap(l.blocks[n-1])-len(l.blocks[n-1]) < maxPacked {
		// Blocks double up to firingBlock: an episode that fires a few
		// times does not allocate 64 KiB.
		size := 512
		if n > 0 {
			size = min(2*cap(l.blocks[n-1]), firingBlock)
		}
		l.blocks = append(l.blocks, make([]byte, 0, size))
	}
	// The block has room for any firing: its fields are written in
	// place as their bits are set, after the head and the mask's four
	// bytes, which are set last.
	b := l.blocks[len(l.blocks)-1]
	b = binary.AppendUvarint(b, uint64(tag))
	b = binary.AppendUvarint(b, uint64(indexOf(&l.rules, f.Rule)))
	b = binary.AppendUvarint(b, uint64(indexOf(&l.kinds, f.Kind)))
	b = binary.AppendVarint(b, int64(f.Turn))
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	var mask uint64
	str := func(bit uint64, s string) {
		if s != "" {
			mask |= bit
			last := &l.last[bits.TrailingZeros64(bit)%lastFields]
			if last.s != s {
				last.s, last.id = s, l.intern(s)
			}
			b = binary.AppendUvarint(b, uint64(last.id))
		}
	}
	num := func(bit uint64, n int) {
		if n != 0 {
			mask |= bit
			b = binary.AppendVarint(b, int64(n))
		}
	}
	flt := func(bit uint64, x float64) {
		if math.Float64bits(x) != 0 {
			mask |= bit
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	flag := func(bit uint64, b bool) {
		if b {
			mask |= bit
		}
	}
	// A firing sets two or three fields: the fields of a rule or two
	// (ZorkGPT's numbers and places, task_attempts') are passed over
	// together when all are zero, where each was tested in turn. The
	// fields are written in their bits' order all the same.
	str(fCause, f.Cause)
	str(fUrgency, f.Urgency)
	if uint64(f.TurnsStuck|f.TurnsUntilDeath|f.Visits)|math.Float64bits(f.Score)|math.Float64bits(f.Penalty)|
		math.Float64bits(f.Base)|math.Float64bits(f.Adjusted) != 0 {
		num(fTurnsStuck, f.TurnsStuck)
		num(fTurnsUntilDeath, f.TurnsUntilDeath)
		flt(fScore, f.Score)
		num(fVisits, f.Visits)
		flt(fPenalty, f.Penalty)
		flt(fBase, f.Base)
		flt(fAdjusted, f.Adjusted)
	}
	flag(fHasBase, f.HasBase)
	flag(fLowConfidence, f.LowConfidence)
	if len(f.Pattern[0])|len(f.Pattern[1])|len(f.Location)|len(f.Destination)|len(f.Action)|len(f.Proposal) != 0 {
		str(fPattern0, f.Pattern[0])
		str(fPattern1, f.Pattern[1])
		str(fLocation, f.Location)
		str(fDestination, f.Destination)
		str(fAction, f.Action)
		str(fProposal, f.Proposal)
	}
	flag(fRejected, f.Rejected)
	str(fSignature, f.Signature)
	flt(fSimilarity, f.Similarity)
	num(fMatchedStep, f.MatchedStep)
	if len(f.TaskID)|len(f.LoopType)|len(f.Recommendation)|f.AttemptCount != 0 {
		str(fTaskID, f.TaskID)
		str(fLoopType, f.LoopType)
		str(fRecommendation, f.Recommendation)
		num(fAttemptCount, f.AttemptCount)
	}
	num(fCycleLength, f.CycleLength)
	str(fUnit, f.Unit)
	binary.LittleEndian.PutUint32(b[at:], uint32(mask))
	l.blocks[len(l.blocks)-1] = b
	l.n++
}

// maxPacked bounds a packed firing's bytes: four varints of head, the
// mask, and a varint or a float64 for each field.
const maxPacked = 4*binary.MaxVarintLen64 + 4 + 27*binary.MaxVarintLen64

// intern returns s's index in strs, adding a copy of it when new.
func (l *FiringList) intern(s string) uint32 {
	if i, ok := l.ids[s]; ok {
		return i
	}
	if l.ids == nil {
		l.ids = map[string]uint32{}
	}
	i := uint32(len(l.strs))
	s = strings.Clone(s)
	l.strs = append(l.strs, s)
	l.ids[s] = i
	return i
}

// Len is the number of firings added.
func (l *FiringList) Len() int { return l.n }

// Reset empties the list for reuse, keeping its first block and, unless
// they grew large (a cleared map keeps its size), its strings' tables.
func (l *FiringList) Reset() {
	if len(l.blocks) > 0 {
		clear(l.blocks[1:])
		l.blocks = append(l.blocks[:0], l.blocks[0][:0])
	}
	if len(l.strs) > maxKeptStrings {
		l.strs, l.ids = nil, nil
	}
	clear(l.strs)
	clear(l.ids)
	clear(l.last[:]) // indexes of the strings let go
	clear(l.rules)
	clear(l.kinds)
	l.strs, l.rules, l.kinds, l.n = l.strs[:0], l.rules[:0], l.kinds[:0], 0
}

// maxKeptStrings bounds the distinct strings whose tables Reset keeps.
const maxKeptStrings = 1 << 10

// indexOf returns p's index in *list, appending it when new: a replay
// fires under a handful of rules and kinds, the last one most often.
func indexOf[T any](list *[]*T, p *T) int {
	l := *list
	for i := len(l) - 1; i >= 0; i-- {
		if l[i] == p {
			return i
		}
	}
	*list = append(l, p)
	return len(l)
}

// A FiringIter reads a FiringList from its start (FiringList.Iter).
type FiringIter struct {
	l     *FiringList
	block int // of l.blocks
	pos   int // in the block
	tag   int
}

// Iter starts reading l; l must not be added to while it is read.
func (l *FiringList) Iter() FiringIter { return FiringIter{l: l} }

// Tag is the tag the firing Next last read was added with.
func (it *FiringIter) Tag() int { return it.tag }

// Next reads the next firing into f, false at the end. A firing sets two
// or three of its fields: they are read walking the mask's set bits (in
// Add's order, the bits'), where each of the 27 fields was tested in
// turn, and a varint of one byte, most of them, is read inline.
func (it *FiringIter) Next(f *Firing) bool {
	l := it.l
	for it.block < len(l.blocks) && it.pos >= len(l.blocks[it.block]) {
		it.block, it.pos = it.block+1, 0
	}
	if it.block >= len(l.blocks) {
		return false
	}
	d := firingReader{b: l.blocks[it.block], p: it.pos}
	it.tag = int(d.uvarint())
	*f = Firing{Rule: l.rules[d.uvarint()], Kind: l.kinds[d.uvarint()], Turn: d.varint()}
	mask := d.mask()
	f.HasBase = mask&fHasBase != 0
	f.LowConfidence = mask&fLowConfidence != 0
	f.Rejected = mask&fRejected != 0
	for m := mask &^ (fHasBase | fLowConfidence | fRejected); m != 0; m &= m - 1 {
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
			f.Unit = l.strs[d.uvarint()]
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

func (d *firingReader) mask() uint64 {
	m := binary.LittleEndian.Uint32(d.b[d.p:])
	d.p += 4
	return uint64(m)
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
