package replaytest

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

// ev is one parsed log line, with "extras" flattened into the top level.
type ev map[string]any

func (e ev) typ() string { s, _ := e["event_type"].(string); return s }

func (e ev) str(k string) string { s, _ := e[k].(string); return s }

func (e ev) num(k string) (float64, bool) {
	f, ok := e[k].(float64)
	return f, ok
}

func (e ev) int(k string) int { f, _ := e.num(k); return int(f) }

// turnOf returns the turn of an event ("turn", else "turn_number").
func (e ev) turnOf() (int, bool) {
	if f, ok := e.num("turn"); ok {
		return int(f), true
	}
	if f, ok := e.num("turn_number"); ok {
		return int(f), true
	}
	return 0, false
}

var nanToken = regexp.MustCompile(`: (NaN|-?Infinity)([,}])`)

// lineResult describes one line of a log file.
type lineResult struct {
	ev        ev
	nan       bool // needed NaN/Infinity replacement to parse
	truncated bool // the file's last line, cut without a newline
}

// parseFile parses every line of a fixture file; it fails the test on a
// line that is neither valid JSON, nor valid after replacing bare
// NaN/Infinity tokens, nor the file's unterminated last line.
func parseFile(t *testing.T, path string) []lineResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []lineResult
	for i := 0; len(data) > 0; i++ {
		var line []byte
		terminated := true
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			line, data = data[:j], data[j+1:]
		} else {
			line, data, terminated = data, nil, false
		}
		var r lineResult
		if !json.Valid(line) {
			fixed := nanToken.ReplaceAll(line, []byte(": null$2"))
			switch {
			case json.Valid(fixed):
				r.nan = true
				line = fixed
			case !terminated:
				r.truncated = true
				out = append(out, r)
				continue
			default:
				t.Fatalf("%s:%d: invalid JSON: %.120s", path, i+1, line)
			}
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		if x, ok := m["extras"].(map[string]any); ok {
			delete(m, "extras")
			for k, v := range x {
				m[k] = v
			}
		}
		r.ev = m
		out = append(out, r)
	}
	return out
}

// episodes splits parsed lines by episode_id (lines without one belong to
// the episode before them, or the next one at the start of a file).
func episodes(lines []lineResult) (ids []string, by map[string][]ev) {
	by = map[string][]ev{}
	cur := ""
	var pending []ev
	for _, l := range lines {
		if l.ev == nil {
			continue
		}
		if id := l.ev.str("episode_id"); id != "" && id != cur {
			cur = id
			if _, seen := by[id]; !seen {
				ids = append(ids, id)
			}
			by[id] = append(by[id], pending...)
			pending = nil
		}
		if cur == "" {
			pending = append(pending, l.ev)
			continue
		}
		by[cur] = append(by[cur], l.ev)
	}
	return ids, by
}

// turnView is what the replay rules read about a turn (last occurrence wins
// for repeated turns).
type turnView struct {
	n          int
	action     string
	score      int
	location   string
	fromID     int
	toID       int
	moved      bool
	nameMoves  int    // names-only map_movement_update events (early format)
	fromName   string // their from_room and to_room
	toName     string
	base       float64
	hasBase    bool
	objective  bool
	rejections int
	penalty    ev
	scoreChg   ev
	objReset   ev
}

func turnsOf(evs []ev) map[int]*turnView {
	ts := map[int]*turnView{}
	get := func(n int) *turnView {
		if ts[n] == nil {
			ts[n] = &turnView{n: n}
		}
		return ts[n]
	}
	seenSel := map[int]int{} // final_action_selection occurrences (restart repeats)
	for _, e := range evs {
		n, ok := e.turnOf()
		if !ok || n < 1 {
			continue
		}
		switch e.typ() {
		case "final_action_selection":
			seenSel[n]++
			tv := get(n)
			tv.action = e.str("agent_action")
			tv.rejections = 0
			if tv.penalty == nil {
				tv.base, tv.hasBase = e.num("critic_confidence")
			}
		case "location_penalty_applied":
			tv := get(n)
			tv.penalty = e
			tv.base, tv.hasBase = e.num("base_confidence")
		case "action_rejected":
			get(n).rejections++
		case "map_movement_update":
			tv := get(n)
			if _, ok := e.num("from_room_id"); !ok {
				tv.nameMoves++
				tv.fromName, tv.toName = e.str("from_room"), e.str("to_room")
				break
			}
			// Live ZorkGPT logs one every turn: staying is no move.
			tv.fromID, tv.toID = e.int("from_room_id"), e.int("to_room_id")
			tv.moved = tv.fromID != tv.toID
		case "objective_completed":
			get(n).objective = true
		case "turn_completed":
			tv := get(n)
			tv.score, tv.location = e.int("score"), e.str("location")
			if tv.action == "" {
				tv.action = e.str("action")
			}
		case "score_change":
			get(n).scoreChg = e
		case "objective_progress_reset":
			get(n).objReset = e
		}
	}
	return ts
}

func sortedTurns(ts map[int]*turnView) []int {
	var ns []int
	for n := range ts {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns
}

// rule1 runs RULES.md rule 1 (objective progress on) over turns 1..last,
// filling gaps with unchanged turns, and returns the check points.
func rule1(ts map[int]*turnView, last, maxStuck, interval int) (checkpoints []int, changes map[int]int, resets map[int]int) {
	changes, resets = map[int]int{}, map[int]int{}
	lastChange, tracked, lastObj := 0, 0, 0
	score := 0
	for t := 1; t <= last; t++ {
		if tv := ts[t]; tv != nil {
			score = tv.score
			if tv.objective {
				lastObj = t
			}
		}
		if t == 1 {
			tracked = score
			continue
		}
		stuck := t - lastChange
		if score != tracked {
			lastChange, tracked = t, score
			if stuck > 0 {
				changes[t] = stuck
			}
		} else if lastObj > 0 && t-lastObj <= 1 && stuck > 0 {
			lastChange = t
			resets[t] = stuck
		}
		if t%interval == 0 && t-lastChange >= maxStuck {
			checkpoints = append(checkpoints, t)
		}
	}
	return checkpoints, changes, resets
}

func fixturePath(dir string) string {
	return filepath.Join(fixtureRoot, dir, "episode_log.jsonl")
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
