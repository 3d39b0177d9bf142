package replay

// appendUnindexed enters b in t as a Sym of its own, copied into the
// arena, with no hash and no lookup: two equal strings so entered are
// two Syms. For the strings of an OpenHands event that the detectors
// read only by value (Episode.HistoryStr, compared as strings): V0's
// key and text, V1's key, source, id, tool and error, in an episode
// replayed as read (historyBytes). A key holds the whole observation,
// its tool output too, which hashing and comparing in the history's
// table read once more (15 M of a V1 log's 360 M).
func (t *symtab) appendUnindexed(b []byte) Sym {
	if len(b) == 0 {
		return 0
	}
	return appendRef(t, b)
}

// historyBytes is b's Sym in the history's table: in an episode replayed
// as read, copied unindexed (appendUnindexed) while the table is under
// historyTable, interned past it; interned in one read whole. For what
// the detectors read only by value (an OpenHands event's strings).
//
// The bound matters: the table is made anew only when a turn is stepped
// (historyStepped), so events that wait long for their step (a V0 log of
// 20,000 equal 5 KB messages in one step) would grow an unindexed table
// with the input (120 MB peak RSS, tried), where interning keeps it to
// the distinct strings (21 MB).
func (e *Episode) historyBytes(b []byte) Sym {
	if e.streamed && e.hist.arenaBytes() < historyTable {
		return e.hist.appendUnindexed(b)
	}
	return e.history().bytes(b)
}

// historyString is historyBytes of s.
func (e *Episode) historyString(s string) Sym {
	return e.historyBytes(stringBytes(s))
}
