package replay

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// rtIDTurn logs one id-keyed turn: final_action_selection, an optional
// move (from → to, "" for no move) and turn_completed.
func rtIDTurn(n int, action string, from, to any, score float64, loc string) string {
	s := rtLine("final_action_selection", "turn", n, "agent_action", action, "critic_confidence", 0.5) + "\n"
	if from != nil {
		s += rtLine("map_movement_update", "turn", n, "action", action, "from_room_id", from, "to_room_id", to) + "\n"
	}
	return s + rtLine("turn_completed", "turn", n, "action", action, "score", score, "location", loc) + "\n"
}

func TestEpisodesByID(t *testing.T) {
	in := rtLine("orchestrator_init", "agent_model", "m") + "\n" + // 1: no id, adopted by A
		rtLine("episode_initialized", "episode_id", "A", "turn", 0) + "\n" + // 2
		rtTurn("A", 1, "north", 0, "Dam", 0.5) + // 3-4
		rtLine("turn_completed", "turn", 2, "score", 5, "location", "Dam Lobby") + "\n" + // 5: no id → A
		rtLine("orchestrator_init", "episode_id", "B") + "\n" + // 6
		rtTurn("B", 1, "south", 1, "Forest", 0.5) + // 7-8
		rtLine("objective_completed", "turn_number", 1) + "\n" + // 9: no id → B
		rtLine("turn_completed", "extras", rtRaw(`{"episode_id": "A", "turn": 3, "score": 6, "location": "Dam"}`)) + "\n" + // 10: back to A, id under extras
		rtLine("turn_completed", "episode_id", " B ", "turn", 2, "score", 2, "location", "Forest") + "\n" // 11: id trimmed
	eps := rtRead(t, in, Options{Strict: true})
	if got := rtIDs(eps); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("episodes %v, want [A B]", got)
	}
	a, b := eps[0], eps[1]
	if a.RecordedTurns() != 3 || a.FinalScore() != 6 || a.Turn(2).Score != 5 {
		t.Errorf("A: turns %d final %v", a.RecordedTurns(), a.FinalScore())
	}
	if b.RecordedTurns() != 2 || !slices.Equal(b.ObjectiveTurns, []int{1}) || len(a.ObjectiveTurns) != 0 {
		t.Errorf("B: turns %d objectives %v; A objectives %v", b.RecordedTurns(), b.ObjectiveTurns, a.ObjectiveTurns)
	}
	if a.Diag.Lines+b.Diag.Lines != 11 || a.Diag.Lines != 6 {
		t.Errorf("lines A %d B %d", a.Diag.Lines, b.Diag.Lines)
	}
	for _, ep := range eps {
		if ep.Source != "log.jsonl" {
			t.Errorf("%s: source %q", ep.ID, ep.Source)
		}
	}
}

// Turns logged before the first episode_id belong to the first episode
// (a line without an id belongs to the episode of the line before).
func TestEpisodesImplicitFirst(t *testing.T) {
	in := rtLine("turn_completed", "turn", 1, "score", 0, "location", "Dam") + "\n" +
		rtLine("orchestrator_init", "episode_id", "A") + "\n" +
		rtLine("turn_completed", "turn", 2, "score", 3, "location", "Dam") + "\n" +
		rtLine("turn_completed", "episode_id", "B", "turn", 1, "score", 7, "location", "Dam") + "\n"
	eps := rtRead(t, in, Options{})
	if got := rtIDs(eps); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("episodes %v", got)
	}
	if eps[0].RecordedTurns() != 2 || eps[0].Turn(1).Score != 0 || eps[0].FinalScore() != 3 || eps[1].FinalScore() != 7 {
		t.Errorf("A: turns %d score %v; B: score %v", eps[0].RecordedTurns(), eps[0].FinalScore(), eps[1].FinalScore())
	}
	// A file with no id at all is one episode named after the file.
	ep := rtOne(t, rtLine("turn_completed", "turn", 1, "score", 0, "location", "Dam")+"\n")
	if ep.ID != "default-ep" {
		t.Errorf("id %q", ep.ID)
	}
	// Lines without turns before the first id (noise, init) leave no
	// episode of their own.
	eps = rtRead(t, "hello\n"+rtLine("zork_response", "turn", 0)+"\n"+rtLine("orchestrator_init", "episode_id", "A")+"\n"+rtTurn("A", 1, "n", 0, "Dam", 1), Options{})
	if got := rtIDs(eps); !slices.Equal(got, []string{"A"}) || eps[0].Diag.Skipped != 1 || eps[0].Diag.Lines != 5 {
		t.Errorf("episodes %v, diag %+v", got, eps[0].Diag)
	}
}

// A line without episode_id belongs to the episode of the line before, even
// when that line is irrelevant (not decoded): its id is sniffed from the bytes.
func TestEpisodeOfPreviousLine(t *testing.T) {
	in := rtTurn("A", 1, "n", 0, "Dam", 1) +
		rtLine("zork_response", "episode_id", "B", "turn", 1) + "\n" +
		rtLine("turn_completed", "turn", 1, "score", 9, "location", "Forest") + "\n"
	eps := rtRead(t, in, Options{})
	if got := rtIDs(eps); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("episodes %v, want [A B]", got)
	}
	if eps[1].FinalScore() != 9 {
		t.Errorf("B score %v", eps[1].FinalScore())
	}
}

func TestRepeatedTurns(t *testing.T) {
	var b strings.Builder
	for n := 1; n <= 5; n++ {
		b.WriteString(rtTurn("E", n, "first", float64(n), "Dam", 0.5))
		if n == 4 {
			b.WriteString(rtLine("objective_completed", "episode_id", "E", "turn", 4) + "\n")
			b.WriteString(rtLine("action_rejected", "episode_id", "E", "turn", 4) + "\n")
		}
	}
	restart := b.Len()
	for n := 3; n <= 6; n++ { // restarted run logs 3..5 again
		b.WriteString(rtTurn("E", n, "second", float64(10*n), "Forest", 0.9))
	}
	// The same turn_completed twice in a row (a duplicated log handler) is
	// one record, its later fields winning; a second turn_completed after
	// other lines of the turn is a restart (turn 7 here).
	b.WriteString(rtLine("turn_completed", "episode_id", "E", "turn", 6, "score", 61, "location", "Forest") + "\n")
	b.WriteString(rtTurn("E", 7, "third", 70, "Forest", 0.9))
	b.WriteString(rtLine("llm_call", "turn", 7) + "\n")
	b.WriteString(rtLine("turn_completed", "episode_id", "E", "turn", 7, "score", 71, "location", "Forest") + "\n")
	ep := rtOne(t, b.String())
	if ep.Diag.Repeated != 4 {
		t.Errorf("repeated %d, want 4", ep.Diag.Repeated)
	}
	line := strings.Count(b.String()[:restart], "\n") + 1
	rtWantNote(t, ep.Diag, "log.jsonl:"+strconv.Itoa(line)+": turn 3 logged again (restarted run); the later record is used")
	rtWantNote(t, ep.Diag, ": turn_completed of turn 6 logged twice in a row; read as one record")
	rtWantNote(t, ep.Diag, ": turn 7 logged again")
	if ep.RecordedTurns() != 7 || len(ep.Turns) != 7 {
		t.Fatalf("turns %d", ep.RecordedTurns())
	}
	for n := 1; n <= 7; n++ {
		tr := ep.Row(ep.Turn(n))
		wantA, wantS := "first", float64(n)
		if n >= 3 {
			wantA, wantS = "second", float64(10*n)
		}
		switch n {
		case 6:
			wantA, wantS = "second", 61
		case 7:
			wantA, wantS = "", 71 // the restarted record: an llm_call and turn_completed
		}
		if tr.Action != wantA || tr.Score != wantS {
			t.Errorf("turn %d: action %q score %v, want %q %v", n, tr.Action, tr.Score, wantA, wantS)
		}
	}
	if tr := ep.Row(ep.Turn(4)); tr.Rejections != 0 || len(ep.ObjectiveTurns) != 0 {
		t.Errorf("turn 4 keeps the first run's events: %+v, objectives %v", tr, ep.ObjectiveTurns)
	}
	if ep.Diag.Gaps != 0 {
		t.Errorf("gaps %d", ep.Diag.Gaps)
	}
}

// A restarted run's record of a turn keeps every event it logged, including
// the llm_call events written before its final_action_selection.
func TestRepeatedTurnKeepsItsLLMCalls(t *testing.T) {
	s := replaytest.Scenario{
		EpisodeID: "2025-11-09T10:00:00", Seed: 7, Turns: 30, WithIDs: true, LLMCallEvents: true,
		Ending: replaytest.EndMaxTurns,
		Quirks: replaytest.Quirks{RestartFrom: 20, RestartAt: 24},
	}
	var buf bytes.Buffer
	if err := replaytest.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	ep := rtOne(t, buf.String())
	if ep.Diag.Repeated != 5 || !ep.LLMCallsLogged {
		t.Fatalf("repeated %d, llm calls logged %v", ep.Diag.Repeated, ep.LLMCallsLogged)
	}
	for i := range ep.Turns {
		tr := ep.Row(&ep.Turns[i])
		if want := 4 + 2*tr.Rejections; tr.LLMCalls != want {
			t.Errorf("turn %d: %d LLM calls, want %d (4 + 2 per rejection)", tr.N, tr.LLMCalls, want)
		}
	}
}

func TestGaps(t *testing.T) {
	in := rtTurn("E", 1, "north", 5, "Dam", 0.5) +
		rtTurn("E", 2, "south", 10, "Dam Lobby", 0.5) +
		rtLine("action_rejected", "turn_number", 4, "action", "x") + "\n" + // turn 4 has an event but no turn_completed
		rtTurn("E", 6, "east", 20, "Maintenance Room", 0.5) +
		rtTurn("E", 9, "west", 20, "Maintenance Room", 0.5)
	ep := rtOne(t, in)
	if len(ep.Turns) != 9 || ep.Diag.Gaps != 5 {
		t.Fatalf("rows %d gaps %d", len(ep.Turns), ep.Diag.Gaps)
	}
	for _, n := range []int{3, 4, 5, 7, 8} {
		tr := ep.Row(ep.Turn(n))
		if !tr.Filled || tr.HasAction || tr.HasBase || tr.Moved || tr.Action != "" {
			t.Errorf("turn %d = %+v", n, tr)
		}
		wantLoc, wantScore := "dam lobby", 10.0
		if n > 6 {
			wantLoc, wantScore = "maintenance room", 20
		}
		if tr.Score != wantScore || tr.LocStart != wantLoc || tr.LocEnd != wantLoc {
			t.Errorf("turn %d: score %v loc %q→%q, want %v %q", n, tr.Score, tr.LocStart, tr.LocEnd, wantScore, wantLoc)
		}
	}
	if r := ep.ZorkOf(ep.Turn(4)).Rejections; r != 1 {
		t.Errorf("turn 4 rejections %d", r)
	}
	if tr := ep.Row(ep.Turn(6)); tr.Filled || tr.LocStart != "dam lobby" || tr.LocEnd != "maintenance room" || !tr.Moved {
		t.Errorf("turn 6 = %+v", tr)
	}
	rtWantNote(t, ep.Diag, "log.jsonl: turns 3–5 missing from the log")
	rtWantNote(t, ep.Diag, "log.jsonl: turns 7–8 missing from the log")
	for i := range ep.Turns {
		tr := ep.Row(&ep.Turns[i])
		if tr.N != i+1 {
			t.Fatalf("row %d is turn %d", i, tr.N)
		}
	}
}

// A corrupt turn number far from the turns read is a skipped line, not a gap
// to fill with a row per missing turn: memory stays bounded by the input.
func TestGapMemoryBounded(t *testing.T) {
	in := rtLine("turn_completed", "turn", 1, "score", 0, "location", "Dam") + "\n" +
		rtLine("turn_completed", "turn", 2_000_000, "score", 0, "location", "Dam") + "\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	eps, _ := Read(strings.NewReader(in), "x", "d", Options{})
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("reading %d bytes allocated %d MB (%d rows, %d gaps); want memory bounded by the input",
			len(in), alloc>>20, len(eps[0].Turns), eps[0].Diag.Gaps)
	}
}

func TestNameKeyedLocations(t *testing.T) {
	in := rtTurn("E", 1, "look", 0, "West  of HOUSE", 0.5) +
		rtTurn("E", 2, "wait", 0, " west of house ", 0.5) +
		rtTurn("E", 3, "north", 0, "North of\tHouse", 0.5) +
		rtLine("turn_completed", "turn", 4, "score", 0) + "\n" + // no location: stays
		rtTurn("E", 5, "south", 0, "", 0.5) + // empty location: stays
		rtTurn("E", 6, "west", 0, "WEST OF HOUSE", 0.5)
	ep := rtOne(t, in)
	if ep.LocationKey != KeyRoomName {
		t.Fatalf("key %s", ep.LocationKey)
	}
	want := []struct {
		start, end string
		moved      bool
	}{
		{"west of house", "west of house", false},
		{"west of house", "west of house", false},
		{"west of house", "north of house", true},
		{"north of house", "north of house", false},
		{"north of house", "north of house", false},
		{"north of house", "west of house", true},
	}
	for i, w := range want {
		tr := ep.Row(&ep.Turns[i])
		if tr.LocStart != w.start || tr.LocEnd != w.end || tr.Moved != w.moved {
			t.Errorf("turn %d: %q→%q moved %v, want %q→%q %v", tr.N, tr.LocStart, tr.LocEnd, tr.Moved, w.start, w.end, w.moved)
		}
	}
	if ep.RoomName("west of house") != "West  of HOUSE" || ep.RoomName("north of house") != "North of\tHouse" {
		t.Errorf("room names %v", ep.RoomNames)
	}
	if ep.RoomName("") != "?" || ep.RoomName("unknown") != "unknown" {
		t.Errorf("RoomName fallbacks")
	}
	if FoldName("  Dam\t\tLOBBY \n") != "dam lobby" {
		t.Errorf("FoldName %q", FoldName("  Dam\t\tLOBBY \n"))
	}
}

func TestIDKeyedLocations(t *testing.T) {
	in := rtIDTurn(1, "north", 180, 81, 0, "North of House") +
		rtIDTurn(2, "wait", nil, nil, 0, "north of house") +
		rtLine("room_description_captured", "turn", 3, "location_id", 999) + "\n" + // no move: rdc does not move
		rtIDTurn(3, "look", nil, nil, 0, "North of House") +
		rtIDTurn(4, "east", "81", "75", 0, "Behind House") + // ids as strings
		rtIDTurn(5, "east", 75.0, 75, 0, "Behind House") // a move event to the same room: live ZorkGPT's every-turn update, no move
	ep := rtOne(t, in)
	if ep.LocationKey != KeyRoomID {
		t.Fatalf("key %s", ep.LocationKey)
	}
	want := []struct {
		start, end string
		moved      bool
	}{
		{"180", "81", true}, {"81", "81", false}, {"81", "81", false}, {"81", "75", true}, {"75", "75", false},
	}
	for i, w := range want {
		tr := ep.Row(&ep.Turns[i])
		if tr.LocStart != w.start || tr.LocEnd != w.end || tr.Moved != w.moved {
			t.Errorf("turn %d: %q→%q moved %v, want %q→%q %v", tr.N, tr.LocStart, tr.LocEnd, tr.Moved, w.start, w.end, w.moved)
		}
	}
	if ep.RoomName("81") != "North of House" || ep.RoomName("75") != "Behind House" {
		t.Errorf("room names %v", ep.RoomNames)
	}
}

// The first turn starts at the id the log gives for it.
func TestFirstTurnLocation(t *testing.T) {
	tc := func(n int, loc string) string {
		return rtLine("turn_completed", "turn", n, "action", "x", "score", 0, "location", loc) + "\n"
	}
	for _, c := range []struct {
		name, in, want string
	}{
		{"from_room_id of its move", rtIDTurn(1, "n", 180, 81, 0, "North of House"), "180"},
		{"room_description_captured",
			rtLine("room_description_captured", "extras", rtRaw(`{"event_type": "room_description_captured", "turn": 1, "location_id": 79}`)) + "\n" + tc(1, "South of House") + rtIDTurn(2, "n", 79, 81, 0, "x"),
			"79"},
		{"location_penalty_applied",
			rtLine("location_penalty_applied", "turn", 1, "base_confidence", 0.5, "location_id", 196) + "\n" + tc(1, "Forest"), "196"},
		{"room_description_captured before location_penalty_applied",
			rtLine("location_penalty_applied", "turn", 1, "location_id", 196) + "\n" + rtLine("room_description_captured", "turn", 1, "location_id", 79) + "\n" + tc(1, "Forest"), "79"},
		{"name paired by a later move's from_room",
			tc(1, "west of  House") + rtLine("map_movement_update", "turn", 2, "from_room_id", 180, "from_room", "West of House", "to_room_id", 81, "to_room", "North of House") + "\n" + tc(2, "North of House"),
			"180"},
		{"name paired by a later move's to_room",
			tc(1, "Kitchen") + rtLine("map_movement_update", "turn", 2, "from_room_id", 42, "to_room_id", 7, "to_room", "Living Room") + "\n" + tc(2, "Living Room") +
				rtLine("map_movement_update", "turn", 3, "from_room_id", 7, "to_room_id", 42, "to_room", "KITCHEN") + "\n" + tc(3, "Kitchen"),
			"42"},
		{"name paired by a moved turn's turn_completed",
			tc(1, "Kitchen") + rtLine("map_movement_update", "turn", 2, "from_room_id", 42, "to_room_id", 7) + "\n" + tc(2, "Living Room") +
				rtLine("map_movement_update", "turn", 3, "from_room_id", 7, "to_room_id", 42) + "\n" + tc(3, "kitchen"),
			"42"},
		{"name paired by location_name",
			tc(1, "Attic") + rtLine("location_penalty_applied", "turn", 2, "location_id", 12, "location_name", "Attic") + "\n" + tc(2, "Attic"),
			"12"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ep := rtOne(t, c.in)
			if ep.LocationKey != KeyRoomID {
				t.Fatalf("key %s", ep.LocationKey)
			}
			if tr := ep.Row(&ep.Turns[0]); tr.LocStart != c.want {
				t.Errorf("turn 1 starts at %q (ends %q), want %q", tr.LocStart, tr.LocEnd, c.want)
			}
			for _, n := range ep.Diag.Notes {
				if strings.Contains(n, "no room id") {
					t.Errorf("note %q", n)
				}
			}
		})
	}
	// Nothing names the first room: unknown until the first move, noted.
	ep := rtOne(t, tc(1, "Cellar")+rtIDTurn(2, "n", 5, 6, 0, "Troll Room"))
	if ep.Str(ep.Turns[0].LocStart) != "" || ep.Str(ep.Turns[1].LocStart) != "5" {
		t.Errorf("turns %+v", ep.Turns)
	}
	rtWantNote(t, ep.Diag, "no room id for turn 1")
}

// Early logs write map_movement_update with room names only: in a
// name-keyed log it is the turn's move between the folded names (issue 10
// item 7), which teaches the map; one that stays is no move.
func TestMovementWithoutIDs(t *testing.T) {
	mmu := func(n int, from, to string) string {
		return rtLine("map_movement_update", "turn", n, "action", "x", "from_room", from, "to_room", to) + "\n"
	}
	in := mmu(1, "West of House", "Forest") + rtTurn("", 1, "w", 0, "Forest", 0.5) +
		mmu(2, "Forest", "Forest") + rtTurn("", 2, "w", 0, "Forest", 0.5) +
		mmu(3, "FOREST", "Forest  Path") + rtTurn("", 3, "n", 0, "forest path", 0.5)
	ep := rtOne(t, in)
	if ep.LocationKey != KeyRoomName || len(ep.Diag.Notes) != 0 {
		t.Fatalf("key %s, notes %q", ep.LocationKey, ep.Diag.Notes)
	}
	want := []struct {
		start, end string
		moved      bool
	}{{"west of house", "forest", true}, {"forest", "forest", false}, {"forest", "forest path", true}}
	for i, w := range want {
		tr := ep.Row(&ep.Turns[i])
		if tr.LocStart != w.start || tr.LocEnd != w.end || tr.Moved != w.moved {
			t.Errorf("turn %d: %q→%q moved %v, want %q→%q %v", tr.N, tr.LocStart, tr.LocEnd, tr.Moved, w.start, w.end, w.moved)
		}
	}
	if ep.RoomName("west of house") != "West of House" {
		t.Errorf("room names %v", ep.RoomNames)
	}
	// In an id-keyed log a name-only move cannot be placed: noted.
	in = mmu(1, "West of House", "Forest") + rtIDTurn(1, "w", 180, 5, 0, "Forest") + mmu(2, "Forest", "Clearing") + rtIDTurn(2, "n", nil, nil, 0, "Clearing")
	ep = rtOne(t, in)
	if ep.LocationKey != KeyRoomID || ep.Turns[1].Moved || ep.Str(ep.Turns[1].LocEnd) != "5" {
		t.Errorf("id-keyed: %+v", ep.Turns)
	}
	rtWantNote(t, ep.Diag, "log.jsonl:5: map_movement_update without room ids ignored (the episode's locations are room ids)")
	// only one id: the move goes to (or stays at) it
	in = rtLine("map_movement_update", "turn", 1, "to_room_id", 8) + "\n" + rtTurn("", 1, "w", 0, "Forest", 0.5) +
		rtLine("map_movement_update", "turn", 2, "from_room_id", 8) + "\n" + rtTurn("", 2, "w", 0, "Forest", 0.5)
	ep = rtOne(t, in)
	if tr := ep.Row(&ep.Turns[0]); tr.LocStart != "8" || tr.LocEnd != "8" {
		t.Errorf("turn 1 %+v", tr)
	}
	if tr := ep.Row(&ep.Turns[1]); tr.LocStart != "8" || tr.LocEnd != "8" {
		t.Errorf("turn 2 %+v", tr)
	}
}

func TestActionAndBase(t *testing.T) {
	tc := func(n int, kv ...any) string {
		return rtLine("turn_completed", append([]any{"turn", n, "score", 0, "location", "Dam"}, kv...)...) + "\n"
	}
	in := // 1: everything: fas action, lpa base
		rtLine("final_action_selection", "turn", 1, "agent_action", "open door", "critic_confidence", 0.8) + "\n" +
			rtLine("location_penalty_applied", "turn", 1, "base_confidence", 0.7, "adjusted_confidence", 0.5, "location_id", 3) + "\n" +
			tc(1, "action", "OPEN DOOR (tc)", "confidence", 0.5) +
			// 2: no lpa: critic_confidence
			rtLine("final_action_selection", "turn", 2, "agent_action", "north", "critic_confidence", 0.6) + "\n" +
			tc(2, "action", "n", "confidence", 0.1) +
			// 3: no fas: turn_completed action and confidence
			tc(3, "action", "south", "confidence", 0.4) +
			// 4: fas without confidence, lpa without base: turn_completed confidence
			rtLine("final_action_selection", "turn", 4, "agent_action", "west") + "\n" +
			rtLine("location_penalty_applied", "turn", 4, "base_confidence", rtRaw("NaN"), "location_id", 3) + "\n" +
			tc(4, "confidence", 0.3) +
			// 5: no confidence and no action anywhere
			tc(5) +
			// 6: nested under extras, confidence as a string
			rtLine("", "extras", rtRaw(`{"event_type": "final_action_selection", "turn": 6, "agent_action": "up", "critic_confidence": "0.9"}`)) + "\n" +
			tc(6)
	ep := rtOne(t, in)
	want := []struct {
		action  string
		hasA    bool
		base    float64
		hasBase bool
	}{
		{"open door", true, 0.7, true},
		{"north", true, 0.6, true},
		{"south", true, 0.4, true},
		{"west", true, 0.3, true},
		{"", false, 0, false},
		{"up", true, 0.9, true},
	}
	for i, w := range want {
		tr := ep.Row(&ep.Turns[i])
		if tr.Action != w.action || tr.HasAction != w.hasA || tr.Base != w.base || tr.HasBase != w.hasBase {
			t.Errorf("turn %d: action %q/%v base %v/%v, want %q/%v %v/%v", tr.N, tr.Action, tr.HasAction, tr.Base, tr.HasBase, w.action, w.hasA, w.base, w.hasBase)
		}
	}
}

// Each objective_completed is a completion, also two at one turn (issue
// 20: objectives_after counted turns); the count follows the turn's record
// as late events merge into it and as a restarted run's record replaces it.
func TestObjectiveCompletionsCounted(t *testing.T) {
	obj := func(n int) string { return rtLine("objective_completed", "turn", n) + "\n" }
	in := obj(1) + obj(1) + rtTurn("", 1, "n", 0, "Dam", 0.5) +
		rtTurn("", 2, "n", 0, "Dam", 0.5) + obj(2) + // late: merged into turn 2
		obj(3) + obj(3) + rtTurn("", 3, "n", 0, "Dam", 0.5) +
		rtLine("final_action_selection", "turn", 3, "agent_action", "s") + "\n" + obj(3) + // a restarted run's turn 3
		rtLine("turn_completed", "turn", 3, "action", "s", "score", 0, "location", "Dam", "confidence", 0.5) + "\n"
	ep := rtOne(t, in)
	if !slices.Equal(ep.ObjectiveTurns, []int{1, 1, 2, 3}) {
		t.Errorf("objective turns %v, want [1 1 2 3]", ep.ObjectiveTurns)
	}
}

func TestObjectivesRejectionsLLMCalls(t *testing.T) {
	in := rtLine("llm_call", "turn", 1, "component", "agent") + "\n" +
		rtLine("llm_call", "turn", 1, "component", "critic") + "\n" +
		rtLine("action_rejected", "turn_number", 1) + "\n" +
		rtLine("action_rejected", "turn", 1) + "\n" +
		rtLine("objective_completed", "turn_number", 1) + "\n" +
		rtLine("objective_completed", "turn", 1) + "\n" +
		rtTurn("", 1, "n", 0, "Dam", 0.5) +
		rtLine("objective_completed", "extras", rtRaw(`{"turn_number": 2}`)) + "\n" +
		rtTurn("", 2, "n", 0, "Dam", 0.5) +
		// the crash mid-turn: events of turn 3 without its turn_completed
		rtLine("llm_call", "turn", 3) + "\n" +
		rtLine("action_rejected", "turn", 3) + "\n" +
		rtLine("objective_completed", "turn", 3) + "\n" +
		rtLine("objective_completed", "turn", 50) + "\n"
	ep := rtOne(t, in)
	if tr := ep.Row(ep.Turn(1)); tr.LLMCalls != 2 || tr.Rejections != 2 {
		t.Errorf("turn 1 = %+v", tr)
	}
	if tr := ep.Row(ep.Turn(2)); tr.Rejections != 0 || tr.LLMCalls != 0 {
		t.Errorf("turn 2 = %+v", tr)
	}
	if !slices.Equal(ep.ObjectiveTurns, []int{1, 1, 2, 3, 50}) { // turn 1 logs two completions
		t.Errorf("objective turns %v", ep.ObjectiveTurns)
	}
	if !ep.LLMCallsLogged || ep.TailLLMCalls != 1 || ep.TailRejections != 1 {
		t.Errorf("logged %v tail calls %d tail rejections %d", ep.LLMCallsLogged, ep.TailLLMCalls, ep.TailRejections)
	}
	if ep.RecordedTurns() != 2 || ep.RecordedEnd != EndUnknown {
		t.Errorf("turns %d end %s", ep.RecordedTurns(), ep.RecordedEnd)
	}
	if ep := rtOne(t, rtTurn("E", 1, "n", 0, "Dam", 0.5)); ep.LLMCallsLogged {
		t.Error("LLMCallsLogged without llm_call events")
	}
	// no turn_completed at all: everything is tail
	ep = rtOne(t, rtLine("llm_call", "turn", 1)+"\n"+rtLine("action_rejected", "turn", 1)+"\n")
	if len(ep.Turns) != 0 || ep.TailLLMCalls != 1 || ep.TailRejections != 1 || ep.RecordedTurns() != 0 || ep.FinalScore() != 0 || ep.Turn(1) != nil {
		t.Errorf("no turns: %+v", ep)
	}
}

// Events without a turn number belong to the turn after the last
// completed one.
func TestEventsWithoutTurn(t *testing.T) {
	in := rtTurn("E", 1, "n", 0, "Dam", 0.5) +
		rtLine("final_action_selection", "agent_action", "dig") + "\n" +
		rtLine("action_rejected") + "\n" +
		rtLine("turn_completed", "turn", 2, "score", 1, "location", "Dam") + "\n" +
		rtLine("turn_completed", "score", 1, "location", "Dam") + "\n" // no turn: skipped
	ep := rtOne(t, in)
	if tr := ep.Row(ep.Turn(2)); tr.Action != "dig" || tr.Rejections != 1 {
		t.Errorf("turn 2 = %+v", tr)
	}
	if ep.Diag.Skipped != 1 {
		t.Errorf("skipped %d", ep.Diag.Skipped)
	}
	rtWantProblem(t, ep.Diag, "log.jsonl:6: turn_completed without a turn number")
}

func TestRecordedEnd(t *testing.T) {
	turns := rtTurn("E", 1, "n", 0, "Dam", 0.5) + rtTurn("E", 2, "n", 5, "Dam", 0.5)
	for _, c := range []struct {
		name, tail, end string
		stop            int
		final           float64
		hasFinal        bool
	}{
		{"none", "", EndUnknown, 0, 0, false},
		{"max_turns", rtLine("episode_completed", "turn", 2, "final_score", 5, "game_over", false, "reason", "max_turns") + "\n", EndMaxTurns, 0, 5, true},
		{"game over", rtLine("game_over_detected", "turn_number", 2, "reason", "You have died") + "\n" +
			rtLine("episode_completed", "turn", 2, "final_score", 5, "game_over", true, "reason", "game_over") + "\n", EndGameOver, 0, 5, true},
		{"game over detected only", rtLine("game_over_detected", "turn_number", 2) + "\n", EndGameOver, 0, 0, false},
		{"finalized only", rtLine("episode_finalized", "turn", 2, "final_score", 7) + "\n", EndUnknown, 0, 7, true},
		{"unknown reason", rtLine("episode_completed", "turn", 2, "reason", "keyboard_interrupt") + "\n", EndUnknown, 0, 0, false},
		{"live stuck termination", rtLine("stuck_termination", "turn", 2, "score", 5, "turns_stuck", 40) + "\n", EndStuckTermination, 2, 0, false},
		{"stuck termination then completed", rtLine("stuck_termination", "turn", 2) + "\n" +
			rtLine("episode_completed", "turn", 2, "final_score", 5, "reason", "max_turns") + "\n" +
			rtLine("episode_finalized", "turn", 2, "final_score", 5) + "\n", EndStuckTermination, 2, 5, true},
		{"completed reason stuck_termination", rtLine("episode_completed", "turn", 2, "reason", "stuck_termination") + "\n", EndStuckTermination, 0, 0, false},
		{"stuck termination without turn", rtLine("stuck_termination", "score", 5) + "\n", EndStuckTermination, 3, 0, false},
		{"reason under extras", rtLine("", "extras", rtRaw(`{"event_type": "episode_completed", "reason": "max_turns", "final_score": 5}`)) + "\n", EndMaxTurns, 0, 5, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ep := rtOne(t, turns+c.tail)
			if ep.RecordedEnd != c.end || ep.LiveStopTurn != c.stop || ep.HasLiveStop != (c.stop != 0) || ep.LoggedFinal != c.final || ep.HasLoggedFinal != c.hasFinal {
				t.Errorf("end %s stop %d/%v final %v/%v; want %s %d %v/%v", ep.RecordedEnd, ep.LiveStopTurn, ep.HasLiveStop, ep.LoggedFinal, ep.HasLoggedFinal, c.end, c.stop, c.final, c.hasFinal)
			}
		})
	}
}

// The generated fixture with every documented quirk reads as its
// generator describes it.
func TestQuirksFixture(t *testing.T) {
	path := filepath.Join("..", "testdata", "episodes", "2025-11-07T10-15-00", "episode_log.jsonl")
	eps, err := ReadFile(path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rtIDs(eps); !slices.Equal(got, []string{"2025-11-07T10:15:00", "2025-11-07T11:42:19"}) {
		t.Fatalf("episodes %v", got)
	}
	a, b := eps[0], eps[1]
	if a.RecordedTurns() != 70 || a.Diag.Gaps != 3 || a.Diag.Repeated != 5 || a.Diag.Skipped != 0 || a.RecordedEnd != EndMaxTurns || a.LocationKey != KeyRoomID {
		t.Errorf("A: turns %d gaps %d repeated %d skipped %d %q end %s key %s", a.RecordedTurns(), a.Diag.Gaps, a.Diag.Repeated, a.Diag.Skipped, a.Diag.Problems, a.RecordedEnd, a.LocationKey)
	}
	for n := 50; n <= 52; n++ {
		if !a.Turn(n).Filled {
			t.Errorf("A turn %d not filled", n)
		}
	}
	if !slices.Equal(a.ObjectiveTurns, []int{10, 45, 58, 68}) {
		t.Errorf("A objectives %v", a.ObjectiveTurns)
	}
	if b.RecordedEnd != EndUnknown || b.Diag.Skipped != 1 || b.RecordedTurns() != 25 {
		t.Errorf("B: end %s skipped %d turns %d", b.RecordedEnd, b.Diag.Skipped, b.RecordedTurns())
	}
	rtWantProblem(t, b.Diag, "truncated final line")
	_, err = ReadFile(path, nil, Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "truncated final line") {
		t.Errorf("strict: %v", err)
	}
}

// The episode named after the file (lines before any episode_id) is the one
// a later line naming that id continues: in production the directory name
// is the episode id.
func TestImplicitEpisodeMeetsItsOwnID(t *testing.T) {
	in := rtLine("final_action_selection", "turn", 1, "agent_action", "north") + "\n" +
		rtLine("turn_completed", "turn", 1, "score", 0, "location", "Dam") + "\n" +
		rtLine("turn_completed", "episode_id", "2025-11-03T12:38:53", "turn", 2, "score", 5, "location", "Dam") + "\n"
	eps, err := Read(strings.NewReader(in), "game_files/episodes/2025-11-03T12:38:53/episode_log.jsonl",
		DefaultEpisodeID("game_files/episodes/2025-11-03T12:38:53/episode_log.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 || eps[0].RecordedTurns() != 2 || eps[0].Diag.Gaps != 0 {
		t.Errorf("episodes %v; want one episode 2025-11-03T12:38:53 with turns 1-2", rtIDs(eps))
	}
}

// A run restarted right after a turn's turn_completed logs that turn again:
// the llm_call lines before its final_action_selection are the restarted
// record's, while events after a turn_completed followed by other turns are
// late events of the first record.
func TestRestartRightAfterTurnCompleted(t *testing.T) {
	call := func(n int) string { return rtLine("llm_call", "turn", n) + "\n" }
	in := call(1) + call(1) + rtTurn("E", 1, "look", 0, "Dam", 0.5) +
		rtLine("action_rejected", "turn", 1) + "\n" + // late event of turn 1
		call(2) + call(2) + rtTurn("E", 2, "look", 0, "Dam", 0.5) +
		rtLine("episode_restored", "turn", 1) + "\n" + // irrelevant: no init line
		call(2) + call(2) + call(2) + rtTurn("E", 2, "wait", 0, "Dam", 0.5)
	ep := rtOne(t, in)
	if ep.Diag.Repeated != 1 {
		t.Fatalf("repeated %d, want 1", ep.Diag.Repeated)
	}
	if tr := ep.Row(ep.Turn(1)); tr.LLMCalls != 2 || tr.Rejections != 1 {
		t.Errorf("turn 1: %d calls %d rejections, want 2 and 1", tr.LLMCalls, tr.Rejections)
	}
	if tr := ep.Row(ep.Turn(2)); tr.LLMCalls != 3 || tr.Action != "wait" {
		t.Errorf("turn 2: %d calls, action %q; want the restarted record: 3 calls, wait", tr.LLMCalls, tr.Action)
	}
}

// Events logged before the first episode_id (real logs write some without
// one) belong to the first episode.
func TestEventsBeforeFirstID(t *testing.T) {
	in := rtLine("llm_call", "turn", 1) + "\n" +
		rtLine("room_description_captured", "turn", 1, "location_id", 180) + "\n" +
		rtTurn("A", 1, "look", 0, "West of House", 0.5)
	eps := rtRead(t, in, Options{})
	if got := rtIDs(eps); !slices.Equal(got, []string{"A"}) {
		t.Fatalf("episodes %v, want [A]", got)
	}
	if ep := eps[0]; ep.LocationKey != KeyRoomID || !ep.LLMCallsLogged || ep.Str(ep.Turn(1).LocStart) != "180" {
		t.Errorf("key %s, calls logged %v, turn 1 at %q", ep.LocationKey, ep.LLMCallsLogged, ep.Str(ep.Turn(1).LocStart))
	}
}

// An id found for the episode named after the file makes it a logged
// episode: a later new id is another episode, not a rename.
func TestImplicitEpisodeThenAnother(t *testing.T) {
	in := "not json\n" +
		rtLine("turn_completed", "episode_id", "2025-11-03T12:38:53", "turn", 1, "score", 0, "location", "Dam") + "\n" +
		rtLine("turn_completed", "episode_id", "2025-11-03T12:38:53", "turn", 2, "score", 5, "location", "Dam") + "\n" +
		rtLine("episode_initialized", "episode_id", "2025-11-04T09:35:24") + "\n" +
		rtLine("turn_completed", "episode_id", "2025-11-04T09:35:24", "turn", 1, "score", 1, "location", "Forest") + "\n"
	eps, err := Read(strings.NewReader(in), "x/2025-11-03T12:38:53/episode_log.jsonl", "2025-11-03T12:38:53", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rtIDs(eps); !slices.Equal(got, []string{"2025-11-03T12:38:53", "2025-11-04T09:35:24"}) {
		t.Fatalf("episodes %v", got)
	}
	if eps[0].RecordedTurns() != 2 || eps[0].FinalScore() != 5 || eps[1].FinalScore() != 1 || eps[0].Diag.Repeated != 0 {
		t.Errorf("first: %d turns score %v repeated %d; second: score %v", eps[0].RecordedTurns(), eps[0].FinalScore(), eps[0].Diag.Repeated, eps[1].FinalScore())
	}
}

// Corrupt turn numbers cost no row per missing turn: turns far from the
// episode's others are dropped (the largest group stays, even when the
// corrupt one comes first), and chained jumps stop at the fill budget.
func TestCorruptTurnNumbers(t *testing.T) {
	tc := func(n int) string { return rtLine("turn_completed", "turn", n, "score", 0, "location", "Dam") + "\n" }
	var b strings.Builder
	b.WriteString(tc(500_000))
	for n := 1; n <= 30; n++ {
		b.WriteString(tc(n))
	}
	ep := rtOne(t, b.String())
	if ep.RecordedTurns() != 30 || len(ep.Turns) != 30 || ep.Diag.Skipped != 1 {
		t.Errorf("turns %d rows %d skipped %d", ep.RecordedTurns(), len(ep.Turns), ep.Diag.Skipped)
	}
	rtWantProblem(t, ep.Diag, "log.jsonl:1: turn 500000 is too far from the episode's turns 1–30 (corrupt turn number?)")
	_, err := Read(strings.NewReader(b.String()), "log.jsonl", "d", Options{Strict: true})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Errorf("strict: %v", err)
	}

	b.Reset()
	for i := range 300 {
		b.WriteString(tc(1 + i*MaxTurnGap))
	}
	ep = rtOne(t, b.String())
	if rows := len(ep.Turns); rows > MaxFilledTurns+300 || ep.Diag.Gaps > MaxFilledTurns {
		t.Errorf("%d rows, %d gaps: want at most %d gap rows", rows, ep.Diag.Gaps, MaxFilledTurns)
	}
	if kept := len(ep.Turns) - ep.Diag.Gaps; kept+ep.Diag.Skipped != 300 {
		t.Errorf("%d turns kept, %d skipped, want 300 in all", kept, ep.Diag.Skipped)
	}
}

// An irrelevant line switches episodes by its own episode_id (top level,
// else extras), as a relevant line would, never by one nested deeper.
func TestIrrelevantLineEpisodeIDTopLevel(t *testing.T) {
	in := rtTurn("A", 1, "n", 0, "Dam", 1) + rtTurn("B", 1, "n", 0, "Dam", 1) +
		`{"event_type": "memory_recall", "memory": {"episode_id": "A"}, "episode_id": "B"}` + "\n" +
		rtLine("turn_completed", "turn", 2, "score", 9, "location", "Dam") + "\n" +
		`{"event_type": "memory_recall", "extras": {"episode_id": "A"}}` + "\n" +
		rtLine("turn_completed", "turn", 2, "score", 4, "location", "Dam") + "\n"
	eps := rtRead(t, in, Options{})
	if got := rtIDs(eps); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("episodes %v", got)
	}
	if eps[0].FinalScore() != 4 || eps[1].FinalScore() != 9 {
		t.Errorf("A final %v (want 4), B final %v (want 9)", eps[0].FinalScore(), eps[1].FinalScore())
	}
}

// An episode_id nested before the line's own one, naming the current
// episode, must not hide the switch the top-level id makes (issue 10
// item 8): the id-less turn after it belongs to A.
func TestIrrelevantLineNestedIDFirst(t *testing.T) {
	in := rtTurn("A", 1, "n", 0, "Dam", 1) + rtTurn("B", 1, "n", 0, "Dam", 1) +
		`{"event_type": "memory_recall", "memory": {"episode_id": "B"}, "episode_id": "A"}` + "\n" +
		rtLine("turn_completed", "turn", 2, "score", 9, "location", "Dam") + "\n"
	eps := rtRead(t, in, Options{})
	if got := rtIDs(eps); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("episodes %v", got)
	}
	if eps[0].RecordedTurns() != 2 || eps[0].FinalScore() != 9 || eps[1].RecordedTurns() != 1 {
		t.Errorf("A: %d turns, final %v (want 2, 9); B: %d turns (want 1)",
			eps[0].RecordedTurns(), eps[0].FinalScore(), eps[1].RecordedTurns())
	}
}

// Turn numbers outside 0..MaxTurnNumber are skipped lines with a reason
// (issue 9 item 4): an episode of only negative turns has no turns, not
// recorded_turns -1.
func TestTurnNumbersOutOfRange(t *testing.T) {
	in := rtLine("final_action_selection", "turn", -1, "agent_action", "n") + "\n" +
		rtLine("turn_completed", "turn", -1, "score", 0, "location", "Dam") + "\n" +
		rtLine("turn_completed", "turn", -2, "score", 0, "location", "Dam") + "\n" +
		rtLine("turn_completed", "turn", MaxTurnNumber+1, "score", 0, "location", "Dam") + "\n"
	// Alone, such lines leave no event: a file error naming the first.
	_, err := Read(strings.NewReader(in), "log.jsonl", "d", Options{})
	if want := "no loop-break events in log.jsonl (4 lines, 4 unreadable; first: log.jsonl:1: turn number -1 out of range (valid: 0 to 100000000))"; err == nil || err.Error() != want {
		t.Errorf("alone: %v\nwant %s", err, want)
	}
	in = rtLine("episode_initialized", "turn", 0) + "\n" + in
	ep := rtOne(t, in)
	if ep.RecordedTurns() != 0 || len(ep.Turns) != 0 || ep.Diag.Skipped != 4 {
		t.Errorf("recorded %d, %d rows, skipped %d; want 0, 0, 4", ep.RecordedTurns(), len(ep.Turns), ep.Diag.Skipped)
	}
	rtWantProblem(t, ep.Diag, "log.jsonl:3: turn number -1 out of range (valid: 0 to 100000000)")
	_, err = Read(strings.NewReader(in), "log.jsonl", "d", Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "log.jsonl:2: turn number -1 out of range") {
		t.Errorf("strict: %v", err)
	}
	// Turn 0 and the bound itself are valid.
	ep = rtOne(t, rtLine("turn_completed", "turn", 0, "score", 1, "location", "Dam")+"\n")
	if len(ep.Turns) != 1 || ep.Turns[0].N != 0 || ep.Diag.Skipped != 0 {
		t.Errorf("turn 0: %+v, skipped %d", ep.Turns, ep.Diag.Skipped)
	}
}

// The early-format fixture (names-only map_movement_update on every turn)
// reads as a name-keyed episode whose moves are the events' and whose
// stays are no moves, without notes.
func TestEarlyFormatFixture(t *testing.T) {
	eps, err := ReadFile(filepath.Join("..", "testdata", "episodes", "2025-06-09T20-04-36", "episode_log.jsonl"), nil, Options{Strict: true})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%v, %d episodes", err, len(eps))
	}
	ep := eps[0]
	if ep.LocationKey != KeyRoomName || ep.RecordedTurns() != 16 || len(ep.Diag.Notes) != 0 || ep.Diag.Skipped != 0 {
		t.Fatalf("key %s, %d turns, notes %q, skipped %d", ep.LocationKey, ep.RecordedTurns(), ep.Diag.Notes, ep.Diag.Skipped)
	}
	moves, stays := 0, 0
	for i := range ep.Turns {
		tr := ep.Row(&ep.Turns[i])
		if i > 0 && tr.LocStart != ep.Str(ep.Turns[i-1].LocEnd) {
			t.Errorf("turn %d starts in %q, previous ended in %q", tr.N, tr.LocStart, ep.Str(ep.Turns[i-1].LocEnd))
		}
		if tr.Moved != (tr.LocStart != tr.LocEnd) {
			t.Errorf("turn %d: %q→%q moved %v", tr.N, tr.LocStart, tr.LocEnd, tr.Moved)
		}
		if tr.Moved {
			moves++
		} else {
			stays++
		}
	}
	if ep.Str(ep.Turns[0].LocStart) != "west of house" || moves == 0 || stays == 0 {
		t.Errorf("turn 1 starts in %q; %d moves, %d stays", ep.Str(ep.Turns[0].LocStart), moves, stays)
	}
}

// Live ZorkGPT's every-turn map_movement_update (from == to when the
// agent stays) reads as the same turn table as a log with move events only
// on moves (issue 10 item 7): staying is no move.
func TestEveryTurnMovesSameTable(t *testing.T) {
	s := replaytest.Incident20251104()
	read := func(s replaytest.Scenario) *Episode {
		var buf bytes.Buffer
		if err := replaytest.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		return rtOne(t, buf.String())
	}
	want := read(s)
	s.EveryTurnMoves = true
	got := read(s)
	if !slices.Equal(got.Turns, want.Turns) {
		for i := range got.Turns {
			if got.Turns[i] != want.Turns[i] {
				t.Fatalf("turn %d: %+v, without every-turn moves %+v", got.Turns[i].N, got.Turns[i], want.Turns[i])
			}
		}
		t.Fatalf("%d turns, want %d", len(got.Turns), len(want.Turns))
	}
}

// Rejected keeps the actions the critic rejected at each turn, in log
// order, for action_novelty (RULES.md §7); a restarted run's record of a
// turn replaces the first one's.
func TestRejectedActions(t *testing.T) {
	in := rtLine("action_rejected", "turn", 1, "action", "north") + "\n" +
		rtLine("action_rejected", "turn_number", 1, "action", "Open Door") + "\n" +
		rtLine("action_rejected", "turn", 1) + "\n" + // no action: counted, not listed
		rtTurn("", 1, "look", 0, "Dam", 0.5) +
		rtTurn("", 2, "look", 0, "Dam", 0.5) +
		rtLine("action_rejected", "turn", 3, "action", "first run") + "\n" +
		rtTurn("", 3, "x", 0, "Dam", 0.5) +
		rtLine("action_rejected", "turn", 3, "action", "second run") + "\n" +
		rtLine("final_action_selection", "turn", 3, "agent_action", "y") + "\n" +
		rtTurn("", 3, "y", 0, "Dam", 0.5)
	ep := rtOne(t, in)
	want := map[int][]string{1: {"north", "Open Door"}, 3: {"second run"}}
	if len(ep.Rejected) != len(want) {
		t.Fatalf("Rejected = %v, want %v", ep.Rejected, want)
	}
	for n, w := range want {
		if !slices.Equal(ep.Rejected[n], w) {
			t.Errorf("Rejected[%d] = %q, want %q", n, ep.Rejected[n], w)
		}
	}
	if tr := ep.Row(ep.Turn(1)); tr.Rejections != 3 {
		t.Errorf("turn 1: %d rejections, want 3", tr.Rejections)
	}
}

// A session of millions of steps holds a Turn and a StepInfo a step
// (48 bytes), a ZorkGPT episode a Turn and a ZorkRow a turn (48 bytes);
// they were 48 and 24 (72 a step) when the ZorkGPT fields were in every
// row and the exit code an int.
func TestTurnRowSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"Turn", unsafe.Sizeof(Turn{}), 32},
		{"ZorkRow", unsafe.Sizeof(ZorkRow{}), 16},
		{"StepInfo", unsafe.Sizeof(StepInfo{}), 16},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, want at most %d", c.name, c.got, c.want)
		}
	}
}

// A slot is 64 bytes, so a chunk of them is one 8 KiB span.
func TestSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(slot{}); n > 64 {
		t.Errorf("slot is %d bytes, want at most 64", n)
	}
}

// A turn may log both an id move and a name-only move, in either order,
// and as late events merged into its record: the id move's rooms are the
// turn's (the name move's share its storage in the slot), and only a turn
// without an id move notes its name move.
func TestIDAndNameMovesOfOneTurn(t *testing.T) {
	idMove := func(n int, from, to int) string {
		return rtLine("map_movement_update", "turn", n, "from_room_id", from, "to_room_id", to) + "\n"
	}
	nameMove := func(n int, from, to string) string {
		return rtLine("map_movement_update", "turn", n, "from_room", from, "to_room", to) + "\n"
	}
	tc := func(n int, loc string) string { return rtTurn("", n, "go", 0, loc, 0.5) }
	cases := []struct {
		name, in   string
		start, end string
		note       bool
	}{
		{"name move, then id move", nameMove(1, "A", "B") + idMove(1, 7, 8) + tc(1, "B"), "7", "8", false},
		{"id move, then name move", idMove(1, 7, 8) + nameMove(1, "A", "B") + tc(1, "B"), "7", "8", false},
		{"late id move after a name move", nameMove(1, "A", "B") + tc(1, "B") + idMove(1, 7, 8) + tc(2, "B"), "7", "8", false},
		{"late name move after an id move", idMove(1, 7, 8) + tc(1, "B") + nameMove(1, "A", "B") + tc(2, "B"), "7", "8", false},
		{"name move only, id from a later turn", nameMove(1, "A", "B") + tc(1, "B") + idMove(2, 8, 9) + tc(2, "C"), "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := rtOne(t, c.in)
			tr := ep.Row(ep.Turn(1))
			if tr.LocStart != c.start || tr.LocEnd != c.end {
				t.Errorf("turn 1 %q→%q, want %q→%q", tr.LocStart, tr.LocEnd, c.start, c.end)
			}
			noted := false
			for _, n := range ep.Diag.Notes {
				noted = noted || strings.Contains(n, "map_movement_update without room ids ignored")
			}
			if noted != c.note {
				t.Errorf("notes %q, want the name move noted: %v", ep.Diag.Notes, c.note)
			}
		})
	}
}

// A ZorkGPT log read with outputs has a Sym per turn from the first reply
// on, and none (not nil) when no turn has a reply: no table of zeros.
func TestOutputsOfSomeTurns(t *testing.T) {
	reply := func(n int, text string) string {
		return rtLine("zork_response", "turn", n, "zork_response", text) + "\n"
	}
	in := rtTurn("", 1, "n", 0, "Dam", 0.5) + reply(2, "Locked.") + rtTurn("", 2, "open", 0, "Dam", 0.5) +
		rtTurn("", 3, "n", 0, "Dam", 0.5) + rtTurn("", 5, "s", 0, "Dam", 0.5)
	eps := rtRead(t, in, Options{Outputs: true})
	ep := eps[0]
	if len(ep.Outputs) != len(ep.Turns) {
		t.Fatalf("%d outputs for %d turns", len(ep.Outputs), len(ep.Turns))
	}
	for n, want := range map[int]string{1: "", 2: "Locked.", 3: "", 4: "", 5: ""} {
		if got := ep.Output(n); got != want {
			t.Errorf("turn %d: output %q, want %q", n, got, want)
		}
	}
	eps = rtRead(t, rtTurn("", 1, "n", 0, "Dam", 0.5), Options{Outputs: true})
	if eps[0].Outputs == nil || len(eps[0].Outputs) != 0 || eps[0].Output(1) != "" {
		t.Errorf("no replies: outputs %v (nil %v)", eps[0].Outputs, eps[0].Outputs == nil)
	}
}

// TestFreeCollectorHoldsNoEpisode: a collector kept for the next file
// (freeCollectors) keeps its last episode's builder for reuse, emptied:
// none of the episode's strings, diagnostics or live events, which a
// huge episode's would otherwise hold until the collector's next file.
func TestFreeCollectorHoldsNoEpisode(t *testing.T) {
	for len(freeCollectors) > 0 {
		<-freeCollectors // this test's file's collector comes next
	}
	path := filepath.Join("..", "testdata", "episodes", "test_smoke", "episode_log.jsonl")
	n := 0
	if _, err := StreamRegularFile(context.Background(), path, Options{Outputs: true}, func(ep *Episode) error {
		n++
		return nil
	}); err != nil || n != 1 {
		t.Fatalf("%d episodes, %v", n, err)
	}
	c := newCollector("next", "next")
	b := c.spare
	if b == nil {
		t.Fatal("the free collector kept no builder")
	}
	if b.syms.chunks != nil || b.syms.n != 0 || b.syms.refs != nil || b.Diag.Lines != 0 || len(b.live) != 0 || b.id != "" || b.slots.n != 0 {
		t.Errorf("the kept builder holds its episode: %d strings, %d lines, %d live events, id %q", b.syms.n, b.Diag.Lines, len(b.live), b.id)
	}
	if b.syms.ids.n != 0 || b.syms.ids.slots == nil {
		t.Errorf("the kept builder's index: %d entries, %d slots (want empty, kept)", b.syms.ids.n, len(b.syms.ids.slots))
	}
}
