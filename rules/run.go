package rules

import (
	"strings"

	"github.com/loopbreak/loopbreak/replay"
)

// Firing is one decision a rule would have taken at a turn. It is a flat
// value (no allocation per firing) so sweeps can count millions of them;
// which fields are meaningful depends on Rule/Kind (see Rule.Kinds).
type Firing struct {
	Turn int
	Rule *Rule
	Kind *Kind // one of Rule.Kinds

	Cause           string // progress_velocity/reset
	Urgency         string // stuck_warnings/warning
	TurnsStuck      int
	TurnsUntilDeath int
	Score           float64
	Visits          int
	Penalty         float64
	Base, Adjusted  float64
	HasBase         bool // false: no confidence in the log, Base/Adjusted unknown
	LowConfidence   bool // location_revisit/penalty: Adjusted < OverrideConfidence (needs HasBase)
	Pattern         [2]string
	Location        string
	Destination     string
	Action          string
	Proposal        string // action_novelty/hint: ProposalExecuted or ProposalRejected
	Rejected        bool

	// Unit is what Turn numbers: "turn" (a ZorkGPT log), "step" (a steps
	// log) or "attempt" (an attempts log), set by Run.
	Unit string

	Signature      string  // signature_repeat/loop
	Similarity     float64 // fuzzy_repeat/loop, to 4 decimals
	MatchedStep    int     // fuzzy_repeat/loop: the previous step matched
	TaskID         string  // task_attempts/loop
	LoopType       string  // task_attempts/loop: completed_task_revisit, blocked_task_spin, no_progress_repeat
	Recommendation string  // task_attempts/loop: force_next, unblock_authority, escalate
	AttemptCount   int     // task_attempts/loop: the task's attempts in the window
	CycleLength    int     // tool_cycle: the least repeating cycle
}

// KindKey is "rule/kind", the name outputs, counts and --fail-on use.
func (f *Firing) KindKey() string {
	if k := f.Kind.Key(); k != "" && f.Kind.rule == f.Rule {
		return k // a registered kind's own string: no allocation per firing
	}
	return f.Rule.Name + "/" + f.Kind.Name
}

// Env is what a Stepper sees besides its turn: the episode, the steppers
// of the rules it requires, and the report callback.
type Env struct {
	Episode  *replay.Episode
	report   func(Firing)
	unit     string
	rules    []*Rule
	steppers []Stepper
}

// Result returns the state of rule r in this replay (r must be in the
// caller's Requires), nil when r is disabled.
func (e *Env) Result(r *Rule) Stepper {
	for i, x := range e.rules {
		if x == r {
			return e.steppers[i]
		}
	}
	return nil
}

// resultOf is Result with the state's concrete type; the zero value when r
// is disabled.
func resultOf[T Stepper](e *Env, r *Rule) T {
	s, _ := e.Result(r).(T)
	return s
}

// Report records a firing.
func (e *Env) Report(f Firing) {
	if e.report != nil {
		f.Unit = e.unit
		e.report(f)
	}
}

// Units of Firing.Turn.
const (
	UnitTurn    = "turn"
	UnitStep    = "step"
	UnitAttempt = "attempt"
)

// UnitOf is what an episode's turn numbers count.
func UnitOf(ep *replay.Episode) string {
	switch ep.Format {
	case replay.FormatSteps:
		return UnitStep
	case replay.FormatAttempts:
		return UnitAttempt
	}
	return UnitTurn
}

// Run replays the enabled rules of set that apply to ep's format
// (Rule.AppliesTo) over ep, turn by turn, calling
// report for each firing in turn order (within a turn, in set order).
// set must list required rules before the rules that need them, as
// Registry does; nil means Registry.
func Run(ep *replay.Episode, cfg *Config, set []*Rule, report func(Firing)) {
	if set == nil {
		set = Registry
	}
	env := &Env{Episode: ep, report: report, unit: UnitOf(ep)}
	for _, r := range set {
		if r.Enabled(cfg) && r.AppliesTo(ep, cfg) {
			env.rules = append(env.rules, r)
			env.steppers = append(env.steppers, r.New(cfg, ep))
		}
	}
	if len(env.steppers) == 0 {
		return
	}
	for i := range ep.Turns {
		t := &ep.Turns[i]
		for _, s := range env.steppers {
			s.Step(t, env)
		}
	}
}

// norm is RULES.md's norm(a): trimmed, lower case.
func norm(a string) string { return lowerTrim(a) }

func lowerTrim(s string) string {
	// Fast path: most actions are already lower case ASCII.
	start, end := 0, len(s)
	for start < end && isSpace(s[start]) {
		start++
	}
	for end > start && isSpace(s[end-1]) {
		end--
	}
	s = s[start:end]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.TrimSpace(strings.ToLower(s)) // also trims Unicode spaces
		}
	}
	return s
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// history keeps the last max values pushed (RULES.md keeps 20 locations;
// action_novelty keeps max(window, 20) actions); buf is them, oldest
// first. It is a window sliding over a backing array of twice max, so a
// push copies the window once every max pushes, not every time: sweeps
// push once per turn and configuration.
type history[T any] struct {
	buf []T
	max int
	all []T // backing array; buf is its window
}

func (h *history[T]) push(v T) {
	if h.max <= 0 {
		return
	}
	if len(h.buf) < h.max {
		h.buf = append(h.buf, v)
		return
	}
	if h.all == nil {
		h.all = make([]T, 2*h.max)
		h.buf = h.all[:copy(h.all, h.buf)]
	}
	start := len(h.all) - cap(h.buf) // where the window begins in all
	if start+h.max == len(h.all) {
		// The window reached the end: move its newest max-1 to the front.
		n := copy(h.all, h.buf[1:])
		clear(h.all[n:]) // let dropped strings go
		h.buf = append(h.all[:n], v)
		return
	}
	h.buf = append(h.buf[1:], v)
}

const historyLen = 20
