package replaytest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every complete line of every fixture is valid JSON, except the documented
// quirks: NaN/Infinity in llm_usage lines and the truncated last line, both
// only in the quirks fixture.
func TestFixtureLinesValid(t *testing.T) {
	for _, f := range Fixtures() {
		t.Run(f.Dir, func(t *testing.T) {
			lines := parseFile(t, fixturePath(f.Dir))
			quirky := f.Dir == "2025-11-07T10-15-00"
			for i, l := range lines {
				if l.nan {
					if !quirky || l.ev.typ() != "llm_usage" {
						t.Errorf("line %d: unexpected NaN/Infinity in %q", i+1, l.ev.typ())
					}
				}
				if l.truncated && (!quirky || i != len(lines)-1) {
					t.Errorf("line %d: unexpected truncated line", i+1)
				}
				if l.ev != nil {
					if _, ok := l.ev["timestamp"].(string); !ok {
						t.Errorf("line %d: no timestamp", i+1)
					}
					if _, ok := l.ev["level"].(string); !ok {
						t.Errorf("line %d: no level", i+1)
					}
					if _, ok := l.ev["message"].(string); !ok {
						t.Errorf("line %d: no message", i+1)
					}
				}
			}
		})
	}
}

func loadEpisode(t *testing.T, dir, id string) []ev {
	t.Helper()
	_, by := episodes(parseFile(t, fixturePath(strings.ReplaceAll(dir, ":", "-"))))
	evs := by[id]
	if len(evs) == 0 {
		t.Fatalf("%s: no episode %s", dir, id)
	}
	return evs
}

func scoreTimeline(ts map[int]*turnView) string {
	var b strings.Builder
	prev := math.MinInt
	for _, n := range sortedTurns(ts) {
		if ts[n].score != prev {
			fmt.Fprintf(&b, "%d:%d ", n, ts[n].score)
			prev = ts[n].score
		}
	}
	return strings.TrimSpace(b.String())
}

func lastOf(evs []ev, typ string) ev {
	var out ev
	for _, e := range evs {
		if e.typ() == typ {
			out = e
		}
	}
	return out
}

// estimated LLM calls after turn cut: 4 per turn plus 2 per rejection
func callsAfter(ts map[int]*turnView, cut int) int {
	n := 0
	for t, tv := range ts {
		if t > cut {
			n += 4 + 2*tv.rejections
		}
	}
	return n
}

func TestIncident20251103(t *testing.T) {
	s := Incident20251103()
	evs := loadEpisode(t, s.EpisodeID, s.EpisodeID)
	ts := turnsOf(evs)
	if got := sortedTurns(ts); len(got) != 341 || got[0] != 1 || got[340] != 341 {
		t.Fatalf("turns: %d, want 1..341", len(got))
	}
	if got, want := scoreTimeline(ts), "1:0 9:10 37:35 105:40"; got != want {
		t.Errorf("score timeline %q, want %q", got, want)
	}
	locs := map[string]int{}
	for _, tv := range ts {
		locs[tv.location]++
	}
	for name, want := range map[string]int{"Dam": 139, "Dam Lobby": 26, "Maintenance Room": 37} {
		if locs[name] != want {
			t.Errorf("turns at %s: %d, want %d", name, locs[name], want)
		}
	}
	rej := 0
	for n, tv := range ts {
		if tv.objective && n > 104 {
			t.Errorf("objective completed at turn %d", n)
		}
		if tv.rejections > 0 && n > 120 {
			t.Errorf("rejection at turn %d", n)
		}
		rej += tv.rejections
	}
	if rej == 0 {
		t.Error("no rejections")
	}
	done := lastOf(evs, "episode_completed")
	if done == nil || done.str("reason") != "max_turns" || done.int("turn") != 341 || done.int("final_score") != 40 {
		t.Errorf("episode_completed = %v", done)
	}
	// the design's expectations
	// "near turn 135": the first check point (t % 10 == 0) with 30 turns stuck
	cp, _, _ := rule1(ts, 341, 30, 10)
	if len(cp) == 0 || cp[0] != 140 {
		t.Fatalf("max_turns_stuck=30: check points %v, want first 140", cp)
	}
	if got := callsAfter(ts, 140); got != 4*201 {
		t.Errorf("calls after 140: %d, want %d", got, 4*201)
	}
	if cp, _, _ := rule1(ts, 341, 40, 10); len(cp) == 0 || cp[0] != 150 {
		t.Errorf("max_turns_stuck=40: check points %v, want first 150", cp)
	}
}

func TestIncident20251104(t *testing.T) {
	s := Incident20251104()
	evs := loadEpisode(t, s.EpisodeID, s.EpisodeID)
	ts := turnsOf(evs)
	if got := sortedTurns(ts); len(got) != 273 || got[0] != 1 || got[272] != 273 {
		t.Fatalf("turns: %d, want 1..273", len(got))
	}
	for n, tv := range ts {
		want := -1
		switch {
		case n < 20:
			want = 0
		case n <= 89:
			want = 10
		case n >= 102 && n <= 148:
			want = 39
		case n >= 149:
			want = 44
		}
		if want >= 0 && tv.score != want {
			t.Errorf("turn %d: score %d, want %d", n, tv.score, want)
		}
		if n >= 90 && n < 102 && (tv.score <= 10 || tv.score >= 39) {
			t.Errorf("turn %d: score %d, want between 10 and 39", n, tv.score)
		}
		if tv.objective && n > 19 {
			t.Errorf("objective completed at turn %d", n)
		}
		if tv.rejections > 0 && n > 60 {
			t.Errorf("rejection at turn %d", n)
		}
	}
	for _, e := range evs {
		if n, _ := e.turnOf(); n > 60 && (e.typ() == "action_rejected" || e.typ() == "critic_override") {
			t.Errorf("%s at turn %d", e.typ(), n)
		}
	}
	done := lastOf(evs, "episode_completed")
	if done == nil || done.str("reason") != "max_turns" || done.int("turn") != 273 || done.int("final_score") != 44 {
		t.Errorf("episode_completed = %v", done)
	}
	cp, _, _ := rule1(ts, 273, 40, 10)
	if len(cp) == 0 || cp[0] != 60 {
		t.Fatalf("check points %v, want first 60", cp)
	}
	if got := 273 - cp[0]; got != 213 {
		t.Errorf("turns saved %d, want 213", got)
	}
	if got := callsAfter(ts, 60); got != 852 {
		t.Errorf("calls after 60: %d, want 852", got)
	}
}

// Cross-event consistency in every fixture episode: actions agree, moves
// chain, refused directions do not move, penalties and live events follow
// RULES.md.
func TestFixtureConsistency(t *testing.T) {
	for _, f := range Fixtures() {
		ids, by := episodes(parseFile(t, fixturePath(f.Dir)))
		if len(ids) != len(f.Episodes) {
			t.Errorf("%s: episodes %v, want %d", f.Dir, ids, len(f.Episodes))
		}
		for i, s := range f.Episodes {
			t.Run(s.EpisodeID, func(t *testing.T) {
				if ids[i] != s.EpisodeID {
					t.Fatalf("episode %d is %s, want %s", i, ids[i], s.EpisodeID)
				}
				checkEpisode(t, s, by[s.EpisodeID])
			})
		}
	}
}

func checkEpisode(t *testing.T, s Scenario, evs []ev) {
	ts := turnsOf(evs)
	hasIDs := false
	for _, e := range evs {
		switch e.typ() {
		case "map_movement_update":
			_, ok := e.num("from_room_id")
			hasIDs = hasIDs || ok
		case "room_description_captured", "location_penalty_applied":
			hasIDs = true
		}
	}
	if hasIDs != s.WithIDs {
		t.Errorf("log has ids: %v, scenario WithIDs %v", hasIDs, s.WithIDs)
	}
	if s.EarlyFormat {
		checkEarly(t, s, evs, ts)
		return
	}
	// action agreement and refusals, per event stream (restart repeats included)
	sel := map[int]string{}
	refused := map[int]bool{}
	for _, e := range evs {
		n, _ := e.turnOf()
		switch e.typ() {
		case "final_action_selection":
			sel[n] = e.str("agent_action")
		case "turn_completed":
			if a := e.str("action"); a != sel[n] {
				t.Errorf("turn %d: turn_completed.action %q, final_action_selection %q", n, a, sel[n])
			}
		case "zork_response":
			refused[n] = e.str("zork_response") == "You can't go that way."
		case "map_movement_update":
			if refused[n] && e.int("from_room_id") != e.int("to_room_id") {
				t.Errorf("turn %d: moved after \"You can't go that way.\"", n)
			}
			if e.int("from_room_id") == e.int("to_room_id") && !s.EveryTurnMoves {
				t.Errorf("turn %d: map_movement_update without a room change", n)
			}
		}
	}
	recorded := 0
	for _, n := range sortedTurns(ts) {
		if ts[n].location != "" {
			recorded = n
		}
	}
	if recorded != s.Turns {
		t.Errorf("recorded turns %d, want %d", recorded, s.Turns)
	}
	if !s.WithIDs {
		return
	}
	// moves chain: loc_start(t) = loc_end(t-1); rule 3 penalties
	idOf := map[string]int{}
	for _, r := range roomTable {
		idOf[r.name] = r.id
	}
	cur := roomByKey["WEST-OF-HOUSE"].id
	var hist []int
	for n := 1; n <= s.Turns; n++ {
		tv := ts[n]
		start := cur
		if tv != nil && tv.moved {
			if tv.fromID != cur {
				t.Errorf("turn %d: moves from %d, previous turn ended in %d", n, tv.fromID, cur)
			}
			cur = tv.toID
		}
		hist = append(hist, start)
		if len(hist) > 20 {
			hist = hist[1:]
		}
		if tv == nil {
			if !s.inGap(n) {
				t.Errorf("turn %d missing", n)
			}
			continue
		}
		if s.Quirks.NameVariants {
			continue
		}
		if id, ok := idOf[tv.location]; !ok {
			t.Errorf("turn %d: unknown location %q", n, tv.location)
		} else if r := roomByKey[keyOfID(cur)]; r == nil || r.name != tv.location || (id != cur && countName(tv.location) == 1) {
			t.Errorf("turn %d: location %q, id chain says %d", n, tv.location, cur)
		}
		visits := 0
		if w := min(5, len(hist)-1); w >= 1 {
			for _, id := range hist[len(hist)-1-w : len(hist)-1] {
				if id == start {
					visits++
				}
			}
		}
		if s.WithPenaltyEvents {
			if (visits > 0) != (tv.penalty != nil) {
				t.Errorf("turn %d: visits %d, penalty event %v", n, visits, tv.penalty)
			}
			if p := tv.penalty; p != nil {
				base, _ := p.num("base_confidence")
				adj, _ := p.num("adjusted_confidence")
				if p.int("recent_visits") != visits || p.int("location_id") != start || !approx(adj, max(0, min(1, base-0.2*float64(visits)))) {
					t.Errorf("turn %d: penalty %v, want visits %d at %d", n, p, visits, start)
				}
			}
		} else if tv.penalty != nil {
			t.Errorf("turn %d: unexpected location_penalty_applied", n)
		}
	}
	// live loop-break events agree with rule 1 over the log
	if s.Quirks.GapLen > 0 {
		return // objectives or score changes inside the gap are not visible
	}
	maxStuck, interval := s.liveConfig()
	cp, changes, resets := rule1(ts, s.Turns, maxStuck, interval)
	for _, n := range sortedTurns(ts) {
		tv := ts[n]
		if s.LiveLoopBreak {
			if want, ok := changes[n]; ok != (tv.scoreChg != nil) || (ok && tv.scoreChg.int("was_stuck_for") != want) {
				t.Errorf("turn %d: score_change %v, rule 1 says %v/%d", n, tv.scoreChg, ok, want)
			}
			if want, ok := resets[n]; ok != (tv.objReset != nil) || (ok && tv.objReset.int("was_stuck_for") != want) {
				t.Errorf("turn %d: objective_progress_reset %v, rule 1 says %v/%d", n, tv.objReset, ok, want)
			}
		} else if tv.scoreChg != nil || tv.objReset != nil {
			t.Errorf("turn %d: live event in a log without the live system", n)
		}
	}
	if st := lastOf(evs, "stuck_termination"); st != nil {
		if len(cp) == 0 || cp[0] != st.int("turn") || st.int("turn") != s.Turns {
			t.Errorf("stuck_termination at %d, rule 1 check points %v", st.int("turn"), cp)
		}
	} else if s.LiveLoopBreak && len(cp) > 0 && cp[0] < s.Turns {
		t.Errorf("live episode runs past rule 1 check point %d", cp[0])
	}
}

func keyOfID(id int) string {
	for _, r := range roomTable {
		if r.id == id {
			return r.key
		}
	}
	return ""
}

func countName(name string) int { return len(roomByName[strings.ToLower(name)]) }

func TestStuckFixture(t *testing.T) {
	evs := loadEpisode(t, "2025-11-06T08-00-00", "2025-11-06T08:00:00")
	st := lastOf(evs, "stuck_termination")
	if st == nil || st.int("turn") != 80 || st.int("turns_stuck") != 40 {
		t.Fatalf("stuck_termination = %v, want turn 80 turns_stuck 40", st)
	}
	if lastOf(evs, "episode_completed") != nil {
		t.Error("episode_completed after a stuck termination")
	}
}

func TestGameOverFixture(t *testing.T) {
	evs := loadEpisode(t, "2025-11-05T14-20-07", "2025-11-05T14:20:07")
	g := lastOf(evs, "game_over_detected")
	if g == nil || g.int("turn_number") != 62 {
		t.Fatalf("game_over_detected = %v", g)
	}
	done := lastOf(evs, "episode_completed")
	if done == nil || done.str("reason") != "game_over" || done["game_over"] != true {
		t.Errorf("episode_completed = %v", done)
	}
	ts := turnsOf(evs)
	objs := 0
	for _, tv := range ts {
		if tv.objective {
			objs++
		}
	}
	if objs < 3 || strings.Count(scoreTimeline(ts), ":") < 4 {
		t.Errorf("want objectives and score increases, got %d objectives, scores %s", objs, scoreTimeline(ts))
	}
}

func TestQuirksFixture(t *testing.T) {
	path := fixturePath("2025-11-07T10-15-00")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasSuffix(data, []byte("\n")) {
		t.Error("quirks fixture should end with a cut line")
	}
	for _, want := range []string{`"extras": {"event_type": "llm_retry"`, `"extras": {"event_type": "room_description_captured"`,
		`"turn_number": `, `: NaN`, `: Infinity`, `: -Infinity`, `\u2014`, `\ud83d\udea8`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("quirks fixture lacks %s", want)
		}
	}
	lines := parseFile(t, path)
	noType := 0
	for _, l := range lines {
		if l.ev != nil && l.ev.typ() == "" {
			noType++
		}
	}
	if noType == 0 {
		t.Error("no line without event_type")
	}
	ids, by := episodes(lines)
	if len(ids) != 2 {
		t.Fatalf("episodes %v, want 2", ids)
	}
	completed := map[int]int{}
	for _, e := range by[ids[0]] {
		if e.typ() == "turn_completed" {
			completed[e.int("turn")]++
		}
		if e.typ() == "objective_completed" || e.typ() == "action_rejected" {
			if _, ok := e["turn"]; ok {
				t.Errorf("%s with turn instead of turn_number", e.typ())
			}
		}
	}
	for n := 1; n <= 70; n++ {
		want := 1
		switch {
		case n >= 50 && n <= 52:
			want = 0
		case n >= 61 && n <= 65:
			want = 2
		}
		if completed[n] != want {
			t.Errorf("turn %d logged %d times, want %d", n, completed[n], want)
		}
	}
	if lastOf(by[ids[1]], "episode_completed") != nil {
		t.Error("the truncated episode has an episode_completed")
	}
}

// With LLMCallEvents, each turn logs 4 llm_call events plus 2 per rejection.
func TestLLMCallCounts(t *testing.T) {
	s := llmCallsScenario()
	evs := loadEpisode(t, s.EpisodeID, s.EpisodeID)
	calls := map[int]int{}
	comps := map[string]bool{}
	for _, e := range evs {
		if e.typ() == "llm_call" {
			n, _ := e.turnOf()
			calls[n]++
			comps[e.str("component")] = true
			if e.str("model") == "" {
				t.Errorf("llm_call without model at turn %d", n)
			}
		}
	}
	ts := turnsOf(evs)
	rej := 0
	for n, tv := range ts {
		rej += tv.rejections
		if want := 4 + 2*tv.rejections; calls[n] != want {
			t.Errorf("turn %d: %d llm_call events, want %d", n, calls[n], want)
		}
	}
	if rej == 0 || len(comps) != 4 {
		t.Errorf("rejections %d, components %v", rej, comps)
	}
}

func TestSmokeFixtureIsTestEpisode(t *testing.T) {
	for _, f := range Fixtures() {
		isTest := strings.HasPrefix(f.Dir, "test_") || strings.HasPrefix(f.Dir, "test-")
		if isTest != (f.Dir == "test_smoke") {
			t.Errorf("%s: unexpected test-episode directory name", f.Dir)
		}
		if !isTest {
			// Directory names spell the episode id with '-' for ':' (Go
			// module zips and Windows reject ':' in paths).
			if _, err := time.Parse("2006-01-02T15-04-05", f.Dir); err != nil {
				t.Errorf("%s: not a production episode id", f.Dir)
			}
		}
	}
}

func TestWriteDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	for _, buf := range []*bytes.Buffer{&a, &b} {
		for _, s := range quirksScenarios() {
			if err := Write(buf, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("Write is not deterministic")
	}
}

func TestWriteCorpusDeterministic(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	var got [2][]string
	for i, d := range dirs {
		paths, err := WriteCorpus(d, 12, 42, 40<<20)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			rel, _ := filepath.Rel(d, p)
			got[i] = append(got[i], rel)
		}
	}
	if strings.Join(got[0], ",") != strings.Join(got[1], ",") || len(got[0]) == 0 {
		t.Fatalf("paths differ: %v vs %v", got[0], got[1])
	}
	for _, rel := range got[0] {
		x, _ := os.ReadFile(filepath.Join(dirs[0], rel))
		y, _ := os.ReadFile(filepath.Join(dirs[1], rel))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between runs", rel)
		}
		if len(x) == 0 {
			t.Errorf("%s is empty", rel)
		}
	}
}

func TestWriteCorpusStopsAtTotalBytes(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteCorpus(dir, 1000, 3, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for i, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if i < len(paths)-1 && total+fi.Size() >= 2<<20 {
			t.Errorf("did not stop after reaching the limit at %s", p)
		}
		total += fi.Size()
	}
	if total < 2<<20 || len(paths) == 1000 {
		t.Errorf("wrote %d bytes in %d episodes", total, len(paths))
	}
}

// Random scenarios (as WriteCorpus draws them) all plan and write without
// error and keep their promises.
func TestRandomScenarios(t *testing.T) {
	start := time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)
	for seed := uint64(0); seed < 300; seed++ {
		s := RandomScenario(seed, start)
		s.NoiseBytes = min(s.NoiseBytes, 2000)
		if seed%10 == 0 {
			path := filepath.Join(t.TempDir(), "episode_log.jsonl")
			if err := writeFile(path, s); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for i, l := range parseFile(t, path) {
				if l.nan && !s.Quirks.NaN {
					t.Errorf("seed %d line %d: NaN without the quirk", seed, i+1)
				}
				if l.truncated && s.Ending != EndTruncated {
					t.Errorf("seed %d line %d: truncated line, ending %v", seed, i+1, s.Ending)
				}
			}
			continue
		}
		p, err := plan(&s)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if s.LiveLoopBreak {
			if cp := firstLiveCheckpoint(&s); cp > 0 && (cp != s.Turns || s.Ending != EndStuckTermination) {
				t.Errorf("seed %d: live episode of %d turns (%v) passes check point %d", seed, s.Turns, s.Ending, cp)
			}
		}
		for _, st := range p.steps {
			if st.kind == kMove && len(st.from.dirTo(st.to.key)) == 0 {
				t.Fatalf("seed %d turn %d: no exit from %s to %s", seed, st.n, st.from.key, st.to.key)
			}
			if st.kind != kMove && st.from != st.to {
				t.Fatalf("seed %d turn %d: moved without a move", seed, st.n)
			}
		}
	}
}

// Camp legs hit their counts exactly wherever they are.
func TestCampCounts(t *testing.T) {
	for i, home := range campHomes {
		r := roomByKey[home]
		counts := map[string]int{home: 30 + i}
		rooms := []string{home}
		for _, nb := range r.neighbours() {
			if len(nb.dirTo(home)) > 0 {
				rooms = append(rooms, nb.key)
			}
		}
		if len(rooms) > 2 {
			counts[rooms[1]] = 5 + i // the others fill the remaining turns
		}
		s := Scenario{EpisodeID: "camp", Seed: uint64(i), Turns: 200,
			Route: []Leg{{Until: 60}, {Until: 200, Home: home, Rooms: rooms, Counts: counts}}}
		p, err := plan(&s)
		if err != nil {
			t.Fatalf("%s: %v", home, err)
		}
		got := map[string]int{}
		for _, st := range p.steps {
			got[st.to.key]++
		}
		for k, want := range counts {
			if got[k] != want {
				t.Errorf("%s: %s visited %d turns, want %d", home, k, got[k], want)
			}
		}
	}
}

func TestScenarioErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Scenario
		want string
	}{
		{"no id", Scenario{Turns: 3}, "empty EpisodeID"},
		{"no turns", Scenario{EpisodeID: "x"}, "Turns = 0"},
		{"legs", Scenario{EpisodeID: "x", Turns: 10, Route: []Leg{{Until: 5}, {Until: 5}}}, "Route[1].Until"},
		{"room", Scenario{EpisodeID: "x", Turns: 10, Route: []Leg{{Until: 5, EndAt: "Narnia"}}}, `unknown room "Narnia"`},
		{"ambiguous", Scenario{EpisodeID: "x", Turns: 10, Route: []Leg{{Until: 5, EndAt: "Forest"}}}, "ambiguous"},
		{"too short", Scenario{EpisodeID: "x", Turns: 10, Route: []Leg{{Until: 2, EndAt: "Dam"}}}, "cannot reach Dam"},
		{"counts", Scenario{EpisodeID: "x", Turns: 10, Route: []Leg{{Until: 10, Home: "West of House", Counts: map[string]int{"West of House": 50}}}}, "camp counts need"},
		{"penalty", Scenario{EpisodeID: "x", Turns: 10, WithPenaltyEvents: true}, "needs WithIDs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(io.Discard, tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestPythonEncoding(t *testing.T) {
	base, visits := 0.85, 2.0 // runtime arithmetic, as in Python
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0.85, "0.85"}, {1, "1.0"}, {0, "0.0"}, {base + -0.2*visits, "0.44999999999999996"}, {1e-5, "1e-05"},
		{1e16, "1e+16"}, {123456.5, "123456.5"}, {math.NaN(), "NaN"}, {math.Inf(-1), "-Infinity"},
	} {
		if got := string(appendPyFloat(nil, tc.in)); got != tc.want {
			t.Errorf("appendPyFloat(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"a\"b\\c\nd\te", `"a\"b\\c\nd\te"`},
		{"0.85 \u2192 0.45", `"0.85 \u2192 0.45"`},
		{"caf\u00e9 \U0001F6A8", `"caf\u00e9 \ud83d\udea8"`},
		{"\x01\x7f", `"\u0001` + "\x7f" + `"`},
	} {
		if got := string(appendPyString(nil, tc.in)); got != tc.want {
			t.Errorf("appendPyString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	s := Incident20251103()
	s.NoiseBytes = 64 << 10
	var n int64
	for b.Loop() {
		cw := &countWriter{w: io.Discard}
		if err := Write(cw, s); err != nil {
			b.Fatal(err)
		}
		n = cw.n
	}
	b.SetBytes(n)
	b.ReportMetric(float64(s.Turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}

// A live run ends at its configuration's first check point: Turns that
// disagree with LiveMaxTurnsStuck is refused rather than written as a log
// no live system could have produced.
func TestLiveConfigConsistency(t *testing.T) {
	s := liveScenario("2025-11-10T21:05:00", 20251110, 30)
	if err := Write(io.Discard, s); err != nil {
		t.Fatalf("consistent: %v", err)
	}
	s.Turns = 60 // the score last changes at 20: with 30 the run stops at 50
	if err := Write(io.Discard, s); err == nil || !strings.Contains(err.Error(), "terminates at turn 50, not at Turns 60") {
		t.Errorf("inconsistent: %v", err)
	}
}

// checkEarly checks an early-format episode: no final_action_selection, one
// names-only map_movement_update per turn chaining the rooms (from_room ==
// to_room when the agent stays), the early debug lines.
func checkEarly(t *testing.T, s Scenario, evs []ev, ts map[int]*turnView) {
	t.Helper()
	counts := map[string]int{}
	for _, e := range evs {
		counts[e.typ()]++
	}
	for _, et := range []string{"agent_raw_response_debug", "reasoning_extraction_debug", "final_reasoning_debug"} {
		if counts[et] != s.Turns {
			t.Errorf("%d %s lines, want one per turn (%d)", counts[et], et, s.Turns)
		}
	}
	if counts["hybrid_extraction_success"] != s.Turns+1 || counts["final_action_selection"] != 0 {
		t.Errorf("hybrid_extraction_success %d (want %d), final_action_selection %d (want 0)",
			counts["hybrid_extraction_success"], s.Turns+1, counts["final_action_selection"])
	}
	cur, stays, moves := roomByKey["WEST-OF-HOUSE"].name, 0, 0
	for n := 1; n <= s.Turns; n++ {
		tv := ts[n]
		if tv == nil || tv.nameMoves != 1 {
			t.Fatalf("turn %d: want one names-only map_movement_update", n)
		}
		if tv.fromName != cur || tv.toName != tv.location {
			t.Errorf("turn %d: %q -> %q, previous turn in %q, turn_completed in %q", n, tv.fromName, tv.toName, cur, tv.location)
		}
		if tv.fromName == tv.toName {
			stays++
		} else {
			moves++
		}
		cur = tv.toName
	}
	if stays == 0 || moves == 0 {
		t.Errorf("%d moves, %d stays: want both", moves, stays)
	}
}

// EveryTurnMoves logs a map_movement_update on every turn, from == to
// when the agent stays, as live ZorkGPT does.
func TestEveryTurnMoves(t *testing.T) {
	s := smokeScenario()
	s.EveryTurnMoves = true
	s.Turns = 30
	path := filepath.Join(t.TempDir(), "episode_log.jsonl")
	if err := writeFile(path, s); err != nil {
		t.Fatal(err)
	}
	_, by := episodes(parseFile(t, path))
	evs := by[s.EpisodeID]
	ts := turnsOf(evs)
	stays := 0
	for n := 1; n <= s.Turns; n++ {
		if _, ok := ts[n]; !ok {
			t.Fatalf("turn %d missing", n)
		}
	}
	for _, e := range evs {
		if e.typ() == "map_movement_update" && e.int("from_room_id") == e.int("to_room_id") {
			stays++
		}
	}
	got := 0
	for _, e := range evs {
		if e.typ() == "map_movement_update" {
			got++
		}
	}
	if got != s.Turns || stays == 0 {
		t.Errorf("%d map_movement_update lines for %d turns, %d stays", got, s.Turns, stays)
	}
	checkEpisode(t, s, evs)
	s.WithIDs = false
	if err := Write(io.Discard, s); err == nil {
		t.Error("EveryTurnMoves without WithIDs: no error")
	}
}

// A corpus in one format: every turn of every episode logs a names-only
// move (early) or a move with ids (live, staying included).
func TestWriteCorpusFormat(t *testing.T) {
	for _, f := range []Format{FormatEarly, FormatLive} {
		paths, err := WriteCorpusFormat(t.TempDir(), 6, 3, 0, 2000, f)
		if err != nil || len(paths) != 6 {
			t.Fatalf("%s: %v, %d paths", f, err, len(paths))
		}
		for _, p := range paths {
			_, by := episodes(parseFile(t, p))
			for id, evs := range by {
				withIDs := map[int]bool{}
				for _, e := range evs {
					if _, ok := e.num("from_room_id"); ok && e.typ() == "map_movement_update" {
						n, _ := e.turnOf()
						withIDs[n] = true
					}
				}
				for n, tv := range turnsOf(evs) {
					if tv.location == "" {
						continue // no turn_completed: a crash's last turn
					}
					if f == FormatEarly && (tv.nameMoves == 0 || withIDs[n]) || f == FormatLive && (tv.nameMoves > 0 || !withIDs[n]) {
						t.Errorf("%s: %s turn %d: %d names-only moves, ids %v", f, id, n, tv.nameMoves, withIDs[n])
					}
				}
			}
		}
	}
	if _, err := WriteCorpusFormat(t.TempDir(), 1, 1, 0, 0, "medieval"); err == nil {
		t.Error("unknown format: no error")
	}
}
