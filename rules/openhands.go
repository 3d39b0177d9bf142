package rules

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// OpenHands' StuckDetector (RULES.md §11) is one detector whose five checks
// are tried in order, at most one firing per step. Each check is a rule of
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
	Doc: "OpenHands' _is_stuck_repeating_action_observation. The history is each tool call's action then " +
		"its observation, a message's action, a condensation's observation; the last N actions and last N " +
		"observations are taken apart. Fires when the last repeat_action_observation_count actions are the " +
		"same and so are the last observations (a command's observations compare by action and exit code, " +
		"its output ignored). It runs the detector whose other checks are the rules after it.",
	Params: []*Param{enableOpenHands.Param, openHandsOnZorkGPT.Param, repeatActionObservationCount.Param},
	Kinds:  []*Kind{RepeatActionObservationStop}, Enabled: enableOpenHands.Get,
	Applies: onStepsOr(openHandsOnZorkGPT), InputsDoc: "steps; zorkgpt with openhands_on_zorkgpt",
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
		return &openHandsEngine{d: d}
	},
}

// openHandsEngine is the detector's state; fired is the check that fired
// at the current step, "" for none.
type openHandsEngine struct {
	d     *detect.OpenHands
	fired string
}

func (e *openHandsEngine) Step(t *replay.Turn, env *Env) {
	e.fired = ""
	st, ok := stepOf(t, env.Episode)
	if !ok {
		return
	}
	for _, f := range e.d.Step(st) {
		e.fired = f.Rule
	}
	if e.fired == RepeatActionObservation.Name {
		env.Report(Firing{Turn: t.N, Rule: RepeatActionObservation, Kind: RepeatActionObservationStop})
	}
}

// openHandsCheck reports the steps where its check fired.
type openHandsCheck struct {
	rule *Rule
	kind *Kind
}

func (c openHandsCheck) Step(t *replay.Turn, env *Env) {
	if e := resultOf[*openHandsEngine](env, RepeatActionObservation); e != nil && e.fired == c.rule.Name {
		env.Report(Firing{Turn: t.N, Rule: c.rule, Kind: c.kind})
	}
}

func openHandsRule(name, title, doc string, p IntParam, kind *Kind) *Rule {
	r := &Rule{
		Name: name, Origin: OriginOpenHands, Title: title, Section: "docs/rules.md#" + name, Doc: doc,
		Params: []*Param{p.Param}, Kinds: []*Kind{kind}, Enabled: enableOpenHands.Get,
		Requires: []*Rule{RepeatActionObservation}, Applies: onStepsOr(openHandsOnZorkGPT), InputsDoc: "steps; zorkgpt with openhands_on_zorkgpt",
	}
	r.New = func(*Config, *replay.Episode) Stepper { return openHandsCheck{rule: r, kind: kind} }
	return r
}

// The other OpenHands checks, in the order the detector tries them.
var (
	RepeatActionError = openHandsRule(detect.RuleRepeatActionError,
		"OpenHands: the same action, repeat_action_error_count times, each ending in an error",
		"OpenHands' _is_stuck_repeating_action_error: the last repeat_action_error_count actions are the same "+
			"and the last observations are errors (error, no exit code; their texts may differ). Its IPython "+
			"SyntaxError variant is not replayed.",
		repeatActionErrorCount, RepeatActionErrorStop)
	Monologue = openHandsRule(detect.RuleMonologue,
		"OpenHands: the agent says the same thing monologue_count times with nothing in between",
		"OpenHands' _is_stuck_monologue: the last monologue_count agent messages are equal and no observation "+
			"came between the first and the last.",
		monologueCount, MonologueStop)
	AlternatingPair = openHandsRule(detect.RuleAlternatingPair,
		"OpenHands: actions and observations alternate A-B-A-B over alternating_pair_steps",
		"OpenHands' _is_stuck_action_observation_pattern: over the last alternating_pair_steps actions each "+
			"equals the one two before, and the same for the observations (A ≠ B is not required, as live).",
		alternatingPairSteps, AlternatingPairStop)
	ContextWindowError = openHandsRule(detect.RuleContextWindowError,
		"OpenHands: condensations come back to back",
		"OpenHands' _is_stuck_context_window_error: at least context_window_error_count condensations, two "+
			"of the last ones adjacent in the history.",
		contextWindowErrorCount, ContextWindowErrorStop)
)
