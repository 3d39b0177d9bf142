package detect

import "fmt"

// OpenHands V1's StuckDetector (OpenHands/software-agent-sdk
// openhands-sdk/openhands/sdk/conversation/stuck_detector.py, read at
// 611629e, Aug 2026), as the conversation's run loop asks it
// (conversation/impl/local_conversation.py _check_stuck_or_nudge, before
// each agent step): first the action-error nudge, then is_stuck.

// OpenHandsV1Config is StuckDetectionThresholds.
type OpenHandsV1Config struct {
	ActionObservation  int // v1_action_observation
	ActionError        int // v1_action_error
	Monologue          int // v1_monologue
	AlternatingPattern int // v1_alternating_pattern
}

// OpenHandsV1Params declares its keys (StuckDetectionThresholds: ge=1).
var OpenHandsV1Params = []Param{
	{Key: "v1_action_observation", Type: TypeInt, Default: 4, Min: bound(1), Max: bound(100),
		Doc: "OpenHands V1: this many last actions equal and last observations equal"},
	{Key: "v1_action_error", Type: TypeInt, Default: 3, Min: bound(1), Max: bound(100),
		Doc: "OpenHands V1: a streak of this many equal actions each ending in an error nudges; one more is stuck"},
	{Key: "v1_monologue", Type: TypeInt, Default: 3, Min: bound(1), Max: bound(100),
		Doc: "OpenHands V1: this many agent messages in a row (equal or not)"},
	{Key: "v1_alternating_pattern", Type: TypeInt, Default: 6, Min: bound(1), Max: bound(100),
		Doc: "OpenHands V1: over this many last actions and observations, each equals the one two before"},
}

// DefaultOpenHandsV1Config is StuckDetectionThresholds' defaults.
func DefaultOpenHandsV1Config() OpenHandsV1Config {
	return OpenHandsV1Config{ActionObservation: 4, ActionError: 3, Monologue: 3, AlternatingPattern: 6}
}

// Validate checks the configuration against OpenHandsV1Params.
func (c OpenHandsV1Config) Validate() error {
	return checkAll(OpenHandsV1Params, map[string]float64{
		"v1_action_observation": float64(c.ActionObservation), "v1_action_error": float64(c.ActionError),
		"v1_monologue": float64(c.Monologue), "v1_alternating_pattern": float64(c.AlternatingPattern),
	})
}

// The V1 checks.
const (
	RuleV1ActionObservation  = "v1_repeat_action_observation"
	RuleV1ActionError        = "v1_repeat_action_error"
	RuleV1Monologue          = "v1_monologue"
	RuleV1AlternatingPattern = "v1_alternating_pattern"
)

// V1Class is an event's Python type, as far as the detector looks.
type V1Class uint8

const (
	V1Other               V1Class = iota // SystemPromptEvent, Condensation, PauseEvent, …: equal to no other event
	V1Action                             // ActionEvent
	V1Observation                        // ObservationEvent
	V1AgentError                         // AgentErrorEvent (an ObservationBaseEvent)
	V1ObservationBase                    // another ObservationBaseEvent: UserRejectObservation
	V1Message                            // MessageEvent; Source says whose
	V1CondensationSummary                // CondensationSummaryEvent
)

// OpenHandsV1Event is one event of the active branch. Key is what
// _event_eq compares besides the type (ActionEvent: source, thought,
// action, tool_name; ObservationEvent: source, observation, tool_name;
// AgentErrorEvent: source, error; UserRejectObservation: the whole
// event). _event_eq also compares MessageEvents (source, llm_message)
// and any other event whole, but the checks call it only on the
// actions and observations _collect_actions_and_observations returns
// (v1Eq's callers): the reader leaves Key empty for the other classes
// (FuzzV1UncomparedKeys in replay holds that). ID, Tool and Error feed
// the nudge; the nudge reads an ID only at the end of a streak of agent
// errors, and the checks a Source only of a message (the window's end,
// the monologue), so the reader sets ID for an AgentErrorEvent and
// Source for a MessageEvent only (the same test holds that too).
type OpenHandsV1Event struct {
	Class  V1Class
	Source string
	Key    string
	ID     string
	Tool   string // ActionEvent.tool_name
	Error  string // AgentErrorEvent.error
}

// v1Window is MAX_EVENTS_TO_SCAN_FOR_STUCK_DETECTION.
const v1Window = 20

// OpenHandsV1 holds the last events of the active branch and answers the
// run loop's two questions.
type OpenHandsV1 struct {
	cfg        OpenHandsV1Config
	events     mirror[*OpenHandsV1Event]
	lastNudged string
}

// NewOpenHandsV1 returns a detector with no events.
func NewOpenHandsV1(c OpenHandsV1Config) (*OpenHandsV1, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("openhands-v1: %w", err)
	}
	return &OpenHandsV1{cfg: c, events: newMirror[*OpenHandsV1Event](v1Window)}, nil
}

// Add appends an event of the active branch.
func (d *OpenHandsV1) Add(e *OpenHandsV1Event) { d.events.push(e) }

// Check is _check_stuck_or_nudge: the nudge's check when it fires (and
// the nudge is given: is_stuck is not asked then), else is_stuck's first
// holding check, else "".
//
// Nudge and IsStuck each find the window and collect its last actions
// and observations; Check does so once for both (IsStuck's collection,
// the longer: Nudge's is its first ActionError+1 of each), and tests the
// nudge without writing its text, which only Nudge's caller reads.
// TestOpenHandsV1CheckAsParts holds it to Nudge then IsStuck.
func (d *OpenHandsV1) Check() (rule string, nudge bool) {
	evs := d.window()
	acts, obs := collect(evs, max(d.cfg.ActionObservation, d.cfg.ActionError+1))
	if d.nudged(acts, obs) {
		return RuleV1ActionError, true
	}
	return d.stuck(evs, acts, obs), false
}

// window is _events_since_last_user_message: the last 20 events, after
// the last user message among them.
func (d *OpenHandsV1) window() []*OpenHandsV1Event {
	evs := d.events.window()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Class == V1Message && evs[i].Source == "user" {
			return evs[i+1:]
		}
	}
	return evs
}

func v1Eq(a, b *OpenHandsV1Event) bool { return a.Class == b.Class && a.Key == b.Key }

// collect is _collect_actions_and_observations: the last n actions and
// the last n ObservationBaseEvents, most recent first.
func collect(evs []*OpenHandsV1Event, n int) (acts, obs []*OpenHandsV1Event) {
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		switch {
		case e.Class == V1Action:
			if len(acts) < n {
				acts = append(acts, e)
			}
		case e.Class == V1Observation || e.Class == V1AgentError || e.Class == V1ObservationBase:
			if len(obs) < n {
				obs = append(obs, e)
			}
		}
		if len(acts) >= n && len(obs) >= n {
			break
		}
	}
	return acts, obs
}

// errorStreak is _action_error_streak.
func errorStreak(acts, obs []*OpenHandsV1Event) int {
	streak := 0
	for i := 0; i < len(acts) && i < len(obs); i++ {
		if !v1Eq(acts[0], acts[i]) || obs[i].Class != V1AgentError {
			break
		}
		streak++
	}
	return streak
}

// Nudge is get_action_error_nudge: the nudge's text once a streak of
// equal actions each ending in an AgentErrorEvent first reaches
// v1_action_error, once per error event; "" otherwise. The engine asks
// Check, which does Nudge's and IsStuck's work in one pass; they stay as
// the code's two functions, which Check is held to.
func (d *OpenHandsV1) Nudge() string {
	n := d.cfg.ActionError
	acts, obs := collect(d.window(), n+1)
	if !d.nudged(acts, obs) {
		return ""
	}
	return fmt.Sprintf("You've called `%s` with the same arguments %d times in a row and gotten the same error each time: %s. "+
		"Repeating the exact same call again will not work — review the error message and either correct the arguments or try a different approach.",
		acts[0].Tool, n, obs[0].Error)
}

// nudged says the nudge is given: a streak of v1_action_error equal
// actions each ending in an error, whose last error was not nudged yet
// (noted). acts and obs are the window's last ActionError+1 actions and
// observations, or more: a streak of ActionError+1 or more of the longer
// lists is one of ActionError+1 of theirs, so that neither is
// ActionError.
func (d *OpenHandsV1) nudged(acts, obs []*OpenHandsV1Event) bool {
	if errorStreak(acts, obs) != d.cfg.ActionError || obs[0].ID == d.lastNudged {
		return false
	}
	d.lastNudged = obs[0].ID
	return true
}

// IsStuck is is_stuck: the first scenario that holds, "" for none.
func (d *OpenHandsV1) IsStuck() string {
	evs := d.window()
	acts, obs := collect(evs, max(d.cfg.ActionObservation, d.cfg.ActionError+1))
	return d.stuck(evs, acts, obs)
}

// stuck is IsStuck over the window and the last actions and
// observations collect found in it (is_stuck asks for no more when the
// window is shorter than its smallest threshold).
func (d *OpenHandsV1) stuck(evs, acts, obs []*OpenHandsV1Event) string {
	c := &d.cfg
	if len(evs) < min(c.ActionObservation, c.ActionError, c.Monologue) {
		return ""
	}
	if n := c.ActionObservation; len(acts) >= n && len(obs) >= n && allV1Eq(acts[:n]) && allV1Eq(obs[:n]) {
		return RuleV1ActionObservation
	}
	if errorStreak(acts, obs) > c.ActionError {
		return RuleV1ActionError
	}
	if v1Monologue(evs, c.Monologue) {
		return RuleV1Monologue
	}
	if len(evs) >= c.AlternatingPattern && v1Alternating(evs, c.AlternatingPattern) {
		return RuleV1AlternatingPattern
	}
	// Scenario 5 (_is_stuck_context_window_error) returns False in V1.
	return ""
}

func allV1Eq(xs []*OpenHandsV1Event) bool {
	for _, x := range xs {
		if !v1Eq(xs[0], x) {
			return false
		}
	}
	return true
}

// v1Monologue is _is_stuck_monologue: counting back, agent messages until
// a user message or any event but a message or a condensation summary;
// their texts are not compared. A message from the environment (the
// nudge) neither counts nor stops the count.
func v1Monologue(evs []*OpenHandsV1Event, n int) bool {
	if len(evs) < n {
		return false
	}
	count := 0
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		switch e.Class {
		case V1Message:
			if e.Source == "agent" {
				count++
			} else if e.Source == "user" {
				return count >= n
			}
		case V1CondensationSummary:
		default:
			return count >= n
		}
	}
	return count >= n
}

// v1Alternating is _is_stuck_alternating_action_observation: the last n
// actions and last n ObservationEvents or AgentErrorEvents (not other
// observations), each equal to the one two before.
func v1Alternating(evs []*OpenHandsV1Event, n int) bool {
	var acts, obs []*OpenHandsV1Event
	for i := len(evs) - 1; i >= 0 && (len(acts) < n || len(obs) < n); i-- {
		e := evs[i]
		switch {
		case e.Class == V1Action:
			if len(acts) < n {
				acts = append(acts, e)
			}
		case e.Class == V1Observation || e.Class == V1AgentError:
			if len(obs) < n {
				obs = append(obs, e)
			}
		}
	}
	if len(acts) != n || len(obs) != n {
		return false
	}
	for i := 0; i+2 < n; i++ {
		if !v1Eq(acts[i], acts[i+2]) || !v1Eq(obs[i], obs[i+2]) {
			return false
		}
	}
	return true
}
