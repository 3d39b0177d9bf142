package cmd

import (
	"strings"
	"testing"
)

// The agents' own logs (testdata/agents: fixtures written by hand in the
// shape each agent writes).
var (
	claudeCodeLog = "../testdata/agents/claude-code/projects/-home-dev-calc/3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37.jsonl"
	codexLog      = "../testdata/agents/codex/sessions/2026/11/20/rollout-2026-11-20T11-00-00-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl"
	sweAgentLog   = "../testdata/agents/swe-agent/run/calc__calc-1.traj"
	clineLog      = "../testdata/agents/cline/tasks/1763632800000/api_conversation_history.json"
	aiderLog      = "../testdata/agents/aider/calc/.aider.chat.history.md"
	rooLog        = "../testdata/agents/roo/tasks/0b7c9e2a-4f1d-4a8e-9c3b-5d6e7f8a9b0c/api_conversation_history.json"
	// Live verdicts the replay does not share (testdata/agents-live: out of
	// the folder whose scan the reader tests pin).
	clineLiveLog = "../testdata/agents-live/cline/tasks/1763650000000/api_conversation_history.json"
	rooLiveLog   = "../testdata/agents-live/roo/tasks/5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f/api_conversation_history.json"
)

// TestAgentReadersGolden pins analyze on each agent's log, detected from
// its content and forced with --input-format.
func TestAgentReadersGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"agents/claude-code.txt", []string{"analyze", claudeCodeLog}},
		{"agents/claude-code.json", []string{"analyze", "--format", "json", claudeCodeLog}},
		{"agents/codex.txt", []string{"analyze", codexLog}},
		{"agents/codex.json", []string{"analyze", "--format", "json", codexLog}},
		{"agents/swe-agent.txt", []string{"analyze", sweAgentLog}},
		{"agents/swe-agent.json", []string{"analyze", "--format", "json", sweAgentLog}},
		{"agents/cline.txt", []string{"analyze", clineLog}},
		{"agents/cline.json", []string{"analyze", "--format", "json", clineLog}},
		{"agents/roo.txt", []string{"analyze", "--input-format", "roo", rooLog}},
		{"agents/roo.json", []string{"analyze", "--format", "json", "--input-format", "roo", rooLog}},
		{"agents/cline-live-disagrees.txt", []string{"analyze", clineLiveLog}},
		{"agents/cline-live-disagrees.json", []string{"analyze", "--format", "json", clineLiveLog}},
		{"agents/roo-live-disagrees.txt", []string{"analyze", "--input-format", "roo", rooLiveLog}},
		{"agents/roo-live-limit2.txt", []string{"analyze", "--input-format", "roo", "--set", "roo_consecutive_mistake_limit=2", rooLiveLog}},
		{"agents/aider.txt", []string{"analyze", aiderLog}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
			ios, _, out, errOut := Test()
			if code := Main(c.args, ios); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "analyze/"+c.name, out.String())
		})
	}
}

// --input-format NAME (and its alias --preset NAME) forces an agent's
// reader; the input reports it, not as detected.
func TestAgentReadersForced(t *testing.T) {
	for _, c := range []struct {
		log, name string
	}{{claudeCodeLog, "claude-code"}, {codexLog, "codex"}, {sweAgentLog, "swe-agent"}, {clineLog, "cline"}, {aiderLog, "aider"}} {
		for _, flag := range []string{"--input-format", "--preset"} {
			_, in := firingsOf(t, flag, c.name, c.log)
			if in["preset"] != c.name || in["detected"] == true {
				t.Errorf("%s %s: input %v", flag, c.name, in)
			}
		}
		_, in := firingsOf(t, c.log)
		if in["preset"] != c.name || in["detected"] != true {
			t.Errorf("auto %s: input %v", c.name, in)
		}
	}
}

// A Cline task's ui_messages.json is recognised and refused, pointing to
// the file the steps are read from.
func TestClineUIMessagesRefused(t *testing.T) {
	ios, _, _, errOut := Test()
	if code := Main([]string{"analyze", "../testdata/agents/cline/tasks/1763632800000/ui_messages.json"}, ios); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "read from the task's api_conversation_history.json") {
		t.Errorf("stderr %q does not point to api_conversation_history.json", errOut)
	}
}

// Cline's and Roo Code's checks fire on their fixtures where the agents'
// own detectors fired live: Cline's warning after the third identical
// npm test (step 11) and its mistake limit at the fifth (step 15); Roo's
// refusal of the fourth identical read_file (step 7).
func TestAgentRepeatFirings(t *testing.T) {
	fs, _ := firingsOf(t, clineLog)
	if got, want := pick(fs, "step", "cline_repeated_tool"), []string{"11 cline_repeated_tool/feedback cline", "15 cline_repeated_tool/stop cline"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cline: %q, want %q", got, want)
	}
	fs, _ = firingsOf(t, "--input-format", "roo", rooLog)
	if got, want := pick(fs, "step", "roo_tool_repetition"), []string{"7 roo_tool_repetition/stop roo"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("roo: %q, want %q", got, want)
	}
	// Goose's is off by default; on, it denies the fourth identical read.
	fs, _ = firingsOf(t, "--set", "enable_goose=true", "--input-format", "roo", rooLog)
	if got, want := pick(fs, "step", "goose_repetition"), []string{"7 goose_repetition/stop goose"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("goose: %q, want %q", got, want)
	}
}
