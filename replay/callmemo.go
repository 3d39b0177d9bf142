package replay

import "bytes"

// callMemo holds the forms of the last calls read, by what they were
// read from: a call's action and canonical form are a function of its
// type, its name and its value as written (Codex's arguments, input or
// action; a Cline tool use's body), and a loop repeats a call byte for
// byte (the bench's 100 MB Codex log's 53,382 calls are four, its Cline
// log's 42,220 tool uses ten), so a call read before is not decoded,
// validated and written again. A call missed costs a few length tests.
type callMemo struct {
	slots [callMemoSlots]callMemoSlot
	next  int // the slot written over next
}

const (
	callMemoSlots = 32
	callMemoMax   = 4 << 10 // a longer value is not kept: 128 KB of values at most
)

type callMemoSlot struct {
	typ               byte // 0: empty
	name              string
	raw               []byte // the value as written in the line
	action, canonical string
}

// find returns the forms of a call of type typ (a nonzero byte) read
// before from name and raw.
func (m *callMemo) find(typ byte, name string, raw rawValue) (action, canonical string, ok bool) {
	for i := range m.slots {
		s := &m.slots[i]
		if s.typ == typ && len(s.raw) == len(raw) && s.name == name && bytes.Equal(s.raw, raw) {
			return s.action, s.canonical, true
		}
	}
	return "", "", false
}

// stringAt returns the slot whose value is a string and the first bytes
// of rest, byte for byte, and that value's length, or -1 and 0: a
// string's end is told by its bytes alone, so a value read before ends
// where its slot's does with no validation (Codex, codex_memo.go).
func (m *callMemo) stringAt(rest []byte) (slot, n int) {
	if len(rest) < 8 {
		return -1, 0
	}
	first := word(rest, 0)
	for i := range m.slots {
		s := m.slots[i].raw
		// Most slots are empty, or differ in their first or last word.
		if len(s) < 8 || len(s) > len(rest) || word(s, 0) != first || s[0] != '"' ||
			word(s, len(s)-8) != word(rest, len(s)-8) || !bytes.Equal(rest[:len(s)], s) {
			continue
		}
		return i, len(s)
	}
	return -1, 0
}

// findIn is find for a call whose value raw is slot's value, as
// stringAt found it: the slot's type, name and length are told, not its
// bytes again.
func (m *callMemo) findIn(slot int, typ byte, name string, raw rawValue) (action, canonical string, ok bool) {
	s := &m.slots[slot]
	if s.typ != typ || len(s.raw) != len(raw) || s.name != name {
		return "", "", false
	}
	return s.action, s.canonical, true
}

// keep holds the forms of a call find did not have, over the oldest:
// name, action and canonical are kept as they are, so they must be
// strings of their own, never written over (raw is copied).
func (m *callMemo) keep(typ byte, name string, raw rawValue, action, canonical string) {
	if len(raw) > callMemoMax {
		return
	}
	s := &m.slots[m.next]
	m.next = (m.next + 1) % callMemoSlots
	s.typ, s.name, s.raw = typ, name, append(s.raw[:0], raw...)
	s.action, s.canonical = action, canonical
}
