package rules

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// OpenHands' StuckDetector (RULES.md §11; All-Hands-AI/OpenHands
// openhands/controller/stuck.py StuckDetector.is_stuck(headless_mode=True),
// read at 156d068, Nov 2025: its checks unchanged since March 2025) is one
// detector whose five checks are tried in order, at most one firing per
// step. On an OpenHands log it replays the controller's history event by
// event (replay.Episode.OpenHands), asked where AgentController._step
// asks it, a delegate's events with the delegate's own detector; on other
// steps logs each step is an action and its observation, asked after each
// step. Each check is a rule of
// its own, so `--fail-on monologue/stop` and `loopbreak rules` name it;
// repeat_action_observation, the first, runs the detector and the four
// others (which require it) report the steps where their check was the one
// that fired. enable_openhands turns all five on or off, as the live
// detector has no switch per check.

// Keys of the OpenHands rules.
var (
	enableOpenHands              = enableParam("enable_openhands", "replay OpenHands' StuckDetector (its five checks)")
	openHandsOnZorkGPT           = offParam("openhands_on_zorkgpt", "also on ZorkGPT logs (each turn an action, the game's reply its observation)")
	repeatActionObservationCount = detectInt(detect.OpenHandsParams, "repeat_action_observation_count")
	repeatActionErrorCount       = detectInt(detect.OpenHandsParams, "repeat_action_error_count")
	monologueCount               = detectInt(detect.OpenHandsParams, "monologue_count")
	alternatingPairSteps         = detectInt(detect.OpenHandsParams, "alternating_pair_steps")
	contextWindowErrorCount      = detectInt(detect.OpenHandsParams, "context_window_error_count")
)

// Kinds of the OpenHands rules: the headless agent stops.
var (
	RepeatActionObservationStop = openHandsStop()
	RepeatActionErrorStop       = openHandsStop()
	MonologueStop               = openHandsStop()
	AlternatingPairStop         = openHandsStop()
	ContextWindowErrorStop      = openHandsStop()
)

func openHandsStop() *Kind {
	return &Kind{Name: "stop", Doc: "StuckDetector.is_stuck is true: the headless agent stops here"}
}

// RepeatActionObservation runs the OpenHands detector and reports its first
// check.
var RepeatActionObservation = &Rule{
	Name:    detect.RuleRepeatActionObservation,
	Origin:  OriginOpenHands,
	Title:   "OpenHands: the same action with the same observation, repeat_action_observation_count times",
	Section: "docs/rules.md#repeat_action_observation",
	Doc: "OpenHands' stuck.py StuckDetector._is_stuck_repeating_action_observation (All-Hands-AI/OpenHands " +
		"156d068). The history is the controller's (agent_controller.py _on_event: every event but Null, agent " +
		"state and hidden ones; is_stuck then drops user messages), asked after each event should_step accepts " +
		"(an observation, an agent message not waiting for a response, a condensation action, a user message); a " +
		"delegate's events feed its own detector. Fires when the last repeat_action_observation_count actions " +
		"are equal and so are the last observations, by _eq_no_pid: dataclass equality over every field (thought, security_risk and " +
		"confirmation_state included; not ids, timestamps, source, cause or tool metadata), a " +
		"CmdOutputObservation by command and exit code only, IPython cells with edit_file_by_replace( by their " +
		"first 3 lines. It runs the detector whose other checks are the rules after it.",
	Params: []*Param{enableOpenHands.Param, openHandsOnZorkGPT.Param, repeatActionObservationCount.Param},
	Kinds:  []*Kind{RepeatActionObservationStop}, Enabled: enableOpenHands.Get,
	Applies: notV1(onStepsOr(openHandsOnZorkGPT)), InputsDoc: "steps (not openhands-v1); zorkgpt with openhands_on_zorkgpt",
	New: func(c *Config, ep *replay.Episode) Stepper {
		d, err := detect.NewOpenHands(detect.OpenHandsConfig{
			RepeatActionObservationCount: repeatActionObservationCount.Get(c),
			RepeatActionErrorCount:       repeatActionErrorCount.Get(c),
			MonologueCount:               monologueCount.Get(c),
			AlternatingPairSteps:         alternatingPairSteps.Get(c),
			ContextWindowErrorCount:      contextWindowErrorCount.Get(c),
		})
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &openHandsEngine{d: d, cfg: d.Config()}
	},
}

// notV1 keeps V0's detector off OpenHands V1 logs, which have their own.
func notV1(f func(*replay.Episode, *Config) bool) func(*replay.Episode, *Config) bool {
	return func(ep *replay.Episode, c *Config) bool { return ep.Preset != replay.PresetOpenHandsV1 && f(ep, c) }
}

// openHandsEngine is the detector's state; fired is the check that fired
// at the current step, "" for none; next is the first event of an
// OpenHands log's history not yet added.
type openHandsEngine struct {
	d     *detect.OpenHands
	fired string
	next  int
	// delegates[i] is the StuckDetector of the delegate at level i+1 of
	// an OpenHands log (AgentController.start_delegate gives each its own).
	delegates []*detect.OpenHands
	cfg       detect.OpenHandsConfig
	// checks are the checks stepping right after the engine (Env's
	// followerSteppers, found at its first step; none in an Env that does
	// not fold), which it reports for and skips at every step.
	checks  []*openHandsCheck
	counted bool
}

// Step runs the detector and, in place of the checks right after it,
// reports the one that fired: nothing steps between it and them, so the
// firings come in their order. A stuck steps log fired a check at a
// third of its steps (repeat_action_error, 11,395 of 32,367 firings of
// a steps log), and each such step stepped all four checks, each an
// interface call comparing its rule's name with fired.
// TestFollowersSkippedAsStepped holds it to stepping every check.
//
// The step is made in Step's body, an OpenHands log's events in a call
// of their own (stepEvents), the checks found in one (count), and the
// fired check compared with repeat_action_observation's name once: the
// calls and the second comparison were ~25 instructions at each step.
//
// A step where none fired (most) is told by fired's length alone, before
// the comparison with repeat_action_observation's name (its length and
// a global's loads).
func (e *openHandsEngine) Step(t *replay.Turn, env *Env) {
	e.fired = ""
	if ep := env.Episode; ep.OpenHands != nil {
		e.stepEvents(t, ep)
	} else if st, ok := env.stepOf(t); ok {
		e.fired = e.d.StepRule(st)
	}
	if !e.counted {
		e.count(env)
	}
	fired := e.fired
	if fired == "" {
		env.cur += len(e.checks)
		return
	}
	if fired == RepeatActionObservation.Name {
		env.ReportBare(t.N, RepeatActionObservation, RepeatActionObservationStop)
		env.cur += len(e.checks)
		return
	}
	env.cur += len(e.checks)
	for _, c := range e.checks {
		if c.rule.Name == fired {
			env.ReportBare(t.N, c.rule, c.kind)
			return
		}
	}
}

func isOpenHandsCheck(s Stepper) bool {
	_, ok := s.(*openHandsCheck)
	return ok
}

// count finds the checks stepping right after e, at its first step.
//
//go:noinline
func (e *openHandsEngine) count(env *Env) {
	e.counted = true
	for _, s := range env.followerSteppers(e, RepeatActionObservation, isOpenHandsCheck) {
		e.checks = append(e.checks, s.(*openHandsCheck))
	}
}

// stepEvents steps an OpenHands log: its history event by event up to
// turn t, is_stuck asked where the controller asks it; the step reports
// the first check that fired at any of its events.
func (e *openHandsEngine) stepEvents(t *replay.Turn, ep *replay.Episode) {
	for ; e.next < len(ep.OpenHands) && int(ep.OpenHands[e.next].N) <= t.N; e.next++ {
		ev := &ep.OpenHands[e.next]
		if rule := addOpenHandsEvent(e.detector(int(ev.Depth)), ep, ev); rule != "" && e.fired == "" {
			e.fired = rule
		}
	}
}

// detector is the StuckDetector of delegation level depth: the parent's
// at 0; a delegate's, new when the delegation begins, dropped when it
// ends. The parent's, at most events, is told inline, with no store of
// an empty delegates (a slice header behind the write barrier's test).
func (e *openHandsEngine) detector(depth int) *detect.OpenHands {
	if depth == 0 && len(e.delegates) == 0 {
		return e.d
	}
	return e.delegate(depth)
}

// delegate is detector past the parent's detector with no delegates.
func (e *openHandsEngine) delegate(depth int) *detect.OpenHands {
	if depth == 0 {
		e.delegates = e.delegates[:0]
		return e.d
	}
	for len(e.delegates) > depth {
		e.delegates = e.delegates[:len(e.delegates)-1]
	}
	for len(e.delegates) < depth {
		d, _ := detect.NewOpenHands(e.cfg) // the parent's configuration, already valid
		e.delegates = append(e.delegates, d)
	}
	return e.delegates[depth-1]
}

// addOpenHandsEvent hands one event of an OpenHands log's history to d
// and returns the check that holds when the controller asks after it.
func addOpenHandsEvent(d *detect.OpenHands, ep *replay.Episode, ev *replay.OpenHandsEvent) string {
	if !ev.InHistory && !ev.Ask {
		return ""
	}
	cls := detect.OHNull // not in the history: is_stuck drops it
	if ev.InHistory {
		cls = detect.OpenHandsClass(ev.Class) // replay.OpenHandsClass has detect's order
	}
	return d.AddEvent(cls, ep.HistoryStr(ev.Key), ep.HistoryStr(ev.Text), ev.Ask)
}

// openHandsCheck reports the steps where its check fired, where it steps:
// in an Env that does not fold (RunShared's) or not right after the
// engine, which otherwise reports for it. The engine is looked up at the
// first step (a stepper is stepped in one Env), where each step looked it
// up among the replay's rules.
type openHandsCheck struct {
	rule   *Rule
	kind   *Kind
	engine *openHandsEngine
	looked bool
}

func (c *openHandsCheck) Step(t *replay.Turn, env *Env) {
	if !c.looked {
		c.engine, c.looked = resultOf[*openHandsEngine](env, RepeatActionObservation), true
	}
	if e := c.engine; e != nil && e.fired == c.rule.Name {
		env.ReportBare(t.N, c.rule, c.kind)
	}
}

func openHandsRule(name, title, doc string, p IntParam, kind *Kind) *Rule {
	r := &Rule{
		Name: name, Origin: OriginOpenHands, Title: title, Section: "docs/rules.md#" + name, Doc: doc,
		Params: []*Param{p.Param}, Kinds: []*Kind{kind}, Enabled: enableOpenHands.Get,
		Requires: []*Rule{RepeatActionObservation}, Applies: notV1(onStepsOr(openHandsOnZorkGPT)),
		InputsDoc: "steps (not openhands-v1); zorkgpt with openhands_on_zorkgpt",
	}
	r.New = func(*Config, *replay.Episode) Stepper { return &openHandsCheck{rule: r, kind: kind} }
	return r
}

// The other OpenHands checks, in the order the detector tries them.
var (
	RepeatActionError = openHandsRule(detect.RuleRepeatActionError,
		"OpenHands: the same action, repeat_action_error_count times, each ending in an error",
		"OpenHands' stuck.py _is_stuck_repeating_action_error (156d068): the last repeat_action_error_count "+
			"actions are equal (_eq_no_pid) and the last observations are ErrorObservations (their texts may "+
			"differ), or IPythonRunCellObservations ending in the same SyntaxError line before the two Jupyter "+
			"lines (_check_for_consistent_line_error, _check_for_consistent_invalid_syntax).",
		repeatActionErrorCount, RepeatActionErrorStop)
	Monologue = openHandsRule(detect.RuleMonologue,
		"OpenHands: the agent says the same thing monologue_count times with nothing in between",
		"OpenHands' stuck.py _is_stuck_monologue (156d068): the last monologue_count agent MessageActions are "+
			"equal (==: content, thought, wait_for_response… every field) and no observation came between the "+
			"first and the last.",
		monologueCount, MonologueStop)
	AlternatingPair = openHandsRule(detect.RuleAlternatingPair,
		"OpenHands: actions and observations alternate A-B-A-B over alternating_pair_steps",
		"OpenHands' stuck.py _is_stuck_action_observation_pattern (156d068): over the last alternating_pair_steps "+
			"actions each equals the one two before (_eq_no_pid), and the same for the observations (A ≠ B is "+
			"not required, as live).",
		alternatingPairSteps, AlternatingPairStop)
	ContextWindowError = openHandsRule(detect.RuleContextWindowError,
		"OpenHands: condensations come back to back",
		"OpenHands' stuck.py _is_stuck_context_window_error (156d068): at least context_window_error_count "+
			"AgentCondensationObservations (a `condense` observation; a condensation action is an action), two "+
			"of the last ones adjacent in the filtered history.",
		contextWindowErrorCount, ContextWindowErrorStop)
)
