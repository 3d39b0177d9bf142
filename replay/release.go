package replay

// ReleaseOutputs lets go of what only the rules read, once they have
// replayed an episode: the turns' outputs (Output is "" after it), the
// agents' event tables (OpenHands, OpenHandsV1) and the strings only
// those named. An output is most of a step (a tool's result, a message),
// so a session's table holds about its log's size of text; analyze
// writes episodes in input order, and one analysed before its turn
// waited whole while the next ones were read (a corpus of agents'
// sessions of 10 MB held a third one so). The strings the rest of the
// table names (actions, locations, canonical calls, attempts) are copied
// into a new arena and their Syms renumbered; Str, Row and StartKeys read
// the table as before.
func (e *Episode) ReleaseOutputs() {
	if len(e.Outputs) == 0 && e.OpenHands == nil && e.OpenHandsV1 == nil {
		return
	}
	old := e.syms
	var kept symtab
	remap := make([]Sym, old.len())
	re := func(s Sym) Sym {
		if s&actTag != 0 {
			return kept.sym(e.acts.str(s &^ actTag)) // a Stepped episode's action not let go
		}
		if s == 0 || int(s) >= len(remap) {
			return 0 // Str reads "" for it either way
		}
		if r := remap[s]; r != 0 {
			return r
		}
		r := kept.sym(old.str(s))
		remap[s] = r
		return r
	}
	// Sym 0 stays 0 (re's answer): an agent's turn has no location, many
	// no action, most steps no canonical call, and each such Sym was a
	// call of re, some 15 instructions, four a turn of an OpenHands log.
	for i := range e.Turns {
		t := &e.Turns[i]
		if t.LocStart|t.LocEnd != 0 {
			t.LocStart, t.LocEnd = re(t.LocStart), re(t.LocEnd)
		}
		if t.Action != 0 {
			t.Action = re(t.Action)
		}
	}
	for i := range e.Steps {
		if c := &e.Steps[i].Canonical; *c != 0 {
			*c = re(*c)
		}
	}
	for i := range e.nshapes {
		a := e.attemptShapes.at(i)
		a.task, a.status, a.session = re(a.task), re(a.status), re(a.session)
	}
	if r := e.rooms; r != nil {
		// Room names not yet asked for are pairs of Syms of the old table:
		// remapped, or RoomName would read other strings (a merge-vs-one-run
		// test caught "examine lantern" as a room).
		for i := range r.namer.n {
			p := r.namer.pairs.at(i)
			p[0], p[1] = re(p[0]), re(p[1])
		}
		r.namer.named = paged[bool]{} // by old location Sym; only the build names rooms
	}
	if e.Outputs != nil {
		e.Outputs = []Sym{} // read, but none kept: not nil, which says "not read"
	}
	e.OpenHands, e.OpenHandsV1, e.hist, e.acts = nil, nil, symtab{}, symtab{}
	kept.ids, kept.fold = symIndex{}, nil // as a read episode keeps its table
	e.syms = kept
	if e.startKeys != nil {
		e.indexStarts() // indexed by Sym: computed again before the episode is shared
	}
}
