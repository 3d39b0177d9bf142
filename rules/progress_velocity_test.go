package rules_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Helpers shared by the per-rule tests (prefix rl). Expected firings are
// derived by hand from RULES.md; they are compared on turn, rule, kind and
// the fields the rule's Kind documents.

// rlTryCfg returns the defaults with key, value overrides applied, and the
// first error from setting a value or validating the result.
func rlTryCfg(kv ...any) (*rules.Config, error) {
	if len(kv)%2 != 0 {
		panic("rlTryCfg: odd number of arguments")
	}
	cfg := rules.Default()
	for i := 0; i < len(kv); i += 2 {
		if err := cfg.Set(kv[i].(string), kv[i+1], rules.Source{Kind: "flag"}); err != nil {
			return nil, err
		}
	}
	return cfg, cfg.Validate()
}

// rlCfg is rlTryCfg for configurations that must be valid.
func rlCfg(t testing.TB, kv ...any) *rules.Config {
	t.Helper()
	cfg, err := rlTryCfg(kv...)
	if err != nil {
		t.Fatalf("config %v: %v", kv, err)
	}
	return cfg
}

// withRows gives ep the turn table rows.
func withRows(ep *replay.Episode, rows []replay.Row) *replay.Episode {
	ep.AppendRows(rows...)
	return ep
}

// rlEp wraps a turn table (and objective completion turns) in an episode.
func rlEp(turns []replay.Row, objs ...int) *replay.Episode {
	return withRows(&replay.Episode{ID: "rl", Source: "-", LocationKey: replay.KeyRoomID, ObjectiveTurns: objs}, turns)
}

// rlFlat returns turns first..last with a constant score, all in room "r"
// with the action "wait".
func rlFlat(first, last int, score float64) []replay.Row {
	var out []replay.Row
	for n := first; n <= last; n++ {
		out = append(out, replay.Row{N: n, Score: score, LocStart: "r", LocEnd: "r", Action: "wait", HasAction: true})
	}
	return out
}

// rlScoreFrom sets the score of every turn from n on.
func rlScoreFrom(turns []replay.Row, n int, score float64) []replay.Row {
	for i := range turns {
		if turns[i].N >= n {
			turns[i].Score = score
		}
	}
	return turns
}

// rlFillAt turns turn n into a filled turn (a gap in the log).
func rlFillAt(turns []replay.Row, n int) []replay.Row {
	for i := range turns {
		if turns[i].N == n {
			turns[i].Filled, turns[i].Action, turns[i].HasAction = true, "", false
		}
	}
	return turns
}

// rlPath returns one turn per entry, numbered from 1: turn i starts at
// locs[i] and ends where turn i+1 starts (a move when they differ). An
// entry "~X" is a filled turn at X (no action, no move).
func rlPath(locs ...string) []replay.Row {
	var out []replay.Row
	for i, l := range locs {
		t := replay.Row{N: i + 1, Action: "look", HasAction: true}
		if f, ok := strings.CutPrefix(l, "~"); ok {
			t = replay.Row{N: i + 1, Filled: true, LocStart: f, LocEnd: f}
		} else {
			t.LocStart, t.LocEnd = l, l
			if i+1 < len(locs) {
				t.LocEnd = strings.TrimPrefix(locs[i+1], "~")
			}
			t.Moved = t.LocEnd != t.LocStart
		}
		out = append(out, t)
	}
	return out
}

// rlGo is turn n: action at from, with a recorded move to to.
func rlGo(n int, from, action, to string) replay.Row {
	return replay.Row{N: n, LocStart: from, LocEnd: to, Moved: true, Action: action, HasAction: true}
}

// rlStay is turn n: action at loc, no move recorded.
func rlStay(n int, loc, action string) replay.Row {
	return replay.Row{N: n, LocStart: loc, LocEnd: loc, Action: action, HasAction: true}
}

// rlB gives a turn the critic's base confidence.
func rlB(t replay.Row, base float64) replay.Row {
	t.Base, t.HasBase = base, true
	return t
}

// rlRun replays set over ep and returns the firings of the rules named in
// only (every firing when only is empty).
func rlRun(ep *replay.Episode, cfg *rules.Config, set []*rules.Rule, only ...*rules.Rule) []rules.Firing {
	var out []rules.Firing
	rules.Run(ep, cfg, set, func(f rules.Firing) {
		if len(only) == 0 {
			out = append(out, f)
			return
		}
		for _, o := range only {
			if f.Rule == o {
				out = append(out, f)
			}
		}
	})
	return out
}

func rlRound(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// rlProject keeps turn, rule, kind and the fields documented for the
// firing's kind; floats are rounded to 1e-9.
func rlProject(t testing.TB, f rules.Firing) rules.Firing {
	t.Helper()
	if f.Rule == nil || rules.Lookup(f.Rule.Name) != f.Rule {
		t.Fatalf("firing of an unregistered rule: %+v", f)
	}
	if !slices.Contains(f.Rule.Kinds, f.Kind) {
		t.Fatalf("rule %s does not list the kind of %+v", f.Rule.Name, f)
	}
	fields := f.Kind.Fields
	p := rules.Firing{Turn: f.Turn, Rule: f.Rule, Kind: f.Kind}
	for _, field := range fields {
		switch field {
		case "cause":
			p.Cause = f.Cause
		case "urgency":
			p.Urgency = f.Urgency
		case "turns_stuck":
			p.TurnsStuck = f.TurnsStuck
		case "turns_until_death":
			p.TurnsUntilDeath = f.TurnsUntilDeath
		case "score":
			p.Score = rlRound(f.Score)
		case "visits":
			p.Visits = f.Visits
		case "penalty":
			p.Penalty = rlRound(f.Penalty)
		case "base", "adjusted":
			p.HasBase = f.HasBase
			if f.HasBase {
				p.Base, p.Adjusted = rlRound(f.Base), rlRound(f.Adjusted)
			}
		case "pattern":
			p.Pattern = f.Pattern
		case "location":
			p.Location = f.Location
		case "destination":
			p.Destination = f.Destination
		case "action":
			p.Action = f.Action
		case "rejected":
			p.Rejected = f.Rejected
		case "low_confidence":
			p.LowConfidence = f.LowConfidence
		case "proposal":
			p.Proposal = f.Proposal
		default:
			t.Fatalf("%s: field %q unknown to the tests", f.KindKey(), field)
		}
	}
	return p
}

func rlString(f rules.Firing) string {
	s := fmt.Sprintf("%d %s", f.Turn, f.KindKey())
	add := func(k string, v any) { s += fmt.Sprintf(" %s=%v", k, v) }
	if f.Cause != "" {
		add("cause", f.Cause)
	}
	if f.Urgency != "" {
		add("urgency", f.Urgency)
	}
	if f.TurnsStuck != 0 {
		add("turns_stuck", f.TurnsStuck)
	}
	if f.TurnsUntilDeath != 0 {
		add("until_death", f.TurnsUntilDeath)
	}
	if f.Score != 0 {
		add("score", f.Score)
	}
	if f.Location != "" {
		add("location", f.Location)
	}
	if f.Visits != 0 {
		add("visits", f.Visits)
	}
	if f.Penalty != 0 {
		add("penalty", f.Penalty)
	}
	if f.HasBase {
		add("base", f.Base)
		add("adjusted", f.Adjusted)
	}
	if f.Pattern != [2]string{} {
		add("pattern", f.Pattern)
	}
	if f.Action != "" {
		add("action", f.Action)
	}
	if f.Destination != "" {
		add("destination", f.Destination)
	}
	if f.Rejected {
		add("rejected", true)
	}
	if f.LowConfidence {
		add("low_confidence", true)
	}
	if f.Proposal != "" {
		add("proposal", f.Proposal)
	}
	return s
}

// rlExpect asserts got and want are the same firings in the same order.
func rlExpect(t testing.TB, got, want []rules.Firing) {
	t.Helper()
	var g, w []string
	for _, f := range got {
		g = append(g, rlString(rlProject(t, f)))
	}
	for _, f := range want {
		w = append(w, rlString(rlProject(t, f)))
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("firings:\n  got:\n    %s\n  want:\n    %s", strings.Join(g, "\n    "), strings.Join(w, "\n    "))
	}
}

// rlConfigRejected asserts that the overrides are rejected, by Set or by
// Validate, with a message naming every key in names.
func rlConfigRejected(t testing.TB, names []string, kv ...any) {
	t.Helper()
	_, err := rlTryCfg(kv...)
	if err == nil {
		t.Fatalf("config %v accepted, want it rejected", kv)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("config %v: error %q does not name %s", kv, err, n)
		}
	}
}

// --- progress_velocity (RULES.md §1) ---

var rlVelocitySet = []*rules.Rule{rules.ProgressVelocity}

func rlTerm(n, stuck int, score float64) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.ProgressVelocity, Kind: rules.Termination, TurnsStuck: stuck, Score: score}
}

func rlCheckpoint(n, stuck int, score float64) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.ProgressVelocity, Kind: rules.Checkpoint, TurnsStuck: stuck, Score: score}
}

func rlReset(n int, cause string, stuck int) rules.Firing {
	return rules.Firing{Turn: n, Rule: rules.ProgressVelocity, Kind: rules.Reset, Cause: cause, TurnsStuck: stuck}
}

const (
	rlScoreChange = "score_change"
	rlObjective   = "objective_progress_reset"
)

func TestProgressVelocity(t *testing.T) {
	cases := []struct {
		name  string
		cfg   []any
		turns []replay.Row
		objs  []int
		want  []rules.Firing
	}{
		{
			name:  "constant score: first check point terminates, later ones are checkpoints",
			turns: rlFlat(1, 60, 7),
			want: []rules.Firing{
				rlTerm(40, 40, 7), rlCheckpoint(40, 40, 7),
				rlCheckpoint(50, 50, 7), rlCheckpoint(60, 60, 7),
			},
		},
		{
			name:  "check points only at multiples of stuck_check_interval",
			cfg:   []any{"max_turns_stuck", 45},
			turns: rlFlat(1, 60, 0),
			// 45 is stuck enough but 45 % 10 != 0: first check point at 50.
			want: []rules.Firing{rlTerm(50, 50, 0), rlCheckpoint(50, 50, 0), rlCheckpoint(60, 60, 0)},
		},
		{
			name:  "score change during the first turn is not detected",
			turns: rlFlat(1, 40, 5), // score 5 already after turn 1
			// last_change stays 0: stuck 40 at turn 40 (not 39).
			want: []rules.Firing{rlTerm(40, 40, 5), rlCheckpoint(40, 40, 5)},
		},
		{
			name:  "score change at the second turn resets",
			turns: rlScoreFrom(rlFlat(1, 50, 0), 2, 5),
			// last_change 2: turn 40 has 38 < 40, turn 50 has 48.
			want: []rules.Firing{rlReset(2, rlScoreChange, 2), rlTerm(50, 48, 5), rlCheckpoint(50, 48, 5)},
		},
		{
			name:  "score increase resets",
			turns: rlScoreFrom(rlFlat(1, 70, 0), 25, 5),
			want:  []rules.Firing{rlReset(25, rlScoreChange, 25), rlTerm(70, 45, 5), rlCheckpoint(70, 45, 5)},
		},
		{
			name:  "score decrease resets too",
			turns: rlScoreFrom(rlFlat(1, 60, 10), 16, 4),
			want:  []rules.Firing{rlReset(16, rlScoreChange, 16), rlTerm(60, 44, 4), rlCheckpoint(60, 44, 4)},
		},
		{
			name:  "score returning to an earlier value is a change",
			turns: rlScoreFrom(rlScoreFrom(rlFlat(1, 60, 0), 10, 5), 11, 0),
			// last_change 11: 50-11 = 39 < 40, 60-11 = 49.
			want: []rules.Firing{
				rlReset(10, rlScoreChange, 10), rlReset(11, rlScoreChange, 1),
				rlTerm(60, 49, 0), rlCheckpoint(60, 49, 0),
			},
		},
		{
			name:  "objective completion resets on its turn and on the next",
			turns: rlFlat(1, 60, 0),
			objs:  []int{15},
			want: []rules.Firing{
				rlReset(15, rlObjective, 15), rlReset(16, rlObjective, 1),
				rlTerm(60, 44, 0), rlCheckpoint(60, 44, 0),
			},
		},
		{
			name:  "score change and objective on the same turn: score change first, objective resets the next turn",
			turns: rlScoreFrom(rlFlat(1, 60, 0), 15, 3),
			objs:  []int{15},
			want: []rules.Firing{
				rlReset(15, rlScoreChange, 15), rlReset(16, rlObjective, 1),
				rlTerm(60, 44, 3), rlCheckpoint(60, 44, 3),
			},
		},
		{
			name:  "objective progress off: completions do not reset",
			cfg:   []any{"enable_objective_based_progress", false},
			turns: rlFlat(1, 60, 0),
			objs:  []int{15},
			want: []rules.Firing{
				rlTerm(40, 40, 0), rlCheckpoint(40, 40, 0),
				rlCheckpoint(50, 50, 0), rlCheckpoint(60, 60, 0),
			},
		},
		{
			name:  "objective at a check point turn resets before the check",
			turns: rlFlat(1, 90, 0),
			objs:  []int{40},
			// last_change 41 after the second reset: 80-41 = 39, 90-41 = 49.
			want: []rules.Firing{
				rlReset(40, rlObjective, 40), rlReset(41, rlObjective, 1),
				rlTerm(90, 49, 0), rlCheckpoint(90, 49, 0),
			},
		},
		{
			name:  "objective in a gap (filled turn) resets like any other",
			turns: rlFillAt(rlFlat(1, 60, 0), 15),
			objs:  []int{15},
			want: []rules.Firing{
				rlReset(15, rlObjective, 15), rlReset(16, rlObjective, 1),
				rlTerm(60, 44, 0), rlCheckpoint(60, 44, 0),
			},
		},
		{
			name:  "objective before the first turn is too old at the second turn",
			turns: rlFlat(10, 40, 0),
			objs:  []int{9},
			// at 11: latest o = 9, 11-9 = 2 > 1.
			want: []rules.Firing{rlTerm(40, 40, 0), rlCheckpoint(40, 40, 0)},
		},
		{
			name:  "objective at the first turn resets only on the next turn",
			turns: rlFlat(10, 60, 0),
			objs:  []int{10},
			// nothing happens at t0 = 10; at 11 stuck = 11-0; then last_change 11.
			want: []rules.Firing{rlReset(11, rlObjective, 11), rlTerm(60, 49, 0), rlCheckpoint(60, 49, 0)},
		},
		{
			name:  "check point on a filled turn",
			turns: rlFillAt(rlFillAt(rlFlat(1, 45, 0), 39), 40),
			want:  []rules.Firing{rlTerm(40, 40, 0), rlCheckpoint(40, 40, 0)},
		},
		{
			name:  "first turn on a check point: nothing at the first turn",
			turns: rlFlat(40, 70, 0),
			want: []rules.Firing{
				rlTerm(50, 50, 0), rlCheckpoint(50, 50, 0),
				rlCheckpoint(60, 60, 0), rlCheckpoint(70, 70, 0),
			},
		},
		{
			name:  "first turn not 1: stuck counts from turn 0",
			turns: rlFlat(35, 50, 0),
			want:  []rules.Firing{rlTerm(40, 40, 0), rlCheckpoint(40, 40, 0), rlCheckpoint(50, 50, 0)},
		},
		{
			// The smallest max_turns_stuck ZorkGPT accepts: stuck_warning_threshold
			// is at least 5 and below it.
			name:  "interval 1",
			cfg:   []any{"stuck_warning_threshold", 5, "max_turns_stuck", 6, "stuck_check_interval", 1},
			turns: rlFlat(1, 8, 0),
			want: []rules.Firing{
				rlTerm(6, 6, 0), rlCheckpoint(6, 6, 0), rlCheckpoint(7, 7, 0), rlCheckpoint(8, 8, 0),
			},
		},
		{
			name:  "enable_velocity_detection=false turns the rule off",
			cfg:   []any{"enable_velocity_detection", false},
			turns: rlFlat(1, 60, 0),
			objs:  []int{15},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rlRun(rlEp(c.turns, c.objs...), rlCfg(t, c.cfg...), rlVelocitySet)
			rlExpect(t, got, c.want)
		})
	}
}

func TestProgressVelocityConfig(t *testing.T) {
	ok := []struct {
		name string
		kv   []any
	}{
		{"max_turns_stuck == stuck_check_interval", []any{"stuck_warning_threshold", 5, "max_turns_stuck", 10, "stuck_check_interval", 10}},
		{"stuck_check_interval 1", []any{"stuck_warning_threshold", 5, "max_turns_stuck", 6, "stuck_check_interval", 1}},
		// ZorkGPT's bounds (RULES.md §1, configuration parity), at their ends
		{"max_turns_stuck 1000", []any{"max_turns_stuck", 1000}},
		{"stuck_check_interval 100", []any{"max_turns_stuck", 100, "stuck_check_interval", 100}},
		{"stuck_warning_threshold 100", []any{"max_turns_stuck", 101, "stuck_warning_threshold", 100}},
	}
	for _, c := range ok {
		t.Run("accepted/"+c.name, func(t *testing.T) {
			if _, err := rlTryCfg(c.kv...); err != nil {
				t.Errorf("config %v rejected: %v", c.kv, err)
			}
		})
	}
	bad := []struct {
		name  string
		names []string
		kv    []any
	}{
		{"max_turns_stuck < stuck_check_interval", []string{"max_turns_stuck", "stuck_check_interval"},
			[]any{"stuck_warning_threshold", 5, "max_turns_stuck", 9, "stuck_check_interval", 10}},
		{"stuck_check_interval 0", []string{"stuck_check_interval"}, []any{"stuck_check_interval", 0}},
		{"stuck_check_interval negative", []string{"stuck_check_interval"}, []any{"stuck_check_interval", -10}},
		{"max_turns_stuck 0", []string{"max_turns_stuck"}, []any{"stuck_warning_threshold", 5, "stuck_check_interval", 1, "max_turns_stuck", 0}},
		{"max_turns_stuck 1001", []string{"max_turns_stuck", "[1, 1000]"}, []any{"max_turns_stuck", 1001}},
		{"stuck_check_interval 101", []string{"stuck_check_interval", "[1, 100]"}, []any{"max_turns_stuck", 200, "stuck_check_interval", 101}},
		{"stuck_warning_threshold 4", []string{"stuck_warning_threshold", "[5, 100]"}, []any{"stuck_warning_threshold", 4}},
		{"stuck_warning_threshold 101", []string{"stuck_warning_threshold", "[5, 100]"}, []any{"max_turns_stuck", 200, "stuck_warning_threshold", 101}},
		// max_turns_stuck 5 leaves no valid stuck_warning_threshold (>= 5, < 5)
		{"max_turns_stuck 5", []string{"stuck_warning_threshold", "max_turns_stuck"},
			[]any{"stuck_warning_threshold", 5, "stuck_check_interval", 1, "max_turns_stuck", 5}},
		// The cross-key checks hold with the features off, as in ZorkGPT.
		{"velocity detection off, max_turns_stuck < stuck_check_interval", []string{"max_turns_stuck", "stuck_check_interval"},
			[]any{"enable_velocity_detection", false, "stuck_warning_threshold", 5, "max_turns_stuck", 9, "stuck_check_interval", 10}},
		{"stuck warnings off, threshold == max_turns_stuck", []string{"stuck_warning_threshold", "max_turns_stuck"},
			[]any{"enable_stuck_warnings", false, "stuck_warning_threshold", 40}},
	}
	for _, c := range bad {
		t.Run("rejected/"+c.name, func(t *testing.T) {
			rlConfigRejected(t, c.names, c.kv...)
		})
	}
	t.Run("constraint error names both keys", func(t *testing.T) {
		_, err := rlTryCfg("stuck_warning_threshold", 5, "max_turns_stuck", 9, "stuck_check_interval", 10)
		var ce *rules.ConstraintError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v (%T), want *rules.ConstraintError", err, err)
		}
		if strings.Join(ce.Keys, ",") != "max_turns_stuck,stuck_check_interval" {
			t.Errorf("keys %v", ce.Keys)
		}
	})
}

// The registry validates, and Validate rejects broken registries.
func TestRegistryValidate(t *testing.T) {
	if err := rules.Validate(rules.Registry); err != nil {
		t.Fatalf("registry: %v", err)
	}
	clone := func(r *rules.Rule, edit func(*rules.Rule)) *rules.Rule {
		c := *r
		c.Params = nil
		for _, p := range r.Params { // deep: cases edit defaults
			cp := *p
			c.Params = append(c.Params, &cp)
		}
		edit(&c)
		return &c
	}
	keep := func(*rules.Rule) {}
	cases := []struct {
		name string
		reg  []*rules.Rule
		want string
	}{
		{"name not an identifier", []*rules.Rule{clone(rules.ProgressVelocity, func(r *rules.Rule) { r.Name = "Progress-Velocity" })}, "identifier"},
		{"registered twice", []*rules.Rule{rules.Camping, clone(rules.Camping, func(r *rules.Rule) { r.Params = nil })}, "twice"},
		{"missing doc", []*rules.Rule{clone(rules.Camping, func(r *rules.Rule) { r.Doc = "" })}, "doc"},
		{"missing title", []*rules.Rule{clone(rules.Camping, func(r *rules.Rule) { r.Title = "" })}, "doc"},
		{"missing New", []*rules.Rule{clone(rules.Camping, func(r *rules.Rule) { r.New = nil })}, "New"},
		{"requirement registered after", []*rules.Rule{rules.Oscillation, rules.ScoreAdjustment, rules.Camping}, "camping"},
		{"requirement missing", []*rules.Rule{rules.StuckWarnings}, "progress_velocity"},
		{"key declared twice", []*rules.Rule{rules.ProgressVelocity, clone(rules.StuckWarnings, func(r *rules.Rule) {
			r.Name, r.Requires = "other", nil
			r.Params = append(r.Params, rules.ProgressVelocity.Params[1])
		})}, "max_turns_stuck"},
		{"default outside its bounds", []*rules.Rule{clone(rules.ActionNovelty, func(r *rules.Rule) { r.Params[1].Default = 4 })}, "action_novelty_window"},
		{"kind value shared", []*rules.Rule{rules.Oscillation, clone(rules.Camping, func(r *rules.Rule) { r.Kinds = rules.Oscillation.Kinds })}, "already lists"},
		{"kind listed twice", []*rules.Rule{clone(rules.Camping, func(r *rules.Rule) { r.Kinds = []*rules.Kind{rules.CampingDetection, {Name: "detection"}} })}, "twice"},
		{"fine copy", []*rules.Rule{clone(rules.ProgressVelocity, keep)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := rules.Validate(c.reg)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case c.want != "" && err == nil:
				t.Errorf("accepted, want an error mentioning %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}
