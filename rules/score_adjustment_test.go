package rules_test

import (
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// --- score_adjustment (RULES.md §6) ---

var rlAdjustSet = []*rules.Rule{rules.Oscillation, rules.Camping, rules.ScoreAdjustment}

func rlAdj(n int, action, dest string, base, adjusted float64, rejected bool) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.ScoreAdjustment, Kind: rules.Adjustment, Action: action, Destination: dest,
		HasBase: true, Base: base, Adjusted: adjusted, Rejected: rejected}
}

// rlOscAB: A -north-> B -south-> A -north-> B, then last at turn 4 (at B,
// history A B A B: oscillation [A B]; B south -> A is known).
func rlOscAB(last replay.Row) []replay.Row {
	return []replay.Row{
		rlGo(1, "A", "north", "B"),
		rlGo(2, "B", "south", "A"),
		rlGo(3, "A", "north", "B"),
		last,
	}
}

func TestScoreAdjustment(t *testing.T) {
	cases := []struct {
		name  string
		cfg   []any
		turns []replay.Row
		want  []rules.Firing
	}{
		{
			name:  "oscillation: destination in the pattern, return penalty, rejected",
			turns: rlOscAB(rlB(rlGo(4, "B", "south", "A"), 0.9)),
			want:  []rules.Firing{rlAdj(4, "south", "A", 0.9, 0.1, true)},
		},
		{
			name:  "return penalty clamped at 0",
			turns: rlOscAB(rlB(rlGo(4, "B", "south", "A"), 0.5)),
			want:  []rules.Firing{rlAdj(4, "south", "A", 0.5, 0, true)},
		},
		{
			name:  "adjusted == rejection_threshold is not rejected",
			cfg:   []any{"oscillation_return_penalty", -0.25},
			turns: rlOscAB(rlB(rlGo(4, "B", "south", "A"), 0.75)),
			want:  []rules.Firing{rlAdj(4, "south", "A", 0.75, 0.5, false)},
		},
		{
			name:  "adjusted < rejection_threshold is rejected",
			cfg:   []any{"oscillation_return_penalty", -0.25, "rejection_threshold", 0.6},
			turns: rlOscAB(rlB(rlGo(4, "B", "south", "A"), 0.75)),
			want:  []rules.Firing{rlAdj(4, "south", "A", 0.75, 0.5, true)},
		},
		{
			name:  "no base: no adjustment, no firing",
			turns: rlOscAB(rlGo(4, "B", "south", "A")),
		},
		{
			name:  "not a movement: no firing",
			turns: rlOscAB(rlB(rlStay(4, "B", "examine lamp"), 0.9)),
		},
		{
			name:  "direction never taken from here: unknown destination, no firing",
			turns: rlOscAB(rlB(rlGo(4, "B", "east", "C"), 0.9)),
		},
		{
			name: "destination from earlier turns only, not from the turn itself",
			turns: []replay.Row{
				rlGo(1, "A", "xyzzy", "B"), rlGo(2, "B", "xyzzy", "A"), rlGo(3, "A", "xyzzy", "B"),
				rlB(rlGo(4, "B", "south", "A"), 0.9),
			},
		},
		{
			name: "oscillation: destination elsewhere, exploration bonus",
			turns: []replay.Row{
				rlGo(1, "B", "east", "C"), rlGo(2, "C", "west", "B"), rlGo(3, "B", "north", "A"),
				rlGo(4, "A", "south", "B"), rlGo(5, "B", "north", "A"), rlGo(6, "A", "south", "B"),
				rlB(rlGo(7, "B", "east", "C"), 0.3), // history ... A B A B: [A B]; B east -> C
			},
			want: []rules.Firing{rlAdj(7, "east", "C", 0.3, 0.8, false)},
		},
		{
			name: "exploration bonus clamped at 1",
			turns: []replay.Row{
				rlGo(1, "B", "east", "C"), rlGo(2, "C", "west", "B"), rlGo(3, "B", "north", "A"),
				rlGo(4, "A", "south", "B"), rlGo(5, "B", "north", "A"), rlGo(6, "A", "south", "B"),
				rlB(rlGo(7, "B", "east", "C"), 0.9),
			},
			want: []rules.Firing{rlAdj(7, "east", "C", 0.9, 1, false)},
		},
		{
			name: "the most recent move wins",
			turns: []replay.Row{
				rlGo(1, "B", "south", "C"), rlGo(2, "C", "xyzzy", "A"), rlGo(3, "A", "xyzzy", "B"),
				rlGo(4, "B", "south", "A"), // B south now leads to A
				rlGo(5, "A", "xyzzy", "B"),
				rlB(rlGo(6, "B", "south", "A"), 0.9), // history B C A B A B: [A B]
			},
			want: []rules.Firing{rlAdj(6, "south", "A", 0.9, 0.1, true)},
		},
		{
			name: "a turn without a recorded move does not teach",
			turns: []replay.Row{
				rlStay(1, "B", "south"), rlGo(2, "B", "xyzzy", "A"), rlGo(3, "A", "xyzzy", "B"),
				rlGo(4, "B", "xyzzy", "A"), rlGo(5, "A", "xyzzy", "B"),
				rlB(rlGo(6, "B", "south", "A"), 0.9), // oscillation [A B], B south unknown
			},
		},
		{
			name: "a turn without a recorded move does not erase",
			turns: []replay.Row{
				rlGo(1, "B", "south", "A"), rlGo(2, "A", "xyzzy", "B"),
				rlStay(3, "B", "south"), // blocked this time
				rlGo(4, "B", "xyzzy", "A"), rlGo(5, "A", "xyzzy", "B"), rlGo(6, "B", "xyzzy", "A"), rlGo(7, "A", "xyzzy", "B"),
				rlB(rlGo(8, "B", "south", "A"), 0.9), // [A B]; camping at B (5 of 8), destination A
			},
			want: []rules.Firing{rlAdj(8, "south", "A", 0.9, 0.1, true)},
		},
		{
			name: "filled turn: skipped even when it carries an action and a base",
			turns: rlOscAB(replay.Row{N: 4, Filled: true, LocStart: "B", LocEnd: "B",
				Action: "south", HasAction: true, Base: 0.9, HasBase: true}),
		},
		{
			name: "filled turn: does not teach the map",
			turns: []replay.Row{
				rlGo(1, "A", "xyzzy", "B"),
				{N: 2, Filled: true, LocStart: "B", LocEnd: "A", Moved: true, Action: "south", HasAction: true},
				rlGo(3, "A", "xyzzy", "B"),
				rlB(rlGo(4, "B", "south", "A"), 0.9),
			},
		},
		{
			name: "camping alone, destination elsewhere: nothing; destination the camped location: penalty",
			turns: []replay.Row{
				rlGo(1, "A", "north", "B"), rlGo(2, "B", "south", "A"),
				rlGo(3, "A", "east", "C"), rlGo(4, "C", "west", "A"),
				rlGo(5, "A", "west", "D"), rlGo(6, "D", "east", "A"),
				rlGo(7, "A", "up", "E"), rlGo(8, "E", "down", "A"),
				rlB(rlGo(9, "A", "north", "B"), 0.9),  // camping at A (5), destination B
				rlB(rlGo(10, "B", "south", "A"), 0.9), // camping at A (5 of 10), destination A
			},
			want: []rules.Firing{rlAdj(10, "south", "A", 0.9, 0.3, true)},
		},
		{
			name: "oscillation bonus then camping penalty, in that order",
			turns: []replay.Row{
				rlGo(1, "A", "south", "C"),
				rlStay(2, "C", "look"), rlStay(3, "C", "look"), rlStay(4, "C", "look"), rlStay(5, "C", "look"),
				rlGo(6, "C", "north", "A"), rlGo(7, "A", "east", "B"), rlGo(8, "B", "west", "A"),
				rlGo(9, "A", "east", "B"), rlGo(10, "B", "west", "A"),
				// window C C C C C A B A B A: camping at C; oscillation [B A];
				// A south -> C: min(1, 0.9+0.5) = 1, then 1-0.6 = 0.4.
				rlB(rlGo(11, "A", "south", "C"), 0.9),
			},
			want: []rules.Firing{rlAdj(11, "south", "C", 0.9, 0.4, true)},
		},
		{
			name: "oscillation and camping penalties both apply",
			turns: []replay.Row{
				rlGo(1, "A", "north", "B"), rlGo(2, "B", "south", "A"), rlGo(3, "A", "north", "B"),
				rlGo(4, "B", "south", "A"), rlGo(5, "A", "north", "B"), rlGo(6, "B", "south", "A"),
				rlGo(7, "A", "north", "B"), rlGo(8, "B", "south", "A"), rlGo(9, "A", "north", "B"),
				// A=5, B=5: camping at A (first in the window); oscillation [A B].
				rlB(rlGo(10, "B", "south", "A"), 0.9),
			},
			want: []rules.Firing{rlAdj(10, "south", "A", 0.9, 0, true)},
		},
		{
			name:  "enable_loop_detection=false",
			cfg:   []any{"enable_loop_detection", false},
			turns: rlOscAB(rlB(rlGo(4, "B", "south", "A"), 0.9)),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := rlEp(c.turns)
			got := rlRun(ep, rlCfg(t, c.cfg...), rlAdjustSet, rules.ScoreAdjustment)
			rlExpect(t, got, c.want)
			// Shared, as a sweep replays it: the exits are learned once,
			// the firings are the same in every replay.
			release := rules.Share(ep)
			for range 2 {
				rlExpect(t, rlRun(ep, rlCfg(t, c.cfg...), rlAdjustSet, rules.ScoreAdjustment), c.want)
			}
			release()
		})
	}
}

// Direction parsing, end to end: turn 2 teaches B -teach-> A, turn 4 tries
// use at B during the oscillation [A B]. When both are the same direction
// the destination is A (return penalty); otherwise nothing fires.
func TestScoreAdjustmentDirections(t *testing.T) {
	cases := []struct {
		teach, use string
		same       bool
	}{
		{"south", "s", true},
		{"s", "south", true},
		{"south", "go south", true},
		{"go south", "S", true},
		{"south", "  Go SOUTH \t", true},
		{"n", "north", true},
		{"e", "EAST", true},
		{"west", "w", true},
		{"ne", "northeast", true},
		{"northwest", "nw", true},
		{"se", "go southeast", true},
		{"go sw", "southwest", true},
		{"u", "up", true},
		{"down", "d", true},
		{"in", "go in", true},
		{"out", "OUT", true},
		{"south", "north", false},
		{"up", "u p", false},
		{"south", "go", false},
		{"go", "go", false},                 // "go" alone is not a direction
		{"north door", "north door", false}, // not a direction: neither teaches nor predicts
		{"south", "south door", false},
		{"south", "southward", false},
		{"enter", "enter", false},
		{"in", "inside", false},
	}
	for _, c := range cases {
		t.Run(c.teach+"|"+c.use, func(t *testing.T) {
			turns := []replay.Row{
				rlGo(1, "A", "xyzzy", "B"),
				rlGo(2, "B", c.teach, "A"),
				rlGo(3, "A", "xyzzy", "B"),
				rlB(rlGo(4, "B", c.use, "A"), 0.9),
			}
			var want []rules.Firing
			if c.same {
				want = []rules.Firing{rlAdj(4, c.use, "A", 0.9, 0.1, true)}
			}
			rlExpect(t, rlRun(rlEp(turns), rlCfg(t), rlAdjustSet, rules.ScoreAdjustment), want)
		})
	}
}

// rules.Direction: every spelling of a direction gives the same non-empty
// value, different directions differ, anything else is "".
func TestScoreAdjustmentDirectionClasses(t *testing.T) {
	classes := [][]string{
		{"n", "north", "go n", "go north", " North ", "GO NORTH"},
		{"s", "south", "go south"},
		{"e", "east", "go e"},
		{"w", "west", "go west"},
		{"ne", "northeast", "go ne"},
		{"nw", "northwest", "go northwest"},
		{"se", "southeast", "go se"},
		{"sw", "southwest", "go sw"},
		{"u", "up", "go up"},
		{"d", "down", "go d"},
		{"in", "go in", "IN"},
		{"out", "go out", "Out"},
	}
	seen := map[string]string{}
	for _, cl := range classes {
		t.Run(cl[0], func(t *testing.T) {
			d := rules.Direction(cl[0])
			if d == "" {
				t.Fatalf("%q is not a direction", cl[0])
			}
			if other, dup := seen[d]; dup {
				t.Errorf("%q and %q give the same direction %q", cl[0], other, d)
			}
			seen[d] = cl[0]
			for _, a := range cl[1:] {
				if got := rules.Direction(a); got != d {
					t.Errorf("Direction(%q) = %q, want %q (as %q)", a, got, d, cl[0])
				}
			}
		})
	}
	for _, a := range []string{"", "go", "go ", "north door", "go north door", "look", "enter", "inside", "northward", "go go north", "n e", "climb up"} {
		t.Run("not/"+a, func(t *testing.T) {
			if got := rules.Direction(a); got != "" {
				t.Errorf("Direction(%q) = %q, want not a direction", a, got)
			}
		})
	}
}
