package rules_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// repeatEp is a steps episode read as preset: each call is an action
// step ("name {json}"), "" a message step between them.
func repeatEp(preset string, calls ...string) *replay.Episode {
	ep := &replay.Episode{ID: "t", Format: replay.FormatSteps, Preset: preset, LocationKey: replay.KeyRoomName}
	for i, c := range calls {
		kind := replay.StepAction
		if c == "" {
			kind = replay.StepMessage
		}
		ep.AppendRows(replay.Row{N: i + 1, Action: c, HasAction: c != ""})
		ep.Outputs = append(ep.Outputs, ep.Sym("out"))
		ep.Steps = append(ep.Steps, replay.StepInfo{Kind: kind})
	}
	return ep
}

// repeatFirings runs rule over the calls and lists "step kind".
func repeatFirings(t *testing.T, rule *rules.Rule, preset string, set map[string]any, calls ...string) []string {
	t.Helper()
	cfg := rules.Default()
	for k, v := range set {
		if err := cfg.Set(k, v, rules.Source{}); err != nil {
			t.Fatal(err)
		}
	}
	ep := repeatEp(preset, calls...)
	if !rule.AppliesTo(ep, cfg) {
		t.Fatalf("%s does not apply to preset %q", rule.Name, preset)
	}
	out := []string{}
	rules.Run(ep, cfg, []*rules.Rule{rule}, func(f rules.Firing) {
		if f.Rule == rule {
			out = append(out, fmt.Sprintf("%d %s", f.Turn, f.Kind.Name))
		}
	})
	return out
}

func times(n int, call string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = call
	}
	return out
}

func cat(parts ...[]string) []string { return slices.Concat(parts...) }

// Cline's own tests (cline/cline src/core/task/__tests__/loop-detection.test.ts
// at 60c5f9f), case for case, and the readings of the code they imply.
func TestClineRepeatedTool(t *testing.T) {
	main := `read_file {"path":"src/main.ts"}`
	progress := func(i int) string {
		return fmt.Sprintf(`read_file {"path":"src/index.ts","task_progress":"step %d of 5"}`, i)
	}
	cases := []struct {
		name  string
		calls []string
		want  []string
	}{
		{"toolCallSignature: identical output regardless of key order",
			[]string{`read_file {"b":"2","a":"1"}`, `read_file {"a":"1","b":"2"}`, `read_file {"b":"2","a":"1"}`}, []string{"3 feedback"}},
		{"should warn at 3 identical calls and escalate at 5", times(5, main), []string{"3 feedback", "5 stop"}},
		{"should reset when tool or params change (then counts from 1)",
			[]string{`read_file {"path":"a.ts"}`, `read_file {"path":"a.ts"}`, `read_file {"path":"b.ts"}`, `read_file {"path":"b.ts"}`,
				`list_files {"path":"b.ts"}`, `list_files {"path":"b.ts"}`, `list_files {"path":"b.ts"}`},
			[]string{"7 feedback"}},
		{"should NOT count different tools with same params as identical",
			[]string{`read_file {"path":"src/main.ts"}`, `search_files {"path":"src/main.ts"}`, `list_files {"path":"src/main.ts"}`}, []string{}},
		{"should strip task_progress from comparison",
			[]string{progress(0), progress(1), progress(2), progress(3), progress(4)}, []string{"3 feedback", "5 stop"}},
		// checkRepeatedToolCall compares with ===: a longer run fires at 3 and 5 only.
		{"a run of 7 fires at the thresholds only", times(7, main), []string{"3 feedback", "5 stop"}},
		// Only tool calls reach the check: messages between them change nothing.
		{"messages between calls", []string{main, "", main, "", main}, []string{"5 feedback"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := repeatFirings(t, rules.ClineRepeat, replay.PresetCline, nil, c.calls...)
			if !slices.Equal(got, c.want) {
				t.Errorf("firings %q, want %q", got, c.want)
			}
		})
	}
}

// Roo Code's own tests (RooCodeInc/Roo-Code
// src/core/tools/__tests__/ToolRepetitionDetector.spec.ts at 1ad5afb), case
// for case. Two cannot be replayed and are left out: the tool name in the
// refusal's message (loopbreak reports the step, not Roo's words) and
// "different tool names with identical serialized JSON" (it replaces the
// private serializer with a mock).
func TestRooToolRepetition(t *testing.T) {
	tool := `test-tool {}`
	scrollDown := `browser_action {"action":"scroll_down"}`
	scrollUp := `browser_action {"action":"scroll_up"}`
	cmd := `execute_command {"command":"ls"}`
	read := `read_file {"path":"test.txt"}`
	native := func(paths ...string) string {
		var fs []string
		for _, p := range paths {
			fs = append(fs, `{"path":"`+p+`"}`)
		}
		return `read_file {"files":[` + strings.Join(fs, ",") + `]}`
	}
	cases := []struct {
		name  string
		limit any // nil: the default
		calls []string
		want  []string
	}{
		{"should default to a limit of 3 if no argument provided", nil, times(4, tool), []string{"4 stop"}},
		{"should use the custom limit when provided", 2, times(3, tool), []string{"3 stop"}},
		{"should allow execution for different tool calls", nil, []string{`first-tool {}`, `second-tool {}`, `third-tool {}`}, []string{}},
		{"should reset the counter when different tool calls are made", 2, []string{`same-tool {}`, `different-tool {}`, `same-tool {}`}, []string{}},
		{"should allow execution when repetition is below limit and block when limit reached", 3, times(4, `repeat-tool {}`), []string{"4 stop"}},
		{"should block execution when repetition reaches the limit", 3, times(4, `repeat-tool {}`), []string{"4 stop"}},
		{"should reset internal state after limit is reached", 2, cat(times(3, `repeat-tool {}`), []string{`new-tool {}`}), []string{"3 stop"}},
		{"should allow execution of previously problematic tool after reset", 2, times(4, `problem-tool {}`), []string{"3 stop"}},
		{"should require reaching the limit again after reset", 2, times(6, `repeat-tool {}`), []string{"3 stop", "6 stop"}},
		{"should handle empty tool call", 2, times(3, `empty-tool {}`), []string{"3 stop"}},
		{"should treat tools with same parameters in different order as identical", 2,
			[]string{`same-tool {"a":"1","b":"2","c":"3"}`, `same-tool {"c":"3","a":"1","b":"2"}`, `same-tool {"b":"2","c":"3","a":"1"}`}, []string{"3 stop"}},
		{"should allow the 1st call but block on the 2nd call for limit 1", 1, times(2, `tool-name {}`), []string{"2 stop"}},
		{"should allow first 2 calls but block on the 3rd call for limit 2", 2, times(3, `tool-name {}`), []string{"3 stop"}},
		{"should allow first 3 calls but block on the 4th call for limit 3 (default)", 3, times(4, `tool-name {}`), []string{"4 stop"}},
		{"should never block when limit is 0 (unlimited)", 0, times(10, `tool-name {}`), []string{}},
		{"should handle different limits correctly", 5, times(6, `tool-name {}`), []string{"6 stop"}},
		{"should reset counter after blocking and allow new attempts", 2, times(4, `tool-name {}`), []string{"3 stop"}},
		{"should handle negative limits as 0 (unlimited)", -1, times(5, `tool-name {}`), []string{}},
		{"should not count browser scroll_down actions as repetitions", 2, times(10, scrollDown), []string{}},
		{"should not count browser scroll_up actions as repetitions", 2, times(10, scrollUp), []string{}},
		{"should not count alternating scroll_down and scroll_up as repetitions", 2,
			cat(times(1, scrollDown), times(1, scrollUp), times(1, scrollDown), times(1, scrollUp), times(1, scrollDown), times(1, scrollUp)), []string{}},
		{"should still apply repetition detection to other browser_action types", 2,
			times(3, `browser_action {"action":"click","coordinate":"[100, 200]"}`), []string{"3 stop"}},
		{"should still apply repetition detection to non-browser tools", 2, times(3, read), []string{"3 stop"}},
		{"should not interfere with repetition detection of other tools when scroll actions are interspersed", 2,
			[]string{cmd, scrollDown, scrollDown, cmd, scrollDown, cmd}, []string{"6 stop"}},
		{"should handle browser_action with missing or invalid action parameter gracefully", 2, times(3, `browser_action {}`), []string{"3 stop"}},
		{"should differentiate read_file calls with different files in nativeArgs", 2,
			[]string{native("file1.ts"), native("file2.ts"), native("file1.ts")}, []string{}},
		{"should detect repetition when same files are read multiple times with nativeArgs", 2, times(3, native("same-file.ts")), []string{"3 stop"}},
		{"should differentiate read_file calls with multiple files in different orders", 2,
			[]string{native("a.ts", "b.ts"), native("b.ts", "a.ts")}, []string{}},
		{"should handle tools with both params and nativeArgs", 2,
			[]string{`execute_command {"command":"ls","cwd":"/home/user"}`, `execute_command {"command":"ls","cwd":"/home/admin"}`}, []string{}},
		{"should handle tools with only params (no nativeArgs)", 2, times(3, read), []string{"3 stop"}},
		// serializeToolUse sorts the top-level keys only: nested objects
		// keep the order they were sent in.
		{"nested key order counts", 2,
			[]string{`t {"o":{"a":1,"b":2}}`, `t {"o":{"b":2,"a":1}}`, `t {"o":{"a":1,"b":2}}`}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]any{}
			if c.limit != nil {
				set["roo_consecutive_mistake_limit"] = c.limit
			}
			got := repeatFirings(t, rules.RooRepeat, replay.PresetRoo, set, c.calls...)
			if !slices.Equal(got, c.want) {
				t.Errorf("firings %q, want %q", got, c.want)
			}
		})
	}
}

// Goose's own test (block/goose crates/goose/tests/repetition_inspector_tests.rs
// at 0dcb08a, test_repetition_inspector_denies_after_exceeding_and_resets_on_param_change),
// and the readings of check_tool_call it implies.
func TestGooseRepetition(t *testing.T) {
	v1, v2 := `fetch_user {"id":123}`, `fetch_user {"id":456}`
	cases := []struct {
		name  string
		max   any
		calls []string
		want  []string
	}{
		{"denies after exceeding and resets on param change", 2, cat(times(3, v1), times(3, v2)), []string{"3 stop", "6 stop"}},
		// A denial does not clear the count: every further identical call is denied.
		{"every call past the limit is denied", 2, times(5, v1), []string{"3 stop", "4 stop", "5 stop"}},
		// serde_json equality: key order does not count, at any depth.
		{"key order does not count", 1, []string{`t {"a":{"x":1,"y":2},"b":1}`, `t {"b":1,"a":{"y":2,"x":1}}`}, []string{"2 stop"}},
		{"the default is 3", nil, times(4, v1), []string{"4 stop"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]any{"enable_goose": true}
			if c.max != nil {
				set["goose_max_tool_repetitions"] = c.max
			}
			got := repeatFirings(t, rules.GooseRepeat, "", set, c.calls...)
			if !slices.Equal(got, c.want) {
				t.Errorf("firings %q, want %q", got, c.want)
			}
		})
	}
	if rules.GooseRepeat.Enabled(rules.Default()) {
		t.Error("goose_repetition is on by default; Goose leaves max_tool_repetitions unset")
	}
}

// Each agent's check runs on that agent's logs only (Goose's, off by
// default, on any steps log).
func TestAgentRepeatAppliesTo(t *testing.T) {
	cfg := rules.Default()
	for _, c := range []struct {
		rule   *rules.Rule
		preset string
		want   bool
	}{
		{rules.ClineRepeat, replay.PresetCline, true},
		{rules.ClineRepeat, replay.PresetRoo, false},
		{rules.ClineRepeat, "", false},
		{rules.RooRepeat, replay.PresetRoo, true},
		{rules.RooRepeat, replay.PresetCline, false},
		{rules.GooseRepeat, "", true},
		{rules.GooseRepeat, replay.PresetClaudeCode, true},
	} {
		if got := c.rule.AppliesTo(repeatEp(c.preset, "a {}"), cfg); got != c.want {
			t.Errorf("%s on %q: %v, want %v", c.rule.Name, c.preset, got, c.want)
		}
	}
	if rules.ClineRepeat.AppliesTo(&replay.Episode{Format: replay.FormatZorkGPT}, cfg) {
		t.Error("cline_repeated_tool applies to a ZorkGPT log")
	}
}
