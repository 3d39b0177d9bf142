package rules_test

import (
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// --- stuck_warnings (RULES.md §2) ---

var rlWarningSet = []*rules.Rule{rules.ProgressVelocity, rules.StuckWarnings}

func rlWarn(n, stuck, untilDeath int, urgency string) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.StuckWarnings, Kind: rules.Warning, Urgency: urgency, TurnsStuck: stuck, TurnsUntilDeath: untilDeath}
}

func TestStuckWarnings(t *testing.T) {
	// Urgency bands written out by hand for turns_until_death = 40 - t.
	var bands []rules.Firing
	for n := 20; n <= 29; n++ { // 20..11 turns left
		bands = append(bands, rlWarn(n, n, 40-n, "stagnation"))
	}
	for n := 30; n <= 34; n++ { // 10..6
		bands = append(bands, rlWarn(n, n, 40-n, "urgent"))
	}
	for n := 35; n <= 42; n++ { // 5..-2: critical, negative past max_turns_stuck
		bands = append(bands, rlWarn(n, n, 40-n, "critical"))
	}
	cases := []struct {
		name  string
		cfg   []any
		turns []replay.Row
		objs  []int
		want  []rules.Firing
	}{
		{
			name:  "urgency boundaries at 10 and 5 turns until death, negative past max",
			turns: rlFlat(1, 42, 0),
			want:  bands,
		},
		{
			name:  "nothing below the threshold",
			turns: rlFlat(1, 19, 0),
		},
		{
			name:  "warning uses stuck before rule 1 sees the turn",
			turns: rlScoreFrom(rlFlat(1, 30, 0), 25, 1),
			// turn 25: stuck 25 before the reset; 26..30: stuck 1..5.
			want: []rules.Firing{
				rlWarn(20, 20, 20, "stagnation"), rlWarn(21, 21, 19, "stagnation"), rlWarn(22, 22, 18, "stagnation"),
				rlWarn(23, 23, 17, "stagnation"), rlWarn(24, 24, 16, "stagnation"), rlWarn(25, 25, 15, "stagnation"),
			},
		},
		{
			name:  "objective reset: the completion turn still warns",
			turns: rlFlat(1, 30, 0),
			objs:  []int{22},
			want: []rules.Firing{
				rlWarn(20, 20, 20, "stagnation"), rlWarn(21, 21, 19, "stagnation"), rlWarn(22, 22, 18, "stagnation"),
			},
		},
		{
			name:  "first turn: stuck = t",
			turns: rlFlat(30, 32, 0),
			want:  []rules.Firing{rlWarn(30, 30, 10, "urgent"), rlWarn(31, 31, 9, "urgent"), rlWarn(32, 32, 8, "urgent")},
		},
		{
			name:  "first turn, score change at the second: warned before the reset",
			turns: rlScoreFrom(rlFlat(30, 33, 0), 31, 5),
			want:  []rules.Firing{rlWarn(30, 30, 10, "urgent"), rlWarn(31, 31, 9, "urgent")},
		},
		{
			name:  "threshold and max_turns_stuck overrides",
			cfg:   []any{"max_turns_stuck", 50, "stuck_warning_threshold", 39},
			turns: rlFlat(1, 46, 0),
			want: []rules.Firing{
				rlWarn(39, 39, 11, "stagnation"),
				rlWarn(40, 40, 10, "urgent"), rlWarn(41, 41, 9, "urgent"), rlWarn(42, 42, 8, "urgent"),
				rlWarn(43, 43, 7, "urgent"), rlWarn(44, 44, 6, "urgent"),
				rlWarn(45, 45, 5, "critical"), rlWarn(46, 46, 4, "critical"),
			},
		},
		{
			name:  "filled turns warn too",
			turns: rlFillAt(rlFillAt(rlFlat(1, 21, 0), 20), 21),
			want:  []rules.Firing{rlWarn(20, 20, 20, "stagnation"), rlWarn(21, 21, 19, "stagnation")},
		},
		{
			name:  "enable_stuck_warnings=false",
			cfg:   []any{"enable_stuck_warnings", false},
			turns: rlFlat(1, 45, 0),
		},
		{
			name:  "enable_velocity_detection=false turns warnings off too",
			cfg:   []any{"enable_velocity_detection", false},
			turns: rlFlat(1, 45, 0),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rlRun(rlEp(c.turns, c.objs...), rlCfg(t, c.cfg...), rlWarningSet, rules.StuckWarnings)
			rlExpect(t, got, c.want)
		})
	}
}

func TestStuckWarningsConfig(t *testing.T) {
	t.Run("accepted/threshold just below max_turns_stuck", func(t *testing.T) {
		if _, err := rlTryCfg("stuck_warning_threshold", 39); err != nil {
			t.Errorf("rejected: %v", err)
		}
	})
	for _, c := range []struct {
		name string
		kv   []any
	}{
		{"threshold == max_turns_stuck", []any{"stuck_warning_threshold", 40}},
		{"threshold > max_turns_stuck", []any{"stuck_warning_threshold", 41}},
		{"max_turns_stuck lowered to the threshold", []any{"max_turns_stuck", 20}},
	} {
		t.Run("rejected/"+c.name, func(t *testing.T) {
			rlConfigRejected(t, []string{"stuck_warning_threshold", "max_turns_stuck"}, c.kv...)
		})
	}
}
