package replay

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime/debug"
	"sort"
	"strings"
)

// collector routes lines to episodes: a line's episode_id names its
// episode; a line without one belongs to the episode of the line before.
type collector struct {
	source    string
	defaultID string
	order     []*builder // open episodes, in order of their first line
	byID      map[string]*builder
	cur       *builder

	fillBudget int        // gap rows left for this file (MaxFilledTurns)
	dropped    *LineError // the first turn_completed dropped as corrupt
	relevant   int        // loop-break events read
	wire       wireEvent  // the line being read (values alias it)

	// Finished episodes go to emit. With keepOpen > 0 an episode is
	// finished once keepOpen others started after its last line; with 0,
	// at the end of the input.
	emit     func(*Episode) error
	keepOpen int
	started  int   // episodes started so far
	strict   bool  // a dropped turn stops reading
	outputs  bool  // read zork_response lines: Episode.Outputs
	detected bool  // the format was detected (--input-format auto)
	err      error // emit's error, or the dropped turn under strict
}

func newCollector(source, defaultID string) *collector {
	return &collector{source: source, defaultID: defaultID, byID: map[string]*builder{}, fillBudget: MaxFilledTurns}
}

func (c *collector) current() *builder {
	if c.cur == nil {
		c.cur = c.open(c.defaultID)
		c.cur.implicit = true
	}
	return c.cur
}

// open starts an episode, finishing those the file has moved on from.
func (c *collector) open(id string) *builder {
	b := newBuilder(id, c.source)
	c.started++
	b.touched = c.started
	// Registered under its name even when implicit: in production the
	// directory name is the episode id, which later lines may carry.
	c.byID[id] = b
	c.order = append(c.order, b)
	// Until the file shows a loop-break event it may be no log at all (a
	// file error, NoEventsError): nothing is emitted before.
	if c.keepOpen > 0 && c.err == nil && c.relevant > 0 {
		kept := c.order[:0]
		for _, o := range c.order {
			if o != b && c.started-o.touched > c.keepOpen {
				c.finish(o)
				continue
			}
			kept = append(kept, o)
		}
		clear(c.order[len(kept):]) // release finished builders
		c.order = kept
	}
	return b
}

// finish builds an episode, releases its state and emits it.
func (c *collector) finish(b *builder) {
	if c.byID[b.id] == b {
		delete(c.byID, b.id)
	}
	if b == c.cur {
		c.cur = nil
	}
	if b.implicit && b.slots.n == 0 && b.Diag.Lines == 0 && b.Diag.Skipped == 0 {
		return
	}
	dropped := c.dropped
	ep := b.build(c)
	if c.err != nil {
		return
	}
	if c.strict && dropped == nil && c.dropped != nil {
		c.err = c.dropped
		return
	}
	c.err = c.emit(ep)
}

// finishAll finishes the open episodes in order; it returns err, else the
// first error finishing gave.
func (c *collector) finishAll(err error) error {
	for _, b := range c.order {
		c.finish(b)
	}
	c.order = nil
	if err != nil {
		return err
	}
	return c.err
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
	relevant, rawID := sniffLine(trimmed)
	if !relevant && c.outputs && isZorkResponse(trimmed) {
		relevant = true
	}
	if !relevant {
		// Not decoded, but its own episode_id still decides where the
		// id-less lines after it belong. Most lines name the current
		// episode; any other id is confirmed by a decode (an invalid line
		// routes nothing, as a relevant one would not) before switching.
		if id, ok := text(rawID); ok {
			if id = strings.TrimSpace(id); id != "" && (c.cur == nil || id != c.cur.id) {
				if w := &c.wire; w.decode(trimmed) == nil {
					c.routeEvent(w)
				}
			}
		}
		c.lineSeen()
		return nil
	}
	w := &c.wire
	if err := w.decode(trimmed); err != nil {
		c.lineSeen()
		if last {
			// A crashed run's cut line can still end in a nested '}'.
			return c.skip(lineNo, "truncated final line (crashed run?)")
		}
		return c.skip(lineNo, "invalid JSON: "+err.Error())
	}
	c.routeEvent(w)
	b := c.current()
	b.touched = c.started
	b.Diag.Lines++
	if reason := b.event(w, c.source, lineNo); reason != "" {
		return c.skip(lineNo, reason)
	}
	c.relevant++
	return nil
}

// longLine handles a line longer than the read buffer, given its
// compacted form (lineReader): one that is whole goes the way of any line;
// one whose kept field is too long, or whose structure breaks, is skipped
// like a short line would be (silently when the line is irrelevant and
// looks like an object, as line does).
func (c *collector) longLine(lr *lineReader, compact []byte, lineNo int, last bool) error {
	relevant, _ := sniffEventType(compact)
	switch {
	case !lr.broken && lr.tooLong != "" && relevant:
		c.lineSeen()
		return c.skip(lineNo, fmt.Sprintf("field %q longer than %d bytes", lr.tooLong, MaxFieldBytes))
	case !lr.broken:
		return c.line(compact, lineNo, last)
	}
	c.lineSeen()
	shaped := lr.first == '{' && lr.last == '}'
	switch {
	case shaped && !relevant:
		return nil
	case last:
		return c.skip(lineNo, "truncated final line (crashed run?)")
	case !shaped:
		return c.skip(lineNo, "not a JSON object")
	}
	return c.skip(lineNo, "invalid JSON: broken structure in a long line")
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
		c.setCurrent(b)
		return
	}
	if c.cur != nil && c.cur.implicit {
		delete(c.byID, c.cur.id)
		c.cur.id = id
		c.cur.implicit = false
		c.byID[id] = c.cur
		return
	}
	c.setCurrent(c.open(id))
}

func (c *collector) setCurrent(b *builder) {
	c.cur = b
	b.touched = c.started
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

// slot gathers what the log says about one turn number. It is kept small
// (strings as symbols of the episode's table, counts as int32) because an
// episode holds one per turn until it is built: 5 M turns must fit.
type slot struct {
	score float64
	base  float64 // the critic's unpenalised confidence, from the best source (baseLevel)

	location sym // turn_completed.location as logged
	output   sym // zork_response.zork_response, with Options.Outputs
	action   sym // from the best source (actionLevel)
	startLoc sym // an id the turn starts at without a move (startLevel)
	moveFrom sym // room ids of the first and last move
	moveTo   sym
	// A map_movement_update with room names only (early logs): folded
	// names of the first and last move.
	nameFrom, nameTo sym

	objectives, rejections, llmCalls int32
	tcLine, nameMoveLine             int32 // lines of the turn_completed and the first name move

	// Sources rank as RULES.md §0 orders them; a value from a better
	// source replaces one from a worse, a later one from the same source
	// replaces an earlier one (levels below).
	baseLevel, actionLevel, startLevel uint8

	completed, present    bool // a turn_completed was read; the slot is in use
	hasScore, hasLocation bool
	hasMove, hasNameMove  bool
	hasRedo               bool // builder.redos holds a restarted run's record of the turn
	hasOutput             bool

	// rejected numbers the list of action_rejected.action (in log order)
	// in builder.rejected; 0 when none. An index, not a slice: a slot per
	// turn stays small.
	rejected int32
}

// hugeEpisode is the table size (turns) from which build returns freed
// memory to the system before allocating the table.
const hugeEpisode = 1 << 20

// Source levels (0: none).
const (
	baseTC, baseFAS, baseLPA = 1, 2, 3 // turn_completed.confidence < critic_confidence < base_confidence
	actionTC, actionFAS      = 1, 2    // turn_completed.action < agent_action
	startLPA, startRDC       = 1, 2    // location_penalty_applied < room_description_captured
)

func (s *slot) setBase(level uint8, v float64) {
	if level >= s.baseLevel {
		s.base, s.baseLevel = v, level
	}
}

func (s *slot) setAction(level uint8, v sym) {
	if level >= s.actionLevel {
		s.action, s.actionLevel = v, level
	}
}

func (s *slot) setStart(level uint8, v sym) {
	if level >= s.startLevel {
		s.startLoc, s.startLevel = v, level
	}
}

// redo is a restarted run's record of a completed turn, kept aside (it is
// rare) until its turn_completed replaces the turn's record.
type redo struct {
	s    *slot
	line int // its first line
}

// A line number as stored in a slot: files of more than 2^31 lines name
// the last representable line.
func line32(n int) int32 { return int32(min(n, math.MaxInt32)) }

// sym numbers a string of one episode's symbol table (0 is "").
type sym uint32

type symtab struct {
	strs []string
	ids  map[string]sym
	fold map[sym]sym // FoldName, computed once per distinct string
}

func (t *symtab) sym(s string) sym {
	if s == "" {
		return 0
	}
	if id, ok := t.ids[s]; ok {
		return id
	}
	if t.ids == nil {
		t.ids, t.strs = map[string]sym{}, []string{""}
	}
	id := sym(len(t.strs))
	t.strs = append(t.strs, s)
	t.ids[s] = id
	return id
}

func (t *symtab) str(id sym) string {
	if id == 0 {
		return "" // also before any string was interned (strs is nil)
	}
	return t.strs[id]
}

// folded returns FoldName of a symbol's string, shared by every turn.
func (t *symtab) folded(id sym) string {
	if id == 0 {
		return ""
	}
	f, ok := t.fold[id]
	if !ok {
		f = t.sym(FoldName(t.str(id)))
		if t.fold == nil {
			t.fold = map[sym]sym{}
		}
		t.fold[id] = f
	}
	return t.str(f)
}

// slotTable holds an episode's slots in chunks of consecutive turns:
// no map entry or allocation per turn, and a corrupt far turn costs one
// small chunk.
type slotTable struct {
	chunks map[int]*[slotChunk]slot
	n      int
}

const slotChunk = 128

func (st *slotTable) get(t int) *slot {
	c := st.chunks[floorDiv(t, slotChunk)]
	if c == nil {
		return nil
	}
	if s := &c[t-floorDiv(t, slotChunk)*slotChunk]; s.present {
		return s
	}
	return nil
}

// put returns t's slot, creating an empty one.
func (st *slotTable) put(t int) *slot {
	k := floorDiv(t, slotChunk)
	c := st.chunks[k]
	if c == nil {
		if st.chunks == nil {
			st.chunks = map[int]*[slotChunk]slot{}
		}
		c = new([slotChunk]slot)
		st.chunks[k] = c
	}
	s := &c[t-k*slotChunk]
	if !s.present {
		s.present = true
		st.n++
	}
	return s
}

func (st *slotTable) del(t int) {
	if s := st.get(t); s != nil {
		*s = slot{}
		st.n--
	}
}

// release frees the chunk holding turn t (build is past it).
func (st *slotTable) release(t int) { delete(st.chunks, floorDiv(t, slotChunk)) }

// each calls fn for every slot in use, in turn order.
func (st *slotTable) each(fn func(t int, s *slot)) {
	keys := make([]int, 0, len(st.chunks))
	for k := range st.chunks {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		c := st.chunks[k]
		for i := range c {
			if c[i].present {
				fn(k*slotChunk+i, &c[i])
			}
		}
	}
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// merge adds late events of the same turn: counts add up, anything the
// record lacks is taken (r never holds a turn_completed: one would have
// made it the turn's record).
func (s *slot) merge(r *slot, b *builder) {
	s.objectives += r.objectives
	s.rejections += r.rejections
	if r.rejected != 0 {
		for _, a := range b.rejected[r.rejected] {
			b.reject(s, a)
		}
	}
	s.llmCalls += r.llmCalls
	if r.actionLevel > s.actionLevel {
		s.action, s.actionLevel = r.action, r.actionLevel
	}
	if r.baseLevel > s.baseLevel {
		s.base, s.baseLevel = r.base, r.baseLevel
	}
	if r.startLevel > s.startLevel {
		s.startLoc, s.startLevel = r.startLoc, r.startLevel
	}
	if !s.hasMove {
		s.moveFrom, s.moveTo, s.hasMove = r.moveFrom, r.moveTo, r.hasMove
	}
	if !s.hasOutput {
		s.output, s.hasOutput = r.output, r.hasOutput
	}
	if !s.hasNameMove {
		s.nameFrom, s.nameTo, s.hasNameMove, s.nameMoveLine = r.nameFrom, r.nameTo, r.hasNameMove, r.nameMoveLine
	}
}

type builder struct {
	touched  int // collector.started when the episode last got a line
	id       string
	source   string
	implicit bool // named after the file, not by an episode_id
	slots    slotTable
	redos    map[int]redo // see slot.hasRedo
	rejected [][]sym      // see slot.rejected (0 unused)
	syms     symtab
	lastDone int // highest completed turn (events without a turn go to the next one)
	lastTurn int // turn of the latest event; hasLast is false after a restart's init line
	hasLast  bool

	pending     *slot // events of the completed lastTurn since its turn_completed
	dupNoted    bool
	pendingTurn int
	pendingLine int
	anyDone     bool

	hasIDs    bool
	names     map[string]string // folded → display name from name-only moves
	nameToID  map[string]string
	idToName  map[string]string
	llmLogged bool

	live         []LiveEvent
	end          string
	liveStop     int
	hasLiveStop  bool
	loggedFinal  float64
	hasLogFinal  bool
	Diag         Diagnostics
	repeatedSeen map[int]bool
}

func newBuilder(id, source string) *builder {
	return &builder{id: id, source: source, nameToID: map[string]string{}, idToName: map[string]string{}}
}

// Corrupt turn numbers must not cost a row per missing turn. Completed
// turns further than MaxTurnGap from the episode's others are corrupt (the
// largest group of turns close to one another is kept), and the gap rows of
// one file total at most MaxFilledTurns; what falls outside is skipped as
// unreadable. Real logs miss a few turns, not thousands.
const (
	// MaxTurnNumber bounds valid turn numbers: 0 (episode_initialized's
	// turn) to far beyond any real episode. A line with a turn outside it is
	// skipped as unreadable, whatever its event: a negative turn is a
	// corrupt or foreign record, never an agent's turn.
	MaxTurnNumber = 100_000_000

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
	s := b.slots.put(t)
	late := b.hasLast && b.lastTurn == t
	b.lastTurn, b.hasLast = t, true
	switch {
	case !s.completed:
		return s
	case s.hasRedo:
		return b.redos[t].s
	case late && !opens:
		if b.pending == nil {
			b.pending, b.pendingTurn, b.pendingLine = &slot{}, t, lineNo
		}
		return b.pending
	}
	r, first := b.takePending(t, lineNo)
	if b.redos == nil {
		b.redos = map[int]redo{}
	}
	b.redos[t] = redo{r, first}
	s.hasRedo = true
	return r
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
		b.slots.put(b.pendingTurn).merge(b.pending, b)
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
	s := b.slots.get(t)
	switch {
	case s == nil:
		s = b.slots.put(t)
	case s.completed && !s.hasRedo && b.pending == nil && b.hasLast && b.lastTurn == t:
		// Nothing of t since its turn_completed: the same line logged twice
		// (a duplicated log handler), not a restarted run. One record.
		if !b.dupNoted {
			b.dupNoted = true
			b.Diag.note(fmt.Sprintf("%s:%d: turn_completed of turn %d logged twice in a row; read as one record", b.source, lineNo, t))
		}
	case s.completed:
		first := lineNo
		var r *slot
		if s.hasRedo {
			r, first = b.redos[t].s, b.redos[t].line
			delete(b.redos, t)
		} else {
			r, first = b.takePending(t, lineNo)
		}
		// The restarted run's record replaces the first in the table.
		*s = *r
		s.present, s.hasRedo = true, false
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

// reject adds a rejected action to a slot's list.
func (b *builder) reject(s *slot, a sym) {
	if s.rejected == 0 {
		if len(b.rejected) == 0 {
			b.rejected = append(b.rejected, nil) // index 0 means none
		}
		b.rejected = append(b.rejected, nil)
		s.rejected = int32(len(b.rejected) - 1)
	}
	b.rejected[s.rejected] = append(b.rejected[s.rejected], a)
}

// rejectedActions returns a slot's rejected actions as strings.
func (b *builder) rejectedActions(i int32) []string {
	out := make([]string, len(b.rejected[i]))
	for k, a := range b.rejected[i] {
		out[k] = b.syms.str(a)
	}
	return out
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

// nameDisplay keeps the first spelling of a room name seen in a name-only
// move, for name-keyed episodes.
func (b *builder) nameDisplay(raw string) {
	if k := FoldName(raw); k != "" {
		if b.names == nil {
			b.names = map[string]string{}
		}
		if _, ok := b.names[k]; !ok {
			b.names[k] = strings.TrimSpace(raw)
		}
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
	if hasTurn && (t < 0 || t > MaxTurnNumber) {
		return fmt.Sprintf("turn number %d out of range (valid: 0 to %d)", t, MaxTurnNumber)
	}
	get := func(f func(*wireEvent) json.RawMessage) json.RawMessage { return w.field(f) }
	turnOf := func() int {
		if hasTurn {
			return t
		}
		return b.openTurn()
	}
	switch et {
	case "zork_response":
		// Only read with Options.Outputs (collector.line); the reply
		// given last for a turn is its output.
		if v, ok := text(get(func(e *wireEvent) json.RawMessage { return e.ZorkResponse })); ok {
			s := b.slotFor(turnOf(), lineNo, false)
			s.output, s.hasOutput = b.syms.sym(v), true
		}
	case "final_action_selection":
		s := b.slotFor(turnOf(), lineNo, true)
		if a, ok := text(get(func(e *wireEvent) json.RawMessage { return e.AgentAction })); ok {
			s.setAction(actionFAS, b.syms.sym(a))
		}
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.CriticConfidence })); ok {
			s.setBase(baseFAS, f)
		}
	case "location_penalty_applied":
		b.liveEvent(w, turnOf())
		s := b.slotFor(turnOf(), lineNo, false)
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.BaseConfidence })); ok {
			s.setBase(baseLPA, f)
		}
		if id, ok := roomID(get(func(e *wireEvent) json.RawMessage { return e.LocationID })); ok {
			b.hasIDs = true
			s.setStart(startLPA, b.syms.sym(id))
			b.nameRoom(id, get(func(e *wireEvent) json.RawMessage { return e.LocationName }))
		}
	case "action_rejected":
		s := b.slotFor(turnOf(), lineNo, false)
		s.rejections++
		if a, ok := text(get(func(e *wireEvent) json.RawMessage { return e.Action })); ok {
			b.reject(s, b.syms.sym(a))
		}
	case "llm_call":
		b.llmLogged = true
		b.slotFor(turnOf(), lineNo, false).llmCalls++
	case "map_movement_update":
		from, okFrom := roomID(get(func(e *wireEvent) json.RawMessage { return e.FromRoomID }))
		to, okTo := roomID(get(func(e *wireEvent) json.RawMessage { return e.ToRoomID }))
		if !okFrom && !okTo {
			// The early format: room names only. In a name-keyed log it is
			// the turn's move between the folded names (build decides).
			fromRaw, _ := text(get(func(e *wireEvent) json.RawMessage { return e.FromRoom }))
			toRaw, _ := text(get(func(e *wireEvent) json.RawMessage { return e.ToRoom }))
			from, to := FoldName(fromRaw), FoldName(toRaw)
			if from == "" && to == "" {
				b.Diag.note(fmt.Sprintf("%s:%d: map_movement_update without rooms ignored", source, lineNo))
				return ""
			}
			b.nameDisplay(fromRaw)
			b.nameDisplay(toRaw)
			s := b.slotFor(turnOf(), lineNo, false)
			if !s.hasNameMove {
				s.nameFrom, s.nameMoveLine = b.syms.sym(from), line32(lineNo)
			}
			if to != "" {
				s.nameTo = b.syms.sym(to)
			} else {
				s.nameTo = b.syms.sym(from)
			}
			if s.nameFrom == 0 {
				s.nameFrom = s.nameTo
			}
			s.hasNameMove = true
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
			s.moveFrom = b.syms.sym(from)
		}
		if okTo {
			s.moveTo = b.syms.sym(to)
		} else {
			s.moveTo = b.syms.sym(from)
		}
		if s.moveFrom == 0 {
			s.moveFrom = s.moveTo
		}
		s.hasMove = true
	case "room_description_captured":
		if id, ok := roomID(get(func(e *wireEvent) json.RawMessage { return e.LocationID })); ok {
			b.hasIDs = true
			s := b.slotFor(turnOf(), lineNo, false)
			s.setStart(startRDC, b.syms.sym(id))
			b.nameRoom(id, get(func(e *wireEvent) json.RawMessage { return e.LocationName }))
		}
	case "objective_completed":
		b.slotFor(turnOf(), lineNo, false).objectives++
	case "turn_completed":
		if !hasTurn {
			return "turn_completed without a turn number"
		}
		s := b.complete(t, lineNo)
		s.tcLine = line32(lineNo)
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.Score })); ok {
			s.score, s.hasScore = f, true
		}
		if l, ok := text(get(func(e *wireEvent) json.RawMessage { return e.Location })); ok {
			s.location, s.hasLocation = b.syms.sym(l), true
		}
		if a, ok := text(get(func(e *wireEvent) json.RawMessage { return e.Action })); ok {
			s.setAction(actionTC, b.syms.sym(a))
		}
		if f, ok := number(get(func(e *wireEvent) json.RawMessage { return e.Confidence })); ok {
			s.setBase(baseTC, f)
		}
		if !b.anyDone || t > b.lastDone {
			b.lastDone = t
		}
		b.anyDone = true
	case "episode_initialized", "orchestrator_init":
		// A (re)started run: what was pending was late, what follows is new.
		b.closePending()
		b.hasLast = false
	case "score_change", "objective_progress_reset":
		b.liveEvent(w, turnOf())
	case "stuck_termination":
		b.liveEvent(w, turnOf())
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
	// keep is done[from : from+len(keep)]: the rest is dropped, in order.
	for i, t := range done {
		if i >= from && i < from+len(keep) {
			continue
		}
		err := &LineError{File: b.source, Line: int(b.slots.get(t).tcLine),
			Reason: fmt.Sprintf("turn %d is too far from the episode's turns %d–%d (corrupt turn number?)", t, keep[0], keep[len(keep)-1])}
		b.Diag.Skipped++
		b.Diag.problem(err.Error())
		if c.dropped == nil {
			c.dropped = err
		}
		b.slots.del(t)
	}
	return keep
}

func (b *builder) build(c *collector) *Episode {
	b.closePending()
	var done []int // sorted: each visits turns in order
	b.slots.each(func(t int, s *slot) {
		if s.hasRedo {
			s.merge(b.redos[t].s, b)
			s.hasRedo = false
		}
		if s.completed {
			done = append(done, t)
		}
	})
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
		Live:           liveEvents(b.live),
		Format:         FormatZorkGPT,
		Detected:       c.detected,
	}
	if ep.RecordedEnd == "" {
		ep.RecordedEnd = EndUnknown
	}
	// From the slots, so a restarted run's repeat of a turn replaces the
	// first run's objectives too.
	b.slots.each(func(t int, s *slot) {
		if s.objectives > 0 {
			ep.ObjectiveTurns = append(ep.ObjectiveTurns, t)
		}
	})

	if len(done) == 0 {
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
	first, last := done[0], done[len(done)-1]
	b.slots.each(func(t int, s *slot) {
		if t > last {
			ep.TailRejections += int(s.rejections)
			ep.TailLLMCalls += int(s.llmCalls)
		}
	})

	if b.hasIDs {
		ep.LocationKey = KeyRoomID
		for id, n := range b.idToName {
			ep.RoomNames[id] = n
		}
		// Turns that moved pair their turn_completed name with the room
		// reached: the first turn may need it to find its id.
		for _, t := range done {
			if s := b.slots.get(t); s.hasMove && s.hasLocation {
				b.pairName(b.syms.str(s.location), b.syms.str(s.moveTo))
			}
		}
	} else {
		ep.LocationKey = KeyRoomName
	}

	if last-first+1 >= hugeEpisode {
		// The table is one large block that the garbage reading left
		// behind cannot hold: collect and return that garbage first, so a
		// huge episode peaks at its slots plus its table, not twice its
		// slots plus its table (a GC's heap goal).
		debug.FreeOSMemory()
	}
	ep.Turns = make([]Turn, 0, last-first+1)
	if c.outputs {
		ep.Outputs = make([]string, 0, last-first+1)
	}
	var prev *Turn
	gapStart := 0
	str := b.syms.str
	for t := first; t <= last; t++ {
		if t%slotChunk == 0 && t > first {
			b.slots.release(t - 1) // its turns are in the table now
		}
		s := b.slots.get(t)
		tr := Turn{N: t}
		if s != nil {
			tr.Objectives, tr.Rejections, tr.LLMCalls = s.objectives, s.rejections, s.llmCalls
			if s.rejected != 0 {
				if ep.Rejected == nil {
					ep.Rejected = map[int][]string{}
				}
				ep.Rejected[t] = b.rejectedActions(s.rejected)
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
			if c.outputs {
				ep.Outputs = append(ep.Outputs, "")
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
		if s.actionLevel > 0 {
			tr.Action, tr.HasAction = str(s.action), true
		}
		if s.baseLevel > 0 {
			tr.Base, tr.HasBase = s.base, true
		}
		if b.hasIDs {
			switch {
			case s.hasMove:
				// Live ZorkGPT logs a move event on every turn; one that
				// stays in its room is no move.
				tr.LocStart, tr.LocEnd, tr.Moved = str(s.moveFrom), str(s.moveTo), s.moveFrom != s.moveTo
			case prev != nil:
				tr.LocStart, tr.LocEnd = prev.LocEnd, prev.LocEnd
			default:
				loc := str(s.startLoc)
				if loc == "" && s.hasLocation {
					loc = b.nameToID[b.syms.folded(s.location)]
				}
				tr.LocStart, tr.LocEnd = loc, loc
			}
			if s.hasMove && s.hasLocation {
				if _, ok := ep.RoomNames[str(s.moveTo)]; !ok {
					ep.RoomNames[str(s.moveTo)] = strings.TrimSpace(str(s.location))
				}
			}
			if s.hasNameMove && !s.hasMove {
				ep.Diag.note(fmt.Sprintf("%s:%d: map_movement_update without room ids ignored (the episode's locations are room ids)", b.source, s.nameMoveLine))
			}
		} else if s.hasNameMove {
			// An early-format move: the turn goes between the folded
			// names, whatever turn_completed says, and teaches the map
			// when they differ.
			tr.LocStart, tr.LocEnd, tr.Moved = str(s.nameFrom), str(s.nameTo), s.nameFrom != s.nameTo
			for _, k := range []string{tr.LocStart, tr.LocEnd} {
				if _, ok := ep.RoomNames[k]; !ok && b.names[k] != "" {
					ep.RoomNames[k] = b.names[k]
				}
			}
		} else {
			name := ""
			if prev != nil {
				name = prev.LocEnd
			}
			if f := b.syms.folded(s.location); s.hasLocation && f != "" {
				name = f
				if _, ok := ep.RoomNames[name]; !ok {
					ep.RoomNames[name] = strings.TrimSpace(str(s.location))
				}
			}
			tr.LocEnd = name
			tr.LocStart = name // the first turn: no earlier name to start from
			if prev != nil {
				tr.LocStart = prev.LocEnd
				tr.Moved = tr.LocStart != tr.LocEnd
			}
		}
		if c.outputs {
			out := ""
			if s.hasOutput {
				out = str(s.output)
			}
			ep.Outputs = append(ep.Outputs, out)
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
