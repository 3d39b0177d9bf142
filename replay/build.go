package replay

// Building an episode's gap-free turn table from its slots.

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// FoldName is the name key: lower case, runs of white space collapsed.
func FoldName(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// plausible keeps the completed turns worth a turn table: the largest
// group whose consecutive turns are at most MaxTurnGap apart, cut where
// its gaps would exceed the file's fill budget. It returns the first and
// last turns kept (ok false when no turn was completed); the other
// completed turns' records are dropped as corrupt turn numbers. It walks
// the slots rather than listing the turns: a list would cost 8 bytes a
// turn on top of the slots.
func (b *builder) plausible(c *collector) (first, last int, ok bool) {
	// The largest group (the first of equal ones).
	var from, prev, n, bestN int
	b.slots.each(func(t int, s *slot) {
		if !s.is(completed) {
			return
		}
		if n > 0 && t-prev > MaxTurnGap {
			if n > bestN {
				first, last, bestN = from, prev, n
			}
			n = 0
		}
		if n == 0 {
			from = t
		}
		prev = t
		n++
	})
	if n == 0 && bestN == 0 {
		return 0, 0, false
	}
	if n > bestN {
		first, last = from, prev
	}
	// Its gaps, up to the fill budget.
	fill, cut := 0, false
	prev = first
	b.slots.each(func(t int, s *slot) {
		if cut || t <= first || t > last || !s.is(completed) {
			return
		}
		if g := t - prev - 1; fill+g <= c.fillBudget {
			fill += g
			prev = t
		} else {
			cut = true
		}
	})
	last = prev
	c.fillBudget -= fill
	// The rest is dropped, in order.
	b.slots.each(func(t int, s *slot) {
		if (t >= first && t <= last) || !s.is(completed) {
			return
		}
		err := &LineError{File: b.source, Line: int(s.tcLine),
			Reason: fmt.Sprintf("turn %d is too far from the episode's turns %d–%d (corrupt turn number?)", t, first, last)}
		b.Diag.Skipped++
		b.Diag.problem(err.Error())
		if c.dropped == nil {
			c.dropped = err
		}
		delete(b.objectives, s)
		b.slots.del(t)
	})
	return first, last, true
}

func (b *builder) build(c *collector) *Episode {
	b.closePending()
	b.slots.each(func(t int, s *slot) {
		if rd, ok := b.redos[t]; ok {
			s.merge(rd.s, b)
			delete(b.redos, t)
		}
	})
	first, last, anyDone := b.plausible(c)

	ep := &Episode{
		ID:             b.id,
		Source:         b.source,
		RoomNames:      map[string]string{},
		LLMCallsLogged: b.llmLogged,
		RecordedEnd:    b.end,
		LiveStopTurn:   b.liveStop,
		HasLiveStop:    b.hasLiveStop,
		LoggedFinal:    b.loggedFinal,
		HasLoggedFinal: b.hasLogFinal,
		Diag:           b.Diag,
		Live:           liveEvents(b.live),
		Format:         FormatZorkGPT,
		Detected:       c.detected,
	}
	if ep.RecordedEnd == "" {
		ep.RecordedEnd = EndUnknown
	}
	// From the slots, so a restarted run's repeat of a turn replaces the
	// first run's objectives too; a turn is listed once per completion.
	b.slots.each(func(t int, s *slot) {
		if s.is(hasObjective) {
			for range max(1, b.objectives[s]) {
				ep.ObjectiveTurns = append(ep.ObjectiveTurns, t)
			}
		}
	})

	if !anyDone {
		ep.LocationKey = KeyRoomName
		if b.hasIDs {
			ep.LocationKey = KeyRoomID
		}
		b.slots.each(func(_ int, s *slot) {
			ep.TailRejections += int(s.rejections)
			ep.TailLLMCalls += int(s.llmCalls)
		})
		return ep
	}
	b.slots.each(func(t int, s *slot) {
		if t > last {
			ep.TailRejections += int(s.rejections)
			ep.TailLLMCalls += int(s.llmCalls)
		}
	})

	var rooms roomNamer
	if b.hasIDs {
		ep.LocationKey = KeyRoomID
		for id := range b.idToName.len() {
			if n := *b.idToName.at(id); n != 0 {
				rooms.name(Sym(id), n)
			}
		}
		// Turns that moved pair their turn_completed name with the room
		// reached: the first turn may need it to find its id.
		b.slots.each(func(t int, s *slot) {
			if t >= first && t <= last && s.is(completed) && s.is(hasMove) && s.is(hasLocation) {
				b.pairName(s.location, s.to)
			}
		})
	} else {
		ep.LocationKey = KeyRoomName
	}

	huge := last-first+1 >= hugeEpisode
	if huge {
		// The table is one large block that the garbage reading left
		// behind cannot hold: collect and return that garbage first, so a
		// huge episode peaks at its slots plus its table, not twice its
		// slots plus its table (a GC's heap goal).
		debug.FreeOSMemory()
	}
	ep.Turns = make([]Turn, 0, last-first+1)
	ep.Zork = make([]ZorkRow, 0, last-first+1)
	var prev *Turn
	gapStart := 0
	for t := first; t <= last; t++ {
		if t%slotChunk == 0 && t > first {
			b.slots.release(t - 1) // its turns are in the table now
			if huge && t%releaseTurns == 0 {
				// The table's pages are touched as it fills, from fresh
				// memory: hand the slots behind it back to the system as
				// it goes, so a huge episode peaks at about its slots,
				// not its slots plus its table.
				debug.FreeOSMemory()
			}
		}
		s := b.slots.get(t)
		tr := Turn{N: t}
		var z ZorkRow
		if s != nil {
			z.Rejections, z.LLMCalls = s.rejections, s.llmCalls
			if s.rejected != 0 {
				if ep.Rejected == nil {
					ep.Rejected = map[int][]string{}
				}
				ep.Rejected[t] = b.rejectedActions(s.rejected)
			}
		}
		if s == nil || !s.is(completed) {
			// A gap: nothing changes, no action.
			tr.Filled = true
			tr.Score = prev.Score
			tr.LocStart, tr.LocEnd = prev.LocEnd, prev.LocEnd
			ep.Diag.Gaps++
			if gapStart == 0 {
				gapStart = t
			}
			ep.Turns = append(ep.Turns, tr)
			ep.Zork = append(ep.Zork, z)
			prev = &ep.Turns[len(ep.Turns)-1]
			continue
		}
		if gapStart != 0 {
			ep.Diag.note(fmt.Sprintf("%s: turns %d–%d missing from the log; filled with turns that change nothing", b.source, gapStart, t-1))
			gapStart = 0
		}
		switch {
		case s.is(hasScore):
			tr.Score = s.score
		case prev != nil:
			tr.Score = prev.Score
			ep.Diag.note(fmt.Sprintf("%s: turn %d has no score; carried forward", b.source, t))
		}
		if s.actionLevel > 0 {
			tr.Action, tr.HasAction = s.action, true
		}
		if s.baseLevel > 0 {
			z.Base, tr.HasBase = s.base, true
		}
		if b.hasIDs {
			switch {
			case s.is(hasMove):
				// Live ZorkGPT logs a move event on every turn; one that
				// stays in its room is no move.
				tr.LocStart, tr.LocEnd, tr.Moved = s.from, s.to, s.from != s.to
			case prev != nil:
				tr.LocStart, tr.LocEnd = prev.LocEnd, prev.LocEnd
			default:
				loc := s.startLoc
				if loc == 0 && s.is(hasLocation) {
					loc = b.nameToID.get(int(b.syms.folded(s.location)))
				}
				tr.LocStart, tr.LocEnd = loc, loc
			}
			if s.is(hasMove) && s.is(hasLocation) {
				rooms.name(s.to, s.location)
			}
			if s.is(hasNameMove) && !s.is(hasMove) {
				ep.Diag.note(fmt.Sprintf("%s:%d: map_movement_update without room ids ignored (the episode's locations are room ids)", b.source, s.nameMoveLine))
			}
		} else if s.is(hasNameMove) {
			// An early-format move: the turn goes between the folded
			// names, whatever turn_completed says, and teaches the map
			// when they differ.
			tr.LocStart, tr.LocEnd, tr.Moved = s.from, s.to, s.from != s.to
			for _, k := range []Sym{tr.LocStart, tr.LocEnd} {
				// A first spelling is never blank (it folds to a name).
				if raw := b.names.get(int(k)); raw != 0 {
					rooms.name(k, raw)
				}
			}
		} else {
			name := Sym(0)
			if prev != nil {
				name = prev.LocEnd
			}
			if f := b.syms.folded(s.location); s.is(hasLocation) && f != 0 {
				name = f
				rooms.name(name, s.location)
			}
			tr.LocEnd = name
			tr.LocStart = name // the first turn: no earlier name to start from
			if prev != nil {
				tr.LocStart = prev.LocEnd
				tr.Moved = tr.LocStart != tr.LocEnd
			}
		}
		if s.is(hasOutput) && s.output != 0 {
			if ep.Outputs == nil {
				// The first turn with an output: the turns before have none.
				ep.Outputs = make([]Sym, len(ep.Turns), last-first+1)
			}
			ep.Outputs = ep.Outputs[:len(ep.Turns)]
			ep.Outputs = append(ep.Outputs, s.output)
		}
		ep.Turns = append(ep.Turns, tr)
		ep.Zork = append(ep.Zork, z)
		prev = &ep.Turns[len(ep.Turns)-1]
	}
	switch {
	case ep.Outputs != nil:
		ep.Outputs = ep.Outputs[:len(ep.Turns)] // turns after the last output have none
	case c.outputs:
		ep.Outputs = []Sym{} // read, but no turn has an output: no table of zeros
	}
	if rooms.n > 0 {
		ep.rooms = &lazyRooms{namer: rooms}
	}
	ep.syms = b.syms.strings()
	ep.indexStarts()
	if b.hasIDs && ep.Turns[0].LocStart == 0 {
		ep.Diag.note(fmt.Sprintf("%s: no room id for turn %d; its location is unknown until the first move", b.source, first))
	}
	return ep
}

// roomNamer gathers an episode's display names, the first one named for
// each location (its Sym), and makes RoomNames when their number is
// known and a name is asked for (Episode.RoomName): a map grown a room
// at a time, asked first whether it had each turn's rooms, rehashed and
// read strings for every turn of an episode of millions of rooms (issue
// 23).
type roomNamer struct {
	named paged[bool] // by location
	pairs paged[[2]Sym]
	n     int
}

// name names location k by the string of Sym raw, trimmed, unless it is
// named already.
func (r *roomNamer) name(k, raw Sym) {
	r.named.grow(int(k) + 1)
	if seen := r.named.at(int(k)); !*seen {
		*seen = true
		r.pairs.grow(r.n + 1)
		*r.pairs.at(r.n) = [2]Sym{k, raw}
		r.n++
	}
}

// names is RoomNames: location key → display name.
func (r *roomNamer) names(t *symtab) map[string]string {
	m := make(map[string]string, r.n)
	for i := range r.n {
		p := r.pairs.at(i)
		m[t.str(p[0])] = strings.TrimSpace(t.str(p[1]))
	}
	return m
}
