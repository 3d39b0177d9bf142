package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// OpenHands logs written by the real event classes and event_to_dict
// (All-Hands-AI/OpenHands 156d068) with our own content, each ending in
// the verdict the controller records when is_stuck fires (an
// AgentStateChangedObservation: agent_state error, reason
// AgentStuckInLoopError).
var (
	openHandsLiveStuck     = "../testdata/openhands/live-stuck.jsonl"
	openHandsLiveDisagrees = "../testdata/openhands/live-disagrees.jsonl"
	// An evaluation output.jsonl: three instances, one a line (the third
	// with the 2024 [action, observation] pairs); two end in the stuck
	// error, where the real stuck.py fires too.
	openHandsEvalOutput = "../testdata/openhands/output.jsonl"
	// OpenHands V1 events, one per line, in the shape of the SDK's own
	// fixture (tests/sdk/conversation/goal/fixtures/events.jsonl): four
	// equal calls and the stuck status; three failing calls, the nudge
	// message, a fourth and the stuck status.
	openHandsV1Stuck = "../testdata/openhands/v1-stuck.jsonl"
	openHandsV1Nudge = "../testdata/openhands/v1-nudge.jsonl"
)

// TestOpenHandsLiveGolden pins analyze's text and JSON for a recorded
// verdict the replay shares (repeat_action_observation at step 5, where
// the real stuck.py fires too) and one it does not (each retry has its own
// thought: the real stuck.py does not fire).
func TestOpenHandsLiveGolden(t *testing.T) {
	cases := []struct{ name, log, format string }{
		{"steps/openhands-live-stuck.txt", openHandsLiveStuck, "text"},
		{"steps/openhands-live-stuck.json", openHandsLiveStuck, "json"},
		{"steps/openhands-live-disagrees.txt", openHandsLiveDisagrees, "text"},
		{"steps/openhands-eval-output.txt", openHandsEvalOutput, "text"},
		{"steps/openhands-v1-stuck.txt", openHandsV1Stuck, "text"},
		{"steps/openhands-v1-nudge.txt", openHandsV1Nudge, "text"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
			ios, _, out, errOut := Test()
			if code := Main([]string{"analyze", "--format", c.format, c.log}, ios); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "analyze/"+c.name, out.String())
		})
	}
}

// TestOpenHandsLiveVerdict: the live verdict read and reconciled.
func TestOpenHandsLiveVerdict(t *testing.T) {
	for _, c := range []struct {
		log    string
		agrees bool
	}{{openHandsLiveStuck, true}, {openHandsLiveDisagrees, false}, {openHandsV1Stuck, true}, {openHandsV1Nudge, true}} {
		ios, _, out, errOut := Test()
		if code := Main([]string{"analyze", "--format", "json", c.log}, ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want := regexp.MustCompile(`"live":\{"events":[1-9][0-9]*,"agrees":` + map[bool]string{true: "true", false: "false"}[c.agrees])
		if !want.MatchString(out.String()) {
			t.Errorf("%s: no %s in\n%s", c.log, want, out)
		}
	}
}

// A recorded V1 nudge the replay does not give (one failing call fewer
// before it) is a disagreement, step by step.
func TestOpenHandsV1NudgeDisagrees(t *testing.T) {
	data, err := os.ReadFile(openHandsV1Nudge)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var kept []string
	for i, l := range lines {
		if i == 4 || i == 5 { // the first call and its error
			continue
		}
		kept = append(kept, l)
	}
	path := filepath.Join(t.TempDir(), "nudge.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, out, errOut := Test()
	if code := Main([]string{"analyze", path}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "step 2 openhands_v1_nudge: live logged; replay none") {
		t.Errorf("no nudge disagreement at step 2 in\n%s", out)
	}
}
