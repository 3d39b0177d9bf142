package rules_test

import (
	"fmt"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// --- action_novelty (RULES.md §7) ---

var rlNoveltySet = []*rules.Rule{rules.ActionNovelty}

func rlHint(n int, action string) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.ActionNovelty, Kind: rules.Hint, Action: action, Proposal: "executed"}
}

// rlHintRej is a hint about a proposal the critic rejected.
func rlHintRej(n int, action string) rules.Firing {
	f := rlHint(n, action)
	f.Proposal = "rejected"
	return f
}

// rlActs returns one turn per action, numbered from 1. "~" is a filled
// turn, "-" a turn whose action the log does not give.
func rlActs(acts ...string) []replay.Row {
	var out []replay.Row
	for i, a := range acts {
		t := replay.Row{N: i + 1, LocStart: "r", LocEnd: "r"}
		switch a {
		case "~":
			t.Filled = true
		case "-":
		default:
			t.Action, t.HasAction = a, true
		}
		out = append(out, t)
	}
	return out
}

// rlNumbered returns n distinct actions.
func rlNumbered(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("examine thing %d", i))
	}
	return out
}

func TestActionNovelty(t *testing.T) {
	cases := []struct {
		name  string
		cfg   []any
		turns []replay.Row
		want  []rules.Firing
	}{
		{
			name:  "first action never hints; immediate repeat does",
			turns: rlActs("look", "look"),
			want:  []rules.Firing{rlHint(2, "look")},
		},
		{
			name:  "every repeat within the window",
			turns: rlActs("a", "b", "a", "b", "c"),
			want:  []rules.Firing{rlHint(3, "a"), rlHint(4, "b")},
		},
		{
			name:  "window 5: repeat 5 actions back hints",
			cfg:   []any{"action_novelty_window", 5},
			turns: rlActs("a", "b", "c", "d", "e", "a"),
			want:  []rules.Firing{rlHint(6, "a")},
		},
		{
			name:  "window 5: repeat 6 actions back does not",
			cfg:   []any{"action_novelty_window", 5},
			turns: rlActs("a", "b", "c", "d", "e", "f", "a"),
		},
		{
			name:  "default window 15: repeat 15 back hints",
			turns: rlActs(rlConcat([]string{"a"}, rlNumbered(14), []string{"a"})...),
			want:  []rules.Firing{rlHint(16, "a")},
		},
		{
			name:  "default window 15: repeat 16 back does not",
			turns: rlActs(rlConcat([]string{"a"}, rlNumbered(15), []string{"a"})...),
		},
		{
			name:  "normalised: trimmed, lower case",
			turns: rlActs("Open Door", "  open door ", "OPEN DOOR\t", "open  door"),
			want:  []rules.Firing{rlHint(2, "open door"), rlHint(3, "open door")},
		},
		{
			name:  "filled turns and turns without an action are skipped",
			cfg:   []any{"action_novelty_window", 5},
			turns: rlActs("a", "b", "c", "d", "~", "~", "-", "e", "a"),
			// earlier actions a b c d e: a is among the last 5.
			want: []rules.Firing{rlHint(9, "a")},
		},
		{
			name:  "window 50 keeps 50 actions: repeat 50 back hints",
			cfg:   []any{"action_novelty_window", 50},
			turns: rlActs(rlConcat([]string{"a"}, rlNumbered(49), []string{"a"})...),
			want:  []rules.Firing{rlHint(51, "a")},
		},
		{
			name:  "window 50: repeat 51 back does not",
			cfg:   []any{"action_novelty_window", 50},
			turns: rlActs(rlConcat([]string{"a"}, rlNumbered(50), []string{"a"})...),
		},
		{
			name:  "enable_exploration_hints=false",
			cfg:   []any{"enable_exploration_hints", false},
			turns: rlActs("look", "look"),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rlRun(rlEp(c.turns), rlCfg(t, c.cfg...), rlNoveltySet)
			rlExpect(t, got, c.want)
		})
	}
}

// RULES.md §7: every proposal is checked, the rejected ones of turn t (in
// log order) before action(t); only executed actions enter the history.
func TestActionNoveltyProposals(t *testing.T) {
	cases := []struct {
		name     string
		cfg      []any
		turns    []replay.Row
		rejected map[int][]string
		want     []rules.Firing
	}{
		{
			name:     "a rejected proposal repeating an executed action hints, normalised",
			turns:    rlActs("a", "b"),
			rejected: map[int][]string{2: {" A "}},
			want:     []rules.Firing{rlHintRej(2, "a")},
		},
		{
			name:     "rejected proposals in log order, then the executed action",
			turns:    rlActs("a", "b", "a"),
			rejected: map[int][]string{3: {"b", "x", "a"}},
			want:     []rules.Firing{rlHintRej(3, "b"), rlHintRej(3, "a"), rlHint(3, "a")},
		},
		{
			name:  "rejected actions never enter the history",
			turns: rlActs("a", "b", "z"),
			// z was only proposed at turn 2; turn 3 executes it for the first time.
			rejected: map[int][]string{2: {"z", "z"}},
		},
		{
			name:     "a turn's proposals are not compared with each other or its executed action",
			turns:    rlActs("a", "z"),
			rejected: map[int][]string{2: {"z", "z"}},
		},
		{
			name:     "window 5 applies to rejected proposals",
			cfg:      []any{"action_novelty_window", 5},
			turns:    rlActs("a", "b", "c", "d", "e", "f", "g"),
			rejected: map[int][]string{7: {"a", "b"}},
			// last 5 executed before turn 7: b c d e f.
			want: []rules.Firing{rlHintRej(7, "b")},
		},
		{
			name:     "a turn without an executed action still checks its rejected proposals",
			turns:    rlActs("a", "-", "a"),
			rejected: map[int][]string{2: {"a"}},
			want:     []rules.Firing{rlHintRej(2, "a"), rlHint(3, "a")},
		},
		{
			name:     "filled turns are skipped, their proposals too",
			turns:    rlActs("a", "~", "b"),
			rejected: map[int][]string{2: {"a"}},
		},
		{
			name:     "enable_exploration_hints=false",
			cfg:      []any{"enable_exploration_hints", false},
			turns:    rlActs("a", "b"),
			rejected: map[int][]string{2: {"a"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := rlEp(c.turns)
			ep.Rejected = c.rejected
			got := rlRun(ep, rlCfg(t, c.cfg...), rlNoveltySet)
			rlExpect(t, got, c.want)
		})
	}
}

func TestActionNoveltyConfig(t *testing.T) {
	for _, v := range []int{5, 15, 50} {
		t.Run(fmt.Sprintf("accepted/%d", v), func(t *testing.T) {
			if _, err := rlTryCfg("action_novelty_window", v); err != nil {
				t.Errorf("rejected: %v", err)
			}
		})
	}
	for _, v := range []int{4, 0, 51} {
		t.Run(fmt.Sprintf("rejected/%d", v), func(t *testing.T) {
			rlConfigRejected(t, []string{"action_novelty_window"}, "action_novelty_window", v)
		})
	}
}
