package rules_test

import (
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// --- oscillation (RULES.md §4) ---

var rlOscillationSet = []*rules.Rule{rules.Oscillation}

func rlOsc(n int, a, b string) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.Oscillation, Kind: rules.OscillationDetection, Pattern: [2]string{a, b}}
}

func TestOscillation(t *testing.T) {
	cases := []struct {
		name  string
		cfg   []any
		turns []replay.Row
		want  []rules.Firing
	}{
		{
			name:  "A-B-A-B detected at the fourth entry",
			turns: rlPath("A", "B", "A", "B"),
			want:  []rules.Firing{rlOsc(4, "A", "B")},
		},
		{
			name:  "fewer than 4 entries",
			turns: rlPath("A", "B", "A"),
		},
		{
			name:  "A-A-A-A is not an oscillation",
			turns: rlPath("A", "A", "A", "A", "A"),
		},
		{
			name:  "normal exploration",
			turns: rlPath("A", "B", "C", "D", "E"),
		},
		{
			name:  "A-B-A-C",
			turns: rlPath("A", "B", "A", "C"),
		},
		{
			name:  "A-B-C-B",
			turns: rlPath("A", "B", "C", "B"),
		},
		{
			name:  "pattern is [h-4, h-3]: continuing flips it",
			turns: rlPath("A", "B", "A", "B", "A", "B"),
			want:  []rules.Firing{rlOsc(4, "A", "B"), rlOsc(5, "B", "A"), rlOsc(6, "A", "B")},
		},
		{
			name:  "only the last four entries count",
			turns: rlPath("C", "D", "E", "A", "B", "A", "B"),
			want:  []rules.Firing{rlOsc(7, "A", "B")},
		},
		{
			name:  "oscillation moves to a new pair",
			turns: rlPath("A", "B", "A", "B", "C", "B", "C"),
			// 5: B A B C no; 6: A B C B no; 7: B C B C.
			want: []rules.Firing{rlOsc(4, "A", "B"), rlOsc(7, "B", "C")},
		},
		{
			name:  "a filled turn is a history entry: completes the pattern",
			turns: rlPath("A", "B", "~A", "B"),
			want:  []rules.Firing{rlOsc(4, "A", "B")},
		},
		{
			name:  "a filled turn is a history entry: breaks the pattern",
			turns: rlPath("A", "B", "~B", "A", "B"),
			// history A B B A B: at 5 the last four are B B A B.
		},
		{
			name:  "detected on a filled turn",
			turns: rlPath("A", "B", "A", "~B"),
			want:  []rules.Firing{rlOsc(4, "A", "B")},
		},
		{
			name:  "enable_loop_detection=false",
			cfg:   []any{"enable_loop_detection", false},
			turns: rlPath("A", "B", "A", "B"),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rlRun(rlEp(c.turns), rlCfg(t, c.cfg...), rlOscillationSet)
			rlExpect(t, got, c.want)
		})
	}
}
