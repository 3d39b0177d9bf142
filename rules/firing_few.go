package rules

// Firings that set a few fields, known by their rule: reported and
// packed with no Firing tested field by field (FiringList.Add tests
// each of its ~30 fields, some 160 instructions a firing).

import (
	"encoding/binary"
	"math"
)

// reportCause reports f, which sets no field but Turn, Rule, Kind,
// Cause, TurnsStuck, Score and Unit (progress_velocity's resets): a
// ReadReplay packs it with those fields alone (FiringList.AddCause).
func (e *Env) reportCause(f *Firing) {
	if e.kept != nil {
		e.kept.addCause(f)
		return
	}
	e.Report(f)
}

// reportSignature records a firing of rule's kind at turn that sets only
// Signature (signature_repeat's), packed as it is by a ReadReplay
// (FiringList.AddSignature), as reportMatch's.
func (e *Env) reportSignature(turn int, rule *Rule, kind *Kind, sig string) {
	if e.kept != nil {
		e.kept.addSignature(turn, rule, kind, sig)
		return
	}
	e.Report(&Firing{Turn: turn, Rule: rule, Kind: kind, Signature: sig})
}

// addCause is add for reportCause's firings.
func (r *ReadReplay) addCause(f *Firing) {
	cur := r.env.cur
	if !r.scored && r.unkept[cur] {
		return
	}
	r.list.AddCause(f, cur)
}

// addSignature is add for reportSignature's firings.
func (r *ReadReplay) addSignature(turn int, rule *Rule, kind *Kind, sig string) {
	cur := r.env.cur
	if !r.scored && r.unkept[cur] {
		return
	}
	r.list.AddSignature(turn, rule, kind, sig, cur)
}

// AddCause is Add of f, which sets no field but Turn, Rule, Kind, Cause,
// TurnsStuck, Score and Unit: the same bytes written, with no other
// field tested.
func (l *FiringList) AddCause(f *Firing, tag int) {
	if uint64(f.Turn) >= 1<<32 {
		l.Add(f, tag)
		return
	}
	b := l.open(f.Rule, f.Kind, tag)
	at := len(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(f.Turn)<<32)
	var mask uint32
	if f.Cause != "" {
		mask |= fCause
		b = appendID(b, l.strID(bCause, f.Cause))
	}
	if f.TurnsStuck != 0 {
		mask |= fTurnsStuck
		b = binary.AppendVarint(b, int64(f.TurnsStuck))
	}
	if x := math.Float64bits(f.Score); x != 0 {
		mask |= fScore
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	if f.Unit != "" {
		mask |= fUnit
		b = appendID(b, l.strID(bUnit, f.Unit))
	}
	l.seal(b, at, mask)
}

// AddSignature is Add of Firing{Turn: turn, Rule: rule, Kind: kind,
// Signature: sig}, the same bytes written, with no other field tested.
func (l *FiringList) AddSignature(turn int, rule *Rule, kind *Kind, sig string, tag int) {
	if uint64(turn) >= 1<<32 {
		l.Add(&Firing{Turn: turn, Rule: rule, Kind: kind, Signature: sig}, tag)
		return
	}
	b := l.open(rule, kind, tag)
	at := len(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(turn)<<32)
	var mask uint32
	if sig != "" {
		mask = fSignature
		b = appendID(b, l.strID(bSignature, sig))
	}
	l.seal(b, at, mask)
}

// strID returns the index of s, a string field's (bit its bit's index),
// among the list's strings, for Add and the adders of few fields: found again only when the
// field's last string was another. It is inlined.
func (l *FiringList) strID(bit int, s string) uint32 {
	last := &l.last[bit%lastFields]
	if last.s != s {
		l.setLast(bit, s)
	}
	return last.id
}

// setLast makes s the last string of field bit (strID); not inlined,
// so that strID is.
//
//go:noinline
func (l *FiringList) setLast(bit int, s string) {
	last := &l.last[bit%lastFields]
	last.s, last.id = s, l.intern(s)
}

// appendID appends a string's index (strID) or a head's (open) as Add
// writes it; the
// index past a byte's 7 bits is a call of its own, so that it is inlined.
func appendID(b []byte, id uint32) []byte {
	if id < 0x80 {
		return append(b, byte(id))
	}
	return appendUvarint(b, id)
}

func appendUvarint(b []byte, id uint32) []byte {
	return binary.AppendUvarint(b, uint64(id))
}
