package replay

// The table a steps log (and every agent log read as steps) is built
// into: records in log order, gaps in step numbers filled, sized ahead
// from the input's size.

import (
	"fmt"
	"strconv"
	"unsafe"
)

// stepRecord is one step before it enters the table.
type stepRecord struct {
	n                  int
	info               StepInfo
	exitCode           int    // when info.HasExitCode (setExitCode): the table packs it
	action, output     string // output may be over the reader's buffer (stepOf): interned by add before the next record
	outCopied          bool   // output is a copy of its own already (outputCopies.unescaped): add keeps it as it is
	location           string
	hasLoc             bool
	score              float64
	hasScore, hasStep  bool
	hasAction, hasText bool
	live               *LiveEvent // a live detection the log records at this step (Turn set by add)
	canonical          string     // see StepInfo.Canonical
}

// setExitCode records the step's exit code.
func (r *stepRecord) setExitCode(code int) {
	r.exitCode, r.info.HasExitCode = code, true
}

// maxStepGapRows bounds the rows filled for gaps in step numbers in one
// file, as the ZorkGPT builder bounds its own: a corrupt step number costs
// a skipped line, not a table of millions of empty rows.
const maxStepGapRows = 100_000

// stepTable builds one episode from step records in log order.
type stepTable struct {
	ep      *Episode
	source  string
	gapRows int
	// stepper replays the turns as they are read (Options.Stepper), as
	// mode says (streamMode); stepped counts the turns it has replayed,
	// outs[outsHead:] holds the outputs of those added since (a queue,
	// outsConsumed); eventsDone counts the history events replayed,
	// eventsZeroed those whose Syms were zeroed when the history's table
	// was made anew (historyStepped). With a stepper the outputs are not
	// kept (Episode.Stepped).
	input        inputGauge // its read's, for presize
	stepper      TurnStepper
	mode         int
	stepped      int
	outs         []string
	outsHead     int
	copies       outputCopies
	eventsDone   int
	eventsZeroed int
	actsZeroed   int // the turns whose action Syms were zeroed (actionsStepped)
	// The last location added and its Sym (location).
	lastLoc    string
	lastLocSym Sym
	hasLastLoc bool
	// actSyms: the Syms of actions added lately, by actionSlot, and
	// actStrs their strings as the table held them; actArena is that
	// table's first chunk (actionSym).
	actSyms  [actSlots]Sym
	actStrs  [actSlots]string
	actArena *byte
}

func newStepTable(id, source string) *stepTable {
	return &stepTable{
		ep:     &Episode{ID: id, Source: source, Format: FormatSteps, LocationKey: KeyRoomName, RecordedEnd: EndUnknown, Rejected: map[int][]string{}},
		source: source,
	}
}

// add appends a record; a non-empty reason says why it was skipped.
func (t *stepTable) add(r stepRecord) string { return t.addRec(&r) }

// addRec is add of the record at r, not copied in.
func (t *stepTable) addRec(r *stepRecord) string {
	if !r.hasStep {
		return "no step number"
	}
	if !r.hasAction && !r.hasText {
		return fmt.Sprintf("step %d has neither an action nor an output", r.n)
	}
	if r.n < 0 || r.n > MaxStepNumber {
		return fmt.Sprintf("step %d is out of range (valid: 0 to 2^53)", r.n)
	}
	ep := t.ep
	var prev *Turn
	if len(ep.Turns) > 0 {
		prev = &ep.Turns[len(ep.Turns)-1]
		if r.n <= prev.N {
			return fmt.Sprintf("step %d does not follow step %d", r.n, prev.N)
		}
		if gap := r.n - prev.N - 1; gap > 0 {
			if t.gapRows+gap > maxStepGapRows {
				return fmt.Sprintf("step %d is %d steps after step %d (gaps of a file are capped at %d steps)", r.n, gap+1, prev.N, maxStepGapRows)
			}
			t.gapRows += gap
			ep.Diag.Gaps += gap
			if ep.Diag.noteRoom() {
				ep.Diag.note(fmt.Sprintf("steps %s missing: filled with steps that change nothing", gapSpan(prev.N+1, r.n-1)))
			}
			for n := prev.N + 1; n < r.n; n++ {
				p := &ep.Turns[len(ep.Turns)-1]
				ep.Turns = append(ep.Turns, Turn{N: n, Score: p.Score, LocStart: p.LocEnd, LocEnd: p.LocEnd, Filled: true})
				if t.stepper == nil {
					ep.Outputs = append(ep.Outputs, 0)
				}
				ep.Steps = append(ep.Steps, StepInfo{Kind: StepAction})
			}
			prev = &ep.Turns[len(ep.Turns)-1]
		}
	}
	turn := Turn{N: r.n}
	if prev != nil {
		turn.Score, turn.LocStart, turn.LocEnd = prev.Score, prev.LocEnd, prev.LocEnd
	}
	if r.hasScore {
		turn.Score = r.score
		ep.HasScore = true
	}
	if r.hasLoc {
		loc := t.location(r.location)
		if prev == nil {
			turn.LocStart = loc
		}
		turn.Moved = prev != nil && loc != turn.LocStart
		turn.LocEnd = loc
	}
	if r.info.Kind == StepAction && notBlank(r.action) {
		tab, tag := &ep.syms, Sym(0)
		if t.stepper != nil {
			tab, tag = &ep.acts, actTag // let go once replayed (actionsStepped)
		}
		turn.Action, turn.HasAction = t.actionSym(tab, r.action)|tag, true
		if r.canonical != "" {
			r.info.Canonical = tab.sym(r.canonical) | tag
		}
	}
	if n := len(ep.Turns); n == presizeEarly || n == presizeAt {
		t.presize()
	}
	ep.Turns = append(ep.Turns, turn)
	if t.stepper == nil {
		ep.Outputs = append(ep.Outputs, ep.syms.sym(r.output)) // a copy: r.output may be over a reader's buffer
	}
	if r.info.HasExitCode {
		ep.setExitCode(&r.info, len(ep.Steps), r.exitCode)
	}
	ep.Steps = append(ep.Steps, r.info)
	if r.live != nil {
		e := *r.live
		e.Turn = r.n
		ep.Live = append(ep.Live, e)
	}
	if t.stepper != nil {
		t.added(r.output, r.outCopied)
	}
	return ""
}

// actSlots is the number of actions' Syms stepTable.actionSym keeps.
const actSlots = 32

// actionSym is tab.sym(s) of a step's action s (not empty), taken from
// actSyms when the string kept with the Sym (actStrs) is s and was taken
// from tab: an agent repeats a few actions, and sym hashed each anew
// (about 250 instructions a step on a steps log). A table is told by its
// first chunk (actArena), whose bytes never move and which the pointer
// keeps from being freed, so no other table, made anew (actionsStepped)
// or the other one (syms or acts), can have it: a cache of another table
// is dropped, where each hit read its Sym's string back from the table
// (symtab.str, some 35 instructions).
func (t *stepTable) actionSym(tab *symtab, s string) Sym {
	k := (uint(len(s)) + 3*uint(s[0]) + 5*uint(s[len(s)-1])) % actSlots
	if c := tab.chunks; len(c) > 0 && unsafe.SliceData(c[0]) == t.actArena && equalShort(t.actStrs[k], s) {
		return t.actSyms[k]
	}
	id := tab.sym(s) // s is not empty: tab has a chunk after
	if a := unsafe.SliceData(tab.chunks[0]); a != t.actArena {
		t.actStrs, t.actArena = [actSlots]string{}, a
	}
	t.actSyms[k], t.actStrs[k] = id, tab.str(id)
	return id
}

// presizeAt is the number of turns at which a steps table is made the
// size its input's size says it will reach (presize): past it, a table
// grown by append was copied at each growth, its last two arrays alive at
// once, and a 200 MB session peaked at 115 MB of RSS and 2.0 s of CPU
// (0.56 s of it faulting in the copies), 88 MB and 1.4 s made at its
// size (loaded machine).
const presizeAt = 1 << 16

// presizeEarly is the number of turns at which a steps table is first
// made the size its input's size says (presize), and made anew at
// presizeAt only if that falls short: grown by append up to presizeAt
// its arrays and their copies were a fifth of a 100 MB steps log's page
// faults (14,100 -> 10,800 faults, peak RSS the same 53 MB, alternating
// runs; Codex 11,000 -> 10,400, OpenHands V0 events 10,800 -> 10,300).
const presizeEarly = 1 << 12

// presize grows the table's turns and step records to the turns the
// input will hold at this rate of turns a byte, a twentieth more; not
// when the input's size is unknown (a pipe) or it is nearly read.
func (t *stepTable) presize() {
	ep := t.ep
	f := t.input.fraction()
	if f <= 0 || f > 0.9 {
		return
	}
	// A table made at its size earlier (presizeEarly) is made anew only
	// when the turns now foreseen do not fit it, not for the twentieth
	// more: 2,300 page faults of a 100 MB log's 13,000 went on a second
	// table of nearly the first's size.
	foreseen := float64(len(ep.Turns)) / f
	if int(foreseen) <= cap(ep.Turns) {
		return
	}
	turns, n := len(ep.Turns), int(foreseen*1.05)
	ep.Turns = sized(ep.Turns, n)
	ep.Steps = sized(ep.Steps, n)
	if t.stepper == nil {
		ep.Outputs = sized(ep.Outputs, n)
	}
	// An OpenHands history: its events at their rate a turn.
	if h := len(ep.OpenHands); h > 0 {
		ep.OpenHands = sized(ep.OpenHands, h*n/turns)
	}
	if h := len(ep.OpenHandsV1); h > 0 && t.stepper == nil {
		// Replayed as read, its events are let go as replayed
		// (historyStepped): a few are held at a time.
		ep.OpenHandsV1 = sized(ep.OpenHandsV1, h*n/turns)
	}
}

// sized is s in an array of n, when that is more than its capacity:
// exactly n (slices.Grow goes on in append's steps past it).
func sized[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s
	}
	return append(make([]T, 0, n), s...)
}

func gapSpan(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return fmt.Sprintf("%d–%d", a, b)
}
