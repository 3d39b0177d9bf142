package rules_test

import (
	"fmt"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// --- location_revisit (RULES.md §3) ---

var rlRevisitSet = []*rules.Rule{rules.LocationRevisit}

// rlPenalty is a revisit penalty without a logged confidence.
func rlPenalty(n int, loc string, visits int, penalty float64) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.LocationRevisit, Kind: rules.Penalty, Location: loc, Visits: visits, Penalty: penalty}
}

// rlPenaltyB is a revisit penalty with base and adjusted confidence.
func rlPenaltyB(n int, loc string, visits int, penalty, base, adjusted float64) rules.Firing {
	f := rlPenalty(n, loc, visits, penalty)
	f.HasBase, f.Base, f.Adjusted = true, base, adjusted
	return f
}

// rlLow flags a penalty firing low_confidence (adjusted < 0.3).
func rlLow(f rules.Firing) rules.Firing {
	f.LowConfidence = true
	return f
}

// rlWithBase gives every turn of a table the same base confidence.
func rlWithBase(turns []replay.Row, base float64) []replay.Row {
	for i := range turns {
		turns[i] = rlB(turns[i], base)
	}
	return turns
}

// rlBases gives each turn its base confidence, in order.
func rlBases(turns []replay.Row, bases ...float64) []replay.Row {
	for i, b := range bases {
		turns[i] = rlB(turns[i], b)
	}
	return turns
}

// rlDistinct returns n distinct location names with a prefix.
func rlDistinct(prefix string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func rlConcat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestLocationRevisit(t *testing.T) {
	cases := []struct {
		name  string
		cfg   []any
		turns []replay.Row
		want  []rules.Firing
	}{
		{
			name:  "first turn: w = 0, nothing; second turn at the same place: w = 1, one visit",
			turns: rlPath("A", "A"),
			want:  []rules.Firing{rlPenalty(2, "A", 1, -0.2)},
		},
		{
			name:  "current entry excluded, w = len-1",
			turns: rlPath("A", "B", "A"),
			// turn 3: w = min(5, 2) = 2 over [A B]: 1 visit.
			want: []rules.Firing{rlPenalty(3, "A", 1, -0.2)},
		},
		{
			name:  "visits counted, penalty * visits, adjusted = base + penalty",
			turns: rlWithBase(rlPath("A", "B", "A", "C", "A"), 0.9),
			// turn 3: [A B] 1 visit; turn 5: w = 4 over [A B A C]: 2 visits.
			want: []rules.Firing{
				rlPenaltyB(3, "A", 1, -0.2, 0.9, 0.7),
				rlPenaltyB(5, "A", 2, -0.4, 0.9, 0.5),
			},
		},
		{
			name:  "window 5: a visit 6 entries back is outside",
			turns: rlPath("A", "B", "C", "D", "E", "F", "A"),
		},
		{
			name:  "window 6: a visit 6 entries back is inside",
			cfg:   []any{"location_revisit_window", 6},
			turns: rlPath("A", "B", "C", "D", "E", "F", "A"),
			want:  []rules.Firing{rlPenalty(7, "A", 1, -0.2)},
		},
		{
			name:  "window 2: only the two entries before",
			cfg:   []any{"location_revisit_window", 2},
			turns: rlPath("A", "B", "C", "A", "C", "A"),
			// turn 4: [B C] 0; turn 5: [C A] 1; turn 6: [A C] 1.
			want: []rules.Firing{rlPenalty(5, "C", 1, -0.2), rlPenalty(6, "A", 1, -0.2)},
		},
		{
			name:  "adjusted clamped to 0",
			turns: rlWithBase(rlPath("A", "B", "A", "C", "A"), 0.3),
			want: []rules.Firing{
				rlLow(rlPenaltyB(3, "A", 1, -0.2, 0.3, 0.1)),
				rlLow(rlPenaltyB(5, "A", 2, -0.4, 0.3, 0)),
			},
		},
		{
			name:  "adjusted clamped to 1 (confidence above 1 in the log)",
			turns: rlWithBase(rlPath("A", "A"), 1.5),
			want:  []rules.Firing{rlPenaltyB(2, "A", 1, -0.2, 1.5, 1)},
		},
		{
			name:  "penalty itself is not clamped",
			cfg:   []any{"location_revisit_penalty", -0.5},
			turns: rlWithBase(rlPath("A", "A", "A", "A"), 0.9),
			want: []rules.Firing{
				rlPenaltyB(2, "A", 1, -0.5, 0.9, 0.4),
				rlLow(rlPenaltyB(3, "A", 2, -1.0, 0.9, 0)),
				rlLow(rlPenaltyB(4, "A", 3, -1.5, 0.9, 0)),
			},
		},
		{
			name:  "low_confidence: adjusted below 0.3, not at 0.3",
			turns: rlBases(rlPath("A", "A", "A", "A"), 0.9, 0.5, 0.45, 0.5),
			// base 0.5 - 0.2 = 0.3 (not below); 0.45 - 0.2*2 = 0.05 (below);
			// 0.5 - 0.2*3 = -0.1, clamped to 0 (below).
			want: []rules.Firing{
				rlPenaltyB(2, "A", 1, -0.2, 0.5, 0.3),
				rlLow(rlPenaltyB(3, "A", 2, -0.4, 0.45, 0.05)),
				rlLow(rlPenaltyB(4, "A", 3, -0.6, 0.5, 0)),
			},
		},
		{
			name: "low_confidence needs a base: 0.7 - 0.2 is not low, a turn without base never is",
			turns: func() []replay.Row {
				ts := rlPath("A", "A", "A")
				ts[1] = rlB(ts[1], 0.7)
				return ts
			}(),
			want: []rules.Firing{
				rlPenaltyB(2, "A", 1, -0.2, 0.7, 0.5),
				rlPenalty(3, "A", 2, -0.4),
			},
		},
		{
			name:  "penalty 0 still fires, adjusted = base",
			cfg:   []any{"location_revisit_penalty", 0},
			turns: rlWithBase(rlPath("A", "A"), 0.6),
			want:  []rules.Firing{rlPenaltyB(2, "A", 1, 0, 0.6, 0.6)},
		},
		{
			name: "no base: penalty fires, adjusted absent",
			turns: func() []replay.Row {
				ts := rlPath("A", "B", "A")
				ts[1] = rlB(ts[1], 0.8) // only turn 2 has a confidence
				return ts
			}(),
			want: []rules.Firing{rlPenalty(3, "A", 1, -0.2)},
		},
		{
			name:  "history capped at 20: visit at turn 1 seen at turn 20 (w = 19)",
			cfg:   []any{"location_revisit_window", 20},
			turns: rlPath(rlConcat([]string{"A"}, rlDistinct("x", 18), []string{"A"})...),
			want:  []rules.Firing{rlPenalty(20, "A", 1, -0.2)},
		},
		{
			name:  "history capped at 20: visit at turn 1 gone at turn 21",
			cfg:   []any{"location_revisit_window", 20},
			turns: rlPath(rlConcat([]string{"A"}, rlDistinct("x", 19), []string{"A"})...),
		},
		{
			name:  "filled turns are history entries and can fire",
			turns: rlPath("A", "B", "~B", "A"),
			// turn 3 (filled, at B): [A B] 1; turn 4: [A B B] 1.
			want: []rules.Firing{rlPenalty(3, "B", 1, -0.2), rlPenalty(4, "A", 1, -0.2)},
		},
		{
			name:  "enable_location_penalty=false",
			cfg:   []any{"enable_location_penalty", false},
			turns: rlPath("A", "A", "A"),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rlRun(rlEp(c.turns), rlCfg(t, c.cfg...), rlRevisitSet)
			rlExpect(t, got, c.want)
		})
	}
}

func TestLocationRevisitConfig(t *testing.T) {
	for _, c := range []struct {
		key string
		v   any
	}{
		{"location_revisit_penalty", -1.0}, {"location_revisit_penalty", 0.0}, {"location_revisit_penalty", -0.2},
		{"location_revisit_window", 2}, {"location_revisit_window", 20},
	} {
		t.Run(fmt.Sprintf("accepted/%s=%v", c.key, c.v), func(t *testing.T) {
			if _, err := rlTryCfg(c.key, c.v); err != nil {
				t.Errorf("rejected: %v", err)
			}
		})
	}
	for _, c := range []struct {
		key string
		v   any
	}{
		{"location_revisit_penalty", -1.01}, {"location_revisit_penalty", 0.01}, {"location_revisit_penalty", 0.2},
		{"location_revisit_window", 1}, {"location_revisit_window", 21},
	} {
		t.Run(fmt.Sprintf("rejected/%s=%v", c.key, c.v), func(t *testing.T) {
			rlConfigRejected(t, []string{c.key}, c.key, c.v)
		})
	}
}
