package rules_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestFollowersSkippedAsStepped: a replay that skips the OpenHands (V0
// and V1) and Gemini CLI detectors' checks on the turns their detector
// found nothing for them reports the firings, in the order, of one
// stepping every check at every turn, over the committed agents' logs and
// random OpenHands, V1, Gemini CLI and steps logs, under the default configuration
// and with every rule on; and each check fires in them, so a skip that
// drops a firing fails.
func TestFollowersSkippedAsStepped(t *testing.T) {
	var logs [][2]string // name, data
	for _, f := range replaytest.CommittedAgentLogs(filepath.Join("..", "testdata")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, [2]string{f, string(data)})
	}
	rng := rand.New(rand.NewPCG(8, 24))
	for trial := range 40 {
		logs = append(logs,
			[2]string{fmt.Sprintf("openhands-%d.jsonl", trial), string(replaytest.OpenHandsLog(rng, 5+rng.IntN(300)))},
			[2]string{fmt.Sprintf("gemini-%d.jsonl", trial), string(replaytest.GeminiLog(rng, 5+rng.IntN(400), trial%4 == 1, trial%4 == 2, trial%4 == 3))},
			[2]string{fmt.Sprintf("steps-%d.jsonl", trial), string(replaytest.StepsLog(rng, 1+rng.IntN(400), -1))},
			[2]string{fmt.Sprintf("checks-%d.jsonl", trial), checksLog(rng, 1+rng.IntN(300))},
			[2]string{fmt.Sprintf("v1-%d.jsonl", trial), string(replaytest.V1Log(rng, 5+rng.IntN(300)))},
			[2]string{fmt.Sprintf("v1-alternating-%d.jsonl", trial), v1Alternating(rng, 1+rng.IntN(40))})
	}
	fired := map[*rules.Rule]int{}
	for _, cfg := range []*rules.Config{rules.Default(), allOn(t)} {
		for _, log := range logs {
			eps, err := replay.Read(bytes.NewReader([]byte(log[1])), log[0], "x", replay.Options{Format: replay.FormatAuto, Outputs: true})
			if err != nil {
				continue // a log of a shape read from files only: TestReadReplayEqualsRun reads it
			}
			for i, ep := range eps {
				var want, got []rules.Firing
				was := rules.FoldFollowers(false)
				rules.Run(ep, cfg, nil, func(f rules.Firing) { want = append(want, f) })
				rules.FoldFollowers(true)
				rules.Run(ep, cfg, nil, func(f rules.Firing) { got = append(got, f) })
				rules.FoldFollowers(was)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: episode %d: checks skipped: %d firings, stepped: %d\n%s", log[0], i, len(got), len(want), firstDiff(got, want))
				}
				for _, f := range want {
					fired[f.Rule]++
				}
			}
		}
	}
	for _, r := range []*rules.Rule{rules.RepeatActionObservation, rules.RepeatActionError, rules.Monologue,
		rules.AlternatingPair, rules.ContextWindowError, rules.ToolCycle, rules.ContentChanting, rules.LLMLoopCheck,
		rules.V1RepeatActionObservation, rules.V1RepeatActionError, rules.V1Monologue, rules.V1AlternatingPattern} {
		if fired[r] == 0 {
			t.Errorf("%s never fired: the test does not hold its skip", r.Name)
		}
	}
}

// checksLog writes a random steps log of runs that make each OpenHands
// check fire (actions and outputs alternating, condensations back to
// back, repeated messages and errors) and logged LLM loop verdicts.
func checksLog(rng *rand.Rand, steps int) string {
	var b bytes.Buffer
	for n := 1; n <= steps; {
		run := 1 + rng.IntN(12)
		switch rng.IntN(5) {
		case 0: // A-B-A-B
			for i := range run {
				fmt.Fprintf(&b, `{"step": %d, "action": "act %d", "output": "out %d"}`+"\n", n, i%2, i%2)
				n++
			}
		case 1:
			for range run {
				fmt.Fprintf(&b, `{"step": %d, "kind": "condensation", "output": "summary"}`+"\n", n)
				n++
			}
		case 2:
			for range run {
				fmt.Fprintf(&b, `{"step": %d, "kind": "message", "output": "I will try again"}`+"\n", n)
				n++
			}
		case 3:
			for range run {
				fmt.Fprintf(&b, `{"step": %d, "action": "make", "output": "boom", "error": true}`+"\n", n)
				n++
			}
		default:
			fmt.Fprintf(&b, `{"step": %d, "action": "ls %d", "output": "a", "llm_loop": %v}`+"\n", n, rng.IntN(3), rng.IntN(2) == 0)
			n++
		}
	}
	return b.String()
}

// v1Alternating writes an OpenHands V1 event log (replaytest.V1Log's
// shape) of calls alternating between two commands and their outputs,
// runs of one command and agent messages between them: V1's
// alternating-pattern check fires, and the others.
func v1Alternating(rng *rand.Rand, calls int) string {
	var b bytes.Buffer
	id := 0
	emit := func(kind, source, format string, args ...any) {
		id++
		fmt.Fprintf(&b, `{"id":"ev-%d","timestamp":"2026-06-16T05:00:00","source":%q,`, id, source)
		fmt.Fprintf(&b, format, args...)
		fmt.Fprintf(&b, `,"kind":%q}`+"\n", kind)
	}
	for c := 1; c <= calls; c++ {
		if rng.IntN(8) == 0 {
			emit("MessageEvent", "agent", `"llm_message":{"role":"assistant","content":[{"type":"text","text":"again"}]}`)
		}
		i := c % 2
		if rng.IntN(4) == 0 {
			i = 0
		}
		emit("ActionEvent", "agent", `"thought":[],"action":{"command":"cmd %d","kind":"TerminalAction"},"tool_name":"terminal","tool_call_id":"call-%d","llm_response_id":"resp-%d"`, i, c, c)
		emit("ObservationEvent", "environment", `"tool_name":"terminal","tool_call_id":"call-%d","observation":{"content":[{"type":"text","text":"out %d"}],"is_error":false,"exit_code":0,"kind":"TerminalObservation"}`, c, i)
	}
	return b.String()
}
