package rules

import (
	"slices"

	"github.com/loopbreak/loopbreak/replay"
)

// Keys of action_novelty.
var (
	enableExplorationHints = boolParam("enable_exploration_hints", "replay repeated-action hints")
	actionNoveltyWindow    = intParam("action_novelty_window", 15, "recent actions compared", bound(5), bound(50))
)

// Hint is the kind of action_novelty.
var Hint = &Kind{Name: "hint", Doc: "the action was tried recently", Fields: []string{"action"}}

// ActionNovelty is RULES.md section 7: the repeated-action hint (Phase 1C).
var ActionNovelty = &Rule{
	Name:    "action_novelty",
	Title:   "hint when an action repeats one of the recent actions",
	Section: "docs/rules.md#action_novelty",
	Doc: "Keeps the normalised (trimmed, lower-case) actions of earlier turns and hints \"you have tried " +
		"this action recently\" when the current action is among the last action_novelty_window of them. " +
		"Turns without an action (gaps in the log) are skipped.",
	Params:  []*Param{enableExplorationHints.Param, actionNoveltyWindow.Param},
	Kinds:   []*Kind{Hint},
	Enabled: enableExplorationHints.Get,
	New: func(c *Config, ep *replay.Episode) Stepper {
		w := actionNoveltyWindow.Get(c)
		return &actionNovelty{window: w, hist: history[string]{max: max(w, historyLen)}}
	},
}

type actionNovelty struct {
	window int
	hist   history[string] // of normalised actions
}

func (a *actionNovelty) Step(t *replay.Turn, env *Env) {
	if t.Filled || !t.HasAction {
		return
	}
	act := norm(t.Action)
	h := a.hist.buf
	w := min(a.window, len(h))
	if slices.Contains(h[len(h)-w:], act) {
		env.Report(Firing{Turn: t.N, Rule: ActionNovelty, Kind: Hint, Action: act})
	}
	a.hist.push(act)
}
