package rules

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/loopbreak/loopbreak/replay"
)

// Roo Code's ToolRepetitionDetector (RULES.md §11): the call that comes
// after roo_consecutive_mistake_limit identical consecutive calls is
// refused, and the detector starts over.

// Keys of the Roo Code rule.
var (
	enableRoo                  = enableParam("enable_roo", "replay Roo Code's ToolRepetitionDetector")
	rooConsecutiveMistakeLimit = unread(intParam("roo_consecutive_mistake_limit", 3,
		"identical consecutive calls Roo Code allows; the next is refused (consecutiveMistakeLimit; 0 or less: unlimited)",
		// Roo reads any number, a negative one as 0: the bounds only keep
		// a value a 32-bit count holds.
		bound(math.MinInt32), bound(math.MaxInt32)), notZorkGPT)
)

// RooStop is the Roo Code rule's one kind.
var RooStop = &Kind{Name: "stop", Doc: "live, the call is not executed and Roo asks the user (mistake_limit_reached)"}

// RooRepeat replays Roo Code's ToolRepetitionDetector.check.
var RooRepeat = &Rule{
	Name:    "roo_tool_repetition",
	Origin:  OriginRoo,
	Title:   "Roo Code: a call identical to the roo_consecutive_mistake_limit calls before it is refused",
	Section: "docs/rules.md#roo_tool_repetition",
	Doc: "Roo Code's ToolRepetitionDetector.check (RooCodeInc/Roo-Code src/core/tools/ToolRepetitionDetector.ts at " +
		"commit 37479466bc615057ee1865c395d00a3b5e0569a2): each call is serialised as its name and its parameters " +
		"with the top-level keys sorted (nested values as sent); the same serialisation as the call before adds one " +
		"to a count that a different call sets to 0. When the count reaches roo_consecutive_mistake_limit the call " +
		"is refused (stop) and the count and the previous call are cleared, so the next identical call starts a new " +
		"run. browser_action scroll_down and scroll_up are not counted and change nothing. 0 (or less) is unlimited.",
	Params:  []*Param{enableRoo.Param, rooConsecutiveMistakeLimit.Param},
	Kinds:   []*Kind{RooStop},
	Enabled: enableRoo.Get, Applies: onPreset(replay.PresetRoo), InputsDoc: "steps read as roo",
	New: func(c *Config, _ *replay.Episode) Stepper {
		return &rooState{limit: rooConsecutiveMistakeLimit.Get(c)}
	},
}

// rooState is a ToolRepetitionDetector: the previous call's serialisation
// (none after a refusal) and the count. The serialisations are written
// into two buffers taken in turn (the previous and the current), so that
// a step allocates nothing once they have grown.
type rooState struct {
	limit     int
	prev, cur []byte
	has       bool
	count     int
	members   []topMember // appendSortedTop's, reused
}

func (s *rooState) Step(t *replay.Turn, env *Env) {
	call, ok := toolCallOf(t, env)
	if !ok {
		return
	}
	if rooScroll(call) {
		return
	}
	s.cur = append(s.cur[:0], call.name...)
	s.cur = append(s.cur, '\n')
	s.cur = appendSortedTop(s.cur, call.args, nil, &s.members)
	if s.check() {
		env.ReportBare(t.N, RooRepeat, RooStop)
	}
}

// check counts a call by its serialisation (cur) and says whether it is
// refused.
func (s *rooState) check() bool {
	if s.has && bytes.Equal(s.cur, s.prev) {
		s.count++
	} else {
		s.count, s.has = 0, true
		s.prev, s.cur = s.cur, s.prev
	}
	if s.limit > 0 && s.count >= s.limit {
		s.count, s.has = 0, false
		return true
	}
	return false
}

// rooScroll says a call is a browser scroll, which Roo never counts.
func rooScroll(c toolCall) bool {
	if c.name != "browser_action" {
		return false
	}
	var p struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(c.args, &p)
	return p.Action == "scroll_down" || p.Action == "scroll_up"
}
