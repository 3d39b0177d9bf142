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

// withRows gives ep the turn table rows.
func withRows(ep *replay.Episode, rows []replay.Row) *replay.Episode {
	ep.AppendRows(rows...)
	return ep
}

// ocFlat returns turns first..last with a constant score.
func ocFlat(first, last int, score float64) []replay.Row {
	var out []replay.Row
	for n := first; n <= last; n++ {
		out = append(out, replay.Row{N: n, Score: score, LocStart: "r", LocEnd: "r", Action: "wait", HasAction: true})
	}
	return out
}

// ocEdit applies edit to every turn from..to.
func ocEdit(turns []replay.Row, from, to int, edit func(*replay.Row)) []replay.Row {
	for i := range turns {
		if turns[i].N >= from && turns[i].N <= to {
			edit(&turns[i])
		}
	}
	return turns
}

func ocScore(turns []replay.Row, from, to int, score float64) []replay.Row {
	return ocEdit(turns, from, to, func(t *replay.Row) { t.Score = score })
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
	progress       Progress // ProgressAfter
	objAfter       int
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
				return withRows(&replay.Episode{TailRejections: 3}, ocScore(ocFlat(1, 39, 0), 30, 39, 5))
			},
			want: ocWant{method: CallsEstimated},
		},
		{
			name: "no termination, calls logged: zeros",
			ep: func() *replay.Episode {
				ts := ocEdit(ocFlat(1, 45, 0), 1, 45, func(t *replay.Row) { t.LLMCalls = 4 })
				ts = ocScore(ts, 20, 45, 1) // last_change 20: 40-20 = 20 < 40
				return withRows(&replay.Episode{LLMCallsLogged: true, TailLLMCalls: 2}, ts)
			},
			want: ocWant{method: CallsLogged},
		},
		{
			name: "estimated calls: 4 per turn after T plus 2 per rejection after T, tail included",
			ep: func() *replay.Episode {
				ts := ocFlat(1, 60, 10)
				ts = ocEdit(ts, 40, 40, func(t *replay.Row) { t.Rejections = 5 }) // at T: not saved
				ts = ocEdit(ts, 45, 45, func(t *replay.Row) { t.Rejections = 2 })
				ts = ocEdit(ts, 60, 60, func(t *replay.Row) { t.Rejections = 1 })
				return withRows(&replay.Episode{TailRejections: 1}, ts)
			},
			// saved 60-40 = 20; 4*20 + 2*(2+1+1) = 88.
			want: ocWant{term: 40, saved: 20, calls: 88, method: CallsEstimated},
		},
		{
			name: "logged calls: llm_call events after T, tail included",
			ep: func() *replay.Episode {
				ts := ocEdit(ocFlat(1, 60, 10), 1, 60, func(t *replay.Row) { t.LLMCalls, t.Rejections = 5, 1 })
				return withRows(&replay.Episode{LLMCallsLogged: true, TailLLMCalls: 3, TailRejections: 2}, ts)
			},
			// 20 turns * 5 + 3 in the tail; rejections are not estimated.
			want: ocWant{term: 40, saved: 20, calls: 103, method: CallsLogged},
		},
		{
			name: "logged calls: none after T means 0, not an estimate",
			ep: func() *replay.Episode {
				ts := ocEdit(ocFlat(1, 50, 10), 1, 40, func(t *replay.Row) { t.LLMCalls = 4 })
				return withRows(&replay.Episode{LLMCallsLogged: true}, ts)
			},
			want: ocWant{term: 40, saved: 10, calls: 0, method: CallsLogged},
		},
		{
			name: "score increase after T: false termination, score forfeited",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{}, ocScore(ocFlat(1, 60, 10), 55, 60, 25))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, forfeited: 15, falseTerm: true,
				progress: Progress{55, 25}},
		},
		{
			name: "score decrease after T (a death): not progress, negative forfeit",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{}, ocScore(ocFlat(1, 60, 10), 55, 60, 4))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, forfeited: -6},
		},
		{
			name: "death then recovery to the score at T: still no progress",
			ep: func() *replay.Episode {
				ts := ocScore(ocFlat(1, 60, 10), 45, 50, 0)
				return withRows(&replay.Episode{}, ts) // back at 10 from 51
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated},
		},
		{
			name: "death then a rise above the score at T: progress at the first turn above it",
			ep: func() *replay.Episode {
				ts := ocScore(ocFlat(1, 60, 10), 45, 50, 0)
				ts = ocScore(ts, 51, 52, 8)
				return withRows(&replay.Episode{}, ocScore(ts, 53, 60, 11))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, forfeited: 1, falseTerm: true,
				progress: Progress{53, 11}},
		},
		{
			name: "score up and back after T: false termination, nothing forfeited",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{}, ocScore(ocFlat(1, 60, 10), 50, 50, 15))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, falseTerm: true, progress: Progress{50, 15}},
		},
		{
			name: "score at termination is score(T), not the starting score",
			ep: func() *replay.Episode {
				ts := ocScore(ocFlat(1, 70, 0), 2, 70, 3)                  // reset at 2: T = 50 (stuck 48)
				return withRows(&replay.Episode{}, ocScore(ts, 65, 70, 8)) // +5 after T
			},
			want: ocWant{term: 50, saved: 20, calls: 80, method: CallsEstimated, forfeited: 5, falseTerm: true,
				progress: Progress{65, 8}},
		},
		{
			name: "objective completion after T without a score rise: counted, not a false termination",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{ObjectiveTurns: []int{50, 55}}, ocFlat(1, 60, 10))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, objAfter: 2},
		},
		{
			name: "two completions at one turn after T count twice",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{ObjectiveTurns: []int{50, 50, 55}}, ocFlat(1, 60, 10))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, objAfter: 3},
		},
		{
			name: "objective progress off changes nothing after T",
			cfg:  []any{"enable_objective_based_progress", false},
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{ObjectiveTurns: []int{50}}, ocFlat(1, 60, 10))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, objAfter: 1},
		},
		{
			name: "objective logged after the last recorded turn counts as after T",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{ObjectiveTurns: []int{61}}, ocFlat(1, 60, 10))
			},
			want: ocWant{term: 40, saved: 20, calls: 80, method: CallsEstimated, objAfter: 1},
		},
		{
			name: "objective before T: resets, not a false termination",
			ep: func() *replay.Episode {
				// resets at 5 and 6: 40-6 = 34 < 40, T = 50 (44)
				return withRows(&replay.Episode{ObjectiveTurns: []int{5}}, ocFlat(1, 60, 10))
			},
			want: ocWant{term: 50, saved: 10, calls: 40, method: CallsEstimated},
		},
		{
			name: "first turn not 1: recorded_turns is the last turn number",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{}, ocFlat(35, 62, 10))
			},
			want: ocWant{term: 40, saved: 22, calls: 88, method: CallsEstimated},
		},
		{
			name: "censored: live stop strictly before the first check point",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{RecordedEnd: replay.EndStuckTermination,
					HasLiveStop: true, LiveStopTurn: 30}, ocFlat(1, 30, 10))
			},
			want: ocWant{method: CallsEstimated, cen: true},
		},
		{
			name: "live stop at the check point turn: terminated with 0 turns saved, not censored",
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{RecordedEnd: replay.EndStuckTermination,
					HasLiveStop: true, LiveStopTurn: 40, TailRejections: 0}, ocFlat(1, 40, 10))
			},
			want: ocWant{term: 40, saved: 0, calls: 0, method: CallsEstimated},
		},
		{
			name: "live stop after a stricter configuration's check point: not censored",
			cfg:  []any{"max_turns_stuck", 20, "stuck_warning_threshold", 10},
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{RecordedEnd: replay.EndStuckTermination,
					HasLiveStop: true, LiveStopTurn: 30}, ocFlat(1, 30, 10))
			},
			want: ocWant{term: 20, saved: 10, calls: 40, method: CallsEstimated},
		},
		{
			name: "velocity detection off: never terminated",
			cfg:  []any{"enable_velocity_detection", false},
			ep: func() *replay.Episode {
				return withRows(&replay.Episode{TailRejections: 2}, ocScore(ocFlat(1, 80, 10), 70, 80, 20))
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
			if o.ProgressAfter != w.progress {
				t.Errorf("progress_after %+v, want %+v", o.ProgressAfter, w.progress)
			}
			if o.ObjectivesAfter != w.objAfter {
				t.Errorf("objectives_after %d, want %d", o.ObjectivesAfter, w.objAfter)
			}
			if o.Censored != w.cen {
				t.Errorf("censored %v, want %v", o.Censored, w.cen)
			}
		})
	}
}

// TestCountsUpToTheCut: the counts an outcome reports include only
// firings at or before the termination turn; firing_counts counts all
// (RULES.md "Outcome": after the cut). would_reject is rule 6 alone, and a
// revisit penalty below 0.3 is low_confidence, never a rejection (§3).
func TestCountsUpToTheCut(t *testing.T) {
	// One room all along, score flat at 10: warnings from t=20 (stuck =
	// t), termination at t=40. A recorded move north from r back to r at
	// t=5 teaches the map, so "n" later leads to the camped room r:
	// base 0.9 - 0.6 = 0.3 < 0.5 rejects (§5, §6).
	turns := ocFlat(1, 60, 10)
	turns = ocEdit(turns, 5, 5, func(t *replay.Row) { t.Action, t.Moved = "n", true })
	withBase := func(n int, base float64, action string) {
		turns = ocEdit(turns, n, n, func(t *replay.Row) { t.Base, t.HasBase, t.Action = base, true, action })
	}
	withBase(10, 0.5, "wait") // 5 visits × -0.05: 0.25 < 0.3, low confidence
	withBase(20, 0.6, "wait") // 0.35: not low
	withBase(30, 0.9, "n")    // rejecting adjustment; penalty 0.65
	withBase(50, 0.5, "n")    // after the cut: adjustment rejects, penalty low
	cases := []struct {
		name                     string
		cfg                      []any
		warn, reject, low        int
		allWarn, allAdj, allPens int
	}{
		{"terminated at 40: counts stop there", nil, 21, 1, 1, 41, 2, 59},
		{"never terminated: every firing counts", []any{"enable_velocity_detection", false}, 0, 2, 2, 0, 2, 59},
		{"rejection threshold above a penalty's adjusted confidence: still no rejection", []any{"rejection_threshold", 0.9}, 21, 1, 1, 41, 2, 59},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := withRows(&replay.Episode{ID: "cut", LocationKey: replay.KeyRoomID}, append([]replay.Row(nil), turns...))
			cfg := ocCfg(t, append([]any{"location_revisit_penalty", -0.05}, c.cfg...)...)
			o := Analyze(ep, cfg, Options{KeepFirings: true})
			if o.Warnings != c.warn || o.WouldReject != c.reject || o.LowConfidence != c.low {
				t.Errorf("warnings %d, would_reject %d, low_confidence %d; want %d, %d, %d", o.Warnings, o.WouldReject, o.LowConfidence, c.warn, c.reject, c.low)
			}
			if n := o.Counts[rules.Warning.Key()]; n != c.allWarn {
				t.Errorf("firing_counts warnings %d, want %d", n, c.allWarn)
			}
			if n := o.Counts[rules.Adjustment.Key()]; n != c.allAdj {
				t.Errorf("firing_counts adjustments %d, want %d", n, c.allAdj)
			}
			if n := o.Counts[rules.Penalty.Key()]; n != c.allPens {
				t.Errorf("firing_counts penalties %d, want %d", n, c.allPens)
			}
			after := 0
			for i := range o.Firings {
				if o.AfterCut(&o.Firings[i]) {
					after++
					if o.Firings[i].Turn <= 40 {
						t.Errorf("firing at t=%d marked after the cut", o.Firings[i].Turn)
					}
				}
			}
			if o.Termination == nil && after != 0 {
				t.Errorf("%d firings after the cut without a termination", after)
			}
		})
	}
}
