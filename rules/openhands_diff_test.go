package rules

// The OpenHands replay against the real StuckDetector. The cases of
// testdata/openhands/stuck-differential.json.gz (named scenarios for
// each reading of RULES.md §11, and 150 random streams) were written by
// the real event classes and event_to_dict (All-Hands-AI/OpenHands
// 156d068) in a scratch directory outside this repository, with stub
// modules for litellm and the controller's State; "asked" lists, for each
// event after which AgentController.should_step lets the controller ask,
// what the real stuck.py StuckDetector.is_stuck(headless_mode=True) said
// (its stuck_analysis.loop_type, "" for False). The test reads each
// stream with the OpenHands reader and asks the replay at the same
// events: every answer must be the same.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// openHandsLoopTypes maps StuckAnalysis.loop_type to the rule of the check.
var openHandsLoopTypes = map[string]string{
	"":                                     "",
	"repeating_action_observation":         detect.RuleRepeatActionObservation,
	"repeating_action_error":               detect.RuleRepeatActionError,
	"monologue":                            detect.RuleMonologue,
	"repeating_action_observation_pattern": detect.RuleAlternatingPair,
	"context_window_error":                 detect.RuleContextWindowError,
}

func TestOpenHandsAgainstRealStuckDetector(t *testing.T) {
	f, err := os.Open("../testdata/openhands/stuck-differential.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []struct {
			Name   string            `json:"name"`
			Events []json.RawMessage `json:"events"`
			Asked  []string          `json:"asked"`
		} `json:"cases"`
	}
	if err := json.NewDecoder(zr).Decode(&corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) < 150 {
		t.Fatalf("%d cases", len(corpus.Cases))
	}
	fired := 0
	for _, c := range corpus.Cases {
		var buf bytes.Buffer
		for _, e := range c.Events {
			buf.Write(e)
			buf.WriteByte('\n')
		}
		eps, err := replay.Read(&buf, c.Name, c.Name, replay.Options{Format: replay.FormatSteps, Preset: replay.PresetOpenHands, Strict: true})
		var noSteps *replay.NoEventsError
		if errors.As(err, &noSteps) {
			// Only a system prompt, user messages and null events: no
			// step to report on; the real detector must not fire either.
			for _, lt := range c.Asked {
				if lt != "" {
					t.Errorf("%s: no steps read, the real StuckDetector fires %s", c.Name, lt)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		d, err := detect.NewOpenHands(detect.DefaultOpenHandsConfig())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		ep := eps[0]
		for i := range ep.OpenHands {
			ev := &ep.OpenHands[i]
			rule := addOpenHandsEvent(d, ep, ev)
			if ev.Ask {
				got = append(got, rule)
			}
		}
		var want []string
		for _, lt := range c.Asked {
			r, ok := openHandsLoopTypes[lt]
			if !ok {
				t.Fatalf("%s: unknown loop_type %q", c.Name, lt)
			}
			want = append(want, r)
			if r != "" {
				fired++
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: asked %d times, the controller %d times", c.Name, len(got), len(want))
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: ask %d: replay %q, real StuckDetector %q", c.Name, i+1, got[i], want[i])
			}
		}
	}
	if fired < 100 {
		t.Errorf("only %d firings in the corpus: it tests little", fired)
	}
}

// A delegate's events feed its own StuckDetector, not the parent's
// (AgentController.on_event forwards them; start_delegate gives the
// delegate its own): a message the parent says twice and the delegate
// once is no monologue of either; four ls calls in the delegate are four
// in its history.
func TestOpenHandsDelegates(t *testing.T) {
	id := 0
	ev := func(s string) string {
		id++
		return strings.Replace(s, "{", fmt.Sprintf(`{"id": %d, `, id), 1)
	}
	ls := func() string {
		return ev(`{"source": "agent", "action": "run", "args": {"command": "ls", "thought": ""}}`) + "\n" +
			ev(fmt.Sprintf(`{"source": "agent", "cause": %d, "observation": "run", "content": "a", "extras": {"command": "ls", "metadata": {"exit_code": 0}}}`, id)) + "\n"
	}
	delegate := func() string {
		return ev(`{"source": "agent", "action": "delegate", "args": {"agent": "BrowsingAgent", "inputs": {"task": "t"}, "thought": ""}}`) + "\n" +
			ev(`{"source": "user", "action": "message", "args": {"content": "TASK: t", "wait_for_response": false}}`) + "\n"
	}
	back := func() string {
		return ev(`{"source": "agent", "observation": "delegate", "content": "done", "extras": {"outputs": {}}}`) + "\n"
	}
	firings := func(log string) []string {
		t.Helper()
		eps, err := replay.Read(strings.NewReader(log), "d", "d", replay.Options{Format: replay.FormatSteps, Preset: replay.PresetOpenHands, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		Run(eps[0], Default(), Registry, func(f Firing) {
			if f.Rule.Origin == OriginOpenHands {
				got = append(got, fmt.Sprintf("%d:%s", f.Turn, f.Rule.Name))
			}
		})
		return got
	}
	say := func() string {
		return ev(`{"source": "agent", "action": "message", "args": {"content": "I will look.", "wait_for_response": false}}`) + "\n"
	}
	if got := firings(say() + say() + delegate() + say() + back()); got != nil {
		t.Errorf("a message said twice by the parent, once by the delegate: %v, want no monologue", got)
	}
	if got := firings(ls() + delegate() + ls() + ls() + ls() + ls() + back()); strings.Join(got, " ") != "6:repeat_action_observation" {
		t.Errorf("four in the delegate: %v, want 6:repeat_action_observation", got)
	}
	// A delegation that ended is let go: the next delegate at its level
	// starts a detector of its own (engine.detector's parent, told
	// inline, drops it), so two ls calls in each are no four.
	if got := firings(delegate() + ls() + ls() + back() + delegate() + ls() + ls() + back()); got != nil {
		t.Errorf("two in each of two delegates: %v, want none", got)
	}
}

// Each OpenHands detector runs on its own version's logs only.
func TestOpenHandsVersionsApart(t *testing.T) {
	v0 := &replay.Episode{Format: replay.FormatSteps, Preset: replay.PresetOpenHands}
	v1 := &replay.Episode{Format: replay.FormatSteps, Preset: replay.PresetOpenHandsV1}
	cfg := Default()
	for _, r := range []*Rule{RepeatActionObservation, Monologue, ContextWindowError} {
		if !r.AppliesTo(v0, cfg) || r.AppliesTo(v1, cfg) {
			t.Errorf("%s: on V0 %v, on V1 %v", r.Name, r.AppliesTo(v0, cfg), r.AppliesTo(v1, cfg))
		}
	}
	for _, r := range []*Rule{V1RepeatActionObservation, V1RepeatActionError, V1Monologue, V1AlternatingPattern} {
		if r.AppliesTo(v0, cfg) || !r.AppliesTo(v1, cfg) {
			t.Errorf("%s: on V0 %v, on V1 %v", r.Name, r.AppliesTo(v0, cfg), r.AppliesTo(v1, cfg))
		}
	}
}
