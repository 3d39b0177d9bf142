package rules_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// countStepper counts its steps and cancels a context at the stop'th.
type countStepper struct {
	n, stop int
	cancel  context.CancelCauseFunc
}

var errStop = errors.New("stop")

func (s *countStepper) Step(*replay.Turn, *rules.Env) {
	s.n++
	if s.n == s.stop {
		s.cancel(errStop)
	}
}

// A replay looks at its context every few hundred turns: cancelled at a
// turn, RunContext, RunSharedContext and a ReadReplay stop within
// ctxTurns turns and return the cause (SIGINT once waited for the whole
// episode).
func TestRunContextStops(t *testing.T) {
	ep := &replay.Episode{Turns: make([]replay.Turn, 1_000_000)}
	for i := range ep.Turns {
		ep.Turns[i].N = i + 1
	}
	const stop = 1000
	for _, shared := range []bool{false, true} {
		ctx, cancel := context.WithCancelCause(context.Background())
		st := &countStepper{stop: stop, cancel: cancel}
		r := &rules.Rule{Name: "count", Enabled: func(*rules.Config) bool { return true },
			Applies: func(*replay.Episode, *rules.Config) bool { return true },
			New:     func(*rules.Config, *replay.Episode) rules.Stepper { return st }}
		var err error
		if shared {
			err = rules.RunSharedContext(ctx, ep, []*rules.Config{rules.Default()}, []*rules.Rule{r}, func(int, rules.Firing) {})
		} else {
			err = rules.RunContext(ctx, ep, rules.Default(), []*rules.Rule{r}, func(rules.Firing) {})
		}
		if !errors.Is(err, errStop) {
			t.Errorf("shared %v: error %v, want the cause", shared, err)
		}
		if st.n < stop || st.n > stop+256 {
			t.Errorf("shared %v: %d turns stepped after a cancel at turn %d, want at most 256 more", shared, st.n, stop)
		}
	}
	// A ReadReplay, stepped turn by turn as a reader steps it, stops so
	// too, and Finish returns the cause.
	ctx, cancel := context.WithCancelCause(context.Background())
	st := &countStepper{stop: stop, cancel: cancel}
	set := []*rules.Rule{{Name: "count", Enabled: func(*rules.Config) bool { return true },
		Applies: func(*replay.Episode, *rules.Config) bool { return true },
		New:     func(*rules.Config, *replay.Episode) rules.Stepper { return st }}}
	cfg := rules.Default()
	rr := rules.NewReadReplay(ctx, ep, cfg, set)
	for i := range ep.Turns {
		rr.Step(ep, i)
	}
	if err := rr.Finish(ep, cfg, set, func(*rules.Firing) {}); !errors.Is(err, errStop) {
		t.Errorf("read replay: error %v, want the cause", err)
	}
	if st.n < stop || st.n > stop+256 {
		t.Errorf("read replay: %d turns stepped after a cancel at turn %d, want at most 256 more", st.n, stop)
	}
	// Not cancelled: every turn, no error.
	st = &countStepper{}
	r := &rules.Rule{Name: "count", Enabled: func(*rules.Config) bool { return true },
		Applies: func(*replay.Episode, *rules.Config) bool { return true },
		New:     func(*rules.Config, *replay.Episode) rules.Stepper { return st }}
	if err := rules.RunContext(context.Background(), ep, rules.Default(), []*rules.Rule{r}, nil); err != nil || st.n != len(ep.Turns) {
		t.Errorf("uncancelled: %d turns, %v", st.n, err)
	}
}
