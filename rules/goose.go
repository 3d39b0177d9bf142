package rules

import (
	"github.com/loopbreak/loopbreak/replay"
)

// Goose's RepetitionInspector (RULES.md §11): a call identical to the
// goose_max_tool_repetitions calls before it is denied, and so is every
// identical call after it. Goose runs it only when max_tool_repetitions is
// set, so the rule is off by default.

// Keys of the Goose rule.
var (
	enableGoose             = offParam("enable_goose", "replay Goose's RepetitionInspector (off: Goose leaves max_tool_repetitions unset)")
	gooseMaxToolRepetitions = unread(intParam("goose_max_tool_repetitions", 3,
		"identical consecutive calls Goose allows; the next ones are denied (max_tool_repetitions)", bound(1), nil), notZorkGPT)
)

// GooseStop is the Goose rule's one kind.
var GooseStop = &Kind{Name: "stop", Doc: "live, the call is denied (REP-001: exceeded maximum repetitions)"}

// GooseRepeat replays Goose's RepetitionInspector::check_tool_call.
var GooseRepeat = &Rule{
	Name:    "goose_repetition",
	Origin:  OriginGoose,
	Title:   "Goose: a call identical to the goose_max_tool_repetitions calls before it is denied",
	Section: "docs/rules.md#goose_repetition",
	Doc: "Goose's RepetitionInspector::check_tool_call (block/goose crates/goose/src/tool_monitor.rs at commit " +
		"deade9458a4ae98a627850c89dcc7aac192f8a79): a call whose name and arguments equal the last call's " +
		"(serde_json equality: key order does not count, so the sorted form is compared) adds one to the repeat " +
		"count, any other call sets it to 1; a count above goose_max_tool_repetitions is denied (stop). The count " +
		"is not cleared by a denial: every further identical call is denied too. Off by default, as Goose's " +
		"max_tool_repetitions is unset by default.",
	Params:  []*Param{enableGoose.Param, gooseMaxToolRepetitions.Param},
	Kinds:   []*Kind{GooseStop},
	Enabled: enableGoose.Get, Applies: onAnySteps, InputsDoc: "steps",
	New: func(c *Config, _ *replay.Episode) Stepper {
		return &gooseState{max: gooseMaxToolRepetitions.Get(c)}
	},
}

// gooseState is the inspector's last call and repeat count.
type gooseState struct {
	max   int
	last  string
	has   bool
	count int
}

func (s *gooseState) Step(t *replay.Turn, env *Env) {
	call, ok := toolCallOf(t, env)
	if !ok {
		return
	}
	key := call.raw
	if i := t.N - env.Episode.Turns[0].N; len(env.Episode.Steps) > i && env.Episode.Steps[i].Canonical != 0 {
		key = env.Episode.Str(env.Episode.Steps[i].Canonical)
	} else if call.args != nil {
		key = call.name + " " + canonicalJSON(call.args)
	}
	if !s.check(key) {
		env.ReportBare(t.N, GooseRepeat, GooseStop)
	}
}

// check is check_tool_call: false when the call is denied.
func (s *gooseState) check(key string) bool {
	if s.has && key == s.last {
		s.count++
		if s.count > s.max {
			return false
		}
	} else {
		s.count = 1
	}
	s.last, s.has = key, true
	return true
}

func onAnySteps(ep *replay.Episode, _ *Config) bool { return ep.Format == replay.FormatSteps }
