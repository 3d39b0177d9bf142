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
var Hint = &Kind{Name: "hint", Doc: "the proposed action was tried recently (proposal: executed, or rejected by the critic)", Fields: []string{"action", "proposal"}}

// Proposals a hint can be about: ZorkGPT checks novelty for every action
// the agent proposes, including those its critic then rejects.
const (
	ProposalExecuted = "executed"
	ProposalRejected = "rejected"
)

// ActionNovelty is RULES.md section 7: the repeated-action hint (Phase 1C).
var ActionNovelty = &Rule{
	Name:    "action_novelty",
	Origin:  OriginZorkGPT,
	Title:   "hint when an action repeats one of the recent actions",
	Section: "docs/rules.md#action_novelty",
	Doc: "Keeps the normalised (trimmed, lower-case) actions executed at earlier turns and hints \"you have " +
		"tried this action recently\" when a proposal is among the last action_novelty_window of them. " +
		"Every proposal is checked, as ZorkGPT does: the turn's rejected proposals in log order, then the " +
		"executed action; only executed actions enter the history. Filled turns (gaps in the log) are skipped.",
	Params:  []*Param{enableExplorationHints.Param, actionNoveltyWindow.Param},
	Kinds:   []*Kind{Hint},
	Enabled: enableExplorationHints.Get,
	New: func(c *Config, ep *replay.Episode) Stepper {
		w := actionNoveltyWindow.Get(c)
		a, ok := freeActionNovelties.Get()
		if !ok {
			a = new(actionNovelty)
		}
		a.window = w
		a.hist.reset(max(w, historyLen))
		return a
	},
}

type actionNovelty struct {
	window int
	hist   history[string] // of normalised actions
}

// freeActionNovelties holds released steppers, their histories' arrays,
// for the next episode's.
var freeActionNovelties = make(replay.FreeList[*actionNovelty], 16)

// release keeps a for the next episode, its actions let go.
func (a *actionNovelty) release() {
	a.hist.reset(a.hist.max)
	freeActionNovelties.Put(a)
}

func (a *actionNovelty) Step(t *replay.Turn, env *Env) {
	if t.Filled {
		return
	}
	h := a.hist.buf
	recent := h[len(h)-min(a.window, len(h)):]
	for _, p := range env.Episode.Rejected[t.N] {
		if p := norm(p); slices.Contains(recent, p) {
			env.Report(&Firing{Turn: t.N, Rule: ActionNovelty, Kind: Hint, Action: p, Proposal: ProposalRejected})
		}
	}
	if !t.HasAction {
		return
	}
	act := norm(env.Episode.Str(t.Action))
	if slices.Contains(recent, act) {
		env.Report(&Firing{Turn: t.N, Rule: ActionNovelty, Kind: Hint, Action: act, Proposal: ProposalExecuted})
	}
	a.hist.push(act)
}
