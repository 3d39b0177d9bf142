package detect

// OpenHands V1's own tests of its StuckDetector (OpenHands/software-agent-sdk
// 611629e: tests/cross/test_stuck_detector.py, the run-loop nudge tests of
// tests/sdk/conversation/local/test_stuck_detector_nudge.py), translated
// case for case. An event's Key stands for the fields _event_eq compares:
// events the Python test builds equal are built with equal Keys here (an
// ActionEvent's thought, action and tool name; an ObservationEvent's
// observation and tool name; ids and tool call ids are not compared).

import (
	"fmt"
	"strings"
	"testing"
)

var v1ID int

func v1Next() string { v1ID++; return fmt.Sprintf("ev-%d", v1ID) }

func v1User(text string) *OpenHandsV1Event {
	return &OpenHandsV1Event{Class: V1Message, Source: "user", Key: "user\x00" + text, ID: v1Next()}
}
func v1Agent(text string) *OpenHandsV1Event {
	return &OpenHandsV1Event{Class: V1Message, Source: "agent", Key: "agent\x00" + text, ID: v1Next()}
}
func v1Env(text string) *OpenHandsV1Event {
	return &OpenHandsV1Event{Class: V1Message, Source: "environment", Key: "environment\x00" + text, ID: v1Next()}
}

// v1Terminal is ActionEvent(thought=[thought], action=TerminalAction(command),
// tool_name="terminal").
func v1Terminal(thought, command string) *OpenHandsV1Event {
	return &OpenHandsV1Event{Class: V1Action, Source: "agent", Key: "agent\x00" + thought + "\x00" + command + "\x00terminal", ID: v1Next(), Tool: "terminal"}
}
func v1TerminalOut(text, command string, exit int) *OpenHandsV1Event {
	return &OpenHandsV1Event{Class: V1Observation, Source: "environment", Key: fmt.Sprintf("environment\x00%s\x00%s\x00%d\x00terminal", text, command, exit), ID: v1Next()}
}
func v1Err(text string) *OpenHandsV1Event {
	return &OpenHandsV1Event{Class: V1AgentError, Source: "agent", Key: "agent\x00" + text, ID: v1Next(), Error: text}
}

func v1Detector(t *testing.T, evs ...*OpenHandsV1Event) *OpenHandsV1 {
	t.Helper()
	d, err := NewOpenHandsV1(DefaultOpenHandsV1Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		d.Add(e)
	}
	return d
}

func v1LsLoop(n int) []*OpenHandsV1Event {
	var out []*OpenHandsV1Event
	for range n {
		out = append(out, v1Terminal("I need to run ls command", "ls"), v1TerminalOut("file1.txt\nfile2.txt", "ls", 0))
	}
	return out
}

func TestOpenHandsV1StuckDetectorUnitTests(t *testing.T) {
	cat := func(parts ...[]*OpenHandsV1Event) []*OpenHandsV1Event {
		var out []*OpenHandsV1Event
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	one := func(es ...*OpenHandsV1Event) []*OpenHandsV1Event { return es }
	times := func(n int, f func(i int) *OpenHandsV1Event) []*OpenHandsV1Event {
		var out []*OpenHandsV1Event
		for i := range n {
			out = append(out, f(i))
		}
		return out
	}
	tests := []struct {
		name string
		evs  []*OpenHandsV1Event
		want string
	}{
		{"test_history_too_short", cat(one(v1User("Hello")), v1LsLoop(1)), ""},
		// 50 old user messages, then a user message, 4 ls pairs and 3 agent
		// "ok" messages: the last 20 events hold the loop.
		{"test_is_stuck_uses_only_recent_event_window",
			cat(times(50, func(i int) *OpenHandsV1Event { return v1User(fmt.Sprintf("old-%d", i)) }), one(v1User("start")),
				v1LsLoop(4), times(3, func(int) *OpenHandsV1Event { return v1Agent("ok") })), RuleV1ActionObservation},
		{"test_is_stuck_without_recent_user_message_still_detects_loop",
			cat(times(12, func(int) *OpenHandsV1Event { return v1Agent("ok") }), v1LsLoop(4)), RuleV1ActionObservation},
		{"test_is_stuck_with_fewer_than_20_events_still_detects_loop", v1LsLoop(4), RuleV1ActionObservation},
		{"test_repeating_action_observation_not_stuck_less_than_4_repeats", cat(one(v1User("Please run ls")), v1LsLoop(3)), ""},
		{"test_repeating_action_observation_stuck", cat(one(v1User("Please run ls")), v1LsLoop(4)), RuleV1ActionObservation},
		{"test_agent_monologue_stuck", cat(one(v1User("Hello")),
			times(3, func(i int) *OpenHandsV1Event { return v1Agent(fmt.Sprintf("I'm thinking... %d", i)) })), RuleV1Monologue},
		{"test_not_stuck_with_different_actions", cat(one(v1User("Please run different commands")),
			func() []*OpenHandsV1Event {
				var out []*OpenHandsV1Event
				for _, c := range []string{"ls", "pwd", "whoami", "date"} {
					out = append(out, v1Terminal("I need to run "+c+" command", c), v1TerminalOut("output of "+c, c, 0))
				}
				return out
			}()), ""},
		{"test_reset_after_user_message: stuck", cat(one(v1User("Please run ls")), v1LsLoop(4)), RuleV1ActionObservation},
		{"test_reset_after_user_message: new user message", cat(one(v1User("Please run ls")), v1LsLoop(4), one(v1User("Try something else"))), ""},
		{"test_reset_after_user_message: one more action", cat(one(v1User("Please run ls")), v1LsLoop(4), one(v1User("Try something else")),
			one(v1Terminal("I'll try pwd command", "pwd"), v1TerminalOut("/home/user", "pwd", 0))), ""},
		// Of our own: an alternating pattern, and the monologue's count
		// passing over a nudge from the environment.
		{"ours: alternating", cat(one(v1User("go")), func() []*OpenHandsV1Event {
			var out []*OpenHandsV1Event
			for i := range 6 {
				c := []string{"ls", "pwd"}[i%2]
				out = append(out, v1Terminal("t", c), v1TerminalOut("o "+c, c, 0))
			}
			return out
		}()), RuleV1AlternatingPattern},
		{"ours: 4 errors of one action, their texts differing: the error streak", cat(one(v1User("go")), func() []*OpenHandsV1Event {
			var out []*OpenHandsV1Event
			for i := range 4 {
				out = append(out, v1Terminal("t", "bad"), v1Err(fmt.Sprintf("error %d", i)))
			}
			return out
		}()), RuleV1ActionError},
		{"ours: a message from the environment does not stop a monologue", cat(one(v1User("go"), v1Agent("a"), v1Env("nudge"), v1Agent("b"), v1Agent("c"))), RuleV1Monologue},
		{"ours: an action stops a monologue", cat(one(v1User("go"), v1Agent("a"), v1Terminal("t", "ls"), v1Agent("b"), v1Agent("c"))), ""},
	}
	for _, tc := range tests {
		d := v1Detector(t, tc.evs...)
		if got := d.IsStuck(); got != tc.want {
			t.Errorf("%s: is_stuck %q, want %q", tc.name, got, tc.want)
		}
	}
}

// test_repeating_action_error_nudges_before_stuck: 2 failing calls,
// nothing; the 3rd, a nudge but not stuck; the 4th, stuck and no nudge.
func TestOpenHandsV1ActionErrorNudge(t *testing.T) {
	d := v1Detector(t, v1User("Please run the invalid command"))
	action := v1Terminal("I need to run invalid_command", "invalid_command")
	errEv := v1Err("Command 'invalid_command' not found")
	for range 2 {
		d.Add(action)
		d.Add(errEv)
	}
	if d.IsStuck() != "" || d.Nudge() != "" {
		t.Fatal("stuck or nudged after 2 errors")
	}
	d.Add(action)
	d.Add(errEv)
	if d.IsStuck() != "" {
		t.Fatal("stuck after 3 errors")
	}
	// The same error event object is appended each time in the Python test:
	// the nudge remembers its id.
	errEv3 := *errEv
	errEv3.ID = v1Next()
	d2 := v1Detector(t, v1User("Please run the invalid command"), action, errEv, action, errEv, action, &errEv3)
	nudge := d2.Nudge()
	if !strings.Contains(nudge, "terminal") || !strings.Contains(nudge, "Command 'invalid_command' not found") {
		t.Fatalf("nudge %q", nudge)
	}
	d2.Add(action)
	d2.Add(errEv)
	// The Python test asserts only True: with 4 equal actions and 4 equal
	// errors, scenario 1 (an AgentErrorEvent is an ObservationBaseEvent)
	// holds before scenario 2.
	if d2.IsStuck() != RuleV1ActionObservation || d2.Nudge() != "" {
		t.Fatalf("after 4 errors: stuck %q, nudge %q", d2.IsStuck(), d2.Nudge())
	}
}

// The run loop's nudge tests (test_stuck_detector_nudge.py), with the
// loop's check (_check_stuck_or_nudge) before each agent step.
func TestOpenHandsV1RunLoopNudge(t *testing.T) {
	bad := func() []*OpenHandsV1Event {
		return []*OpenHandsV1Event{
			{Class: V1Action, Source: "agent", Key: "agent\x00\x00always_error_tool file_text", ID: v1Next(), Tool: "always_error_tool"},
			v1Err("Tool always_error_tool failed: file_text is required"),
		}
	}
	type result struct{ nudges, stuckAt int }
	// run feeds the steps, checking before each and once after the last
	// (the loop checks again unless the agent finished); nudges are added
	// to the history as the conversation adds them.
	run := func(steps [][]*OpenHandsV1Event, finished bool) result {
		d := v1Detector(t, v1User("Create a file"))
		var r result
		check := func(i int) bool {
			rule, nudge := d.Check()
			if nudge {
				r.nudges++
				d.Add(v1Env("nudge"))
				return false
			}
			if rule != "" {
				r.stuckAt = i
				return true
			}
			return false
		}
		for i, s := range steps {
			if check(i) {
				return r
			}
			for _, e := range s {
				d.Add(e)
			}
		}
		if !finished {
			check(len(steps))
		}
		return r
	}
	four := [][]*OpenHandsV1Event{bad(), bad(), bad(), bad()}
	if r := run(four, false); r != (result{nudges: 1, stuckAt: 4}) {
		t.Errorf("test_run_nudges_before_going_stuck_on_repeating_action_error: %+v, want a nudge after the 3rd error, stuck after the 4th", r)
	}
	finish := []*OpenHandsV1Event{{Class: V1Action, Source: "agent", Key: "agent\x00\x00finish", ID: v1Next(), Tool: "finish"},
		v1TerminalOut("done", "", 0)}
	if r := run([][]*OpenHandsV1Event{bad(), bad(), bad(), finish}, true); r != (result{nudges: 1}) {
		t.Errorf("test_run_recovers_after_nudge_when_model_self_corrects: %+v, want one nudge, not stuck", r)
	}
	// An empty response adds no action (the conversation's own corrective
	// message, from the environment): the streak is frozen on the same
	// error, which is not nudged again.
	empty := []*OpenHandsV1Event{v1Env("Your last response did not include a function call")}
	if r := run([][]*OpenHandsV1Event{bad(), bad(), bad(), empty, finish}, true); r != (result{nudges: 1}) {
		t.Errorf("test_run_does_not_renudge_action_error_while_streak_is_frozen: %+v, want one action-error nudge", r)
	}
}

// test_stuck_detector_config.py: thresholds are taken as given.
func TestOpenHandsV1Thresholds(t *testing.T) {
	c := DefaultOpenHandsV1Config()
	c.ActionObservation = 2
	d, err := NewOpenHandsV1(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cat1(v1User("go"), v1LsLoop(2)) {
		d.Add(e)
	}
	if d.IsStuck() != RuleV1ActionObservation {
		t.Error("action_observation 2: two repeats are not stuck")
	}
	c.ActionObservation = 0
	if _, err := NewOpenHandsV1(c); err == nil {
		t.Error("action_observation 0 accepted (ge=1)")
	}
}

func cat1(first *OpenHandsV1Event, rest []*OpenHandsV1Event) []*OpenHandsV1Event {
	return append([]*OpenHandsV1Event{first}, rest...)
}
