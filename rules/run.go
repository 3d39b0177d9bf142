package rules

import (
	"context"
	"strings"
	"sync"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
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
	if f.OwnKind() {
		return f.Kind.key // a registered kind's own string: no allocation per firing
	}
	return f.Rule.Name + "/" + f.Kind.Name
}

// OwnKind says whether f's kind is registered as its own rule's, so that
// f.Kind.Key() is its KindKey (and one kind pointer, one key).
func (f *Firing) OwnKind() bool {
	return f.Kind.key != "" && f.Kind.rule == f.Rule
}

// Env is what a Stepper sees besides its turn: the episode, the steppers
// of the rules it requires, and the report callback.
type Env struct {
	// from is where stepAll starts a turn: the steppers before it are
	// muted (a ReadReplay's skipStep, unscored), each an interface call
	// and the loop's test and increment (~19 instructions) at every
	// turn of a log with no score, where progress_velocity and
	// stuck_warnings, the first rules, are muted. 0 but in a ReadReplay's
	// Env (NewReadReplay, unmute). First in Env: its place moves the
	// code after at's load of it, and after cur's, the loop's test
	// lay across a 32-byte line, padded with a NOP at each stepper.
	from int

	Episode *replay.Episode
	report  func(Firing)
	// kept, when set (a ReadReplay's Env), takes the firings in report's
	// place, by pointer: through report, a func value, each ~300-byte
	// Firing was copied into the call (and was built, then copied into
	// Report's), at each firing, where a steps log fires at most steps.
	kept *ReadReplay
	// reportRef, when set (RunContextRef), takes the firings in report's
	// place, by pointer: a copy of each in sunk, so that the stepper's
	// Firing, handed to a func value, does not escape (allocated at each
	// firing of every stepper).
	reportRef func(*Firing)
	unit      string
	rules     []*Rule
	steppers  []Stepper

	// step is the detect.Step of turn, made by the first stepper that
	// asks for the turn being stepped (stepOf; at sets turn to 0): five
	// rules of a steps log ask for it, and made by each it was a tenth of
	// their time.
	turn   uintptr // turnAddr of the turn step was made for, 0: none
	step   detect.Step
	stepOK bool

	// folds says a detector's checks, which report what it found for
	// them, need not step on a turn it found nothing for them
	// (followers): the detector then adds their count to cur, which
	// stepAll passes over. Only an Env of startEnv folds: RunShared's
	// step every stepper.
	folds bool
	cur   int // the index of the stepper stepping (stepAll), from after at

	sunk Firing // reportRef's
}

// at says the steppers are about to step t, from the first not muted
// (from): the step
// made for the turn before is not t's, even when t is the same row (a
// spare turn, reused).
func (e *Env) at(*replay.Turn) { e.turn, e.cur = 0, e.from }

// stepOf is stepOf(t, e.Episode), made once for the turn being stepped,
// and held by e: the rules read it, and hand it to the detectors, without
// copying it. It is inlined: the rules after the first that asks find it
// made.
func (e *Env) stepOf(t *replay.Turn) (*detect.Step, bool) {
	if e.turn != turnAddr(t) {
		e.makeStep(t)
	}
	return &e.step, e.stepOK
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

// Report records a firing, which it may change (its Unit) but does not
// keep: a stepper reports a Firing of its own frame, not copied.
func (e *Env) Report(f *Firing) {
	if e.kept != nil {
		e.kept.add(f) // Finish sets the unit
		return
	}
	f.Unit = e.unit
	if e.reportRef != nil {
		e.sunk = *f
		e.reportRef(&e.sunk)
	} else if e.report != nil {
		e.report(*f)
	}
}

// ReportBare records a firing of rule's kind at turn that sets no other
// field (the peer detectors' stops and feedback): a ReadReplay packs it
// as it is, with no Firing made and no field tested (FiringList.AddBare;
// a steps log's OpenHands checks fire at a third of its steps).
func (e *Env) ReportBare(turn int, rule *Rule, kind *Kind) {
	if e.kept != nil {
		e.kept.addBare(turn, rule, kind)
		return
	}
	e.Report(&Firing{Turn: turn, Rule: rule, Kind: kind})
}

// reportMatch records a firing of rule's kind at turn that sets only
// Similarity and MatchedStep (fuzzy_repeat's), packed as it is by a
// ReadReplay (FiringList.AddMatch), as ReportBare's.
func (e *Env) reportMatch(turn int, rule *Rule, kind *Kind, similarity float64, matched int) {
	if e.kept != nil {
		e.kept.addMatch(turn, rule, kind, similarity, matched)
		return
	}
	e.Report(&Firing{Turn: turn, Rule: rule, Kind: kind, Similarity: similarity, MatchedStep: matched})
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
	RunContext(context.Background(), ep, cfg, set, report)
}

// ctxTurns is how many turns a replay steps between two looks at its
// context: a look is a non-blocking receive, a few nanoseconds per
// ctxTurns turns, while even a slow rule (task attempts on one task,
// milliseconds a turn) replays ctxTurns turns well within a second.
const ctxTurns = 256

// RunContext is Run that stops between turns once ctx is done, returning
// ctx's cause; nil when every turn was replayed. SIGINT and SIGTERM end
// an analysis this way within a second, however long the episode.
func RunContext(ctx context.Context, ep *replay.Episode, cfg *Config, set []*Rule, report func(Firing)) error {
	return startEnv(ep, cfg, set, report).run(ctx)
}

// spareTurn is the row a replay of ep steps turns that Turns does not
// keep in (an attempts log's, replay.Episode.TurnRef); nil when it keeps
// them all, so a table's replay makes none.
func spareTurn(ep *replay.Episode) *replay.Turn {
	if len(ep.Turns) < ep.NumTurns() {
		return new(replay.Turn)
	}
	return nil
}

// startEnv returns a pooled Env replaying set (nil: Registry) under cfg
// over ep, reporting to report: the rules of set enabled and applying to
// ep, each with its new Stepper.
func startEnv(ep *replay.Episode, cfg *Config, set []*Rule, report func(Firing)) *Env {
	if set == nil {
		set = Registry
	}
	env := getEnv(len(set))
	env.Episode, env.report, env.unit, env.folds = ep, report, UnitOf(ep), foldFollowers
	for _, r := range set {
		if r.Enabled(cfg) && r.AppliesTo(ep, cfg) {
			env.rules = append(env.rules, r)
			env.steppers = append(env.steppers, r.New(cfg, ep))
		}
	}
	return env
}

// stopAt is ctx's cause once it is done, looked at before turn index i
// once every ctxTurns turns (done is ctx.Done(): nil, never looked at).
func stopAt(ctx context.Context, done <-chan struct{}, i int) error {
	if done != nil && i%ctxTurns == 0 {
		select {
		case <-done:
			return context.Cause(ctx)
		default:
		}
	}
	return nil
}

// freeEnvs holds the Envs of replays done (putEnv), with their lists:
// a directory of small episodes made an Env and its two lists an
// episode. Nothing keeps an Env past its replay: a Stepper is given it
// for one Step.
var freeEnvs = sync.Pool{New: func() any { return new(Env) }}

// getEnv returns an empty Env whose lists hold n rules without growing
// (not grown by doubling: an episode of a few turns is replayed in about
// as many allocations).
func getEnv(n int) *Env {
	env := freeEnvs.Get().(*Env)
	if cap(env.rules) < n {
		env.rules, env.steppers = make([]*Rule, 0, n), make([]Stepper, 0, n)
	}
	return env
}

// putEnv empties env (its episode, callback and steppers let go) and
// keeps it for the next replay, unless its lists are large.
func putEnv(env *Env) {
	clear(env.rules)
	clear(env.steppers)
	*env = Env{rules: env.rules[:0], steppers: env.steppers[:0]}
	if cap(env.rules) <= 256 {
		freeEnvs.Put(env)
	}
}

// releaser is a Stepper holding memory the next episode's steppers can
// reuse: release hands it over once the episode is replayed.
type releaser interface{ release() }

func release(steppers []Stepper) {
	for _, s := range steppers {
		releaseStepper(s)
	}
}

func releaseStepper(s Stepper) {
	if r, ok := s.(releaser); ok {
		r.release()
	}
}

// RunShared replays set over ep under each of cfgs at once, turn by turn:
// report(i, f) hears configuration i's firings in the order Run(ep,
// cfgs[i], set, ...) reports them. A rule that reads (Rule.Reads) the same
// values under every cfg, requires only such rules of set, and runs under
// every cfg or under none is stepped once per turn for all of them, its
// firings reported to each; the others are stepped once per
// configuration, reading the shared rules' state through Env.Result. A
// sweep's grid varies a few keys of a component: the rules that do not
// read them are replayed once, not once per configuration.
func RunShared(ep *replay.Episode, cfgs []*Config, set []*Rule, report func(i int, f Firing)) {
	RunSharedContext(context.Background(), ep, cfgs, set, report)
}

// RunSharedContext is RunShared that stops between turns once ctx is
// done, as RunContext does, returning ctx's cause.
func RunSharedContext(ctx context.Context, ep *replay.Episode, cfgs []*Config, set []*Rule, report func(i int, f Firing)) error {
	if set == nil {
		set = Registry
	}
	if len(cfgs) == 0 || report == nil {
		return nil
	}
	unit := UnitOf(ep)
	var buf []Firing // the shared rules' firings of the current turn
	common := &Env{Episode: ep, unit: unit, report: func(f Firing) { buf = append(buf, f) }}
	inSet := map[*Rule]bool{}
	isShared := map[*Rule]bool{}
	for _, r := range set {
		inSet[r] = true
		runs := r.Enabled(cfgs[0]) && r.AppliesTo(ep, cfgs[0])
		ok := r.Reads != nil
		for _, p := range r.Reads {
			v := cfgs[0].Value(p.Key)
			for _, cfg := range cfgs[1:] {
				ok = ok && cfg.Value(p.Key) == v
			}
		}
		for _, req := range r.Requires {
			ok = ok && (!inSet[req] || isShared[req])
		}
		for _, cfg := range cfgs[1:] {
			if !ok {
				break
			}
			ok = runs == (r.Enabled(cfg) && r.AppliesTo(ep, cfg))
		}
		if ok {
			isShared[r] = true
			if runs {
				common.rules = append(common.rules, r)
				common.steppers = append(common.steppers, r.New(cfgs[0], ep))
			}
		}
	}
	// ends[k] is where shared stepper k's firings of the turn end in buf.
	ends := make([]int, len(common.steppers))
	envs := make([]*Env, len(cfgs))
	// from[i][j] is, for stepper j of envs[i], the shared stepper it is
	// (its firings are buf[ends[k-1]:ends[k]]), -1 for its own.
	from := make([][]int, len(cfgs))
	work := len(common.steppers) > 0
	for i, cfg := range cfgs {
		env := &Env{Episode: ep, unit: unit, report: func(f Firing) { report(i, f) }}
		k := 0
		for _, r := range set {
			switch {
			case isShared[r]:
				if k < len(common.rules) && common.rules[k] == r {
					env.rules, env.steppers = append(env.rules, r), append(env.steppers, common.steppers[k])
					from[i] = append(from[i], k)
					k++
				}
			case r.Enabled(cfg) && r.AppliesTo(ep, cfg):
				env.rules, env.steppers = append(env.rules, r), append(env.steppers, r.New(cfg, ep))
				from[i] = append(from[i], -1)
				work = true
			}
		}
		envs[i] = env
	}
	if !work {
		return nil
	}
	defer func() {
		release(common.steppers)
		for i, env := range envs {
			for j, s := range env.steppers {
				if from[i][j] < 0 {
					releaseStepper(s)
				}
			}
		}
	}()
	done := ctx.Done()
	spare := spareTurn(ep)
	for ti := range ep.NumTurns() {
		if err := stopAt(ctx, done, ti); err != nil {
			return err
		}
		t := ep.TurnRef(ti, spare)
		buf = buf[:0]
		common.at(t)
		for _, env := range envs {
			env.at(t)
		}
		for k, s := range common.steppers {
			s.Step(t, common)
			ends[k] = len(buf)
		}
		for i, env := range envs {
			for j, s := range env.steppers {
				k := from[i][j]
				if k < 0 {
					s.Step(t, env)
					continue
				}
				start := 0
				if k > 0 {
					start = ends[k-1]
				}
				for _, f := range buf[start:ends[k]] {
					report(i, f)
				}
			}
		}
	}
	return nil
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
	if h.all == nil && h.buf == nil && h.max <= 64 {
		// A short history (RULES.md's 20 locations) gets its backing
		// array at the first push, not grown from one by doubling: six
		// allocations of every episode's three histories, however short
		// the episode, were one in six of a small episode's.
		h.all = make([]T, 2*h.max)
		h.buf = h.all[:0]
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

// reset empties h for a history of max values, keeping its backing array
// (its values let go) when it is the size max needs (a stepper reused
// for another episode).
func (h *history[T]) reset(max int) {
	clear(h.all)
	if len(h.all) != 2*max || max > 64 {
		*h = history[T]{max: max}
		return
	}
	*h = history[T]{buf: h.all[:0], max: max, all: h.all}
}

// modeWindow counts the keys of the last w items pushed and tracks the
// highest count, in constant time per push: camping asks, every turn and
// configuration of a sweep, whether one location fills its window.
type modeWindow struct {
	w      int
	items  []int32 // ring of the last w items, oldest at head once full
	keys   []int32 // their keys
	head   int
	counts []int32 // by key
	numAt  []int32 // numAt[c]: keys counted c times
	best   int32   // the highest count
	mem    []int32 // the four's backing array (reuseModeWindow)
}

// newModeWindow is a window of the last w items whose keys are below
// distinct.
func newModeWindow(w, distinct int) modeWindow { return reuseModeWindow(nil, w, distinct) }

// reuseModeWindow is newModeWindow in the memory of buf (the backing
// array of a window done with) when it is large enough.
func reuseModeWindow(buf []int32, w, distinct int) modeWindow {
	w = max(w, 1)
	// One allocation for the four (an episode's camping makes one): each
	// a full slice expression of it, so no append reaches the next.
	n := 3*w + 1 + distinct
	all := buf[:0:cap(buf)]
	if cap(all) < n {
		all = make([]int32, n)
	} else {
		all = all[:n]
		clear(all)
	}
	return modeWindow{w: w, items: all[0:0:w], keys: all[w : w : 2*w],
		numAt: all[2*w : 3*w+1 : 3*w+1], counts: all[3*w+1:], mem: all}
}

// len is how many items the window holds.
func (m *modeWindow) len() int { return len(m.items) }

func (m *modeWindow) push(item, key int32) {
	if len(m.items) < m.w {
		m.items, m.keys = append(m.items, item), append(m.keys, key)
	} else {
		old := m.keys[m.head]
		c := m.counts[old]
		m.numAt[c]--
		if c == m.best && m.numAt[c] == 0 {
			m.best--
		}
		m.counts[old] = c - 1
		m.numAt[c-1]++
		m.items[m.head], m.keys[m.head] = item, key
		m.head = (m.head + 1) % m.w
	}
	c := m.counts[key] + 1
	m.counts[key] = c
	m.numAt[c-1]--
	m.numAt[c]++
	m.best = max(m.best, c)
}

// mode returns the item, oldest first in the window, whose key is counted
// best times.
func (m *modeWindow) mode() int32 {
	n := len(m.keys)
	for i := range n {
		j := (m.head + i) % n
		if m.counts[m.keys[j]] == m.best {
			return m.items[j]
		}
	}
	return -1 // unreachable: some key is counted best times
}
