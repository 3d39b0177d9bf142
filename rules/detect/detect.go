// Package detect holds the loop detection algorithms of the generic rules
// (RULES.md §8 signature_repeat and fuzzy_repeat, §9 task attempts) and of
// the peer frameworks' detectors (§11 OpenHands and Gemini CLI), as
// streaming values independent of the rule registry and of replay:
//
//	d, err := NewSignatureRepeat(DefaultSignatureConfig())
//	for _, s := range steps {
//		for _, f := range d.Step(s) { ... }
//	}
//
// SignatureRepeat, FuzzyRepeat, OpenHands and Gemini take Steps;
// TaskAttempts takes the autopilot's Attempt records instead.
//
// Each detector's configuration keys are declared as data (SignatureParams,
// FuzzyParams, TaskParams, OpenHandsParams, GeminiParams) so that the
// registry can expose and validate them.
package detect

import (
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Kind is what a step of a `steps` log is (RULES.md §11).
type Kind uint8

const (
	// KindAction is one tool call: Action, Output, Error, ExitCode.
	KindAction Kind = iota
	// KindMessage is agent text, in Output.
	KindMessage
	// KindCondensation is a context trim; Output may hold its text.
	KindCondensation
)

func (k Kind) String() string {
	switch k {
	case KindAction:
		return "action"
	case KindMessage:
		return "message"
	case KindCondensation:
		return "condensation"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Step is one step of an episode as the detectors see it. For ZorkGPT turns
// keptOutput is s.Output as a detector keeps it past the step: held when
// it lives on, else copied into buf (its array reused), and buf as
// grown. An array grown for a long output is let go once the outputs
// are short again, so that what a detector holds stays within its
// window's outputs (or 64 KB a slot).
func keptOutput(s *Step, buf []byte) (string, []byte) {
	if !s.OutputTransient {
		return s.Output, buf
	}
	if cap(buf) > 64<<10 && cap(buf) > 4*len(s.Output) {
		buf = nil
	}
	buf = append(buf[:0], s.Output...)
	return unsafe.String(unsafe.SliceData(buf), len(buf)), buf
}

// (§8) a step is a turn: Action the executed action, Output the game's reply.
type Step struct {
	// N is the step (or turn) number as logged; firings report it.
	N    int
	Kind Kind
	// Action is the tool call, name and JSON arguments as logged. A blank
	// action on an action step is no call; the peer detectors skip it.
	Action string
	// Output is the tool result, the message text or the condensation text.
	Output string
	// OutputTransient says Output lives only while the step is checked:
	// a reader replaying a log as it is read writes the next step's
	// output over it (a steps log's, replay's Episode.OutputsRecycled), so a
	// detector that keeps an output past its step keeps a copy
	// (fuzzy_repeat's window, signature_repeat's last step, the
	// OpenHands detector's events: keptOutput). Otherwise it is held.
	OutputTransient bool
	// Error says the tool call failed.
	Error bool
	// ExitCode is a shell command's result's, when HasExitCode (a value,
	// not a pointer: a step is made for each rule that asks for it).
	ExitCode    int
	HasExitCode bool
	// NewPrompt says a new user prompt comes before this step: the Gemini
	// CLI detector resets there (a new prompt_id).
	NewPrompt bool
	// LLMLoopVerdict records a logged Gemini CLI LLM loop check verdict
	// (LLM_DETECTED_LOOP) at this step; see Gemini.
	LLMLoopVerdict bool
}

// noCall says s is an action step with a blank action: no call, which the
// peer detectors skip (RULES.md §11). It is small enough to be inlined
// (the rest is blankAction's, and the first byte's range one compare):
// the Gemini and OpenHands detectors ask it at every step, and its call
// cost more than its test.
func (s *Step) noCall() bool {
	if a := s.Action; a != "" && a[0]-'!' < utf8.RuneSelf-'!' {
		// '!' <= a[0] < RuneSelf: a printable ASCII first byte is no
		// white space (TestNoCall).
		return false
	}
	return s.blankAction()
}

// blankAction is noCall past its first byte's test, kept out of line
// (inlined, it made noCall too large to be).
//
//go:noinline
func (s *Step) blankAction() bool {
	return s.Kind == KindAction && strings.TrimSpace(s.Action) == ""
}

// Origins and kinds of firings.
const (
	OriginGeneric   = "generic"
	OriginOpenHands = "openhands"
	OriginGemini    = "gemini-cli"

	KindLoop     = "loop"
	KindStop     = "stop"
	KindFeedback = "feedback"
	KindRecorded = "recorded"
)

// Firing is what every firing carries (RULES.md §11: `{step, rule, kind,
// origin}` + fields). Step is the step (or turn) number, Step.N.
type Firing struct {
	Step   int    `json:"step"`
	Rule   string `json:"rule"`
	Kind   string `json:"kind"`
	Origin string `json:"origin"`
}

// ParamType is the type of a configuration key's value.
type ParamType uint8

const (
	TypeInt      ParamType = iota // Default is an int
	TypeFloat                     // Default is a float64
	TypeBool                      // Default is a bool
	TypeDuration                  // Default is a time.Duration; bounds in seconds
)

// Param declares one configuration key of a detector.
type Param struct {
	Key     string
	Type    ParamType
	Default any
	// Min and Max are inclusive bounds, nil when unbounded. For a duration
	// they are in seconds.
	Min, Max *float64
	Doc      string
}

func bound(f float64) *float64 { return &f }

// check returns an error naming the key when v is outside the bounds.
func (p Param) check(v float64) error {
	if (p.Min != nil && v < *p.Min) || (p.Max != nil && v > *p.Max) {
		switch {
		case p.Min != nil && p.Max != nil:
			return fmt.Errorf("%s = %v: must be in [%v, %v]", p.Key, v, *p.Min, *p.Max)
		case p.Min != nil:
			return fmt.Errorf("%s = %v: must be >= %v", p.Key, v, *p.Min)
		default:
			return fmt.Errorf("%s = %v: must be <= %v", p.Key, v, *p.Max)
		}
	}
	return nil
}

// b2f is a boolean key's value among the numbers of a values map.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// checkAll checks values against params, key by key, in params' order.
func checkAll(params []Param, values map[string]float64) error {
	for _, p := range params {
		if v, ok := values[p.Key]; ok {
			if err := p.check(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// ring keeps the last cap values, oldest first, in buf: a window that
// slides along an array of twice cap and is moved back to its start when
// it reaches the end. Shifting the values down at every push once full
// (a Gemini CLI detector's 25 keys, an OpenHands detector's events, with
// a write barrier each while the collector ran) was most of those
// detectors' own time on a step.
type ring[T any] struct {
	buf []T
	all []T // buf's array, made at the first push
	cap int
}

func newRing[T any](capacity int) ring[T] { return ring[T]{cap: capacity} }

func (r *ring[T]) push(v T) {
	if len(r.buf) == r.cap {
		var zero T
		r.buf[0] = zero // what the ring lets go of is not held
		r.buf = r.buf[1:]
	}
	if len(r.buf) == cap(r.buf) {
		if r.all == nil {
			r.all = make([]T, 2*max(r.cap, 1))
		}
		n := copy(r.all, r.buf) // buf is a window of all, or empty
		clear(r.all[n:])
		r.buf = r.all[:n]
	}
	r.buf = append(r.buf, v)
}

// last returns the last n values, nil when there are fewer.
func (r *ring[T]) last(n int) []T {
	if len(r.buf) < n {
		return nil
	}
	return r.buf[len(r.buf)-n:]
}

// norm is RULES.md §0's norm: trimmed, lower case.
func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
