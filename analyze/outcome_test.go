package analyze

import (
	"math"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Outcome of an episode (RULES.md "Outcome of an episode"), with the
// default configuration (max_turns_stuck 40, stuck_check_interval 10)
// unless a case overrides it. Expected values are worked out by hand.

// ocFlat returns turns first..last with a constant score.
func ocFlat(first, last int, score float64) []replay.Turn {
	var out []replay.Turn
	for n := first; n <= last; n++ {
		out = append(out, replay.Turn{N: n, Score: score, LocStart: "r", LocEnd: "r", Action: "wait", HasAction: true})
	}
	return out
}

// ocEdit applies edit to every turn from..to.
func ocEdit(turns []replay.Turn, from, to int, edit func(*replay.Turn)) []replay.Turn {
	for i := range turns {
		if turns[i].N >= from && turns[i].N <= to {
			edit(&turns[i])
		}
	}
	return turns
}

func ocScore(turns []replay.Turn, from, to int, score float64) []replay.Turn {
	return ocEdit(turns, from, to, func(t *replay.Turn) { t.Score = score })
}

func ocCfg(t testing.TB, kv ...any) *rules.Config {
	t.Helper()
	cfg := rules.Default()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := cfg.Set(kv[i].(string), kv[i+1], rules.Source{Kind: "flag"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

type ocWant struct {
	term           int // 0: no termination
	saved, calls   int
	method         string
	forfeited      float64
	falseTerm, cen bool
}

func TestOutcome(t *testing.T) {
	cases := []struct {
		name string
		cfg  []any
		ep   func() *replay.Episode
		want ocWant
	}{
		{
			name: "no termination: zeros",
			ep: func() *replay.Episode {
				// score changes but no check point is ever reached
				return &replay.Episode{Turns: ocScore(ocFlat(1, 39, 0), 30, 39, 5), TailRejections: 3}
			},
			want: ocWant{method: CallsEstimated},
		},
		{
			name: "no termination, calls logged: zeros",
			ep: func() *replay.Episode {
				ts := ocEdit(ocFlat(1, 45, 0), 1, 45, func(t *replay.Turn) { t.LLMCalls = 4 })
				ts = ocScore(ts, 20, 45, 1) // last_change 20: 40-20 = 20 < 40
				return &replay.Episode{Turns: ts, LLMCallsLogged: true, TailLLMCalls: 2}
			},
			want: ocWant{method: CallsLogged},
		},
		{
			name: "estimated calls: 4 per turn after T plus 2 per rejection after T, tail included",
			ep: func() *replay.Episode {
				ts := ocFlat(1, 60, 10)
				ts = ocEdit(ts, 40, 40, func(t *replay.Turn) { t.Rejections = 5 }) // at T: not saved
				ts = ocEdit(ts, 45, 45, func(t *replay.Turn) { t.Rejections = 2 })
				ts = ocEdit(ts, 60, 60, func(t *replay.Turn) { t.Rejections = 1 })
				return &replay.Episode{Turns: ts, TailRejections: 1}
			},
			// saved 60-40 = 20; 4*20 + 2*(2+1+1) = 88.
			want: ocWant{term: 40, saved: 20, calls: 88, method: CallsEstimated},
		},
		{
			name: "logged calls: llm_call events after T, tail included",
			ep: func() *replay.Episode {
				ts := ocEdit(ocFlat(1, 60, 10), 1, 60, func(t *replay.Turn) { t.LLMCalls, t.Rejections = 5, 1 })
				return &replay.Episode{Turns: ts, LLMCallsLogged: true, TailLLMCalls: 3, TailRejections: 2}
			},
			// 20 turns * 5 + 3 in the tail; rejections are not estimated.
			want: ocWant{term: 40, saved: 20, calls: 103, method: CallsLogged},
		},
		{
			name: "logged calls: none after T means 0, not an estimate",
			ep: func() *replay.Episode {
				ts := ocEdit(ocFlat(1, 50, 10), 1, 40, func(t *replay.Turn) { t.LLMCalls = 4 })
				return &replay.Episode{Turns: ts, LLMCallsLogged: true}
			},
			want: ocWant{term: 40, saved: 10, calls: 0, method: CallsLogged},
		},
		{
			name: "score increase after T: false termination, score forfeited",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocScore(ocFlat(1, 60, 10), 55, 60, 25)}
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, forfeited: 15, falseTerm: true},
		},
		{
			name: "score decrease after T: false termination, negative forfeit",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocScore(ocFlat(1, 60, 10), 55, 60, 4)}
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, forfeited: -6, falseTerm: true},
		},
		{
			name: "score up and back after T: false termination, nothing forfeited",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocScore(ocFlat(1, 60, 10), 50, 50, 15)}
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, falseTerm: true},
		},
		{
			name: "score at termination is score(T), not the starting score",
			ep: func() *replay.Episode {
				ts := ocScore(ocFlat(1, 70, 0), 2, 70, 3)             // reset at 2: T = 50 (stuck 48)
				return &replay.Episode{Turns: ocScore(ts, 65, 70, 8)} // +5 after T
			},
			want: ocWant{term: 50, saved: 20, calls: 80, method: CallsEstimated, forfeited: 5, falseTerm: true},
		},
		{
			name: "objective completion after T, objective progress on: false termination",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocFlat(1, 60, 10), ObjectiveTurns: []int{50}}
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, falseTerm: true},
		},
		{
			name: "objective completion after T, objective progress off: not a false termination",
			cfg:  []any{"enable_objective_based_progress", false},
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocFlat(1, 60, 10), ObjectiveTurns: []int{50}}
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated},
		},
		{
			name: "objective logged after the last recorded turn counts as after T",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocFlat(1, 60, 10), ObjectiveTurns: []int{61}}
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, falseTerm: true},
		},
		{
			name: "objective before T: resets, not a false termination",
			ep: func() *replay.Episode {
				// resets at 5 and 6: 40-6 = 34 < 40, T = 50 (44)
				return &replay.Episode{Turns: ocFlat(1, 60, 10), ObjectiveTurns: []int{5}}
			},
			want: ocWant{term: 50, saved: 10, calls: 40, method: CallsEstimated},
		},
		{
			name: "first turn not 1: recorded_turns is the last turn number",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocFlat(35, 62, 10)}
			},
			want: ocWant{term: 40, saved: 22, calls: 88, method: CallsEstimated},
		},
		{
			name: "censored: live stop strictly before the first check point",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocFlat(1, 30, 10), RecordedEnd: replay.EndStuckTermination,
					HasLiveStop: true, LiveStopTurn: 30}
			},
			want: ocWant{method: CallsEstimated, cen: true},
		},
		{
			name: "live stop at the check point turn: terminated with 0 turns saved, not censored",
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocFlat(1, 40, 10), RecordedEnd: replay.EndStuckTermination,
					HasLiveStop: true, LiveStopTurn: 40, TailRejections: 0}
			},
			want: ocWant{term: 40, saved: 0, calls: 0, method: CallsEstimated},
		},
		{
			name: "live stop after a stricter configuration's check point: not censored",
			cfg:  []any{"max_turns_stuck", 20, "stuck_warning_threshold", 10},
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocFlat(1, 30, 10), RecordedEnd: replay.EndStuckTermination,
					HasLiveStop: true, LiveStopTurn: 30}
			},
			want: ocWant{term: 20, saved: 10, calls: 40, method: CallsEstimated},
		},
		{
			name: "velocity detection off: never terminated",
			cfg:  []any{"enable_velocity_detection", false},
			ep: func() *replay.Episode {
				return &replay.Episode{Turns: ocScore(ocFlat(1, 80, 10), 70, 80, 20), TailRejections: 2}
			},
			want: ocWant{method: CallsEstimated},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := c.ep()
			ep.ID, ep.LocationKey = "oc", replay.KeyRoomID
			o := Analyze(ep, ocCfg(t, c.cfg...), Options{})
			term := 0
			if o.Termination != nil {
				term = o.Termination.Turn
			}
			w := c.want
			if term != w.term {
				t.Errorf("termination turn %d, want %d", term, w.term)
			}
			if o.TurnsSaved != w.saved {
				t.Errorf("turns_saved %d, want %d", o.TurnsSaved, w.saved)
			}
			if o.LLMCallsSaved != w.calls {
				t.Errorf("llm_calls_saved %d, want %d", o.LLMCallsSaved, w.calls)
			}
			if o.LLMCallsMethod != w.method {
				t.Errorf("llm calls method %q, want %q", o.LLMCallsMethod, w.method)
			}
			if math.Abs(o.ScoreForfeited-w.forfeited) > 1e-9 {
				t.Errorf("score_forfeited %v, want %v", o.ScoreForfeited, w.forfeited)
			}
			if o.FalseTermination != w.falseTerm {
				t.Errorf("false_termination %v, want %v", o.FalseTermination, w.falseTerm)
			}
			if o.Censored != w.cen {
				t.Errorf("censored %v, want %v", o.Censored, w.cen)
			}
		})
	}
}
