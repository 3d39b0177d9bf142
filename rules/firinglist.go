package rules

import (
	"encoding/binary"
	"math"
)

// firingList keeps firings packed, in order, for a ReadReplay: a Firing
// is about 300 bytes, most of them empty fields, and a steps log of 100
// MB fires 160,000 times (a third of its peak memory as structs). Each
// firing is a few varints: who reported it, its rule and kind (indexes
// of rules and kinds), its turn, a mask of its non-zero fields and those
// fields, strings as indexes of strs. Unit is left out: Env.Report sets
// it to the replay's unit. TestFiringListRoundTrip sets every field of
// Firing in turn, so a field added to Firing and not here fails it.
type firingList struct {
	buf   []byte
	vals  []byte // add's scratch
	strs  []string
	rules []*Rule
	kinds []*Kind
}

// The fields of a Firing past Turn, Rule and Kind, by their bit in a
// packed firing's mask.
const (
	fCause = 1 << iota
	fUrgency
	fTurnsStuck
	fTurnsUntilDeath
	fScore
	fVisits
	fPenalty
	fBase
	fAdjusted
	fHasBase
	fLowConfidence
	fPattern0
	fPattern1
	fLocation
	fDestination
	fAction
	fProposal
	fRejected
	fSignature
	fSimilarity
	fMatchedStep
	fTaskID
	fLoopType
	fRecommendation
	fAttemptCount
	fCycleLength
)

// add appends f, reported by stepper by.
func (l *firingList) add(f *Firing, by int) {
	// The fields are written to vals as their bits are set, then the
	// mask and vals after the firing's head.
	var mask uint64
	vals := l.vals[:0]
	str := func(bit uint64, s string) {
		if s != "" {
			mask |= bit
			vals = binary.AppendUvarint(vals, uint64(len(l.strs)))
			l.strs = append(l.strs, s)
		}
	}
	num := func(bit uint64, n int) {
		if n != 0 {
			mask |= bit
			vals = binary.AppendVarint(vals, int64(n))
		}
	}
	flt := func(bit uint64, x float64) {
		if math.Float64bits(x) != 0 {
			mask |= bit
			vals = binary.LittleEndian.AppendUint64(vals, math.Float64bits(x))
		}
	}
	flag := func(bit uint64, b bool) {
		if b {
			mask |= bit
		}
	}
	str(fCause, f.Cause)
	str(fUrgency, f.Urgency)
	num(fTurnsStuck, f.TurnsStuck)
	num(fTurnsUntilDeath, f.TurnsUntilDeath)
	flt(fScore, f.Score)
	num(fVisits, f.Visits)
	flt(fPenalty, f.Penalty)
	flt(fBase, f.Base)
	flt(fAdjusted, f.Adjusted)
	flag(fHasBase, f.HasBase)
	flag(fLowConfidence, f.LowConfidence)
	str(fPattern0, f.Pattern[0])
	str(fPattern1, f.Pattern[1])
	str(fLocation, f.Location)
	str(fDestination, f.Destination)
	str(fAction, f.Action)
	str(fProposal, f.Proposal)
	flag(fRejected, f.Rejected)
	str(fSignature, f.Signature)
	flt(fSimilarity, f.Similarity)
	num(fMatchedStep, f.MatchedStep)
	str(fTaskID, f.TaskID)
	str(fLoopType, f.LoopType)
	str(fRecommendation, f.Recommendation)
	num(fAttemptCount, f.AttemptCount)
	num(fCycleLength, f.CycleLength)

	b := l.buf
	b = binary.AppendUvarint(b, uint64(by))
	b = binary.AppendUvarint(b, uint64(indexOf(&l.rules, f.Rule)))
	b = binary.AppendUvarint(b, uint64(indexOf(&l.kinds, f.Kind)))
	b = binary.AppendVarint(b, int64(f.Turn))
	b = binary.AppendUvarint(b, mask)
	l.buf, l.vals = append(b, vals...), vals
}

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

// firingIter reads a firingList from its start; by is the reporting
// stepper of the firing next last read.
type firingIter struct {
	l   *firingList
	pos int
	by  int
}

func (l *firingList) iter() *firingIter { return &firingIter{l: l} }

// next reads the next firing into f, false at the end.
func (it *firingIter) next(f *Firing) bool {
	l := it.l
	if it.pos >= len(l.buf) {
		return false
	}
	b := l.buf[it.pos:]
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		b = b[n:]
		return v
	}
	sv := func() int {
		v, n := binary.Varint(b)
		b = b[n:]
		return int(v)
	}
	it.by = int(uv())
	*f = Firing{Rule: l.rules[uv()], Kind: l.kinds[uv()], Turn: sv()}
	mask := uv()
	getStr := func(bit uint64, s *string) {
		if mask&bit != 0 {
			*s = l.strs[uv()]
		}
	}
	getNum := func(bit uint64, n *int) {
		if mask&bit != 0 {
			*n = sv()
		}
	}
	getFlt := func(bit uint64, x *float64) {
		if mask&bit != 0 {
			*x = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
	}
	getStr(fCause, &f.Cause)
	getStr(fUrgency, &f.Urgency)
	getNum(fTurnsStuck, &f.TurnsStuck)
	getNum(fTurnsUntilDeath, &f.TurnsUntilDeath)
	getFlt(fScore, &f.Score)
	getNum(fVisits, &f.Visits)
	getFlt(fPenalty, &f.Penalty)
	getFlt(fBase, &f.Base)
	getFlt(fAdjusted, &f.Adjusted)
	f.HasBase = mask&fHasBase != 0
	f.LowConfidence = mask&fLowConfidence != 0
	getStr(fPattern0, &f.Pattern[0])
	getStr(fPattern1, &f.Pattern[1])
	getStr(fLocation, &f.Location)
	getStr(fDestination, &f.Destination)
	getStr(fAction, &f.Action)
	getStr(fProposal, &f.Proposal)
	f.Rejected = mask&fRejected != 0
	getStr(fSignature, &f.Signature)
	getFlt(fSimilarity, &f.Similarity)
	getNum(fMatchedStep, &f.MatchedStep)
	getStr(fTaskID, &f.TaskID)
	getStr(fLoopType, &f.LoopType)
	getStr(fRecommendation, &f.Recommendation)
	getNum(fAttemptCount, &f.AttemptCount)
	getNum(fCycleLength, &f.CycleLength)
	it.pos = len(l.buf) - len(b)
	return true
}
