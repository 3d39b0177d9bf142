package detect

import (
	"fmt"
	"testing"
)

// Step builders for the peer detector tests; run numbers the steps.
func call(action, output string) Step { return Step{Kind: KindAction, Action: action, Output: output} }
func fail(action, output string) Step {
	return Step{Kind: KindAction, Action: action, Output: output, Error: true}
}
func shell(action, output string, exit int, failed bool) Step {
	return Step{Kind: KindAction, Action: action, Output: output, ExitCode: exit, HasExitCode: true, Error: failed}
}
func msg(text string) Step { return Step{Kind: KindMessage, Output: text} }
func condense() Step       { return Step{Kind: KindCondensation, Output: "trimmed"} }

func repeat(n int, s ...Step) []Step {
	var out []Step
	for range n {
		out = append(out, s...)
	}
	return out
}

func cat(parts ...[]Step) []Step {
	var out []Step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

type peerFiring interface{ base() Firing }

func (f OpenHandsFiring) base() Firing { return f.Firing }

// run numbers the steps from 1 and returns "step:rule/kind" per firing.
func run[F peerFiring](steps []Step, step func(Step) []F) []string {
	var got []string
	for i, s := range steps {
		s.N = i + 1
		for _, f := range step(s) {
			b := f.base()
			got = append(got, fmt.Sprintf("%d:%s/%s", b.Step, b.Rule, b.Kind))
		}
	}
	return got
}

func TestOpenHands(t *testing.T) {
	ls := `execute_bash {"command":"ls"}`
	view := `str_replace_editor {"command":"view","path":"a.go"}`
	tail := `execute_bash {"command":"tail -f log"}`
	def := DefaultOpenHandsConfig()
	cfg := func(f func(*OpenHandsConfig)) OpenHandsConfig { c := def; f(&c); return c }
	tests := []struct {
		name  string
		cfg   OpenHandsConfig
		steps []Step
		want  []string
	}{
		// 1. repeat_action_observation
		{"repeat_action_observation at 4", def, repeat(4, call(ls, "a b")),
			[]string{"4:repeat_action_observation/stop"}},
		{"repeat_action_observation below", def, repeat(3, call(ls, "a b")), nil},
		{"repeat_action_observation goes on", def, repeat(5, call(ls, "a b")),
			[]string{"4:repeat_action_observation/stop", "5:repeat_action_observation/stop"}},
		{"repeat_action_observation count 5", cfg(func(c *OpenHandsConfig) { c.RepeatActionObservationCount = 5 }),
			repeat(5, call(ls, "a b")), []string{"5:repeat_action_observation/stop"}},
		{"output differs", def, cat(repeat(3, call(ls, "a b")), []Step{call(ls, "a b c")}), nil},
		{"CmdOutputObservation quirk: output ignored", def,
			[]Step{shell(tail, "1", 0, false), shell(tail, "1 2", 0, false), shell(tail, "1 2 3", 0, false), shell(tail, "1 2 3 4", 0, false)},
			[]string{"4:repeat_action_observation/stop"}},
		{"CmdOutputObservation quirk: exit code compared", def,
			[]Step{shell(tail, "x", 0, false), shell(tail, "x", 0, false), shell(tail, "x", 0, false), shell(tail, "x", 1, false)}, nil},
		{"exit code against none differs", def,
			[]Step{shell(tail, "x", 0, false), call(tail, "x"), call(tail, "x"), call(tail, "x")}, nil},
		{"a message is not the same as a call", def,
			[]Step{call("x", "o"), call("x", "o"), call("x", "o"), msg("x"), call("x", "o")}, nil},

		// 2. repeat_action_error
		{"repeat_action_error at 3, texts may differ", def,
			[]Step{fail(view, "no such file a"), fail(view, "no such file b"), fail(view, "no such file c")},
			[]string{"3:repeat_action_error/stop"}},
		{"repeat_action_error below", def, repeat(2, fail(view, "no such file")), nil},
		{"repeat_action_error needs the same action", def,
			[]Step{fail(view, "e"), fail(ls, "e"), fail(view, "e")}, nil},
		{"a failed shell command is no ErrorObservation", def,
			[]Step{shell(ls, "x1", 2, true), shell(ls, "x2", 2, true), shell(ls, "x3", 2, true)}, nil},
		{"check 1 comes before check 2", def, repeat(4, fail(view, "same error")),
			[]string{"3:repeat_action_error/stop", "4:repeat_action_observation/stop"}},
		{"repeat_action_error count 4", cfg(func(c *OpenHandsConfig) { c.RepeatActionErrorCount = 4 }),
			[]Step{fail(view, "a"), fail(view, "b"), fail(view, "c"), fail(view, "d")},
			[]string{"4:repeat_action_error/stop"}},

		// 3. monologue
		{"monologue at 3", def, repeat(3, msg("I will now fix it.")), []string{"3:monologue/stop"}},
		{"monologue below", def, repeat(2, msg("I will now fix it.")), nil},
		{"messages differ", def, []Step{msg("a"), msg("a"), msg("b")}, nil},
		{"an observation between", def, []Step{msg("a"), call(ls, "x"), msg("a"), msg("a")}, nil},
		{"a condensation is an observation", def, []Step{msg("a"), msg("a"), condense(), msg("a")}, nil},
		{"true until a new message", def,
			[]Step{msg("a"), msg("a"), msg("a"), call(ls, "x"), call(view, "y"), msg("b"), call(ls, "z")},
			[]string{"3:monologue/stop", "4:monologue/stop", "5:monologue/stop"}},

		// 4. alternating_pair
		{"alternating_pair at 6", def, repeat(3, call(ls, "x"), call(view, "y")),
			[]string{"6:alternating_pair/stop"}},
		{"alternating_pair below", def, cat(repeat(2, call(ls, "x"), call(view, "y")), []Step{call(ls, "x")}), nil},
		{"A ≠ B is not required", def, repeat(3, call(ls, "x"), call(ls, "y")),
			[]string{"6:alternating_pair/stop"}},
		{"alternating observations must repeat too", def,
			[]Step{call(ls, "x"), call(view, "y"), call(ls, "x"), call(view, "y"), call(ls, "x"), call(view, "z")}, nil},
		{"alternating_pair over 8", cfg(func(c *OpenHandsConfig) { c.AlternatingPairSteps = 8 }),
			repeat(4, call(ls, "x"), call(view, "y")), []string{"8:alternating_pair/stop"}},

		// 5. context_window_error
		{"context_window_error at 10", def, repeat(10, condense()), []string{"10:context_window_error/stop"}},
		{"context_window_error below", def, repeat(9, condense()), nil},
		{"condensations never adjacent", def, cat(
			[]Step{call("a1", ""), condense(), call("a2", ""), condense(), call("a3", ""), condense(), call("a4", ""), condense(), call("a5", ""), condense()},
			[]Step{call("a6", ""), condense(), call("a7", ""), condense(), call("a8", ""), condense(), call("a9", ""), condense(), call("a10", ""), condense()},
		), nil},
		{"two adjacent among the last 10", def, cat(
			[]Step{call("a1", ""), condense(), call("a2", ""), condense(), call("a3", ""), condense(), call("a4", ""), condense(), call("a5", ""), condense()},
			[]Step{call("a6", ""), condense(), call("a7", ""), condense(), call("a8", ""), condense(), call("a9", ""), condense(), condense()},
		), []string{"19:context_window_error/stop"}},
		{"adjacent pair fallen out of the last 10", def, cat(
			[]Step{condense(), condense()},
			[]Step{call("a1", ""), condense(), call("a2", ""), condense(), call("a3", ""), condense(), call("a4", ""), condense(), call("a5", ""), condense()},
			[]Step{call("a6", ""), condense(), call("a7", ""), condense(), call("a8", ""), condense(), call("a9", ""), condense()},
		// The 10th condensation comes at step 18; at step 20 the 11th pushes
		// step 1's out of the last 10.
		), []string{"18:context_window_error/stop", "19:context_window_error/stop"}},

		// History rules.
		{"under 3 events nothing", cfg(func(c *OpenHandsConfig) { c.MonologueCount = 2 }),
			[]Step{msg("a"), msg("a"), msg("a")}, []string{"3:monologue/stop"}},
		{"a blank action is skipped", def,
			[]Step{call(ls, "x"), call("  ", "ignored"), call(ls, "x"), call(ls, "x"), {Kind: KindAction}, call(ls, "x")},
			[]string{"6:repeat_action_observation/stop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewOpenHands(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := run(tt.steps, d.Step)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestOpenHandsConfigValidate(t *testing.T) {
	c := DefaultOpenHandsConfig()
	c.AlternatingPairSteps = 3
	if _, err := NewOpenHands(c); err == nil {
		t.Error("alternating_pair_steps 3 accepted")
	}
}
