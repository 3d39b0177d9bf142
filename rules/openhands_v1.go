package rules

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// OpenHands V1's StuckDetector (RULES.md §11; OpenHands/software-agent-sdk
// openhands-sdk/openhands/sdk/conversation/stuck_detector.py
// StuckDetector.is_stuck and get_action_error_nudge, read at 611629e), as
// the conversation's run loop asks it before each agent step
// (conversation/impl/local_conversation.py _check_stuck_or_nudge). Like
// V0's, one detector of several checks, a rule each; v1_repeat_action_
// observation runs it. It runs on OpenHands V1 logs only.

// Keys of the OpenHands V1 rules.
var (
	enableOpenHandsV1   = enableParam("enable_openhands_v1", "replay OpenHands V1's StuckDetector and its action-error nudge")
	v1ActionObservation = detectInt(detect.OpenHandsV1Params, "v1_action_observation")
	v1ActionError       = detectInt(detect.OpenHandsV1Params, "v1_action_error")
	v1Monologue         = detectInt(detect.OpenHandsV1Params, "v1_monologue")
	v1AlternatingPat    = detectInt(detect.OpenHandsV1Params, "v1_alternating_pattern")
)

// Kinds of the OpenHands V1 rules.
var (
	V1ActionObservationStop = openHandsV1Stop()
	V1ActionErrorStop       = openHandsV1Stop()
	V1ActionErrorNudge      = &Kind{Name: "feedback", Doc: "get_action_error_nudge: a message tells the agent its call failed the same way v1_action_error times"}
	V1MonologueStop         = openHandsV1Stop()
	V1AlternatingStop       = openHandsV1Stop()
)

func openHandsV1Stop() *Kind {
	return &Kind{Name: "stop", Doc: "StuckDetector.is_stuck is true: the conversation's status becomes stuck and the run stops"}
}

func onOpenHandsV1(ep *replay.Episode, _ *Config) bool { return ep.Preset == replay.PresetOpenHandsV1 }

// V1RepeatActionObservation runs the V1 detector and reports its first
// check.
var V1RepeatActionObservation = &Rule{
	Name: detect.RuleV1ActionObservation, Origin: OriginOpenHandsV1,
	Title:   "OpenHands V1: the same action with the same observation, v1_action_observation times",
	Section: "docs/rules.md#" + detect.RuleV1ActionObservation,
	Doc: "OpenHands V1's stuck_detector.py _is_stuck_repeating_action_observation (software-agent-sdk 611629e), asked " +
		"before each agent step (local_conversation.py _check_stuck_or_nudge) over the last 20 events of the " +
		"active branch after the last user message. Fires when the last v1_action_observation actions are equal " +
		"and so are the last observations (AgentErrorEvents included), by _event_eq: an ActionEvent's source, " +
		"thought, action and tool name; an ObservationEvent's source, observation and tool name; an " +
		"AgentErrorEvent's source and error. It runs the detector whose other checks are the rules after it.",
	Params: []*Param{enableOpenHandsV1.Param, v1ActionObservation.Param},
	Kinds:  []*Kind{V1ActionObservationStop}, Enabled: enableOpenHandsV1.Get,
	Applies: onOpenHandsV1, InputsDoc: "steps, preset openhands-v1",
	New: func(c *Config, ep *replay.Episode) Stepper {
		d, err := detect.NewOpenHandsV1(detect.OpenHandsV1Config{
			ActionObservation: v1ActionObservation.Get(c), ActionError: v1ActionError.Get(c),
			Monologue: v1Monologue.Get(c), AlternatingPattern: v1AlternatingPat.Get(c),
		})
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &openHandsV1Engine{d: d}
	},
}

// openHandsV1Engine is the V1 detector's state: fired is the check that
// fired at the current step ("" for none), nudge whether it was the
// nudge; artifacts are status updates waiting for the next event of a log
// without parent ids (they are on its branch, but never its leaf).
type openHandsV1Engine struct {
	d          *detect.OpenHandsV1
	fired      string
	nudge      bool
	next       int
	artifacts  []*detect.OpenHandsV1Event
	slab       []detect.OpenHandsV1Event // event's slots not yet handed out
	followSkip                           // its checks, skipped on a turn it found nothing for them
}

// v1Slab is how many events the engine allocates at once (event); a
// test sets 0 for an allocation each, as first written.
var v1Slab = 256

// event is ev for the detector, in a slot of a slab of v1Slab events
// allocated at once: each event was allocated on its own (~70
// instructions; the detector and the artifacts keep them by pointer). A
// slot is handed out once, never reused: a slab is let go once none of
// its events is held.
func (e *openHandsV1Engine) event(ep *replay.Episode, ev *replay.OpenHandsV1Event) *detect.OpenHandsV1Event {
	var de *detect.OpenHandsV1Event
	if n := v1Slab; n > 0 {
		if len(e.slab) == 0 {
			e.slab = make([]detect.OpenHandsV1Event, n)
		}
		de = &e.slab[0]
		e.slab = e.slab[1:]
	} else {
		de = new(detect.OpenHandsV1Event)
	}
	// A slot is new, zero: a string of Sym 0 (the empty string, and
	// most events' source, id, tool or error: each a class's alone) is
	// left as it is, with no call to look it up.
	de.Class = detect.V1Class(ev.Class) // replay.OpenHandsV1Class has detect's order
	if ev.Source != 0 {
		de.Source = ep.HistoryStr(ev.Source)
	}
	if ev.Key != 0 {
		de.Key = ep.HistoryStr(ev.Key)
	}
	if ev.ID != 0 {
		de.ID = ep.HistoryStr(ev.ID)
	}
	if ev.Tool != 0 {
		de.Tool = ep.HistoryStr(ev.Tool)
	}
	if ev.Error != 0 {
		de.Error = ep.HistoryStr(ev.Error)
	}
	return de
}

func isOpenHandsV1Check(s Stepper) bool {
	_, ok := s.(openHandsV1Check)
	return ok
}

// Step hands the detector the events up to t and skips the checks when
// none fired: one body, where Step called step (~10 instructions a step).
func (e *openHandsV1Engine) Step(t *replay.Turn, env *Env) {
	e.fired, e.nudge = "", false
	ep := env.Episode
	// Read by the index recorded at: of an episode replayed as read, the
	// events replayed are let go (replay.Episode.V1Events).
	evs := ep.V1Events(e.next)
	for k := 0; k < len(evs) && int(evs[k].N) <= t.N; k, e.next = k+1, e.next+1 {
		ev := &evs[k]
		switch {
		case ev.Artifact && ev.Tree: // not a tree node: not on the branch
		case ev.Artifact:
			e.artifacts = append(e.artifacts, e.event(ep, ev))
			if len(e.artifacts) > 20 { // the window is 20 events
				e.artifacts = e.artifacts[1:]
			}
		default:
			for _, a := range e.artifacts {
				e.d.Add(a)
			}
			e.artifacts = e.artifacts[:0]
			e.d.Add(e.event(ep, ev))
		}
		if ev.Ask && e.fired == "" {
			e.fired, e.nudge = e.d.Check()
		}
	}
	rao := e.fired == V1RepeatActionObservation.Name
	if rao {
		env.Report(&Firing{Turn: t.N, Rule: V1RepeatActionObservation, Kind: V1ActionObservationStop})
	}
	// none: no check would report (openHandsV1Check.Step would find fired not its rule).
	e.skip(env, e, V1RepeatActionObservation, isOpenHandsV1Check, e.fired == "" || rao)
}

// openHandsV1Check reports the steps where its check fired.
type openHandsV1Check struct {
	rule        *Rule
	stop, nudge *Kind
}

func (c openHandsV1Check) Step(t *replay.Turn, env *Env) {
	e := resultOf[*openHandsV1Engine](env, V1RepeatActionObservation)
	if e == nil || e.fired != c.rule.Name {
		return
	}
	k := c.stop
	if e.nudge {
		k = c.nudge
	}
	env.ReportBare(t.N, c.rule, k)
}

func openHandsV1Rule(name, title, doc string, p IntParam, kinds ...*Kind) *Rule {
	r := &Rule{
		Name: name, Origin: OriginOpenHandsV1, Title: title, Section: "docs/rules.md#" + name, Doc: doc,
		Params: []*Param{p.Param}, Kinds: kinds, Enabled: enableOpenHandsV1.Get,
		Requires: []*Rule{V1RepeatActionObservation}, Applies: onOpenHandsV1, InputsDoc: "steps, preset openhands-v1",
	}
	c := openHandsV1Check{rule: r, stop: kinds[0]}
	if len(kinds) > 1 {
		c.nudge = kinds[1]
	}
	r.New = func(*Config, *replay.Episode) Stepper { return c }
	return r
}

// The other V1 checks, in the order the run loop tries them.
var (
	V1RepeatActionError = openHandsV1Rule(detect.RuleV1ActionError,
		"OpenHands V1: the same action failing, nudged at v1_action_error, stuck one later",
		"OpenHands V1's get_action_error_nudge and _is_stuck_repeating_action_error (software-agent-sdk 611629e): "+
			"a streak of equal actions each answered by an AgentErrorEvent nudges (kind feedback, once per error "+
			"event) when it reaches v1_action_error, and is stuck when longer.",
		v1ActionError, V1ActionErrorStop, V1ActionErrorNudge)
	V1Monologue = openHandsV1Rule(detect.RuleV1Monologue,
		"OpenHands V1: v1_monologue agent messages in a row",
		"OpenHands V1's _is_stuck_monologue (software-agent-sdk 611629e): counting back from the last event, "+
			"agent messages until a user message or any event but a message or a condensation summary; the "+
			"messages are not compared.",
		v1Monologue, V1MonologueStop)
	V1AlternatingPattern = openHandsV1Rule(detect.RuleV1AlternatingPattern,
		"OpenHands V1: actions and observations alternate A-B-A-B over v1_alternating_pattern",
		"OpenHands V1's _is_stuck_alternating_action_observation (software-agent-sdk 611629e): over the last "+
			"v1_alternating_pattern actions, and ObservationEvents or AgentErrorEvents, each equals the one two "+
			"before. (Its _is_stuck_context_window_error is always False.)",
		v1AlternatingPat, V1AlternatingStop)
)
