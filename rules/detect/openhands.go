package detect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// OpenHandsConfig configures the OpenHands StuckDetector checks.
type OpenHandsConfig struct {
	RepeatActionObservationCount int // repeat_action_observation_count
	RepeatActionErrorCount       int // repeat_action_error_count
	MonologueCount               int // monologue_count
	AlternatingPairSteps         int // alternating_pair_steps
	ContextWindowErrorCount      int // context_window_error_count
	// Interactive is is_stuck(headless_mode=False): only the history after
	// the last user message counts. loopbreak replays headless runs (the
	// default of evaluations and of the CLI's --headless); the unit tests
	// of the interactive mode run with it.
	Interactive bool
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

// OpenHandsClass says what an OpenHandsEvent is, as far as the
// StuckDetector's isinstance tests look.
type OpenHandsClass uint8

const (
	OHOtherAction   OpenHandsClass = iota // any other Action
	OHAgentMessage                        // MessageAction, source agent
	OHUserMessage                         // MessageAction, source user: is_stuck drops it
	OHIPythonAction                       // IPythonRunCellAction: Text is its code
	OHOtherObs                            // any other Observation
	OHCmdObs                              // CmdOutputObservation: Key is its command and exit code
	OHErrorObs                            // ErrorObservation
	OHIPythonObs                          // IPythonRunCellObservation: Text is its content
	OHCondensation                        // AgentCondensationObservation
	OHNull                                // NullAction, NullObservation: is_stuck drops them
)

// IsAction says the class is an Action's.
func (c OpenHandsClass) IsAction() bool { return c <= OHIPythonAction || c == OHNull }

// OpenHandsEvent is one event of the controller's state.history as
// StuckDetector sees it. Key holds what `==` compares: the event's class
// and every dataclass field (for a CmdOutputObservation, only what
// _eq_no_pid compares: command and exit code), so two events are equal
// when their Keys are.
type OpenHandsEvent struct {
	Class OpenHandsClass
	Key   string
	Text  string
}

// ohEqNoPid is StuckDetector._eq_no_pid: two IPythonRunCellActions whose
// code both contain `edit_file_by_replace(` are equal when the first has
// more than 2 lines and their first 3 lines are equal; everything else
// by Key (dataclass equality; CmdOutputObservation's Key is already
// command and exit code only).
func ohEqNoPid(a, b *OpenHandsEvent) bool {
	const edit = "edit_file_by_replace("
	if a.Class == OHIPythonAction && b.Class == OHIPythonAction && strings.Contains(a.Text, edit) && strings.Contains(b.Text, edit) {
		la, lb := strings.Split(a.Text, "\n"), strings.Split(b.Text, "\n")
		if len(la) <= 2 || len(lb) < 3 {
			return false
		}
		return la[0] == lb[0] && la[1] == lb[1] && la[2] == lb[2]
	}
	return a.Class == b.Class && a.Key == b.Key
}

// ohMessage is an agent message of the filtered history: its position and
// the observations before it.
type ohMessage struct {
	ev        *OpenHandsEvent
	pos       int
	obsBefore int
}

// OpenHands replays OpenHands' StuckDetector.is_stuck(headless_mode=True)
// (RULES.md §11) over the controller's history, one event at a time: Add
// appends an event and, when the controller would ask, returns the check
// that holds first. The filtered history (user messages and Null events
// dropped) is kept bounded: the last actions and observations the checks
// look at, the last agent messages with the number of observations before
// each, and the positions of the last condensations.
type OpenHands struct {
	cfg      OpenHandsConfig
	events   int // events in the filtered history
	obsCount int
	actions  mirror[*OpenHandsEvent]
	obs      mirror[*OpenHandsEvent]
	messages ring[ohMessage]
	condens  ring[int] // filtered-history positions of condensations

	// Run lengths kept as events are pushed (pushRuns), so that check
	// answers its equality tests from them where it compared the
	// windows' events again after every step: is_stuck asks after each
	// observation, and the events it compares are mostly the same from
	// one step to the next. Equality here is (Class, Key), which is
	// _eq_no_pid for every pair but two IPythonRunCellActions: a window
	// of actions holding one of those is tested as is_stuck tests it.
	actRun, actAlt int // trailing actions equal to the latest; trailing actions each equal to the one two before
	obsRun, obsAlt int // the same for the observations
	errRun         int // trailing observations that are ErrorObservations
	actPushed      int // actions pushed since the history began
	ipyAt          int // actPushed when the last IPythonRunCellAction was pushed, 0 for none

	// The monologue and context window checks' answers, found when a
	// message or a condensation is pushed: they depend on nothing else
	// (the messages' ring; the condensations', a full window of which
	// implies enough events), where check looked at the last messages
	// again after every step.
	mono, cwe bool

	// Step's own events, reused once no ring can hold them; and the
	// IPython check's scratch list.
	ownActs, ownMsgs, ownObs ohSlab
	dropped                  OpenHandsEvent    // AddEvent's of a class no ring keeps
	lastO                    []*OpenHandsEvent // the IPython test's reversed copy (lastN)
}

// ohSlab hands out events round-robin: with one more event than a ring
// keeps, an event is handed out again only after it has left the ring
// (Step pushes each event it takes into exactly one ring of actions or
// observations, messages into both the actions and the messages).
type ohSlab struct {
	evs  []OpenHandsEvent
	keys [][]byte // each event's Key bytes, when Step builds its Key
	next int
}

func newOHSlab(n int) ohSlab { return ohSlab{evs: make([]OpenHandsEvent, n), keys: make([][]byte, n)} }

// getOutput is get with a step's output as key, copied into the slot's
// key buffer when it lives only while its step is checked
// (Step.OutputTransient): the event stays in a ring after it (the
// buffer is the slot's, as cmdKey's, and holds the key exactly as long
// as the event).
func (s *ohSlab) getOutput(class OpenHandsClass, st *Step) *OpenHandsEvent {
	i := s.next
	e := s.get(class, "")
	e.Key, s.keys[i] = keptOutput(st, s.keys[i])
	return e
}

func (s *ohSlab) get(class OpenHandsClass, key string) *OpenHandsEvent {
	e := &s.evs[s.next]
	*e = OpenHandsEvent{Class: class, Key: key}
	if s.next++; s.next == len(s.evs) { // wrapped by a compare: % divided (IDIV, tens of cycles) at each event
		s.next = 0
	}
	return e
}

// cmdKey sets e's Key to action + "\x00" + the exit code, in the key
// buffer of e's slot: the string lives exactly as long as the event.
func (s *ohSlab) cmdKey(e *OpenHandsEvent, action string, code int) {
	i := s.next - 1 // e's slot, the last handed out
	if i < 0 {
		i = len(s.evs) - 1
	}
	b := append(s.keys[i][:0], action...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(code), 10)
	s.keys[i] = b
	e.Key = unsafe.String(unsafe.SliceData(b), len(b))
}

// NewOpenHands returns a detector with an empty history.
func NewOpenHands(c OpenHandsConfig) (*OpenHands, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("openhands: %w", err)
	}
	keep := max(c.RepeatActionObservationCount, c.RepeatActionErrorCount, c.AlternatingPairSteps)
	return &OpenHands{
		cfg:      c,
		actions:  newMirror[*OpenHandsEvent](keep),
		obs:      newMirror[*OpenHandsEvent](keep),
		messages: newRing[ohMessage](c.MonologueCount),
		condens:  newRing[int](c.ContextWindowErrorCount),
		// A message is kept while among the last keep actions or the
		// last MonologueCount messages.
		ownActs: newOHSlab(keep + 1),
		ownMsgs: newOHSlab(max(keep, c.MonologueCount) + 1),
		ownObs:  newOHSlab(keep + 1),
	}, nil
}

// Config returns the detector's configuration.
func (d *OpenHands) Config() OpenHandsConfig { return d.cfg }

// Add appends e to the history (unless is_stuck filters it out) and, when
// ask is set, returns the check that holds ("" for none). The detector
// keeps e.
func (d *OpenHands) Add(e *OpenHandsEvent, ask bool) string {
	switch e.Class {
	case OHUserMessage:
		if d.cfg.Interactive {
			d.reset()
		}
	case OHNull:
	default:
		if e.Class.IsAction() {
			d.pushAction(e)
		} else {
			d.pushObs(e)
		}
	}
	if !ask {
		return ""
	}
	return d.IsStuck()
}

// pushAction is Add of an action (e.Class.IsAction(), not OHNull) without
// asking; StepRule calls it where it knows the class, past Add's switch.
func (d *OpenHands) pushAction(e *OpenHandsEvent) {
	if e.Class == OHAgentMessage {
		d.messages.push(ohMessage{ev: e, pos: d.events, obsBefore: d.obsCount})
		d.mono = d.monologue()
	}
	d.actRun, d.actAlt = pushRuns(&d.actions, e, d.actRun, d.actAlt)
	if d.actPushed++; e.Class == OHIPythonAction {
		d.ipyAt = d.actPushed
	}
	d.events++
}

// pushObs is Add of an observation without asking.
func (d *OpenHands) pushObs(e *OpenHandsEvent) {
	if e.Class == OHCondensation {
		d.condens.push(d.events)
	}
	d.obsRun, d.obsAlt = pushRuns(&d.obs, e, d.obsRun, d.obsAlt)
	if e.Class == OHErrorObs {
		d.errRun++
	} else {
		d.errRun = 0
	}
	d.obsCount++
	if d.events++; e.Class == OHCondensation {
		d.cwe = d.contextWindowError() // with this event counted
	}
}

// AddEvent is Add of the event {class, key, text}, held in one of the
// detector's own events, as Step's are, where a caller made one on the
// heap for each event of a log: an action's in the actions' slab, an
// agent message's in the messages', an observation's in the
// observations' (each pushed into the rings its slab is sized for), a
// user message's or a null event's, which no ring keeps, in one reused.
func (d *OpenHands) AddEvent(class OpenHandsClass, key, text string, ask bool) string {
	var e *OpenHandsEvent
	switch {
	case class == OHUserMessage || class == OHNull:
		e = &d.dropped
		*e = OpenHandsEvent{Class: class, Key: key}
	case class == OHAgentMessage:
		e = d.ownMsgs.get(class, key)
	case class.IsAction():
		e = d.ownActs.get(class, key)
	default:
		e = d.ownObs.get(class, key)
	}
	e.Text = text
	return d.Add(e, ask)
}

// IsStuck is is_stuck over the history added so far: the check that holds
// first, "" for none.
func (d *OpenHands) IsStuck() string {
	if d.events < 3 {
		return ""
	}
	return d.check()
}

// reset forgets the history (interactive mode, at a user message).
func (d *OpenHands) reset() {
	d.events, d.obsCount = 0, 0
	d.actRun, d.actAlt, d.obsRun, d.obsAlt, d.errRun, d.actPushed, d.ipyAt = 0, 0, 0, 0, 0, 0, 0
	d.mono, d.cwe = false, false
	d.actions.reset()
	d.obs.reset()
	d.messages.buf, d.condens.buf = d.messages.buf[:0], d.condens.buf[:0]
}

// Step adds a steps-log step as events (an action step: its action, then
// its observation; a message step: an agent message; a condensation step:
// an AgentCondensationObservation) and asks once, after the step; a blank
// action step is skipped.
func (d *OpenHands) Step(s Step) []OpenHandsFiring {
	if rule := d.StepRule(&s); rule != "" {
		return []OpenHandsFiring{{Firing{Step: s.N, Rule: rule, Kind: KindStop, Origin: OriginOpenHands}}}
	}
	return nil
}

// StepRule is Step for a caller that reports the firing at once: the
// check that fired ("" for none), without Step's list of one, allocated
// at each firing (a stuck episode fires at most of its steps).
func (d *OpenHands) StepRule(s *Step) string {
	if s.noCall() {
		return ""
	}
	switch s.Kind {
	case KindAction:
		d.pushAction(d.ownActs.get(OHOtherAction, s.Action))
		o := d.ownObs.getOutput(OHOtherObs, s)
		switch {
		case s.HasExitCode:
			o.Class = OHCmdObs
			d.ownObs.cmdKey(o, s.Action, s.ExitCode)
		case s.Error:
			o.Class = OHErrorObs
		}
		d.pushObs(o)
	case KindMessage:
		d.pushAction(d.ownMsgs.getOutput(OHAgentMessage, s))
	case KindCondensation:
		d.pushObs(d.ownObs.getOutput(OHCondensation, s))
	default:
		return ""
	}
	return d.IsStuck()
}

// lastN returns the last n values of r, most recent first as is_stuck
// collects them, fewer when r holds fewer, in *buf (reused).
func lastN(buf *[]*OpenHandsEvent, r *mirror[*OpenHandsEvent], n int) []*OpenHandsEvent {
	b := r.window()
	if len(b) > n {
		b = b[len(b)-n:]
	}
	out := append((*buf)[:0], b...)
	slices.Reverse(out)
	*buf = out
	return out
}

// pushRuns pushes e into r and returns the run lengths after it, given
// those before: run counts the trailing events equal to e, alt the
// trailing events each equal to the one two before it (both by Class and
// Key). The equality is an equivalence and run before says whether the
// last two events are equal (run >= 2), so e is compared with the one two
// back only when it differs from the last and the last two differ: a
// repeated event, most of a stuck episode's, costs one compare of its
// Key, not two (each the whole string, as equal ones are).
// TestOpenHandsPushRuns holds it to the two compares.
func pushRuns(r *mirror[*OpenHandsEvent], e *OpenHandsEvent, run, alt int) (int, int) {
	switch n := r.n; {
	case n == 0:
		run, alt = 1, 0
	case sameKey(r.back(1), e): // e equals the one two back when the last two are equal
		if run >= 2 {
			alt++
		} else {
			alt = 0
		}
		run++
	default: // e differs from the one two back when the last two are equal
		if run == 1 && n > 1 && sameKey(r.back(2), e) {
			alt++
		} else {
			alt = 0
		}
		run = 1
	}
	r.push(e)
	return run, alt
}

// sameKey reports whether a and b are equal events; their keys by
// sameString, which tells one string read twice (a steps log's repeated
// action, interned by its reader) without memequal's call.
func sameKey(a, b *OpenHandsEvent) bool { return a.Class == b.Class && sameString(a.Key, b.Key) }

// ipythonInWindow says the last n actions hold an IPythonRunCellAction,
// whose _eq_no_pid is not (Class, Key) equality: the run lengths do not
// answer for them.
func (d *OpenHands) ipythonInWindow(n int) bool { return d.ipyAt > d.actPushed-n }

// check runs is_stuck's scenarios in order and returns the first that
// holds. is_stuck collects the last actions and observations most recent
// first and compares them by _eq_no_pid: over a window without an
// IPythonRunCellAction that is (Class, Key) equality, an equivalence, so
// "each equals the latest" is a run of equal events as long as the
// window, and "each equals the one two further back" a run of such
// events two shorter; the run lengths are kept as events are pushed.
// A run implies its window's length (n trailing events equal are n
// events pushed, and the rings keep the longest window; an alternating
// run of n-2 is n events; the parameters' minimums keep n-2 >= 2), so
// the window-length tests is_stuck makes are the runs' own, and a step
// that holds no run answers from a few compares.
// isStuckPlain, in the tests, is is_stuck's tests over the windows, which
// TestOpenHandsCheckRuns and FuzzOpenHandsAddEvent hold check to.
func (d *OpenHands) check() string {
	c := &d.cfg
	if n := c.RepeatActionObservationCount; d.obsRun >= n && d.actionsEq(n) {
		return RuleRepeatActionObservation
	}
	if n := c.RepeatActionErrorCount; d.actionsEq(n) {
		if d.errRun >= n {
			return RuleRepeatActionError
		}
		if obs := d.obs.last(n); obs != nil && allClass(obs, OHIPythonObs) && ipythonSyntaxLoop(lastN(&d.lastO, &d.obs, n)) {
			return RuleRepeatActionError
		}
	}
	if d.mono {
		return RuleMonologue
	}
	if n := c.AlternatingPairSteps; d.obsAlt >= n-2 && d.actionsAlternate(n) {
		return RuleAlternatingPair
	}
	if d.cwe {
		return RuleContextWindowError
	}
	return ""
}

// actionsEq is allEq over the last n actions, false when fewer were
// pushed: without an IPython cell among them, their run length.
func (d *OpenHands) actionsEq(n int) bool {
	if d.ipythonInWindow(n) {
		a := d.actions.last(n)
		return a != nil && allEq(a)
	}
	return d.actRun >= n
}

// actionsAlternate is alternating over the last n actions, false when
// fewer were pushed: without an IPython cell among them, their
// alternating run's length.
func (d *OpenHands) actionsAlternate(n int) bool {
	if d.ipythonInWindow(n) {
		a := d.actions.last(n)
		return a != nil && alternating(a)
	}
	return d.actAlt >= n-2
}

// monologue is _is_stuck_monologue.
func (d *OpenHands) monologue() bool {
	msgs := d.messages.last(d.cfg.MonologueCount)
	if msgs == nil {
		return false
	}
	for _, m := range msgs {
		if m.ev.Key != msgs[0].ev.Key {
			return false
		}
	}
	// No observation between the first and the last message: true
	// until a new message comes, whatever follows the last one.
	return msgs[len(msgs)-1].obsBefore == msgs[0].obsBefore
}

// contextWindowError is _is_stuck_context_window_error.
func (d *OpenHands) contextWindowError() bool {
	if n := d.cfg.ContextWindowErrorCount; d.events >= n {
		if pos := d.condens.last(n); pos != nil {
			for i := range len(pos) - 1 {
				if pos[i+1] == pos[i]+1 {
					return true
				}
			}
		}
	}
	return false
}

// allEq says every event of xs (oldest first) is _eq_no_pid to the latest,
// taken most recent first: `all(self._eq_no_pid(last[0], a) for a in
// last)`, last[0] the first argument.
func allEq(xs []*OpenHandsEvent) bool {
	if len(xs) == 0 {
		return true
	}
	x0 := xs[len(xs)-1]
	for i := len(xs) - 1; i >= 0; i-- {
		if !ohEqNoPid(x0, xs[i]) {
			return false
		}
	}
	return true
}

// alternating is _is_stuck_action_observation_pattern's test, generalised
// to any even count, over xs oldest first: most recent first (x0 the
// latest), each event equals the one two after it, compared from the
// first of each parity (x0 with x2, x4…; x1 with x3, x5…).
func alternating(xs []*OpenHandsEvent) bool {
	m := len(xs)
	for i := 2; i < m; i++ {
		if !ohEqNoPid(xs[m-1-i%2], xs[m-1-i]) {
			return false
		}
	}
	return true
}

func allClass(xs []*OpenHandsEvent, c OpenHandsClass) bool {
	for _, x := range xs {
		if x.Class != c {
			return false
		}
	}
	return true
}
