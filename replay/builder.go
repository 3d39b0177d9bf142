package replay

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// collector routes lines to episodes: a line's episode_id names its
// episode; a line without one belongs to the episode of the line before.
type collector struct {
	source    string
	defaultID string
	order     []*builder
	byID      map[string]*builder
	cur       *builder

	fillBudget int        // gap rows left for this file (MaxFilledTurns)
	dropped    *LineError // the first turn_completed dropped as corrupt
}

func newCollector(source, defaultID string) *collector {
	return &collector{source: source, defaultID: defaultID, byID: map[string]*builder{}, fillBudget: MaxFilledTurns}
}

func (c *collector) current() *builder {
	if c.cur == nil {
		c.cur = newBuilder(c.defaultID, c.source)
		c.cur.implicit = true
		c.order = append(c.order, c.cur)
		// Registered under its name: in production the directory name is
		// the episode id, which later lines may carry.
		c.byID[c.defaultID] = c.cur
	}
	return c.cur
}

func (c *collector) lineSeen() { c.current().Diag.Lines++ }

func (c *collector) skip(lineNo int, reason string) error {
	b := c.current()
	b.Diag.Skipped++
	err := &LineError{File: c.source, Line: lineNo, Reason: reason}
	b.Diag.problem(err.Error())
	return err
}

// line handles one raw line; last is true for a final line without '\n'.
func (c *collector) line(raw []byte, lineNo int, last bool) error {
	trimmed := trimSpace(raw)
	if len(trimmed) == 0 {
		return nil
	}
	if trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		c.lineSeen()
		if last {
			return c.skip(lineNo, "truncated final line (crashed run?)")
		}
		return c.skip(lineNo, "not a JSON object")
	}
	relevant, _ := sniffEventType(trimmed)
	if !relevant {
		// Not decoded, but its episode_id still decides where the id-less
		// lines after it belong. Most lines name the current episode, which
		// a byte search confirms; any other id is read as a relevant line's
		// is (top level, else extras) before switching.
		if id, occurs := sniffEpisodeID(trimmed); occurs && (id == "" || c.cur == nil || id != c.cur.id) {
			if w, err := decodeLine(trimmed); err == nil {
				c.routeEvent(w)
			}
		}
		c.lineSeen()
		return nil
	}
	w, err := decodeLine(trimmed)
	if err != nil {
		c.lineSeen()
		if last {
			// A crashed run's cut line can still end in a nested '}'.
			return c.skip(lineNo, "truncated final line (crashed run?)")
		}
		return c.skip(lineNo, "invalid JSON: "+err.Error())
	}
	c.routeEvent(w)
	b := c.current()
	b.Diag.Lines++
	if reason := b.event(w, c.source, lineNo); reason != "" {
		return c.skip(lineNo, reason)
	}
	return nil
}

// routeEvent makes the episode the line names, if any, the current one.
func (c *collector) routeEvent(w *wireEvent) {
	if id, ok := text(w.field(func(e *wireEvent) json.RawMessage { return e.EpisodeID })); ok && strings.TrimSpace(id) != "" {
		c.route(strings.TrimSpace(id))
	}
}

// route makes id the current episode. Lines read before the first id
// belong to it: a line without an id belongs to the episode of the line
// before, and the first lines of a file are the first episode's (an init
// line, or events real logs write without an id).
func (c *collector) route(id string) {
	if b, ok := c.byID[id]; ok {
		b.implicit = false // named by the log now: a later new id is another episode
		c.cur = b
		return
	}
	if c.cur != nil && c.cur.implicit {
		delete(c.byID, c.cur.id)
		c.cur.id = id
		c.cur.implicit = false
		c.byID[id] = c.cur
		return
	}
	b := newBuilder(id, c.source)
	c.byID[id] = b
	c.order = append(c.order, b)
	c.cur = b
}

func (c *collector) episodes() []*Episode {
	out := make([]*Episode, 0, len(c.order))
	for _, b := range c.order {
		if b.implicit && len(b.slots) == 0 && b.Diag.Lines == 0 && b.Diag.Skipped == 0 {
			continue
		}
		out = append(out, b.build(c))
	}
	return out
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	// A UTF-8 byte order mark at the start of a file.
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		b = b[3:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// slot gathers what the log says about one turn number.
type slot struct {
	completed bool // a turn_completed was read

	score       float64
	hasScore    bool
	location    string // turn_completed.location as logged
	hasLocation bool
	tcAction    string
	hasTCAction bool
	tcConf      float64
	hasTCConf   bool

	fasAction    string
	hasFASAction bool
	fasConf      float64
	hasFASConf   bool
	lpaBase      float64
	hasLPABase   bool
	lpaLoc       string

	moveFrom, moveTo string // room ids of the first and last move
	hasMove          bool
	rdcLoc           string

	objectives, rejections, llmCalls int
	rejected                         []string // action_rejected.action, in log order

	// redo gathers events of this turn logged after its turn_completed:
	// a restarted run logging the turn again replaces this record when
	// its own turn_completed arrives; without one they are late events of
	// this record and merge into it.
	redo     *slot
	redoLine int
	tcLine   int // line of the turn_completed
}

// merge adds late events of the same turn: counts add up, anything the
// record lacks is taken.
func (s *slot) merge(r *slot) {
	s.objectives += r.objectives
	s.rejections += r.rejections
	s.rejected = append(s.rejected, r.rejected...)
	s.llmCalls += r.llmCalls
	if !s.hasFASAction {
		s.fasAction, s.hasFASAction = r.fasAction, r.hasFASAction
	}
	if !s.hasFASConf {
		s.fasConf, s.hasFASConf = r.fasConf, r.hasFASConf
	}
	if !s.hasLPABase {
		s.lpaBase, s.hasLPABase = r.lpaBase, r.hasLPABase
	}
	if s.lpaLoc == "" {
		s.lpaLoc = r.lpaLoc
	}
	if !s.hasMove {
		s.moveFrom, s.moveTo, s.hasMove = r.moveFrom, r.moveTo, r.hasMove
	}
	if s.rdcLoc == "" {
		s.rdcLoc = r.rdcLoc
	}
}

type builder struct {
	id       string
	source   string
	implicit bool // named after the file, not by an episode_id
	slots    map[int]*slot
	lastDone int // highest completed turn (events without a turn go to the next one)
	lastTurn int // turn of the latest event; hasLast is false after a restart's init line
	hasLast  bool

	pending     *slot // events of the completed lastTurn since its turn_completed
	dupNoted    bool
	pendingTurn int
	pendingLine int
	anyDone     bool

	hasIDs    bool
	nameToID  map[string]string
	idToName  map[string]string
	llmLogged bool

	end          string
	liveStop     int
	hasLiveStop  bool
	loggedFinal  float64
	hasLogFinal  bool
	Diag         Diagnostics
	repeatedSeen map[int]bool
}

func newBuilder(id, source string) *builder {
	return &builder{id: id, source: source, slots: map[int]*slot{}, nameToID: map[string]string{}, idToName: map[string]string{}}
}

// Corrupt turn numbers must not cost a row per missing turn. Completed
// turns further than MaxTurnGap from the episode's others are corrupt (the
// largest group of turns close to one another is kept), and the gap rows of
// one file total at most MaxFilledTurns; what falls outside is skipped as
// unreadable. Real logs miss a few turns, not thousands.
const (
	MaxTurnGap     = 10_000
	MaxFilledTurns = 100_000
)

// slotFor returns where an event of turn t goes: its record until the
// turn is completed. After its turn_completed, events of t go to a pending
// record while nothing else happens: an event of another turn or a
// restart's init line shows they were late events of the record (they
// merge into it), while a final_action_selection or a second
// turn_completed for t shows they began a restarted run's record of t.
// Events of a completed turn after other turns' events are a restarted
// run's (redo).
func (b *builder) slotFor(t int, lineNo int, opens bool) *slot {
	if b.pending != nil && b.pendingTurn != t {
		b.closePending()
	}
	s := b.slots[t]
	if s == nil {
		s = &slot{}
		b.slots[t] = s
	}
	late := b.hasLast && b.lastTurn == t
	b.lastTurn, b.hasLast = t, true
	switch {
	case !s.completed:
		return s
	case s.redo != nil:
		return s.redo
	case late && !opens:
		if b.pending == nil {
			b.pending, b.pendingTurn, b.pendingLine = &slot{}, t, lineNo
		}
		return b.pending
	}
	s.redo, s.redoLine = b.takePending(t, lineNo)
	return s.redo
}

// takePending returns the pending record of t (and its first line) as the
// start of a restarted run's record, or a new one starting at lineNo.
func (b *builder) takePending(t, lineNo int) (*slot, int) {
	if b.pending != nil && b.pendingTurn == t {
		r, line := b.pending, b.pendingLine
		b.pending = nil
		return r, line
	}
	return &slot{}, lineNo
}

// closePending merges pending late events into their turn's record.
func (b *builder) closePending() {
	if b.pending != nil {
		b.slots[b.pendingTurn].merge(b.pending)
		b.pending = nil
	}
}

// complete returns the record a turn_completed for t closes. A second
// turn_completed for t is a restarted run logging the turn again: its
// record (the events since the first one) replaces the first.
func (b *builder) complete(t int, lineNo int) *slot {
	if b.pending != nil && b.pendingTurn != t {
		b.closePending()
	}
	s := b.slots[t]
	switch {
	case s == nil:
		s = &slot{}
		b.slots[t] = s
	case s.completed && s.redo == nil && b.pending == nil && b.hasLast && b.lastTurn == t:
		// Nothing of t since its turn_completed: the same line logged twice
		// (a duplicated log handler), not a restarted run. One record.
		if !b.dupNoted {
			b.dupNoted = true
			b.Diag.note(fmt.Sprintf("%s:%d: turn_completed of turn %d logged twice in a row; read as one record", b.source, lineNo, t))
		}
	case s.completed:
		first := lineNo
		if s.redo != nil {
			first = s.redoLine
			s = s.redo
		} else {
			s, first = b.takePending(t, lineNo)
		}
		b.slots[t] = s
		b.Diag.Repeated++
		if b.repeatedSeen == nil {
			b.repeatedSeen = map[int]bool{}
		}
		if !b.repeatedSeen[t] {
			b.repeatedSeen[t] = true
			b.Diag.note(fmt.Sprintf("%s:%d: turn %d logged again (restarted run); the later record is used", b.source, first, t))
		}
	}
	s.completed = true
	b.lastTurn, b.hasLast = t, true
	return s
}

// openTurn is where an event without a turn number goes.
func (b *builder) openTurn() int { return b.lastDone + 1 }

func (b *builder) pairName(name, id string) {
	name = FoldName(name)
	if name == "" || id == "" {
		return
	}
	if _, ok := b.nameToID[name]; !ok {
		b.nameToID[name] = id
	}
}

func (b *builder) nameRoom(id string, raw json.RawMessage) {
	if name, ok := text(raw); ok && strings.TrimSpace(name) != "" {
		if _, seen := b.idToName[id]; !seen {
			b.idToName[id] = strings.TrimSpace(name)
		}
		b.pairName(name, id)
	}
}

// event adds one decoded line to the episode; a non-empty reason means the
// line cannot be used (it is skipped and counted by the caller).
func (b *builder) event(w *wireEvent, source string, lineNo int) (reason string) {
	et := w.eventType()
	t, hasTurn := w.turn()
	get := func(f func(*wireEvent) json.RawMessage) json.RawMessage { return w.field(f) }
	turnOf := func() int {
		if hasTurn {
			return t
		}
		return b.openTurn()
	}
	switch et {
	case "final_action_selection":
		s := b.slotFor(turnOf(), lineNo, true)
		if a, ok := text(get(func(e *wireEvent) json.RawMessage { return e.AgentAction })); ok {
			s.fasAction, s.hasFASAction = a, true
		}
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.CriticConfidence })); ok {
			s.fasConf, s.hasFASConf = f, true
		}
	case "location_penalty_applied":
		s := b.slotFor(turnOf(), lineNo, false)
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.BaseConfidence })); ok {
			s.lpaBase, s.hasLPABase = f, true
		}
		if id, ok := roomID(get(func(e *wireEvent) json.RawMessage { return e.LocationID })); ok {
			b.hasIDs = true
			s.lpaLoc = id
			b.nameRoom(id, get(func(e *wireEvent) json.RawMessage { return e.LocationName }))
		}
	case "action_rejected":
		s := b.slotFor(turnOf(), lineNo, false)
		s.rejections++
		if a, ok := text(get(func(e *wireEvent) json.RawMessage { return e.Action })); ok {
			s.rejected = append(s.rejected, a)
		}
	case "llm_call":
		b.llmLogged = true
		b.slotFor(turnOf(), lineNo, false).llmCalls++
	case "map_movement_update":
		from, okFrom := roomID(get(func(e *wireEvent) json.RawMessage { return e.FromRoomID }))
		to, okTo := roomID(get(func(e *wireEvent) json.RawMessage { return e.ToRoomID }))
		if !okFrom && !okTo {
			b.Diag.note(fmt.Sprintf("%s:%d: map_movement_update without room ids ignored", source, lineNo))
			return ""
		}
		b.hasIDs = true
		s := b.slotFor(turnOf(), lineNo, false)
		if okFrom {
			b.nameRoom(from, get(func(e *wireEvent) json.RawMessage { return e.FromRoom }))
		}
		if okTo {
			b.nameRoom(to, get(func(e *wireEvent) json.RawMessage { return e.ToRoom }))
		}
		if !s.hasMove {
			s.moveFrom = from
		}
		if okTo {
			s.moveTo = to
		} else {
			s.moveTo = from
		}
		if s.moveFrom == "" {
			s.moveFrom = s.moveTo
		}
		s.hasMove = true
	case "room_description_captured":
		if id, ok := roomID(get(func(e *wireEvent) json.RawMessage { return e.LocationID })); ok {
			b.hasIDs = true
			s := b.slotFor(turnOf(), lineNo, false)
			s.rdcLoc = id
			b.nameRoom(id, get(func(e *wireEvent) json.RawMessage { return e.LocationName }))
		}
	case "objective_completed":
		b.slotFor(turnOf(), lineNo, false).objectives++
	case "turn_completed":
		if !hasTurn {
			return "turn_completed without a turn number"
		}
		s := b.complete(t, lineNo)
		s.tcLine = lineNo
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.Score })); ok {
			s.score, s.hasScore = f, true
		}
		if l, ok := text(get(func(e *wireEvent) json.RawMessage { return e.Location })); ok {
			s.location, s.hasLocation = l, true
		}
		if a, ok := text(get(func(e *wireEvent) json.RawMessage { return e.Action })); ok {
			s.tcAction, s.hasTCAction = a, true
		}
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.Confidence })); ok {
			s.tcConf, s.hasTCConf = f, true
		}
		if !b.anyDone || t > b.lastDone {
			b.lastDone = t
		}
		b.anyDone = true
	case "episode_initialized", "orchestrator_init":
		// A (re)started run: what was pending was late, what follows is new.
		b.closePending()
		b.hasLast = false
	case "stuck_termination":
		b.end = EndStuckTermination
		b.liveStop, b.hasLiveStop = turnOf(), true
	case "game_over_detected":
		if b.end == "" {
			b.end = EndGameOver
		}
	case "episode_completed", "episode_finalized":
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.FinalScore })); ok {
			b.loggedFinal, b.hasLogFinal = f, true
		}
		if et == "episode_completed" && b.end != EndStuckTermination {
			switch r, _ := text(get(func(e *wireEvent) json.RawMessage { return e.Reason })); r {
			case EndGameOver, EndMaxTurns, EndStuckTermination:
				b.end = r
			}
		}
	}
	return ""
}

// FoldName is the name key: lower case, runs of white space collapsed.
func FoldName(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// plausible returns the completed turns (sorted) worth a turn table: the
// largest group whose consecutive turns are at most MaxTurnGap apart, cut
// where its gaps would exceed the file's fill budget. The other turns'
// records are dropped as corrupt turn numbers.
func (b *builder) plausible(done []int, c *collector) []int {
	from, to := 0, 0
	for i, start := 1, 0; i <= len(done); i++ {
		if i == len(done) || done[i]-done[i-1] > MaxTurnGap {
			if i-start > to-from {
				from, to = start, i
			}
			start = i
		}
	}
	keep := done[from:to]
	fill := 0
	for i := 1; i < len(keep); i++ {
		if g := keep[i] - keep[i-1] - 1; fill+g <= c.fillBudget {
			fill += g
		} else {
			keep = keep[:i]
			break
		}
	}
	c.fillBudget -= fill
	kept := map[int]bool{}
	for _, t := range keep {
		kept[t] = true
	}
	for _, t := range done {
		if kept[t] {
			continue
		}
		err := &LineError{File: b.source, Line: b.slots[t].tcLine,
			Reason: fmt.Sprintf("turn %d is too far from the episode's turns %d–%d (corrupt turn number?)", t, keep[0], keep[len(keep)-1])}
		b.Diag.Skipped++
		b.Diag.problem(err.Error())
		if c.dropped == nil {
			c.dropped = err
		}
		delete(b.slots, t)
	}
	return keep
}

func (b *builder) build(c *collector) *Episode {
	b.closePending()
	for _, s := range b.slots {
		if s.redo != nil {
			s.merge(s.redo)
			s.redo = nil
		}
	}
	var done []int
	for t, s := range b.slots {
		if s.completed {
			done = append(done, t)
		}
	}
	sort.Ints(done)
	if len(done) > 1 {
		done = b.plausible(done, c)
	}

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
	}
	if ep.RecordedEnd == "" {
		ep.RecordedEnd = EndUnknown
	}
	// From the slots, so a restarted run's repeat of a turn replaces the
	// first run's objectives too.
	for t, s := range b.slots {
		if s.objectives > 0 {
			ep.ObjectiveTurns = append(ep.ObjectiveTurns, t)
		}
	}
	sort.Ints(ep.ObjectiveTurns)

	if len(done) == 0 {
		ep.LocationKey = KeyRoomName
		if b.hasIDs {
			ep.LocationKey = KeyRoomID
		}
		for _, s := range b.slots {
			ep.TailRejections += s.rejections
			ep.TailLLMCalls += s.llmCalls
		}
		return ep
	}
	first, last := done[0], done[len(done)-1]
	for t, s := range b.slots {
		if t > last {
			ep.TailRejections += s.rejections
			ep.TailLLMCalls += s.llmCalls
		}
	}

	if b.hasIDs {
		ep.LocationKey = KeyRoomID
		for id, n := range b.idToName {
			ep.RoomNames[id] = n
		}
		// Turns that moved pair their turn_completed name with the room
		// reached: the first turn may need it to find its id.
		for _, t := range done {
			if s := b.slots[t]; s.hasMove && s.hasLocation {
				b.pairName(s.location, s.moveTo)
			}
		}
	} else {
		ep.LocationKey = KeyRoomName
	}

	ep.Turns = make([]Turn, 0, last-first+1)
	var prev *Turn
	gapStart := 0
	for t := first; t <= last; t++ {
		s := b.slots[t]
		tr := Turn{N: t}
		if s != nil {
			tr.Objectives, tr.Rejections, tr.LLMCalls = s.objectives, s.rejections, s.llmCalls
			if len(s.rejected) > 0 {
				if ep.Rejected == nil {
					ep.Rejected = map[int][]string{}
				}
				ep.Rejected[t] = s.rejected
			}
		}
		if s == nil || !s.completed {
			// A gap: nothing changes, no action.
			tr.Filled = true
			tr.Score = prev.Score
			tr.LocStart, tr.LocEnd = prev.LocEnd, prev.LocEnd
			ep.Diag.Gaps++
			if gapStart == 0 {
				gapStart = t
			}
			ep.Turns = append(ep.Turns, tr)
			prev = &ep.Turns[len(ep.Turns)-1]
			continue
		}
		if gapStart != 0 {
			ep.Diag.note(fmt.Sprintf("%s: turns %d–%d missing from the log; filled with turns that change nothing", b.source, gapStart, t-1))
			gapStart = 0
		}
		switch {
		case s.hasScore:
			tr.Score = s.score
		case prev != nil:
			tr.Score = prev.Score
			ep.Diag.note(fmt.Sprintf("%s: turn %d has no score; carried forward", b.source, t))
		}
		switch {
		case s.hasFASAction:
			tr.Action, tr.HasAction = s.fasAction, true
		case s.hasTCAction:
			tr.Action, tr.HasAction = s.tcAction, true
		}
		switch {
		case s.hasLPABase:
			tr.Base, tr.HasBase = s.lpaBase, true
		case s.hasFASConf:
			tr.Base, tr.HasBase = s.fasConf, true
		case s.hasTCConf:
			tr.Base, tr.HasBase = s.tcConf, true
		}
		if b.hasIDs {
			switch {
			case s.hasMove:
				tr.LocStart, tr.LocEnd, tr.Moved = s.moveFrom, s.moveTo, true
			case prev != nil:
				tr.LocStart, tr.LocEnd = prev.LocEnd, prev.LocEnd
			default:
				loc := s.rdcLoc
				if loc == "" {
					loc = s.lpaLoc
				}
				if loc == "" && s.hasLocation {
					loc = b.nameToID[FoldName(s.location)]
				}
				tr.LocStart, tr.LocEnd = loc, loc
			}
			if s.hasMove && s.hasLocation {
				if _, ok := ep.RoomNames[s.moveTo]; !ok {
					ep.RoomNames[s.moveTo] = strings.TrimSpace(s.location)
				}
			}
		} else {
			name := ""
			if prev != nil {
				name = prev.LocEnd
			}
			if s.hasLocation && FoldName(s.location) != "" {
				name = FoldName(s.location)
				if _, ok := ep.RoomNames[name]; !ok {
					ep.RoomNames[name] = strings.TrimSpace(s.location)
				}
			}
			tr.LocEnd = name
			tr.LocStart = name // the first turn: no earlier name to start from
			if prev != nil {
				tr.LocStart = prev.LocEnd
				tr.Moved = tr.LocStart != tr.LocEnd
			}
		}
		ep.Turns = append(ep.Turns, tr)
		prev = &ep.Turns[len(ep.Turns)-1]
	}
	ep.indexStarts()
	if b.hasIDs && ep.Turns[0].LocStart == "" {
		ep.Diag.note(fmt.Sprintf("%s: no room id for turn %d; its location is unknown until the first move", b.source, first))
	}
	return ep
}
