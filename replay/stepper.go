package replay

import (
	"bufio"
	"strings"
	"unsafe"
)

// A TurnStepper replays an episode's turns while the episode is read
// (Options.Stepper), so that a session's outputs need not be kept until
// the whole file is read: a tool's result or a message is most of a
// step, and a session of 100 MB held about 70 MB of them until its
// replay (issue 24).
type TurnStepper interface {
	// Step replays ep.Turns[i]. It is called once per turn, in order,
	// once the turn's row, its step info, its output and the history
	// events up to it are final: ep.Output(ep.Turns[i].N) reads the
	// output during the call only.
	Step(ep *Episode, i int)
}

// How a steps reader's episodes are replayed with a TurnStepper.
const (
	// readWhole: read whole first, as without a stepper.
	readWhole = iota
	// stepAdded: each turn as the table adds it. A steps table only
	// appends, so a turn is final once added.
	stepAdded
	// stepBehind: each turn once an event of a later step is recorded
	// (and at the end). The OpenHands readers record a history besides
	// the steps, each event at the step it is read in (the reader's n),
	// and events of a step keep coming after the step's record (its
	// observation, a state change, a user message); the StuckDetectors'
	// replays take every event up to the turn they step, and V1's marks
	// the last event recorded as one the run loop checks after
	// (askBefore) when the next comes. Events are recorded at
	// non-decreasing steps, so once an event of a later step is recorded
	// none can come for an earlier one, nor can an earlier one be marked.
	// Until then no turn is stepped: a log without any event (V0 replays
	// it as steps) is replayed at its end.
	stepBehind
)

// streamMode says how sr's episodes are replayed with a stepper, reading
// br. Read whole first is a reader that hands its steps over only at the
// end (finishEach: a Gemini CLI session, whose later "$rewindTo" or
// "$set" can take back any message): it holds the session until then
// anyway, and copying each output for a replay while it is held made the
// collector scan that session over and over (gemini-jsonl 0.84 -> 1.25 s
// of CPU). A Gemini CLI recording read from a file that can be read again
// or a spooled pipe (rereadable) is handed over as read, and read again
// whole should a later record take back a message handed over
// (gemini_stream.go).
func streamMode(sr stepReader, br *bufio.Reader, rereadable bool) int {
	switch r := sr.(type) {
	case *openHandsReader, *openHandsV1Reader:
		return stepBehind
	case *geminiReader:
		// A recording's records, one a line, or a session document, from
		// an input that can be read again: handed over as read
		// (gemini_stream.go).
		if rereadable && peekFirstByte(br) == '{' {
			r.speculate = true
			return stepAdded
		}
		return readWhole
	case eachFinisher:
		return readWhole
	}
	return stepAdded
}

// stepOutput is the output of the turn a TurnStepper is stepping
// (Episode.Output reads it): none ("") when the turn has none or none is
// being stepped.
type stepOutput struct {
	n   int
	out string
}

// added takes the output of the turns the table just added (the last
// one's; a filled gap's turns have none), copied unless it is a copy
// already, and steps what may be stepped.
func (t *stepTable) added(out string, copied bool) {
	ep := t.ep
	if !copied {
		out = t.copies.clone(out)
	}
	if ep.outputsRecycled {
		t.copies.hand(out)
	}
	// The turns added with none queued (a steps log's turn, and the
	// turns filling a gap before it, which have no output) are stepped
	// at once, as stepTo steps them, with no trip through the queue:
	// each slot appended, read and cleared (each string with its write
	// barrier), the loop and the queue's reset cost some 50 instructions
	// a turn.
	if t.mode == stepAdded && t.outsHead == len(t.outs) {
		// The gap's turns, then the last one with its output: one call
		// of Step each, the output set and cleared only around the
		// last's, where a loop tested every turn for the last (the
		// table holds at least the turn just added, and stepped is
		// never past it).
		last := len(ep.Turns) - 1
		for ; t.stepped < last; t.stepped++ {
			t.stepper.Step(ep, t.stepped)
		}
		if out != "" {
			ep.stepping = stepOutput{n: ep.Turns[last].N, out: out}
			t.stepper.Step(ep, last)
			ep.stepping = stepOutput{}
		} else {
			t.stepper.Step(ep, last)
		}
		t.stepped = last + 1
		t.actionsStepped()
		if ep.outputsRecycled {
			t.copies.recycleStepped()
		}
		return
	}
	for len(t.outs)-t.outsHead < len(ep.Turns)-t.stepped-1 {
		t.outs = append(t.outs, "")
	}
	t.outs = append(t.outs, out)
	if t.mode == stepAdded {
		t.stepTo(len(ep.Turns))
		return
	}
	last := lastEventStep(ep)
	end := t.stepped
	for end < len(ep.Turns) && ep.Turns[end].N < last {
		end++
	}
	t.stepTo(end)
}

// lastEventStep is the step of the last event ep's history records (0:
// none yet).
func lastEventStep(ep *Episode) int {
	if h := ep.OpenHands; len(h) > 0 {
		return int(h[len(h)-1].N)
	}
	if h := ep.OpenHandsV1; len(h) > 0 {
		return int(h[len(h)-1].N)
	}
	return 0
}

// stepTo has t's stepper replay the turns from t.stepped up to end.
func (t *stepTable) stepTo(end int) {
	ep := t.ep
	for ; t.stepped < end; t.stepped++ {
		// As added's turn alone (a change here is one there).
		if out := t.outs[t.outsHead]; out != "" {
			ep.stepping = stepOutput{n: ep.Turns[t.stepped].N, out: out}
		}
		t.outs[t.outsHead] = ""
		t.outsHead++
		t.stepper.Step(ep, t.stepped)
		ep.stepping = stepOutput{}
		if t.mode == stepBehind {
			t.historyStepped(ep.Turns[t.stepped].N)
		}
	}
	t.actionsStepped()
	t.outsConsumed()
	if ep.outputsRecycled && len(t.outs) == 0 {
		t.copies.recycleStepped() // every output handed over is stepped
	}
}

// keptOuts bounds the queue of outputs (stepTable.outs) kept for reuse
// once empty: a larger one, grown while a history's events lagged, is
// let go.
const keptOuts = 1 << 10

// outsConsumed moves the queue of outputs to the front of its array once
// its consumed front (cleared) is half of it or all of it: an empty
// queue is reused from the start, where one sliced on from its front ran
// out of capacity at each turn of a steps log and allocated a string a
// turn; a queue that never empties (a lagging history) is moved when
// half is consumed, each output moved at most once on average.
func (t *stepTable) outsConsumed() {
	h := t.outsHead
	switch {
	case h == len(t.outs):
		t.outs, t.outsHead = t.outs[:0], 0
		if cap(t.outs) > keptOuts {
			t.outs = nil
		}
	case h > len(t.outs)/2:
		n := copy(t.outs, t.outs[h:])
		clear(t.outs[n:])
		t.outs, t.outsHead = t.outs[:n], 0
	}
}

// historyTable bounds the history's table (Episode.hist) of an
// episode replayed as it is read: past it, the table is made anew with
// the strings of the events not yet replayed, and the old one goes once
// the detectors let go of the few strings they keep. 2 MiB: 100 MB
// OpenHands logs (events, V1) peaked at 54.5 and 60 MB of RSS, 58-65 and
// 65-76 with 8 MiB (loaded machine).
var historyTable = 2 << 20 // a variable: TestHistoryTableRenewed lowers it

// historyStepped notes that the events up to step n are replayed, and
// makes the history's table anew once it is over historyTable.
func (t *stepTable) historyStepped(n int) {
	ep := t.ep
	for t.eventsDone < len(ep.OpenHands) && int(ep.OpenHands[t.eventsDone].N) <= n {
		t.eventsDone++
	}
	for t.eventsDone < len(ep.OpenHandsV1) && int(ep.OpenHandsV1[t.eventsDone].N) <= n {
		t.eventsDone++
	}
	t.dropV1Events()
	if ep.hist.arenaBytes() < historyTable {
		return
	}
	var next symtab
	re := func(s *Sym) { *s = next.sym(ep.hist.str(*s)) }
	// The events replayed name strings of the old table: 0 reads "".
	for i := t.eventsZeroed; i < len(ep.OpenHands); i++ {
		e := &ep.OpenHands[i]
		if i < t.eventsDone {
			e.Key, e.Text = 0, 0
			continue
		}
		re(&e.Key)
		re(&e.Text)
	}
	for i := t.eventsZeroed; i < len(ep.OpenHandsV1); i++ {
		e := &ep.OpenHandsV1[i]
		if i < t.eventsDone {
			e.Source, e.Key, e.ID, e.Tool, e.Error = 0, 0, 0, 0, 0
			continue
		}
		re(&e.Source)
		re(&e.Key)
		re(&e.ID)
		re(&e.Tool)
		re(&e.Error)
	}
	t.eventsZeroed = t.eventsDone
	ep.hist = next
}

// v1EventsKept is how many V1 events replayed may wait before they are
// let go (dropV1Events), at least: 28 bytes each, 224,000 of them in a
// 200 MB session.
var v1EventsKept = 4096 // a variable: tests lower it (SetStreamBounds)

// dropV1Events lets go of the V1 events replayed once they are
// v1EventsKept and most of the list (the rest is copied into a list of
// its own, so the copies cost as much as the events recorded): the
// detector's replay has taken them (rules, openHandsV1Engine, which reads
// them by their index, V1Events), and nothing reads them after.
func (t *stepTable) dropV1Events() {
	ep := t.ep
	done := t.eventsDone
	if len(ep.OpenHands) > 0 || done < v1EventsKept || done < len(ep.OpenHandsV1)/2 {
		return
	}
	rest := ep.OpenHandsV1[done:]
	ep.OpenHandsV1 = append(make([]OpenHandsV1Event, 0, max(2*len(rest), 64)), rest...)
	ep.V1Dropped += done
	t.eventsDone, t.eventsZeroed = 0, max(t.eventsZeroed-done, 0)
}

// actionTable bounds the table of a Stepped episode's actions and
// canonical calls (Episode.acts), as historyTable the history's: past it,
// the table is made anew with the strings of the turns not yet replayed,
// and the Syms of those replayed are zeroed (Str reads ""): no rule reads
// a turn but the one it steps, and nothing after the replay reads an
// agent's turn's action (the reports and outcomes of a steps log read its
// firings, scores and step kinds). The old table goes once the detectors
// let go of the few strings they keep.
var actionTable = 2 << 20 // a variable: tests lower it (SetStreamBounds)

// actionsStepped makes the actions' table anew once it is over
// actionTable.
func (t *stepTable) actionsStepped() {
	ep := t.ep
	if ep.acts.arenaBytes() < actionTable {
		return
	}
	var next symtab
	for i := t.actsZeroed; i < len(ep.Turns); i++ {
		a, c := &ep.Turns[i].Action, &ep.Steps[i].Canonical
		if i < t.stepped {
			if *a&actTag != 0 {
				*a = 0
			}
			if *c&actTag != 0 {
				*c = 0
			}
			continue
		}
		if *a&actTag != 0 {
			*a = next.sym(ep.Str(*a)) | actTag
		}
		if *c&actTag != 0 {
			*c = next.sym(ep.Str(*c)) | actTag
		}
	}
	t.actsZeroed = t.stepped
	ep.acts = next
	// The action cache's strings are the old table's: let its chunks go
	// now, not at the next action (actSym finds the arena changed and
	// starts anew either way).
	t.actStrs, t.actArena = [actSlots]string{}, nil
}

// stepRest steps the turns not yet replayed, at the end of the input.
func (t *stepTable) stepRest() {
	if t.stepper != nil {
		t.stepTo(len(t.ep.Turns))
	}
}

// outputCopies copies outputs into blocks of outputBlock bytes, one
// allocation a block, not one a step: a rule may keep an output past its
// step while the reader's buffer moves on, and the rules keep a bounded
// few (fuzzy_repeat's window, the detectors' rings), so a block is
// collected once none of its outputs is held.
type outputCopies struct {
	block []byte
	// handedEnd says block[:handedEnd] holds the outputs handed to the
	// table (hand), one after another in the order written; mixed says
	// one was handed from elsewhere in the block. Only a block wholly
	// handed over and stepped is written over (recycleStepped): a text
	// a reader wrote there and holds for a later step (a message waiting
	// for its tool calls) is never between.
	handedEnd int
	mixed     bool
}

const outputBlock = 64 << 10

func (c *outputCopies) clone(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > outputBlock/4 {
		return strings.Clone(s)
	}
	c.room(len(s))
	start := len(c.block)
	c.block = append(c.block, s...)
	return unsafe.String(&c.block[start], len(s)) // never written again
}

// free is the block's free room, empty, to append a text to within its
// capacity (room made it at least the text's length); take takes it.
func (c *outputCopies) free() []byte { return c.block[len(c.block):len(c.block)] }

// take returns text t as a string never written again: one appended to
// free, which the block grows over to hold it, or one that outgrew that
// room, an array of its own, left as it is.
func (c *outputCopies) take(t []byte) string {
	if len(t) == 0 {
		return ""
	}
	if free := c.block[len(c.block):cap(c.block)]; unsafe.SliceData(t) == unsafe.SliceData(free) {
		c.block = c.block[:len(c.block)+len(t)]
	}
	return bytesString(t)
}

// hand notes an output handed to the table (stepTable.added): in the
// block, right after the last one handed, or it is mixed.
func (c *outputCopies) hand(out string) {
	if len(out) == 0 {
		return
	}
	// An output not in the block (an array of its own, a reader's
	// buffer) wraps round to an offset past its capacity.
	off := uintptr(unsafe.Pointer(unsafe.StringData(out))) - uintptr(unsafe.Pointer(unsafe.SliceData(c.block)))
	if off >= uintptr(cap(c.block)) {
		return
	}
	if int(off) != c.handedEnd {
		c.mixed = true
		return
	}
	c.handedEnd += len(out)
}

// recycleStepped lets the block's texts be written over once they are
// the outputs handed over, all of them stepped (Episode.outputsRecycled):
// every string taken from it is then dead. Under a test
// (poisonRecycled) the bytes are written over at once, so that a text
// held past its step reads as garbage and its detector's firings change.
func (c *outputCopies) recycleStepped() {
	if c.mixed || c.handedEnd != len(c.block) {
		return
	}
	if poisonRecycled {
		b := c.block[:len(c.block)]
		for i := range b {
			b[i] = 0xa5
		}
	}
	c.block, c.handedEnd = c.block[:0], 0
}

// poisonRecycled is set by tests (TestRecycledOutputsNotHeld).
var poisonRecycled bool

// room starts a new block, not cleared first (only the bytes appended
// are read), when the block has less than n bytes free; n is at most
// outputBlock/4.
func (c *outputCopies) room(n int) {
	if cap(c.block)-len(c.block) < n {
		c.block, c.handedEnd, c.mixed = makeNoZero(outputBlock), 0, false
	}
}
