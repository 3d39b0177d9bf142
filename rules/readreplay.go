package rules

import (
	"context"
	"fmt"
	"slices"

	"github.com/loopbreak/loopbreak/replay"
)

// A ReadReplay replays rules over a steps log's episode while it is read
// (replay.Options.Stepper), turn by turn as the reader adds them, so the
// reader keeps no output: a session's outputs are most of its log (issue
// 24). Its firings are kept, packed (FiringList), until Finish hands them
// over in the order Run reports them: what an outcome makes of a firing
// (after the cut, a false alarm) needs the whole turn table.
//
// Run and a ReadReplay report the same firings: a steps table only
// appends, so turn i seen as it is added is turn i of the finished table,
// and the rules of a steps log read the turn they step, their own state
// and the states of the rules they require, never a later turn. The one
// thing a later record can change is whether a rule applies at all
// (Rule.AppliesTo: progress_velocity and stuck_warnings apply once some
// step carries a score, HasScore). Such rules are stepped from the start
// and Finish drops their firings when they do not apply after all; no rule
// that applies either way requires one of them (TestReadReplaySets).
//
// Most agents' logs carry no score, and stuck_warnings then fires at
// nearly every step, to be dropped: the firings of the rules that apply
// only with a score and replay from the turn rows alone (fromRows) are
// not kept while no turn stepped has read one. Should a later one, Finish
// replays those rules again over the turns stepped before (unscored),
// from their rows, and merges their firings in.
type ReadReplay struct {
	ctx  context.Context
	done <-chan struct{}
	cfg  *Config
	set  []*Rule
	env  *Env
	list FiringList
	err  error // ctx's cause once it was done: the replay stopped

	unkept   []bool // by stepper: its firings are not kept while !scored
	scored   bool   // a score was read by a turn stepped
	unscored int    // the turns stepped before

	// muted holds the steppers not stepped while !scored (skipStep in
	// their place in env.steppers): unkept, they would step for firings
	// add drops. stuck_warnings fires at nearly every step of a log
	// without a score, each firing a Firing of ~300 bytes made to be
	// dropped; it is reporting only (a reportOnly's step changes no
	// state a later step reads). progress_velocity keeps state, read
	// only by unkept rules (stuck_warnings): it is stepped over the
	// turns before once a score is read (unmute).
	muted []mutedStepper
}

// A mutedStepper is a stepper a ReadReplay does not step while no score
// is read, and its index in the Env's steppers. catchUp: it keeps state
// its steps change, and is stepped over the turns before once a score is
// read (unmute).
type mutedStepper struct {
	k       int
	s       Stepper
	catchUp bool
}

// A reportOnly Stepper keeps no state that its steps change (but what it
// looks up once): a turn it does not step changes none of its later
// turns' firings, only loses its own. stuck_warnings reads
// progress_velocity's state, and reports.
type reportOnly interface {
	Stepper
	reportOnly()
}

// skipStep is what a ReadReplay steps in the place of a muted stepper.
type skipStep struct{}

func (skipStep) Step(*replay.Turn, *Env) {}

// fromRows lists the rules a ReadReplay may replay again from the turn
// rows alone: progress_velocity reads each turn's number and score (and
// the episode's objective turns), stuck_warnings progress_velocity's
// state.
var fromRows = map[*Rule]bool{ProgressVelocity: true, StuckWarnings: true}

// NewReadReplay starts replaying set (nil: Registry) under cfg over ep,
// whose turns are yet to be read. Once ctx is done the replay stops
// stepping and Finish returns ctx's cause.
func NewReadReplay(ctx context.Context, ep *replay.Episode, cfg *Config, set []*Rule) *ReadReplay {
	if set == nil {
		set = Registry
	}
	r := &ReadReplay{ctx: ctx, done: ctx.Done(), cfg: cfg, set: set}
	// Every rule that applies once a score is read steps from the start.
	had := ep.HasScore
	ep.HasScore = true
	// A closure, not the method value r.add: its wrapper copied the
	// 300-byte Firing once more, at each firing (a steps log fires at
	// most of its steps).
	r.env = startEnv(ep, cfg, set, nil)
	r.env.kept = r
	ep.HasScore = false
	r.unkept = make([]bool, len(r.env.rules))
	for k, rule := range r.env.rules {
		r.unkept[k] = fromRows[rule] && !rule.AppliesTo(ep, cfg)
	}
	for k, rule := range r.env.rules {
		for _, req := range rule.Requires {
			for j, x := range r.env.rules {
				if x == req && r.unkept[k] && !r.unkept[j] {
					// Replayed again, rule would need req's state too.
					clear(r.unkept)
				}
			}
		}
	}
	for k, s := range r.env.steppers {
		if !r.unkept[k] {
			continue
		}
		_, quiet := s.(reportOnly)
		if !quiet && !r.readByUnkept(r.env.rules[k]) {
			continue
		}
		r.muted = append(r.muted, mutedStepper{k, s, !quiet})
		r.env.steppers[k] = skipStep{}
	}
	// The muted steppers at the start are not stepped at all (Env.from);
	// skipStep holds their places for the steppers' indexes, which tag
	// the firings and count a detector's checks.
	for r.env.from < len(r.env.steppers) && r.env.steppers[r.env.from] == Stepper(skipStep{}) {
		r.env.from++
	}
	ep.HasScore = had
	return r
}

// readByUnkept says every rule of the replay that requires rule (reads
// its state) is unkept, so muted too: a muted stepper that keeps state
// (progress_velocity) is stepped over the turns before once a score is
// read, before any of them reads it.
func (r *ReadReplay) readByUnkept(rule *Rule) bool {
	for j, x := range r.env.rules {
		if slices.Contains(x.Requires, rule) && !r.unkept[j] {
			return false
		}
	}
	return true
}

// unmute puts the muted steppers back in env.steppers: a score was read,
// and their firings are kept from this turn on (or the replay ends). The
// turns before, ep.Turns[:upTo], are stepped by those that keep state
// (catchUp), reporting nothing, for the state a step of each would have
// left (a rule replayed from the rows reads them alone, fromRows; its
// firings there are replayUnscored's): progress_velocity's step was most
// of its replay on a log with no score (Claude Code's, Gemini CLI's),
// ~15 instructions a turn and the call.
func (r *ReadReplay) unmute(env *Env, ep *replay.Episode, upTo int) {
	for _, m := range r.muted {
		env.steppers[m.k] = m.s
	}
	env.from = 0
	var quiet *Env // reports nothing
	for _, m := range r.muted {
		if !m.catchUp || upTo == 0 {
			continue
		}
		if quiet == nil {
			quiet = &Env{Episode: ep, unit: env.unit}
		}
		for i := range upTo {
			t := &ep.Turns[i]
			quiet.at(t)
			m.s.Step(t, quiet)
		}
	}
	r.muted = nil
}

// Step replays ep.Turns[i] (replay.TurnStepper).
func (r *ReadReplay) Step(ep *replay.Episode, i int) {
	env := r.env
	if env == nil || r.err != nil || len(env.steppers) == 0 {
		return
	}
	// stopAt's test of the turn, made here: its call, and r.err
	// written (two words, tested for the write barrier), were some 15
	// instructions at every turn for a look every ctxTurns turns.
	if uint(i)%ctxTurns == 0 {
		if r.err = stopAt(r.ctx, r.done, i); r.err != nil {
			return
		}
	}
	if !r.scored {
		if r.scored = ep.HasScore; !r.scored {
			r.unscored = i + 1
		} else {
			r.unmute(env, ep, r.unscored)
		}
	}
	t := &ep.Turns[i]
	env.at(t)
	env.stepAll(t)
}

// add keeps a firing the current stepper reported (Env.Report, whose
// Unit it leaves unset: set again as the firing is reported, Finish).
func (r *ReadReplay) add(f *Firing) {
	cur := r.env.cur // the stepper stepping: the firings it reports are its rule's to keep or drop
	if !r.scored && r.unkept[cur] {
		return
	}
	r.list.Add(f, cur)
}

// addBare is add for a firing that sets no field but its turn, rule and
// kind (Env.ReportBare).
func (r *ReadReplay) addBare(turn int, rule *Rule, kind *Kind) {
	cur := r.env.cur
	if !r.scored && r.unkept[cur] {
		return
	}
	r.list.AddBare(turn, rule, kind, cur)
}

// addMatch is add for a firing that sets Similarity and MatchedStep
// alone (Env.reportMatch).
func (r *ReadReplay) addMatch(turn int, rule *Rule, kind *Kind, similarity float64, matched int) {
	cur := r.env.cur
	if !r.scored && r.unkept[cur] {
		return
	}
	r.list.AddMatch(turn, rule, kind, similarity, matched, cur)
}

// Finish calls report with the firings of the rules that apply to ep as
// read, in the order Run would report them, and lets go of the replay's
// state. cfg and set (nil: Registry) must be those NewReadReplay was
// given: the outputs are gone, so the episode cannot be replayed under
// another configuration; Finish panics on that misuse, as on a second
// call, and returns only ctx's cause, when the replay was stopped (it
// reports nothing then). report is handed each firing by a pointer
// Finish reuses for the next (a Firing is ~300 bytes, and a steps log
// fires tens of thousands of times): it copies what it keeps, and
// changes nothing of it (FiringIter.NextOver reads the next over it).
func (r *ReadReplay) Finish(ep *replay.Episode, cfg *Config, set []*Rule, report func(*Firing)) error {
	env := r.env
	if env == nil {
		panic(fmt.Sprintf("%s: replayed while read, and finished already", ep.Source))
	}
	if set == nil {
		set = Registry
	}
	if cfg != r.cfg || len(set) != len(r.set) || (len(set) > 0 && &set[0] != &r.set[0]) {
		panic(fmt.Sprintf("%s: replayed while read under another configuration", ep.Source))
	}
	r.env = nil
	r.unmute(env, ep, 0) // released as they were made (a rule that applies after all is replayed from the rows: replayUnscored)
	defer putEnv(env)
	defer release(env.steppers)
	if r.err != nil {
		return r.err
	}
	keep := make([]bool, len(env.rules))
	all := true // every stepper's firings are kept: none is tested
	for k, rule := range env.rules {
		keep[k] = rule.AppliesTo(ep, r.cfg)
		all = all && keep[k]
	}
	for k, rule := range env.rules {
		for _, req := range rule.Requires {
			for j, x := range env.rules {
				if x == req && keep[k] && !keep[j] {
					// Run would have stepped rule without req's state:
					// the registry breaks what TestReadReplaySets holds.
					panic(fmt.Sprintf("%s: %s requires %s, which does not apply to it: not replayable while read", ep.Source, rule.Name, req.Name))
				}
			}
		}
	}
	var f Firing
	if again := r.replayUnscored(ep, env.rules, keep); again != nil {
		mergeFirings(&r.list, again, func(f *Firing, tag int) {
			if keep[tag] {
				f.Unit = env.unit
				report(f)
			}
		})
		r.list = FiringList{}
		return nil
	}
	it := r.list.Iter()
	it.unit = env.unit // each firing's, as Env.Report sets it
	if all {
		// Most logs keep every rule stepped: a firing's tag and its
		// test were ~10 instructions a firing.
		for it.NextOver(&f) {
			report(&f)
		}
	} else {
		for it.NextOver(&f) { // report changes no field of f but its Unit
			if keep[it.Tag()] {
				report(&f)
			}
		}
	}
	r.list = FiringList{}
	return nil
}

// replayUnscored replays the rules of stepped (the replay's, by
// stepper) whose firings were not kept, and that apply after all (keep), over the turns stepped before a score
// was read, from their rows, and returns their firings tagged as the
// replay's stepper of their rule; nil when there are none to make.
func (r *ReadReplay) replayUnscored(ep *replay.Episode, stepped []*Rule, keep []bool) *FiringList {
	var set []*Rule
	tags := map[*Rule]int{}
	for k, rule := range stepped {
		if r.unkept[k] && keep[k] {
			set = append(set, rule)
			tags[rule] = k
		}
	}
	if len(set) == 0 || r.unscored == 0 {
		return nil
	}
	again := new(FiringList)
	env := startEnv(ep, r.cfg, set, func(f Firing) { again.Add(&f, tags[f.Rule]) })
	defer putEnv(env)
	defer release(env.steppers)
	for i := range r.unscored {
		t := &ep.Turns[i]
		env.at(t)
		env.stepAll(t)
	}
	return again
}

// mergeFirings calls emit with the firings of a and b, each list in its
// order, as one list in turn order, within a turn in tag order: a
// replay's list is in that order (a stepper reports at the turn it
// steps, Turn: t.N, steppers stepping in tag order), so the merge is
// the order of a replay that had kept every firing.
func mergeFirings(a, b *FiringList, emit func(f *Firing, tag int)) {
	var fa, fb Firing
	ia, ib := a.Iter(), b.Iter()
	okA, okB := ia.NextOver(&fa), ib.NextOver(&fb)
	for okA || okB {
		if okA && (!okB || fa.Turn < fb.Turn || fa.Turn == fb.Turn && ia.Tag() <= ib.Tag()) {
			emit(&fa, ia.Tag())
			okA = ia.NextOver(&fa)
		} else {
			emit(&fb, ib.Tag())
			okB = ib.NextOver(&fb)
		}
	}
}
