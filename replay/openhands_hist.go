package replay

// appendUnindexed enters b in t as a Sym of its own, copied into the
// arena, with no hash and no lookup: two equal strings so entered are
// two Syms. For an OpenHands V1 key of an episode replayed as read
// (canonKey): its Sym is read only as the string it names
// (Episode.HistoryStr), which the detector compares by value, and a key
// holds the whole observation, its tool output too, which hashing and
// comparing in the history's table read once more (15 M of a V1 log's
// 360 M, for a table made anew every 2 MiB).
func (t *symtab) appendUnindexed(b []byte) Sym {
	if len(b) == 0 {
		return 0
	}
	if t.n == 0 {
		t.n = 1 // Sym 0 is "", its ref zero
	}
	id := Sym(t.n)
	t.refs.grow(t.n + 1)
	*t.refs.at(t.n) = store(t, b)
	t.n++
	return id
}

// historyBytes is b's Sym in the history's table: entered unindexed in an
// episode replayed as read (appendUnindexed), interned in one read whole.
// For what the detectors read only by value (an OpenHands event's key
// and text).
func (e *Episode) historyBytes(b []byte) Sym {
	if e.streamed {
		return e.hist.appendUnindexed(b)
	}
	return e.syms.bytes(b)
}

// historyString is historyBytes of s.
func (e *Episode) historyString(s string) Sym {
	if e.streamed {
		return e.hist.appendUnindexed(stringBytes(s))
	}
	return e.syms.sym(s)
}
