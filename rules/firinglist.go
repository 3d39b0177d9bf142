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
// Each firing is a few bytes, in blocks of up to 64 KiB (a list grown
// by append would allocate, copy and fault in about twice what it holds,
// a large one five times): its head (a uvarint, the index in heads of its
// tag, rule and kind: a stepper fires under one rule and a kind or two),
// a mask of its non-zero fields (4 bytes), its turn (4 bytes, 8 when
// fTurnLong) and those fields, strings as indexes of strs. A string is kept once
// however often it fires (a loop repeats its signature, task, action),
// and copied, so a firing's string that is a view of an episode's table
// does not hold that table. TestFiringListRandomFields sets every field
// of Firing at random, so a field added to Firing and not here fails it.
type FiringList struct {
	blocks [][]byte // full, before cur
	cur    []byte   // the block being filled; nil before the first Add
	strs   []string
	ids    map[string]uint32 // strs' indexes
	heads  []firingHead
	headID map[firingHead]uint32 // heads' indexes
	// byTag holds, for a tag (modulo headSlots), the head added with it
	// last and its index plus one (0: none): a stepper fires again and
	// again under the same rule and kind, where a look up of the rule's
	// and the kind's indexes was two scans from the last.
	byTag [headSlots]struct {
		firingHead
		id1 uint32
	}
	n int
	// last holds, for each string field, the string it held in the
	// firing added last and its index: a rule that fires again and again
	// fires with the same unit, signature or cause, which a look at the
	// map hashed each time.
	last [lastFields]struct {
		s  string
		id uint32
	}
}

// A firingHead is what a packed firing's head stands for.
type firingHead struct {
	rule *Rule
	kind *Kind
	tag  int
}

// headSlots is how many tags' last heads a FiringList keeps (a replay's
// steppers, a report's two tags).
const headSlots = 64

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
	// bTurnLong is no field: the firing's turn is 8 bytes, where a turn
	// in [0, 2^32) is 4.
	bTurnLong
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
	fTurnLong        = 1 << bTurnLong
)

// A packed firing's mask is 4 bytes: every bit fits (a constant that
// overflows uint32 does not compile).
const _ uint32 = 2*fTurnLong - 1

// firingBlock is the size of a FiringList's largest blocks.
const firingBlock = 64 << 10

// Add appends f with tag, a small number the caller reads back beside it
// (FiringIter.Tag; a ReadReplay's reporting stepper). tag must not be
// negative.
func (l *FiringList) Add(f *Firing, tag int) {
	// The block has room for any firing: its fields are written in
	// place as their bits are set, after the head, the mask's four
	// bytes, which are set last, and the turn.
	b := l.open(f.Rule, f.Kind, tag)
	at := len(b)
	var mask uint64
	if t := uint64(f.Turn); t < 1<<32 {
		// The mask's four bytes (0 until set) and the turn's, in one.
		b = binary.LittleEndian.AppendUint64(b, t<<32)
	} else {
		mask = fTurnLong
		b = binary.LittleEndian.AppendUint32(b, 0)
		b = binary.LittleEndian.AppendUint64(b, t)
	}
	str := func(bit uint64, s string) {
		if s != "" {
			mask |= bit
			b = appendID(b, l.strID(bits.TrailingZeros64(bit), s))
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
	l.seal(b, at, uint32(mask))
}

// AddBare is Add of Firing{Turn: turn, Rule: rule, Kind: kind}, the
// same bytes written: its head, then the mask's four zero bytes and the
// turn's four in one word, where Add tested each of the firing's fields.
func (l *FiringList) AddBare(turn int, rule *Rule, kind *Kind, tag int) {
	if uint64(turn) >= 1<<32 {
		l.Add(&Firing{Turn: turn, Rule: rule, Kind: kind}, tag)
		return
	}
	l.cur = binary.LittleEndian.AppendUint64(l.open(rule, kind, tag), uint64(turn)<<32)
	l.n++
}

// AddMatch is Add of Firing{Turn: turn, Rule: rule, Kind: kind,
// Similarity: similarity, MatchedStep: matched} (fuzzy_repeat's), the
// same bytes written, with no other field tested.
func (l *FiringList) AddMatch(turn int, rule *Rule, kind *Kind, similarity float64, matched, tag int) {
	if uint64(turn) >= 1<<32 {
		l.Add(&Firing{Turn: turn, Rule: rule, Kind: kind, Similarity: similarity, MatchedStep: matched}, tag)
		return
	}
	b := l.open(rule, kind, tag)
	at := len(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(turn)<<32)
	var mask uint32
	if x := math.Float64bits(similarity); x != 0 {
		mask |= fSimilarity
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	if matched != 0 {
		mask |= fMatchedStep
		b = binary.AppendVarint(b, int64(matched))
	}
	l.seal(b, at, mask)
}

// seal ends the firing written into b (open's) from at: its mask set in
// its four bytes at at, the block's bytes kept.
func (l *FiringList) seal(b []byte, at int, mask uint32) {
	binary.LittleEndian.PutUint32(b[at:], mask)
	l.cur = b
	l.n++
}

// open makes room in the block for any firing and writes the head of one
// of rule, kind and tag: the block's bytes with it, for Add, AddBare,
// AddMatch, AddCause and AddSignature to write the rest.
func (l *FiringList) open(rule *Rule, kind *Kind, tag int) []byte {
	if cap(l.cur)-len(l.cur) < maxPacked {
		l.grow()
	}
	return appendID(l.cur, l.headOf(rule, kind, tag))
}

// grow starts a new block. Blocks double up to firingBlock: an episode
// that fires a few times does not allocate 64 KiB.
func (l *FiringList) grow() {
	size := 512
	if l.cur != nil {
		size = min(2*cap(l.cur), firingBlock)
		l.blocks = append(l.blocks, l.cur)
	}
	l.cur = make([]byte, 0, size)
}

// headOf returns the index in heads of a firing's rule, kind and tag,
// adding them when new.
func (l *FiringList) headOf(rule *Rule, kind *Kind, tag int) uint32 {
	h := firingHead{rule, kind, tag}
	s := &l.byTag[uint(tag)%headSlots]
	if s.firingHead == h && s.id1 != 0 {
		return s.id1 - 1
	}
	id, ok := l.headID[h]
	if !ok {
		if l.headID == nil {
			l.headID = map[firingHead]uint32{}
		}
		id = uint32(len(l.heads))
		l.heads = append(l.heads, h)
		l.headID[h] = id
	}
	s.firingHead, s.id1 = h, id+1
	return id
}

// maxPacked bounds a packed firing's bytes: the head's varint, the mask,
// the turn, and a varint or a float64 for each field.
const maxPacked = binary.MaxVarintLen64 + 4 + 8 + 27*binary.MaxVarintLen64

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
// they grew large (a cleared map keeps its size), its strings' and heads'
// tables.
func (l *FiringList) Reset() {
	if len(l.blocks) > 0 {
		l.cur = l.blocks[0]
		clear(l.blocks)
		l.blocks = l.blocks[:0]
	}
	l.cur = l.cur[:0]
	if len(l.strs) > maxKeptStrings {
		l.strs, l.ids = nil, nil
	}
	clear(l.strs)
	clear(l.ids)
	clear(l.last[:]) // indexes of the strings let go
	if len(l.heads) > maxKeptStrings {
		l.heads, l.headID = nil, nil
	}
	clear(l.heads)
	clear(l.headID)
	clear(l.byTag[:])
	l.strs, l.heads, l.n = l.strs[:0], l.heads[:0], 0
}

// maxKeptStrings bounds the distinct strings (and heads) whose tables
// Reset keeps.
const maxKeptStrings = 1 << 10
