package replay

import (
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
	// stepBehind: each turn once a later turn is added (and at the end).
	// OpenHands V0's reader records its history besides the steps, each
	// event at the step it is read in (openHandsReader.n), and events of
	// a step keep coming after the step's record (its observation, a
	// state change, a user message): the StuckDetector's replay takes
	// every event up to the turn it steps. Events are recorded at
	// non-decreasing steps, and a turn is added once the reader is at
	// its step, so once a later turn is added no event can come for an
	// earlier one. Until the first event is recorded (Episode.OpenHands
	// is nil) no turn is stepped: the replay takes a log without any
	// event as steps.
	stepBehind
)

// streamMode says how sr's episodes are replayed with a stepper. Read
// whole first are:
//   - a reader that records a history but is not V0's (OpenHands V1's
//     event histories: not shown to hold stepBehind's order yet);
//   - a reader that hands its steps over only at the end (finishEach: a
//     Gemini CLI session, whose later "$rewindTo" or "$set" can take back
//     any message): it holds the session until then anyway, and copying
//     each output for a replay while it is held made the collector scan
//     that session over and over (gemini-jsonl 0.84 -> 1.25 s of CPU).
func streamMode(sr stepReader) int {
	if _, ok := sr.(*openHandsReader); ok {
		return stepBehind
	}
	_, history := sr.(interface{ start(*Episode) })
	_, atEnd := sr.(eachFinisher)
	if history || atEnd {
		return readWhole
	}
	return stepAdded
}

// stepOutput is the output of the turn a TurnStepper is stepping
// (Episode.Output reads it).
type stepOutput struct {
	n   int
	out string
	set bool
}

// added takes the output of the turns the table just added (the last
// one's; a filled gap's turns have none) and steps what may be stepped.
func (t *stepTable) added(out string) {
	ep := t.ep
	for len(t.outs) < len(ep.Turns)-t.stepped-1 {
		t.outs = append(t.outs, "")
	}
	t.outs = append(t.outs, t.copies.clone(out))
	switch {
	case t.mode == stepAdded:
		t.stepTo(len(ep.Turns))
	case ep.OpenHands != nil:
		t.stepTo(len(ep.Turns) - 1)
	}
}

// stepTo has t's stepper replay the turns from t.stepped up to end.
func (t *stepTable) stepTo(end int) {
	ep := t.ep
	for ; t.stepped < end; t.stepped++ {
		if out := t.outs[0]; out != "" {
			ep.stepping = stepOutput{n: ep.Turns[t.stepped].N, out: out, set: true}
		}
		t.outs[0] = ""
		t.outs = t.outs[1:]
		t.stepper.Step(ep, t.stepped)
		ep.stepping = stepOutput{}
		if t.mode == stepBehind {
			t.releaseEvents(ep.Turns[t.stepped].N)
		}
	}
	if len(t.outs) == 0 {
		t.outs = t.outs[:0:0] // let the consumed front of the queue go
	}
}

// releaseEvents lets go of the strings of the history events up to step
// n once turn n is replayed: the replay has taken them (its detector
// keeps the few it looks back at), and nothing reads them after.
func (t *stepTable) releaseEvents(n int) {
	h := t.ep.OpenHands
	for ; t.eventsDone < len(h) && int(h[t.eventsDone].N) <= n; t.eventsDone++ {
		h[t.eventsDone].key, h[t.eventsDone].text = "", ""
	}
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
type outputCopies struct{ block []byte }

const outputBlock = 64 << 10

func (c *outputCopies) clone(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > outputBlock/4 {
		return strings.Clone(s)
	}
	if cap(c.block)-len(c.block) < len(s) {
		c.block = make([]byte, 0, outputBlock)
	}
	start := len(c.block)
	c.block = append(c.block, s...)
	return unsafe.String(&c.block[start], len(s)) // never written again
}
