package rules_test

import (
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// --- camping (RULES.md §5) ---

var rlCampingSet = []*rules.Rule{rules.Camping}

func rlCamp(n int, loc string, visits int) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.Camping, Kind: rules.CampingDetection, Location: loc, Visits: visits}
}

// rlRepeat returns loc n times.
func rlRepeat(loc string, n int) []string {
	return strings.Split(strings.Repeat(loc+" ", n), " ")[:n]
}

func TestCamping(t *testing.T) {
	cases := []struct {
		name  string
		cfg   []any
		turns []replay.Row
		want  []rules.Firing
	}{
		{
			name:  "five visits: detected once w reaches the threshold",
			turns: rlPath(rlRepeat("A", 6)...),
			// turns 1..4: w = 1..4 < 5.
			want: []rules.Firing{rlCamp(5, "A", 5), rlCamp(6, "A", 6)},
		},
		{
			name:  "below threshold",
			turns: rlPath("A", "B", "A", "C", "A", "D", "B", "E", "B", "F"),
			// at most 3 visits to one location in any window.
		},
		{
			name:  "w = min(window, len) < threshold: never",
			cfg:   []any{"camping_window", 3, "camping_threshold", 4},
			turns: rlPath(rlRepeat("A", 8)...),
		},
		{
			name:  "window slides",
			turns: rlPath(rlConcat(rlRepeat("A", 6), rlDistinct("x", 8))...),
			// window 10 from turn 10: turn 11 holds A at 2..6 (5), turn 12 at 3..6 (4).
			want: []rules.Firing{
				rlCamp(5, "A", 5), rlCamp(6, "A", 6), rlCamp(7, "A", 6), rlCamp(8, "A", 6),
				rlCamp(9, "A", 6), rlCamp(10, "A", 6), rlCamp(11, "A", 5),
			},
		},
		{
			name:  "tie: the location appearing first in the window",
			cfg:   []any{"camping_threshold", 2, "camping_window", 4},
			turns: rlPath("A", "B", "B", "A"),
			// 3: [A B B] B=2; 4: [A B B A] A=2, B=2, A first.
			want: []rules.Firing{rlCamp(3, "B", 2), rlCamp(4, "A", 2)},
		},
		{
			name:  "tie: first in the window, not first in the history",
			cfg:   []any{"camping_threshold", 2, "camping_window", 4},
			turns: rlPath("A", "C", "B", "A", "A", "B"),
			// 4: [A C B A] A=2; 5: [C B A A] A=2; 6: [B A A B] B=2, A=2, B first.
			want: []rules.Firing{rlCamp(4, "A", 2), rlCamp(5, "A", 2), rlCamp(6, "B", 2)},
		},
		{
			name:  "tie broken by the window, not by most recent",
			turns: rlPath("A", "B", "A", "B", "A", "B", "A", "B", "A", "B"),
			// 9: A=5, B=4; 10: A=5, B=5, A first.
			want: []rules.Firing{rlCamp(9, "A", 5), rlCamp(10, "A", 5)},
		},
		{
			name:  "history is the last 20 entries: w capped at 20",
			cfg:   []any{"camping_window", 30, "camping_threshold", 20},
			turns: rlPath(rlRepeat("A", 22)...),
			want:  []rules.Firing{rlCamp(20, "A", 20), rlCamp(21, "A", 20), rlCamp(22, "A", 20)},
		},
		{
			name:  "filled turns are history entries",
			cfg:   []any{"camping_threshold", 3, "camping_window", 5},
			turns: rlPath("A", "~A", "~A", "B"),
			want:  []rules.Firing{rlCamp(3, "A", 3), rlCamp(4, "A", 3)},
		},
		{
			name:  "enable_loop_detection=false",
			cfg:   []any{"enable_loop_detection", false},
			turns: rlPath(rlRepeat("A", 6)...),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rlRun(rlEp(c.turns), rlCfg(t, c.cfg...), rlCampingSet)
			rlExpect(t, got, c.want)
		})
	}
}
