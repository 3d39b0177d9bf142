package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readOpenHands(t *testing.T, log string) *Episode {
	t.Helper()
	eps, err := Read(strings.NewReader(log), "in.jsonl", "in", Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	if eps[0].Preset != PresetOpenHands {
		t.Fatalf("read as %s/%s", eps[0].Format, eps[0].Preset)
	}
	return eps[0]
}

// Events in event_to_dict's shape (keys in its order: id, timestamp,
// source, message, cause, action/observation, tool_call_metadata, then
// args or content, extras and success).
const ohLog = `{"id": 0, "timestamp": "2025-11-20T10:00:00", "source": "agent", "message": "sys", "action": "system", "args": {"content": "You are OpenHands agent.", "tools": null, "openhands_version": "0.62.0", "agent_class": "CodeActAgent"}}
{"id": 1, "timestamp": "2025-11-20T10:00:01", "source": "user", "message": "Fix it.", "action": "message", "args": {"content": "Fix it.", "file_urls": null, "image_urls": null, "wait_for_response": false, "security_risk": -1}}
{"id": 2, "timestamp": "2025-11-20T10:00:02", "source": "user", "message": "Retrieving content for: Fix it.", "action": "recall", "args": {"recall_type": "knowledge", "query": "Fix it.", "thought": ""}}
{"id": 3, "timestamp": "2025-11-20T10:00:03", "source": "environment", "message": "No observation", "cause": 1, "observation": "null", "content": "", "extras": {}}
{"id": 4, "timestamp": "2025-11-20T10:00:04", "source": "agent", "message": "Running command: ls", "action": "run", "args": {"command": "ls", "is_input": false, "thought": "Look.", "blocking": false, "is_static": false, "cwd": null, "hidden": false, "confirmation_state": "confirmed", "security_risk": -1}}
{"id": 5, "timestamp": "2025-11-20T10:00:05", "source": "agent", "message": "Command ` + "`ls`" + ` executed with exit code 0.", "cause": 4, "observation": "run", "content": "a.py", "extras": {"command": "ls", "metadata": {"exit_code": 0, "pid": 7, "username": null, "hostname": null, "working_dir": null, "py_interpreter_path": null, "prefix": "", "suffix": ""}, "hidden": false}, "success": true}
{"id": 6, "timestamp": "2025-11-20T10:00:06", "source": "agent", "message": "Running command: git diff", "action": "run", "args": {"command": "git diff", "is_input": false, "thought": "", "blocking": false, "is_static": false, "cwd": null, "hidden": true, "confirmation_state": "confirmed", "security_risk": -1}}
{"id": 7, "timestamp": "2025-11-20T10:00:07", "source": "agent", "message": "Running Python code interactively: x = (", "action": "run_ipython", "args": {"code": "x = (", "thought": "", "include_extra": true, "confirmation_state": "confirmed", "kernel_init_code": "", "security_risk": -1}}
{"id": 8, "timestamp": "2025-11-20T10:00:08", "source": "agent", "message": "Code executed in IPython cell.", "cause": 7, "observation": "run_ipython", "content": "SyntaxError", "extras": {"code": "x = (", "image_urls": null}, "success": true}
{"id": 9, "timestamp": "2025-11-20T10:00:09", "source": "agent", "message": "Summary: s", "action": "condensation", "args": {"forgotten_event_ids": [1], "forgotten_events_start_id": null, "forgotten_events_end_id": null, "summary": "s", "summary_offset": 1}}
{"id": 10, "timestamp": "2025-11-20T10:00:10", "source": "environment", "message": "Trimming", "observation": "condense", "content": "Trimming", "extras": {}}
{"id": 11, "timestamp": "2025-11-20T10:00:11", "source": "agent", "message": "Done?", "action": "message", "args": {"content": "Done?", "file_urls": null, "image_urls": null, "wait_for_response": true, "security_risk": -1}}
{"id": 12, "timestamp": "2025-11-20T10:00:12", "source": "environment", "message": "", "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "error", "reason": "AgentStuckInLoopError: Agent got stuck in a loop"}}
`

func TestOpenHandsHistory(t *testing.T) {
	ep := readOpenHands(t, ohLog)
	type ev struct {
		n         int32
		class     OpenHandsClass
		inHistory bool
		ask       bool
	}
	// system and recall stay in the history; the user message too (is_stuck
	// drops it); the null observation caused by the user message (cause 1)
	// asks; the hidden command is not there; the condensation action is an
	// action that asks, the condense observation an AgentCondensation.
	want := []ev{
		{1, OHOtherAction, true, false}, // system
		{1, OHUserMessage, true, true},
		{1, OHOtherAction, true, false}, // recall
		{1, OHNull, false, true},        // null, cause 1
		{1, OHOtherAction, true, false}, // run ls: step 1
		{1, OHCmdObs, true, true},
		{3, OHIPythonAction, true, false}, // step 2 is the hidden git diff
		{3, OHIPythonObs, true, true},
		{4, OHOtherAction, true, true}, // condensation: step 4
		{5, OHCondensation, true, true},
		{6, OHAgentMessage, true, false}, // waits for a response
	}
	if len(ep.OpenHands) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(ep.OpenHands), len(want), ep.OpenHands)
	}
	for i, w := range want {
		e := ep.OpenHands[i]
		if (ev{e.N, e.Class, e.InHistory, e.Ask}) != w {
			t.Errorf("event %d: %+v, want %+v", i, e, w)
		}
	}
	if got := ep.Str(ep.OpenHands[5].Key); got != "c:ls\x000" {
		t.Errorf("CmdOutputObservation key %q: want command and exit code", got)
	}
	if got := ep.Str(ep.OpenHands[6].Text); got != "x = (" {
		t.Errorf("IPython code %q", got)
	}
	if len(ep.Live) != 1 || ep.Live[0].Kind != LiveOpenHandsStuck || ep.Live[0].Turn != 6 {
		t.Errorf("live %+v, want the stuck verdict at step 6", ep.Live)
	}
	if len(ep.Turns) != 6 {
		t.Errorf("%d steps, want 6", len(ep.Turns))
	}
}

// The key holds every field, thought included, whatever the key order and
// however a number is written; CmdOutputObservation's only command and
// exit code.
func TestOpenHandsKeys(t *testing.T) {
	key := func(line string) string {
		t.Helper()
		ep := readOpenHands(t, line+"\n")
		return ep.Str(ep.OpenHands[0].Key)
	}
	a := key(`{"id": 1, "source": "agent", "action": "run", "args": {"command": "ls", "thought": "a", "blocking": false, "timeout": 1}}`)
	sameA := key(`{"id": 9, "source": "agent", "action": "run", "timeout": 3, "args": {"timeout": 1.0, "blocking": 0, "thought": "a", "command": "ls"}}`)
	otherThought := key(`{"id": 1, "source": "agent", "action": "run", "args": {"command": "ls", "thought": "b", "blocking": false, "timeout": 1}}`)
	if a != sameA {
		t.Errorf("equal fields, keys %q and %q", a, sameA)
	}
	if a == otherThought {
		t.Error("thought is not in the key")
	}
	o1 := key(`{"id": 2, "cause": 1, "observation": "run", "content": "x", "extras": {"command": "ls", "metadata": {"exit_code": 1}}}`)
	o2 := key(`{"id": 4, "cause": 3, "observation": "run", "content": "y", "extras": {"command": "ls", "exit_code": 1}}`)
	if o1 != o2 {
		t.Errorf("CmdOutputObservation keys %q and %q: want command and exit code only", o1, o2)
	}
	e1 := key(`{"id": 2, "observation": "error", "content": "x", "extras": {"error_id": ""}}`)
	e2 := key(`{"id": 2, "observation": "error", "content": "y", "extras": {"error_id": ""}}`)
	if e1 == e2 {
		t.Error("ErrorObservation content is not in the key")
	}
}

// The 2024 shape (dataclasses.asdict: fields at the top level) is
// detected as OpenHands and every line of it reported, never read as
// events of no fields.
func TestOpenHands2024Shape(t *testing.T) {
	log := `{"action": "run", "command": "ls", "background": false, "thought": "Look."}
{"observation": "run", "content": "a.py", "command_id": 7, "command": "ls", "exit_code": 0}
`
	eps, err := Read(strings.NewReader(log), "old.jsonl", "old", Options{Format: FormatAuto})
	ne, ok := err.(*NoEventsError)
	if !ok {
		t.Fatalf("err %v (%d episodes), want no steps read", err, len(eps))
	}
	if ne.Skipped != 2 || !strings.Contains(ne.First, "old.jsonl:1: an OpenHands 2024 event (dataclasses.asdict") {
		t.Errorf("skipped %d, first problem %q", ne.Skipped, ne.First)
	}
}

// FuzzReadOpenHands: whatever the bytes, the history's events belong to
// steps of the table, in order, and the live verdicts too.
func FuzzReadOpenHands(f *testing.F) {
	agentSeeds(f)
	f.Add([]byte(ohLog))
	if data, err := os.ReadFile("../testdata/openhands/output.jsonl"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgentRead(t, data, Options{Format: FormatSteps, Preset: PresetOpenHands})
		eps, err := Read(bytes.NewReader(data), "in.jsonl", "in", Options{Format: FormatSteps, Preset: PresetOpenHands})
		if err != nil {
			return
		}
		for _, ep := range eps {
			first, last := int32(ep.Turns[0].N), int32(ep.Turns[len(ep.Turns)-1].N)
			prev := first
			for i, e := range ep.OpenHands {
				if e.N < prev || e.N > last {
					t.Fatalf("event %d at step %d: steps %d–%d, previous %d", i, e.N, first, last, prev)
				}
				prev = e.N
			}
			for _, l := range ep.Live {
				if l.Turn < int(first) || l.Turn > int(last) {
					t.Fatalf("live verdict at step %d: steps %d–%d", l.Turn, first, last)
				}
			}
		}
	})
}

// An evaluation output: one instance a line, each an episode named by its
// instance_id, the 2024 pairs too; error's stuck verdict is the live
// verdict at the last step; a line that is not an instance is charged to
// the episode before it (the next one at the start).
func TestOpenHandsEvalOutput(t *testing.T) {
	data, err := os.ReadFile("../testdata/openhands/output.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	log := "{\"note\": 1}\n" + lines[0] + lines[1] + "not json\n" + lines[2]
	eps, err := Read(strings.NewReader(log), "output.jsonl", "output", Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		id             string
		steps, live    int
		lines, skipped int
	}
	wants := []want{{"acme__cache-101", 4, 4, 2, 1}, {"acme__docs-7", 3, 0, 2, 1}, {"acme__typo-3", 3, 3, 1, 0}}
	if len(eps) != len(wants) {
		t.Fatalf("%d episodes, want %d", len(eps), len(wants))
	}
	for i, w := range wants {
		ep := eps[i]
		live := 0
		if len(ep.Live) == 1 && ep.Live[0].Kind == LiveOpenHandsStuck {
			live = ep.Live[0].Turn
		}
		got := want{ep.ID, len(ep.Turns), live, ep.Diag.Lines, ep.Diag.Skipped}
		if got != w || ep.Preset != PresetOpenHands {
			t.Errorf("episode %d: %+v (%s), want %+v", i, got, ep.Preset, w)
		}
	}
	if _, err := Read(strings.NewReader(log), "output.jsonl", "output", Options{Format: FormatAuto, Strict: true}); err == nil ||
		!strings.Contains(err.Error(), "output.jsonl:1: not an OpenHands evaluation instance") {
		t.Errorf("strict: %v", err)
	}
}

// The V0 event store: sessions/<sid>/events/<id>.json, one event a file,
// is one log in numeric order (10.json after 9.json), named by <sid>; a
// scan for agent logs takes the directory, not each file.
func TestOpenHandsEventStore(t *testing.T) {
	data, err := os.ReadFile("../testdata/openhands/live-stuck.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 11 {
		t.Fatalf("%d events: the test needs ids past 9", len(lines))
	}
	root := t.TempDir()
	store := filepath.Join(root, "sessions", "conv-1", "events")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if err := os.WriteFile(filepath.Join(store, fmt.Sprintf("%d.json", i)), []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Files the store does not write are not events.
	if err := os.WriteFile(filepath.Join(root, "sessions", "conv-1", "metadata.json"), []byte(`{"title": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _, err := FindMatching([]string{root}, false, AgentLogName)
	if err != nil {
		t.Fatal(err)
	}
	// The conversation directory is the session: its metadata.json is not
	// a log.
	if want := []string{store}; strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("found %q, want %q", files, want)
	}
	if zork, _, _ := Find([]string{root}, false); len(zork) != 0 {
		t.Errorf("a ZorkGPT scan found %q", zork)
	}
	eps, err := ReadFile(store, nil, Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(strings.NewReader(string(data)), "x", "x", Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if len(eps) != 1 || ep.ID != "conv-1" || len(ep.Turns) != len(want[0].Turns) || ep.Diag.Lines != len(lines) ||
		len(ep.OpenHands) != len(want[0].OpenHands) || len(ep.Live) != 1 {
		t.Errorf("%d episodes: %s, %d steps (want %d), %d lines, %d events (want %d), live %v",
			len(eps), ep.ID, len(ep.Turns), len(want[0].Turns), ep.Diag.Lines, len(ep.OpenHands), len(want[0].OpenHands), ep.Live)
	}
}
