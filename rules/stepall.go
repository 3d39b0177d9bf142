package rules

// An Env steps its steppers turn by turn (stepAll); a detector skips
// its checks on the turns it found nothing for them (followers).

import (
	"context"

	"github.com/loopbreak/loopbreak/replay"
)

// RunContextRef is RunContext handing report each firing by pointer, to
// a Firing the Env reuses for the next: report reads it and does not
// keep it (a copy of it may be kept). Through RunContext's func value
// each ~300-byte Firing was copied into the call, then again by a caller
// that takes it by pointer (analyze's): an attempts log's task_attempts
// fires at a fourth of its attempts.
func RunContextRef(ctx context.Context, ep *replay.Episode, cfg *Config, set []*Rule, report func(*Firing)) error {
	env := startEnv(ep, cfg, set, nil)
	env.reportRef = report
	return env.run(ctx)
}

// run steps e over its episode's turns, stopping between turns once ctx
// is done (RunContext), and returns e to the pool.
func (e *Env) run(ctx context.Context) error {
	defer putEnv(e)
	if len(e.steppers) == 0 {
		return nil
	}
	defer release(e.steppers)
	ep := e.Episode
	done := ctx.Done() // nil for a context never done: no look at all
	spare := spareTurn(ep)
	for i := range ep.NumTurns() {
		if err := stopAt(ctx, done, i); err != nil {
			return err
		}
		t := ep.TurnRef(i, spare)
		e.at(t)
		e.stepAll(t)
	}
	return nil
}

// foldFollowers says whether startEnv's Envs skip a detector's checks on
// the turns they report nothing; a test turns it off to compare.
var foldFollowers = true

// stepAll steps e's steppers over t in order, from e.cur (the index of
// the one stepping; at sets it to from), but for those a stepper said need
// not step: a leader adds their count to e.cur (followers). Six of the
// twelve a steps log steps are checks of the OpenHands and Gemini CLI
// detectors (of an OpenHands V1 log, five of ten with V1's), which report
// at few turns, and each step asked each of them. The loop is the index
// alone, with no count of its own to reset, so that it is inlined (cost
// 77 of 80): the call was a turn's +0.2% of an attempts log.
func (e *Env) stepAll(t *replay.Turn) {
	for ; e.cur < len(e.steppers); e.cur++ {
		e.steppers[e.cur].Step(t, e)
	}
}

// followers returns how many of e's steppers right after leader are, by
// is, checks reading its result (leader is the stepper of rule result),
// which leader may skip (adding their count to Env.cur) on a turn where
// it found nothing for them; 0 in an Env that does not fold.
func (e *Env) followers(leader Stepper, result *Rule, is func(Stepper) bool) int {
	return len(e.followerSteppers(leader, result, is))
}

// followerSteppers returns those checks themselves (followers' count of
// them), for a leader that reports for them: none in an Env that does
// not fold.
func (e *Env) followerSteppers(leader Stepper, result *Rule, is func(Stepper) bool) []Stepper {
	if !e.folds || e.Result(result) != leader {
		return nil
	}
	for i, s := range e.steppers {
		if s == leader {
			n := i + 1
			for n < len(e.steppers) && is(e.steppers[n]) {
				n++
			}
			return e.steppers[i+1 : n]
		}
	}
	return nil
}

// followSkip is what a detector's engine keeps to skip its checks: how
// many step right after it (Env.followers), counted at its first step.
type followSkip struct {
	follow  int
	counted bool
}

// skip passes over leader's checks (the steppers right after it that is
// tells, reading the result of rule result) when none: on a turn it
// found nothing for them, each would find nothing to report.
// It is inlined (the count, made once, is a call of its own): its call
// was ~16 instructions at each step of an engine, for an add.
func (f *followSkip) skip(env *Env, leader Stepper, result *Rule, is func(Stepper) bool, none bool) {
	if !f.counted {
		f.count(env, leader, result, is)
	}
	if none {
		env.cur += f.follow
	}
}

//go:noinline
func (f *followSkip) count(env *Env, leader Stepper, result *Rule, is func(Stepper) bool) {
	f.follow, f.counted = env.followers(leader, result, is), true
}
