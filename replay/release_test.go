package replay

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReleaseOutputs: once released, an episode's turns, steps and
// attempts read the same strings; outputs and the agents' event tables
// are gone; StartKeys numbers the same locations.
func TestReleaseOutputs(t *testing.T) {
	for _, c := range []struct {
		path string
		opts Options
	}{
		{"steps/agent.jsonl", Options{Format: FormatSteps}},
		{"steps/openhands/events.jsonl", Options{Format: FormatSteps, Preset: PresetOpenHands}},
		{"openhands/v1-stuck.jsonl", Options{Format: FormatSteps, Preset: PresetOpenHandsV1}},
		{"agents/cline/tasks/1763632800000/api_conversation_history.json", Options{Format: FormatSteps, Preset: "cline"}},
		{"attempts/autopilot.jsonl", Options{Format: FormatAttempts}},
	} {
		t.Run(c.path, func(t *testing.T) {
			path := filepath.Join("..", "testdata", c.path)
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			eps, _, err := ReadFileStats(context.Background(), path, nil, c.opts)
			if err != nil || len(eps) != 1 {
				t.Fatalf("%d episodes, %v", len(eps), err)
			}
			ep := eps[0]
			type snap struct {
				rows     []Row
				canon    []string
				attempts []string
				starts   []string
			}
			take := func() snap {
				var s snap
				for i := range ep.Turns {
					s.rows = append(s.rows, ep.Row(&ep.Turns[i]))
				}
				for _, st := range ep.Steps {
					s.canon = append(s.canon, ep.Str(st.Canonical))
				}
				for i := range ep.NumAttempts() {
					a := ep.Attempt(i)
					s.attempts = append(s.attempts, a.TaskID+"\x00"+a.Status+"\x00"+a.SessionID)
				}
				keys, syms := ep.StartKeys()
				for i := range ep.Turns {
					k := keys[ep.Turns[i].LocStart]
					s.starts = append(s.starts, ep.Str(syms[k]))
				}
				return s
			}
			before := take()
			hadOutput := false
			for _, t := range ep.Turns {
				hadOutput = hadOutput || ep.Output(t.N) != ""
			}
			if c.opts.Format == FormatSteps && !hadOutput {
				t.Fatal("no output read: the test tests nothing")
			}
			ep.ReleaseOutputs()
			after := take()
			if !slices.Equal(before.rows, after.rows) || !slices.Equal(before.canon, after.canon) ||
				!slices.Equal(before.attempts, after.attempts) || !slices.Equal(before.starts, after.starts) {
				t.Errorf("table changed:\n%+v\n%+v", before, after)
			}
			for _, t2 := range ep.Turns {
				if ep.Output(t2.N) != "" {
					t.Fatalf("turn %d keeps its output", t2.N)
				}
			}
			if c.opts.Format == FormatSteps && (ep.Outputs == nil || ep.OpenHands != nil || ep.OpenHandsV1 != nil) {
				t.Error("outputs nil (not read) or event tables kept")
			}
		})
	}
}

// A ZorkGPT episode's room names are made when first asked for, from
// Syms: released before that, they must still name the same rooms (they
// were read from the old table's Syms, and named actions instead).
func TestReleaseOutputsRoomNames(t *testing.T) {
	path := filepath.Join("..", "testdata", "episodes", "2025-11-04T09-35-24", "episode_log.jsonl")
	read := func() *Episode {
		eps, _, err := ReadFileStats(context.Background(), path, nil, Options{Outputs: true})
		if err != nil || len(eps) != 1 {
			t.Fatalf("%d episodes, %v", len(eps), err)
		}
		return eps[0]
	}
	kept, released := read(), read()
	if len(released.Outputs) == 0 {
		t.Fatal("no output read: the test tests nothing")
	}
	released.ReleaseOutputs()
	for i := range kept.Turns {
		k := kept.Str(kept.Turns[i].LocStart)
		want := kept.RoomName(k)
		if got := released.RoomName(released.Str(released.Turns[i].LocStart)); got != want {
			t.Fatalf("turn %d: room %q after release, %q before", kept.Turns[i].N, got, want)
		}
	}
}
