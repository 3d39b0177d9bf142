package replay

import "strings"

// A TurnStepper replays an episode's turns while the episode is read
// (Options.Stepper), so that a session's outputs need not be kept until
// the whole file is read: a tool's result or a message is most of a
// step, and a session of 100 MB held about 70 MB of them until its
// replay (issue 24).
type TurnStepper interface {
	// Step replays ep.Turns[i]. It is called once per turn, in order,
	// once the turn's row, its step info and its output are final:
	// ep.Output(ep.Turns[i].N) reads the output during the call only.
	Step(ep *Episode, i int)
}

// streams says whether a steps reader's episodes are replayed while
// read: each of its turns is final when the table adds it (stepTable.add
// only appends). Two kinds of reader are read whole first:
//   - one that records a history besides the steps (start: OpenHands'
//     event histories, whose events for a step can come after the step's
//     own record);
//   - one that hands its steps over only at the end (finishEach: a Gemini
//     CLI session, whose later "$rewindTo" or "$set" can take back any
//     message): it holds the session until then anyway, and copying each
//     output for a replay while it is held made the collector scan that
//     session over and over (gemini-jsonl 0.84 -> 1.25 s of CPU).
func streams(sr stepReader) bool {
	_, history := sr.(interface{ start(*Episode) })
	_, atEnd := sr.(eachFinisher)
	return !history && !atEnd
}

// stepOutput is the output of the turn a TurnStepper is stepping
// (Episode.Output reads it): a copy, so that a rule may keep it past the
// step while the reader's buffer moves on.
type stepOutput struct {
	n   int
	out string
	set bool
}

// stepTurns has t's stepper replay the turns from t.stepped on, the last
// one's output being out.
func (t *stepTable) stepTurns(out string) {
	ep := t.ep
	for ; t.stepped < len(ep.Turns); t.stepped++ {
		if t.stepped == len(ep.Turns)-1 && out != "" {
			ep.stepping = stepOutput{n: ep.Turns[t.stepped].N, out: strings.Clone(out), set: true}
		}
		t.stepper.Step(ep, t.stepped)
		ep.stepping = stepOutput{}
	}
}
