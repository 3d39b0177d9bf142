package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rtSeedLines are real-shaped lines, one per event of LOG_FORMAT.md's
// table plus the quirks it lists.
var rtSeedLines = []string{
	`{"timestamp": "2025-11-03T12:38:53.069794", "level": "INFO", "message": "ZorkOrchestrator v2 initialized", "event_type": "orchestrator_init", "episode_id": "2025-11-03T12:38:53", "agent_model": "qwen/qwen3-235b-a22b", "critic_model": "google/gemini-2.5-flash", "info_ext_model": "google/gemini-2.5-flash-lite", "max_turns": 341}`,
	`{"timestamp": "2025-11-03T12:38:53.122907", "level": "INFO", "message": "Episode initialized: 2025-11-03T12:38:53", "event_type": "episode_initialized", "episode_id": "2025-11-03T12:38:53", "turn": 0, "max_turns": 341, "agent_model": "qwen/qwen3-235b-a22b", "critic_model": "google/gemini-2.5-flash"}`,
	`{"timestamp": "2025-11-03T12:38:58.114428", "level": "INFO", "message": "SELECTED ACTION: north (Score: 0.65, Confidence: 0.81, Override: False)", "event_type": "final_action_selection", "episode_id": "2025-11-03T12:38:53", "turn": 1, "agent_action": "north", "agent_reasoning": "Nothing left to do in West of House for now. I'll go north.", "critic_score": 0.65, "critic_confidence": 0.81, "was_overridden": false, "critic_enabled": true}`,
	`{"timestamp": "2025-11-05T14:20:18.294157", "level": "INFO", "message": "Applied location penalty: 0.57 \u2192 0.37", "event_type": "location_penalty_applied", "turn": 2, "base_confidence": 0.57, "adjusted_confidence": 0.36999999999999994, "reason": "Location revisit penalty -0.20 (1x return to West of House)", "location_id": 180, "recent_visits": 1}`,
	`{"timestamp": "2025-11-04T09:38:19.028980", "level": "INFO", "message": "Critic rejected action: in (score: -0.89)", "event_type": "action_rejected", "episode_id": "2025-11-04T09:35:24", "turn": 35, "action": "in", "score": -0.89, "justification": "Repeating 'in' is unlikely to produce a different result.", "rejection_attempt": 1}`,
	`{"timestamp": "2025-11-07T10:15:51.161637", "level": "INFO", "message": "Overriding critic rejection", "event_type": "critic_override", "episode_id": "2025-11-07T10:15:00", "reason": "Rejected action is a movement into an unexplored direction", "turn_number": 9, "original_action": "examine tree", "original_score": -0.41}`,
	`{"timestamp": "2025-11-03T12:38:58.136391", "level": "INFO", "message": "ZORK RESPONSE for 'north':\nNorth of House\nYou are facing the north side of a white house.\n", "event_type": "zork_response", "episode_id": "2025-11-03T12:38:53", "turn": 1, "action": "north", "zork_response": "North of House\nYou are facing the north side of a white house.", "raw_zork_response": "\nNorth of House\n"}`,
	`{"timestamp": "2025-01-01T00:00:07.570146", "level": "INFO", "message": "Map updated from movement", "event_type": "map_movement_update", "episode_id": "test_smoke", "turn": 1, "action": "go southeast", "from_room_id": 180, "from_room": "West of House", "to_room_id": 79, "to_room": "South of House"}`,
	`{"timestamp": "2025-11-03T12:38:58.186208", "level": "INFO", "message": "Room description captured", "event_type": "room_description_captured", "turn": 1, "location_id": 81, "text_length": 173}`,
	`{"timestamp": "2025-11-07T10:15:08.880098", "level": "INFO", "message": "Room description captured", "extras": {"event_type": "room_description_captured", "turn": 2, "location_id": 79, "text_length": 118}}`,
	`{"timestamp": "2025-11-07T10:15:57.558786", "level": "INFO", "message": "Objective completed: Open the mailbox and read the leaflet", "event_type": "objective_completed", "episode_id": "2025-11-07T10:15:00", "turn_number": 10, "component": "objective_manager", "objective": "Open the mailbox and read the leaflet", "completion_action": "go west", "completion_location": "Forest", "completion_score": 10}`,
	`{"timestamp": "2025-11-03T12:38:58.250491", "level": "INFO", "message": "Turn 1 completed", "event_type": "turn_completed", "episode_id": "2025-11-03T12:38:53", "turn": 1, "action": "north", "score": 0, "location": "North of House", "confidence": 0.81}`,
	`{"timestamp": "2025-11-05T14:20:46.433530", "level": "INFO", "message": "Score changed: 0 \u2192 10 (was stuck for 4 turns)", "event_type": "score_change", "episode_id": "2025-11-05T14:20:07", "turn": 8, "old_score": 0, "new_score": 10, "was_stuck_for": 4}`,
	`{"timestamp": "2025-11-05T14:20:24.180612", "level": "INFO", "message": "Objective progress: resetting stuck timer (was stuck for 3 turns)", "event_type": "objective_progress_reset", "episode_id": "2025-11-05T14:20:07", "turn": 3, "was_stuck_for": 3}`,
	`{"timestamp": "2025-11-06T08:06:53.659580", "level": "WARNING", "message": "Terminating episode: no progress for 40 turns (score stuck at 45)", "event_type": "stuck_termination", "episode_id": "2025-11-06T08:00:00", "turn": 80, "score": 45, "turns_stuck": 40}`,
	`{"timestamp": "2025-11-05T14:26:02.596773", "level": "INFO", "message": "Game over detected: You have died", "event_type": "game_over_detected", "episode_id": "2025-11-05T14:20:07", "turn_number": 62, "reason": "You have died"}`,
	`{"timestamp": "2025-11-05T14:26:02.687754", "level": "INFO", "message": "Episode completed", "event_type": "episode_completed", "episode_id": "2025-11-05T14:20:07", "turn": 62, "final_score": 45, "game_over": true, "reason": "game_over"}`,
	`{"timestamp": "2025-11-03T13:09:35.981498", "level": "INFO", "message": "Episode finalized: 2025-11-03T12:38:53", "event_type": "episode_finalized", "episode_id": "2025-11-03T12:38:53", "turn": 341, "final_score": 40, "death_count": 0, "objectives_completed": 7}`,
	`{"timestamp": "2025-11-08T16:45:14.874854", "level": "DEBUG", "message": "LLM call completed", "event_type": "llm_call", "episode_id": "2025-11-08T16:45:12", "turn": 1, "component": "agent", "model": "qwen/qwen3-235b-a22b"}`,
	`{"timestamp": "2025-11-07T10:15:08.427637", "level": "WARNING", "message": "LLM call failed (attempt 1/3), retrying in 2.0s: 429 Too Many Requests", "extras": {"event_type": "llm_retry", "episode_id": "2025-11-07T10:15:00", "turn": 2, "component": "llm_client", "attempt": 1, "max_attempts": 3, "delay_seconds": 2.0, "error": "429 Too Many Requests"}}`,
	`{"timestamp": "2025-11-07T10:15:35.907513", "level": "DEBUG", "message": "LLM usage recorded", "event_type": "llm_usage", "episode_id": "2025-11-07T10:15:00", "turn": 7, "component": "llm_client", "model": "qwen/qwen3-235b-a22b", "prompt_tokens": 4343, "completion_tokens": 427, "cost_usd": NaN, "tokens_per_second": Infinity}`,
	`{"timestamp": "2025-11-07T10:15:00.171144", "level": "INFO", "message": "Enhanced prompt with knowledge base (5,299 characters)"}`,
	`{"timestamp": "2025-11-07T10:15:36.1", "level": "INFO", "message": "Turn 7 completed", "event_type": "turn_completed", "turn": 7, "action": "say \u00abNaN\u00bb \ud83d\udea8", "score": -Infinity, "location": "Caf\u00e9  D\u00c9J\u00c0", "confidence": NaN}`,
}

// rtHugeTurn matches a turn number that may be 100000 or more (six
// digits, or an exponent).
var rtHugeTurn = regexp.MustCompile(`(?i)"turn(_number)?"\s*:\s*"?\s*[-+]?(\d{6}|[\d.]*[eE])`)

func FuzzRead(f *testing.F) {
	all := strings.Join(rtSeedLines, "\n") + "\n"
	f.Add([]byte(all))
	f.Add([]byte(strings.ReplaceAll(all, "\n", "\r\n")))
	f.Add([]byte(all[:len(all)-40]))
	f.Add(rtGzip(f, []byte(all)))
	z := rtGzip(f, []byte(all))
	f.Add(z[:len(z)/2])
	for _, l := range rtSeedLines {
		f.Add([]byte(l))
	}
	f.Add([]byte("\n\n{}\n[]\nnot json\n{\"event_type\": \"turn_completed\"}\n"))
	if data, err := os.ReadFile(filepath.Join("..", "testdata", "episodes", "test_smoke", "episode_log.jsonl")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Turn numbers of 1e5 or more make tables of up to MaxFilledTurns
		// gap rows: bounded, but slow to fuzz.
		if rtHugeTurn.Match(data) {
			t.Skip()
		}
		eps, err := Read(bytes.NewReader(data), "fuzz", "d", Options{})
		if err != nil && rtGzipMagic(data) && (errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF)) {
			// A bad gzip header makes the whole file unreadable: a file
			// error by design (TestReadBadGzipHeader).
			return
		}
		var ce *LineError
		if err != nil && (rtGzipMagic(data) || bytes.HasPrefix(data, zstdMagic)) && errors.As(err, &ce) && ce.File == "fuzz" && len(eps) == 0 {
			// A stream broken before its first event, or a member whose
			// checksum fails, is a file error naming the decoder's
			// reason (TestCorruptDeflateIsNamed, TestGzipBadChecksumDropsTheMember).
			return
		}
		var ne *NoEventsError
		if errors.As(err, &ne) {
			if len(eps) != 0 || ne.File != "fuzz" || ne.Skipped > 0 && !strings.HasPrefix(ne.First, "fuzz:") {
				t.Fatalf("%d episodes with %v", len(eps), err)
			}
		} else if err != nil {
			t.Fatalf("Read without Strict returned %v", err)
		}
		rtCheckEpisodes(t, data, eps)
		_, err = Read(bytes.NewReader(data), "fuzz", "d", Options{Strict: true})
		var le *LineError
		if err != nil && !errors.As(err, &le) && !errors.Is(err, ErrNoEvents) {
			t.Fatalf("Strict: error %v (%T), want a *LineError", err, err)
		}
		if le != nil && (le.File != "fuzz" || le.Line < 1) {
			t.Fatalf("Strict: %+v", *le)
		}
	})
}

func rtGzipMagic(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// rtCheckEpisodes checks what holds for any input.
func rtCheckEpisodes(t *testing.T, data []byte, eps []*Episode) {
	t.Helper()
	gz := rtGzipMagic(data)
	lines, skipped := 0, 0
	ids := map[string]bool{}
	for _, ep := range eps {
		if ids[ep.ID] {
			t.Fatalf("episode %q twice", ep.ID)
		}
		ids[ep.ID] = true
		d := ep.Diag
		lines += d.Lines
		skipped += d.Skipped
		if len(d.Problems) > MaxProblems || len(d.Notes) > MaxProblems {
			t.Fatalf("%d problems, %d notes", len(d.Problems), len(d.Notes))
		}
		if d.Skipped < len(d.Problems) {
			t.Fatalf("skipped %d < %d problems", d.Skipped, len(d.Problems))
		}
		for _, p := range d.Problems {
			if !strings.HasPrefix(p, "fuzz:") {
				t.Fatalf("problem %q does not name the file", p)
			}
		}
		switch ep.RecordedEnd {
		case EndGameOver, EndMaxTurns, EndStuckTermination, EndUnknown:
		default:
			t.Fatalf("recorded end %q", ep.RecordedEnd)
		}
		if ep.LocationKey != KeyRoomID && ep.LocationKey != KeyRoomName {
			t.Fatalf("location key %q", ep.LocationKey)
		}
		if n := len(ep.Turns); n > 0 {
			if ep.Turns[0].Filled || ep.Turns[n-1].Filled {
				t.Fatalf("first or last turn filled")
			}
			gaps := 0
			for i := range ep.Turns {
				tr := ep.Row(&ep.Turns[i])
				if tr.N != ep.Turns[0].N+i {
					t.Fatalf("row %d is turn %d", i, tr.N)
				}
				if tr.Filled {
					gaps++
					if tr.HasAction || tr.HasBase || tr.Moved || tr.LocStart != tr.LocEnd || tr.Score != ep.Turns[i-1].Score {
						t.Fatalf("filled turn %+v", tr)
					}
				}
				// (A name-keyed turn starts where the previous ended, or
				// where its name-only move event says.)
				if ep.LocationKey == KeyRoomName && (tr.LocEnd != FoldName(tr.LocEnd) || tr.LocStart != FoldName(tr.LocStart)) {
					t.Fatalf("name key %q→%q not folded", tr.LocStart, tr.LocEnd)
				}
				if tr.Moved && tr.LocStart == tr.LocEnd {
					t.Fatalf("turn %d moved without changing room %q", tr.N, tr.LocEnd)
				}
			}
			if gaps != d.Gaps {
				t.Fatalf("%d filled turns, Diag.Gaps %d", gaps, d.Gaps)
			}
			if ep.Turn(ep.Turns[0].N-1) != nil || ep.Turn(ep.RecordedTurns()+1) != nil {
				t.Fatal("Turn outside the table")
			}
		}
		for i := 1; i < len(ep.ObjectiveTurns); i++ {
			if ep.ObjectiveTurns[i] < ep.ObjectiveTurns[i-1] {
				t.Fatalf("objective turns %v", ep.ObjectiveTurns)
			}
		}
	}
	// A read error (a cut gzip stream) is one skipped "line" that was never
	// counted as read.
	slack := 0
	if gz {
		slack = 1
	}
	if skipped > lines+slack {
		t.Fatalf("skipped %d > %d lines", skipped, lines)
	}
	if !gz {
		if n := bytes.Count(data, []byte("\n")) + 1; lines > n {
			t.Fatalf("%d lines counted in %d", lines, n)
		}
	}
}

func FuzzSniffEventType(f *testing.F) {
	for _, l := range rtSeedLines {
		f.Add([]byte(l))
	}
	for _, l := range []string{
		`{"event_type": "zork_response", "extras": {"event_type": "turn_completed"}}`,
		`{"message": "{\"event_type\": \"turn_completed\"}", "event_type": "llm_usage"}`,
		`{"message": "C:\\", "event_type": "llm_call"}`,
		`{"event_type":"turn_completed","event_type":"zork_response"}`,
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		relevant, found := sniffEventType(line)
		if relevant && !found {
			t.Fatal("relevant but not found")
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			return
		}
		et, ok := m["event_type"].(string)
		if !ok {
			return
		}
		if !found {
			t.Fatalf("top-level event_type %q not found", et)
		}
		if relevantEvents[et] && !relevant {
			t.Fatalf("top-level event_type %q is relevant, sniff says not", et)
		}
	})
}

// rtSanitizeRef is an obviously correct sanitizer: a token scan with a
// string state, no recursion.
func rtSanitizeRef(line []byte) []byte {
	var out []byte
	inStr, esc := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		default:
			replaced := false
			for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
				if bytes.HasPrefix(line[i:], []byte(tok)) {
					out = append(out, "null"...)
					i += len(tok) - 1
					replaced = true
					break
				}
			}
			if replaced {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func FuzzSanitizeNonFinite(f *testing.F) {
	for _, l := range rtSeedLines {
		f.Add([]byte(l), "text")
	}
	f.Add([]byte(`[NaN,Infinity,-Infinity,"NaN\"Infinity",-NaN]`), `a "quoted" NaN \ back`)
	f.Add([]byte(`{"s": "\\", "n": NaN}`), "\u00e9\x00")
	f.Fuzz(func(t *testing.T, line []byte, s string) {
		got, changed := sanitizeNonFinite(line)
		want := rtSanitizeRef(line)
		if !bytes.Equal(got, want) {
			t.Fatalf("sanitizeNonFinite(%q) = %q, want %q", line, got, want)
		}
		if changed != !bytes.Equal(line, want) {
			t.Fatalf("changed = %v for %q", changed, line)
		}
		if again, ch := sanitizeNonFinite(got); ch || !bytes.Equal(again, got) {
			t.Fatalf("not idempotent: %q → %q", got, again)
		}
		if json.Valid(line) && changed {
			t.Fatalf("valid JSON changed: %q", line)
		}
		// Any string survives next to non-finite numbers.
		doc := []byte(`{"s": ` + string(rtJSON(s)) + `, "n": NaN, "a": [Infinity, -Infinity, 1]}`)
		fixed, _ := sanitizeNonFinite(doc)
		var v struct {
			S string
			N *float64
			A []*float64
		}
		if err := json.Unmarshal(fixed, &v); err != nil {
			t.Fatalf("sanitized %q: %v", fixed, err)
		}
		var wantS string
		json.Unmarshal(rtJSON(s), &wantS) // invalid UTF-8 as U+FFFD, as json.Marshal writes it
		if v.S != wantS || v.N != nil || len(v.A) != 3 || v.A[0] != nil || v.A[2] == nil {
			t.Fatalf("sanitized %q decoded to %+v", fixed, v)
		}
	})
}

// FuzzTopEpisodeID checks the episode-id scanner against encoding/json on
// any valid JSON object: the line's own id is the top-level episode_id,
// else extras' (the last of duplicate keys, as encoding/json keeps).
func FuzzTopEpisodeID(f *testing.F) {
	for _, l := range rtSeedLines {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"memory": {"episode_id": "B"}, "episode_id": "A"}`))
	f.Add([]byte(`{"extras": {"episode_id": "B"}, "episode_id": null}`))
	f.Add([]byte(`{"episode_id": "A", "episode_id": "B", "extras": {"episode_id": 3}, "extras": {}}`))
	f.Add([]byte(`{"episode\u005fid": "A", "m": "\"episode_id\": \"B\""}`))
	f.Add([]byte(`{"a": [{"episode_id": "B"}], "extras": {"x": {"episode_id": "C"}, "episode_id": " D "}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got := topEpisodeID(line) // never panics, whatever line holds
		var m map[string]json.RawMessage
		if !json.Valid(line) || json.Unmarshal(line, &m) != nil {
			return
		}
		want := m["episode_id"]
		if x := m["extras"]; !present(want) && len(x) > 0 && x[0] == '{' {
			var xm map[string]json.RawMessage
			if json.Unmarshal(x, &xm) == nil {
				want = xm["episode_id"]
			}
		}
		if !present(want) {
			want = nil
		}
		gotID, gotOK := text(got)
		wantID, wantOK := text(want)
		if gotID != wantID || gotOK != wantOK {
			t.Fatalf("topEpisodeID(%s) = %q (%v), encoding/json says %q (%v)", line, gotID, gotOK, wantID, wantOK)
		}
	})
}

// FuzzCompactor checks that a line read in chunks by the long-line
// compactor decodes as the whole line does, for any valid JSON object, and
// never panics on anything else.
func FuzzCompactor(f *testing.F) {
	for _, l := range rtSeedLines {
		f.Add([]byte(l), uint8(7))
	}
	f.Add([]byte(`{"extras": {"turn": 1}, "extras": 3, "a": [{"turn": 2}], "turn": "4"}`), uint8(1))
	f.Add([]byte(`{"turn\u0020": 1, "t\u0075rn": 2}`), uint8(3))
	f.Fuzz(func(t *testing.T, line []byte, n uint8) {
		out, ok, _ := compact(line, int(n)+1) // never panics
		if !json.Valid(line) || len(bytes.TrimSpace(line)) == 0 || bytes.TrimSpace(line)[0] != '{' {
			return
		}
		if bytes.ContainsAny(line, "\n") || bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
			return // not one line as the reader gives it
		}
		want, err := decodeLine(line)
		if err != nil {
			t.Fatalf("valid %q: %v", line, err)
		}
		if !ok {
			t.Fatalf("valid %q compacted as broken (%s)", line, out)
		}
		got, err := decodeLine(out)
		if err != nil {
			t.Fatalf("%q compacted to invalid %q: %v", line, out, err)
		}
		if g, w := rtWire(got), rtWire(want); g != w {
			t.Fatalf("%q compacted to %q\n got %s\nwant %s", line, out, g, w)
		}
	})
}

// FuzzSplitEpisodes checks multi-episode splitting against a model: each
// byte adds a line (an episode's turn with its id, an id-less turn of the
// current episode, or an irrelevant line that switches episodes by its own
// id while naming another one nested), and Read and Stream must give every
// episode exactly the turns the model routed to it.
func FuzzSplitEpisodes(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{8, 8, 9, 2, 6, 10, 14, 3})
	f.Add([]byte{255, 254, 1, 128, 64, 32, 16})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 2000 {
			return
		}
		ids := []string{"A", "B", "C", "D"}
		var in strings.Builder
		turns := map[string]int{} // the model: turns per episode ("" before any id)
		cur := ""
		use := func(id string) {
			if cur == "" && id != "" && turns[id] == 0 {
				turns[id] = turns[""] // the first id names the lines before it
				delete(turns, "")
			}
			cur = id
		}
		for _, op := range ops {
			id, other := ids[op%4], ids[(op/4)%4]
			switch (op / 16) % 4 {
			case 0: // a turn naming its episode
				use(id)
				turns[id]++
				in.WriteString(rtLine("turn_completed", "episode_id", id, "turn", turns[id], "score", 1, "location", "Dam") + "\n")
			case 1: // an irrelevant line: another id nested first, its own after
				use(id)
				in.WriteString(rtLine("memory_recall", "memory", map[string]string{"episode_id": other}, "episode_id", id) + "\n")
			case 2: // an id-less turn of the current episode
				turns[cur]++
				in.WriteString(rtLine("turn_completed", "turn", turns[cur], "score", 1, "location", "Dam") + "\n")
			default: // an irrelevant line whose own id is under extras
				use(id)
				in.WriteString(rtLine("", "extras", map[string]any{"event_type": "llm_retry", "episode_id": id, "x": map[string]string{"episode_id": other}}) + "\n")
			}
		}
		want := map[string]int{}
		for id, n := range turns {
			if n > 0 {
				if id == "" {
					id = "d"
				}
				want[id] = n
			}
		}
		check := func(how string, eps []*Episode, err error) {
			got := map[string]int{}
			for _, ep := range eps {
				if len(ep.Turns) > 0 {
					got[ep.ID] += len(ep.Turns)
					if ep.RecordedTurns() != len(ep.Turns) || ep.Diag.Repeated != 0 || ep.Diag.Gaps != 0 {
						t.Fatalf("%s: %s: %d rows to turn %d, repeated %d", how, ep.ID, len(ep.Turns), ep.RecordedTurns(), ep.Diag.Repeated)
					}
				}
			}
			if len(want) == 0 {
				return // no turn at all: an error or turnless episodes
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: turns per episode %v (err %v), model %v", how, got, err, want)
			}
		}
		eps, err := Read(strings.NewReader(in.String()), "log.jsonl", "d", Options{Strict: true})
		check("Read", eps, err)
		eps = eps[:0]
		_, err = Stream(context.Background(), strings.NewReader(in.String()), "log.jsonl", "d", Options{Strict: true}, func(ep *Episode) error {
			eps = append(eps, ep)
			return nil
		})
		check("Stream", eps, err)
	})
}
