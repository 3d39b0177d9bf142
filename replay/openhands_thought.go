package replay

// An OpenHands V0 action's key when its args differ from an action's
// before in their thought alone: an agent that repeats a call mostly
// words its thought anew ("Attempt 3.", "Attempt 5."), so the key memo
// (keyMemo, by the whole args' bytes) misses, and the args were
// collected, sorted and written in both forms again (writeMembersBoth,
// ~3,800 instructions a run action of six args; 6% of a V0 events log).
//
// The key is "a:" + name + "\x00" + the args canonically, keys sorted
// (canonWriter.writeMembers). When no key of the args sorts after
// "thought" and the thought written (the last of its run: writeMembers
// keeps the last of a repeated key) is a string, the key ends with
// `"thought":` + the thought as appendStringValue writes it + "}": the
// key's prefix up to it depends on the args' bytes before and after
// that thought's value alone. Args of the same bytes around a string in
// that place are the same members but that value (both values are whole
// JSON strings, so the bytes around them read the same), so their key is
// that prefix, the new thought written, and "}". The step's action
// leaves thought out (openHandsVolatile): it is the same action.

import "unsafe"

// thoughtSlots sizes thoughtMemo: the templates of the last actions, by
// a tag of their parts.
const (
	thoughtSlotBits = 6
	thoughtSlots    = 1 << thoughtSlotBits
)

// thoughtMemo holds templates of keys written around a thought.
type thoughtMemo struct {
	slots *[thoughtSlots]thoughtSlot
}

// thoughtSlot is one template: the parts it was written from (the name,
// the args' bytes before the thought's value and after it) one after
// another in raw, the key up to the thought's value (prefix) and the
// step's action (both; nil for a key alone).
type thoughtSlot struct {
	tag      uint64
	wantBoth bool
	ends     [3]int32
	raw      []byte
	prefix   []byte
	both     []byte
}

// thoughtSplit finds the thought written in the key of args, whose
// members w.members holds from base (collected by keepAll, views of
// args), when the template applies: no key sorts after "thought", the
// last "thought" is a string within args. It returns the key's parts
// and that thought's value.
func thoughtSplit(k *keyParts, act string, args rawValue, ms []canonMember, wantBoth bool) (thought rawValue, ok bool) {
	at := -1
	for i := range ms {
		// Told by the first byte but for a key of a 't' (most keys of
		// an action's args sort before "thought"): a comparison of
		// strings is a call.
		key := ms[i].key
		if len(key) == 0 || key[0] < 't' {
			continue
		}
		if string(key) == "thought" {
			at = i
			continue
		}
		if key[0] > 't' || string(key) > "thought" {
			return nil, false
		}
	}
	if at < 0 {
		return nil, false
	}
	thought = ms[at].val
	if thought.Kind() != '"' {
		return nil, false
	}
	// The value's place in args: a view of args' bytes, told by its
	// address (keepAll and members read values in place).
	off := uintptr(unsafe.Pointer(unsafe.SliceData(thought))) - uintptr(unsafe.Pointer(unsafe.SliceData(args)))
	if len(args) == 0 || off > uintptr(len(args)) || uintptr(len(args))-off < uintptr(len(thought)) {
		return nil, false
	}
	o := int(off)
	k.n, k.p[0], k.p[1], k.p[2] = 3, stringBytes(act), args[:o], args[o+len(thought):]
	if wantBoth {
		k.way = 1
	}
	return thought, true
}

// find returns the template of k, if a slot holds it.
func (m *thoughtMemo) find(k *keyParts) (s *thoughtSlot, tag uint64, hit bool) {
	tag = k.tag()
	if m.slots == nil {
		return nil, tag, false
	}
	s = &m.slots[tag>>(64-thoughtSlotBits)]
	if s.tag != tag || s.wantBoth != (k.way == 1) || len(s.raw) != len(k.p[0])+len(k.p[1])+len(k.p[2]) {
		return s, tag, false
	}
	from := int32(0)
	for i, p := range k.p[:3] {
		if string(s.raw[from:s.ends[i]]) != string(p) {
			return s, tag, false
		}
		from = s.ends[i]
	}
	return s, tag, true
}

// keep makes key, written from k with thought, and both the template
// of slot s (find's; nil before the first), if key ends as the template
// needs and the parts are short enough.
func (m *thoughtMemo) keep(s *thoughtSlot, tag uint64, k *keyParts, key []byte, thought rawValue, both []byte, scratch []byte) []byte {
	scratch = appendStringValue(append(scratch[:0], `"thought":`...), thought)
	scratch = append(scratch, '}')
	if len(key) < len(scratch) || string(key[len(key)-len(scratch):]) != string(scratch) {
		return scratch // not the form the template writes: none kept
	}
	size := len(key) + len(both)
	for _, p := range k.p[:3] {
		size += len(p)
	}
	if size > keyMemoMax {
		return scratch
	}
	if s == nil {
		m.slots = new([thoughtSlots]thoughtSlot)
		s = &m.slots[tag>>(64-thoughtSlotBits)]
	}
	s.tag, s.wantBoth = tag, k.way == 1
	s.raw = s.raw[:0]
	for i, p := range k.p[:3] {
		s.raw = append(s.raw, p...)
		s.ends[i] = int32(len(s.raw))
	}
	// The prefix ends with `"thought":`, the value's writing after it.
	s.prefix = append(s.prefix[:0], key[:len(key)-len(scratch)+len(`"thought":`)]...)
	s.both = append(s.both[:0], both...)
	return scratch
}
