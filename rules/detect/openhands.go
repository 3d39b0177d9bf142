package detect

import "fmt"

// OpenHandsConfig configures the OpenHands StuckDetector checks.
type OpenHandsConfig struct {
	RepeatActionObservationCount int // repeat_action_observation_count
	RepeatActionErrorCount       int // repeat_action_error_count
	MonologueCount               int // monologue_count
	AlternatingPairSteps         int // alternating_pair_steps
	ContextWindowErrorCount      int // context_window_error_count
}

// OpenHandsParams declares the OpenHands checks' keys.
var OpenHandsParams = []Param{
	{Key: "repeat_action_observation_count", Type: TypeInt, Default: 4, Min: bound(2), Max: bound(100),
		Doc: "repeat_action_observation: this many last actions the same and last observations the same"},
	{Key: "repeat_action_error_count", Type: TypeInt, Default: 3, Min: bound(2), Max: bound(100),
		Doc: "repeat_action_error: this many last actions the same and last observations errors"},
	{Key: "monologue_count", Type: TypeInt, Default: 3, Min: bound(2), Max: bound(100),
		Doc: "monologue: this many last agent messages equal, no observation between them"},
	{Key: "alternating_pair_steps", Type: TypeInt, Default: 6, Min: bound(4), Max: bound(100),
		Doc: "alternating_pair: over this many last actions and observations, each equals the one two before"},
	{Key: "context_window_error_count", Type: TypeInt, Default: 10, Min: bound(2), Max: bound(100),
		Doc: "context_window_error: at least this many condensations, two of the last ones adjacent"},
}

// DefaultOpenHandsConfig is StuckDetector's hard-coded setting.
func DefaultOpenHandsConfig() OpenHandsConfig {
	return OpenHandsConfig{RepeatActionObservationCount: 4, RepeatActionErrorCount: 3, MonologueCount: 3,
		AlternatingPairSteps: 6, ContextWindowErrorCount: 10}
}

// Validate checks the configuration against OpenHandsParams.
func (c OpenHandsConfig) Validate() error {
	return checkAll(OpenHandsParams, c.values())
}

func (c OpenHandsConfig) values() map[string]float64 {
	return map[string]float64{
		"repeat_action_observation_count": float64(c.RepeatActionObservationCount),
		"repeat_action_error_count":       float64(c.RepeatActionErrorCount),
		"monologue_count":                 float64(c.MonologueCount),
		"alternating_pair_steps":          float64(c.AlternatingPairSteps),
		"context_window_error_count":      float64(c.ContextWindowErrorCount),
	}
}

// OpenHandsFiring is one firing of the OpenHands detector; Rule is the
// check that fired.
type OpenHandsFiring struct {
	Firing
}

// The OpenHands checks, in the order they are tried.
const (
	RuleRepeatActionObservation = "repeat_action_observation"
	RuleRepeatActionError       = "repeat_action_error"
	RuleMonologue               = "monologue"
	RuleAlternatingPair         = "alternating_pair"
	RuleContextWindowError      = "context_window_error"
)

// ohAction is an action event: a tool call or an agent message.
type ohAction struct {
	message bool
	text    string // the call's action, or the message's text
}

type ohObsKind uint8

const (
	ohObsTool    ohObsKind = iota // a tool's result without exit code
	ohObsCmd                      // a shell command's result (CmdOutputObservation)
	ohObsCondens                  // AgentCondensationObservation
)

// ohObs is an observation event.
type ohObs struct {
	kind   ohObsKind
	action string // the step's action, for ohObsCmd
	exit   int
	output string
	err    bool
}

// same is _eq_no_pid for actions: ids, timestamps, source and cause are
// not compared.
func (a ohAction) same(b ohAction) bool { return a == b }

// same is _eq_no_pid for observations. Two command outputs are the same
// when their commands and exit codes are, whatever they printed (the
// CmdOutputObservation quirk: a poll printing new text is the same); the
// others by type and content.
func (o ohObs) same(p ohObs) bool {
	if o.kind != p.kind {
		return false
	}
	if o.kind == ohObsCmd {
		return o.action == p.action && o.exit == p.exit
	}
	return o.output == p.output && o.err == p.err
}

// isError says o is an ErrorObservation: a failed tool call without exit
// code.
func (o ohObs) isError() bool { return o.kind == ohObsTool && o.err }

type ohMessage struct {
	text      string
	obsBefore int // observations in the history before this message
}

// OpenHands replays OpenHands' StuckDetector.is_stuck in headless mode
// (RULES.md §11). Each step extends the history: an action step with its
// action then its observation, a message step with an action, a
// condensation step with an observation; a blank action step is skipped.
// After each step, with at least 3 events, the first of the five checks
// that holds fires (kind stop); a firing resets nothing.
//
// The history is kept bounded: the last actions and observations the
// checks look at, the last messages with the number of observations before
// each, the positions of the last condensations.
type OpenHands struct {
	cfg      OpenHandsConfig
	events   int
	obsCount int
	actions  ring[ohAction]
	obs      ring[ohObs]
	messages ring[ohMessage]
	condens  ring[int] // history positions of condensations
}

// NewOpenHands returns a detector with an empty history.
func NewOpenHands(c OpenHandsConfig) (*OpenHands, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("openhands: %w", err)
	}
	keep := max(c.RepeatActionObservationCount, c.RepeatActionErrorCount, c.AlternatingPairSteps)
	return &OpenHands{
		cfg:      c,
		actions:  newRing[ohAction](keep),
		obs:      newRing[ohObs](keep),
		messages: newRing[ohMessage](c.MonologueCount),
		condens:  newRing[int](c.ContextWindowErrorCount),
	}, nil
}

func (d *OpenHands) addObs(o ohObs) {
	if o.kind == ohObsCondens {
		d.condens.push(d.events)
	}
	d.obs.push(o)
	d.obsCount++
	d.events++
}

// Step adds the step's events and returns the check that fires, if any.
func (d *OpenHands) Step(s Step) []OpenHandsFiring {
	if s.noCall() {
		return nil
	}
	switch s.Kind {
	case KindAction:
		d.actions.push(ohAction{text: s.Action})
		d.events++
		o := ohObs{kind: ohObsTool, action: s.Action, output: s.Output, err: s.Error}
		if s.ExitCode != nil {
			o.kind, o.exit = ohObsCmd, *s.ExitCode
		}
		d.addObs(o)
	case KindMessage:
		d.messages.push(ohMessage{text: s.Output, obsBefore: d.obsCount})
		d.actions.push(ohAction{message: true, text: s.Output})
		d.events++
	case KindCondensation:
		d.addObs(ohObs{kind: ohObsCondens, output: s.Output})
	default:
		return nil
	}
	if d.events < 3 {
		return nil
	}
	if rule := d.check(); rule != "" {
		return []OpenHandsFiring{{Firing{Step: s.N, Rule: rule, Kind: KindStop, Origin: OriginOpenHands}}}
	}
	return nil
}

// allSame says xs is not nil and all its values are the same.
func allSame[T any](xs []T, same func(T, T) bool) bool {
	if xs == nil {
		return false
	}
	for _, x := range xs[:len(xs)-1] {
		if !same(x, xs[len(xs)-1]) {
			return false
		}
	}
	return true
}

// alternating says xs is not nil and each of its values equals the one
// two before it.
func alternating[T any](xs []T, same func(T, T) bool) bool {
	if xs == nil {
		return false
	}
	for i := range len(xs) - 2 {
		if !same(xs[i], xs[i+2]) {
			return false
		}
	}
	return true
}

// check runs the checks in is_stuck's order and returns the first that
// holds.
func (d *OpenHands) check() string {
	c := d.cfg
	if n := c.RepeatActionObservationCount; allSame(d.actions.last(n), ohAction.same) && allSame(d.obs.last(n), ohObs.same) {
		return RuleRepeatActionObservation
	}
	if n := c.RepeatActionErrorCount; allSame(d.actions.last(n), ohAction.same) {
		if obs := d.obs.last(n); obs != nil && allErrors(obs) {
			return RuleRepeatActionError
		}
	}
	if msgs := d.messages.last(c.MonologueCount); msgs != nil {
		equal := true
		for _, m := range msgs[1:] {
			equal = equal && m.text == msgs[0].text
		}
		// No observation between the first and the last message: true
		// until a new message comes, whatever follows the last one.
		if equal && msgs[len(msgs)-1].obsBefore == msgs[0].obsBefore {
			return RuleMonologue
		}
	}
	if n := c.AlternatingPairSteps; alternating(d.actions.last(n), ohAction.same) && alternating(d.obs.last(n), ohObs.same) {
		return RuleAlternatingPair
	}
	if pos := d.condens.last(c.ContextWindowErrorCount); pos != nil {
		for i := range len(pos) - 1 {
			if pos[i+1] == pos[i]+1 {
				return RuleContextWindowError
			}
		}
	}
	return ""
}

func allErrors(obs []ohObs) bool {
	for _, o := range obs {
		if !o.isError() {
			return false
		}
	}
	return true
}
