package replaytest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

var (
	aboveGround = []string{"WEST-OF-HOUSE", "NORTH-OF-HOUSE", "SOUTH-OF-HOUSE", "EAST-OF-HOUSE",
		"FOREST-1", "FOREST-2", "FOREST-3", "PATH", "UP-A-TREE", "GRATING-CLEARING", "CLEARING",
		"CANYON-VIEW", "CLIFF-MIDDLE", "CANYON-BOTTOM", "END-OF-RAINBOW"}
	house     = []string{"KITCHEN", "ATTIC", "LIVING-ROOM"}
	cellarish = []string{"LIVING-ROOM", "KITCHEN", "CELLAR", "TROLL-ROOM", "EAST-OF-CHASM", "GALLERY", "STUDIO",
		"MAZE-1", "MAZE-2", "MAZE-3", "MAZE-4", "DEAD-END-1"}
)

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Incident20251103 reconstructs episode 2025-11-03T12:38:53: 341 turns
// ending at the turn limit; the score goes 10 (turn 9), 35 (turn 37) and
// reaches 40 at turn 105, never to change again; objectives are completed
// at turns 5, 9, 23, 37, 60, 88 and 104 (so before turn 105 the agent is
// never stuck for 30 turns at a check point: RULES.md rule 1 first fires at
// turn 140 with max_turns_stuck 30, at 150 with 40). From turn 113 the agent camps at the Dam,
// oscillating through Dam Lobby and Maintenance Room (and now and then Dam
// Base, Deep Canyon, Reservoir South), so that over the whole episode
// turn_completed.location is "Dam" 139 times, "Dam Lobby" 26 times and
// "Maintenance Room" 37 times. Rejections occur only up to turn 120, so the
// estimated LLM calls after turn 135 are exactly 4 per turn. Room ids, no
// revisit-penalty or live loop-break events (the log predates them).
func Incident20251103() Scenario {
	return Scenario{
		EpisodeID:  "2025-11-03T12:38:53",
		Seed:       20251103,
		Turns:      341,
		Scores:     []ScorePoint{{9, 10}, {37, 35}, {105, 40}},
		Objectives: []int{5, 9, 23, 37, 60, 88, 104},
		Route: []Leg{
			{Until: 30, Rooms: join(aboveGround, house), EndAt: "LIVING-ROOM"},
			{Until: 99, Rooms: cellarish, EndAt: "TROLL-ROOM"},
			{Until: 105, Rooms: []string{"TROLL-ROOM", "EW-PASSAGE"}, EndAt: "EW-PASSAGE", MoveRate: 0.2},
			{Until: 112, Rooms: []string{"EW-PASSAGE", "ROUND-ROOM", "LOUD-ROOM", "DEEP-CANYON", "NS-PASSAGE", "CHASM-ROOM", "DAM-ROOM"}, EndAt: "DAM-ROOM"},
			{Until: 341, Home: "Dam",
				Rooms:  []string{"Dam", "Dam Lobby", "Maintenance Room", "Dam Base", "Deep Canyon", "Reservoir South"},
				Counts: map[string]int{"Dam": 139, "Dam Lobby": 26, "Maintenance Room": 37}},
		},
		Ending:            EndMaxTurns,
		WithIDs:           true,
		RejectionRate:     0.08,
		NoRejectionsAfter: 120,
	}
}

// Incident20251104 reconstructs episode 2025-11-04T09:35:24: 273 turns
// ending at the turn limit; score 0 until the agent climbs into the Kitchen
// at turn 20 (score 10), 10 through turn 89, then 15 (90), 25 (95), 34 (99),
// 39 (102), and 44 from turn 149 to the end. Objectives are completed at
// turns 4, 11 and 19 only. No action_rejected (or override) after turn 60,
// so the estimated LLM calls after turn 60 are exactly 4 per turn. The last
// 125 turns camp around the Living Room. Room ids, no revisit-penalty or live
// loop-break events.
func Incident20251104() Scenario {
	outside := []string{"WEST-OF-HOUSE", "NORTH-OF-HOUSE", "SOUTH-OF-HOUSE", "EAST-OF-HOUSE",
		"FOREST-1", "FOREST-2", "FOREST-3", "PATH", "UP-A-TREE", "GRATING-CLEARING", "CLEARING", "CANYON-VIEW"}
	return Scenario{
		EpisodeID:  "2025-11-04T09:35:24",
		Seed:       20251104,
		Turns:      273,
		Scores:     []ScorePoint{{20, 10}, {90, 15}, {95, 25}, {99, 34}, {102, 39}, {149, 44}},
		Objectives: []int{4, 11, 19},
		Route: []Leg{
			{Until: 19, Rooms: outside, EndAt: "EAST-OF-HOUSE"},
			{Until: 20, Rooms: []string{"EAST-OF-HOUSE", "KITCHEN"}, EndAt: "KITCHEN"},
			{Until: 89, Rooms: join(outside, house)},
			{Until: 148, Rooms: cellarish},
			{Until: 273, Home: "Living Room", Rooms: []string{"Living Room", "Kitchen", "Attic", "Cellar"}},
		},
		Ending:            EndMaxTurns,
		WithIDs:           true,
		RejectionRate:     0.1,
		NoRejectionsAfter: 60,
	}
}

// Fixture is one committed test episode directory.
type Fixture struct {
	Dir      string     // directory under testdata/episodes
	Episodes []Scenario // written one after the other into Dir/episode_log.jsonl
	About    string
}

// Fixtures lists the committed fixtures under testdata/episodes.
func Fixtures() []Fixture {
	return []Fixture{
		{Dir: "2025-11-03T12-38-53", Episodes: []Scenario{Incident20251103()},
			About: "incident: 341 turns, score stuck at 40 from 105, Dam camping (139/26/37)"},
		{Dir: "2025-11-04T09-35-24", Episodes: []Scenario{Incident20251104()},
			About: "incident: 273 turns, stuck at 10, 39, 44; no rejections after turn 60"},
		{Dir: "2025-11-05T14-20-07", Episodes: []Scenario{gameOverScenario()},
			About: "62 turns, objectives and score increases, dies to the troll (game over)"},
		{Dir: "2025-11-06T08-00-00", Episodes: []Scenario{stuckScenario()},
			About: "live stuck_termination at turn 80, turns_stuck 40 (last change at 40)"},
		{Dir: "2025-10-28T19-02-41", Episodes: []Scenario{namesOnlyScenario()},
			About: "old format: room names only, 100 turns, max_turns"},
		{Dir: "2025-11-07T10-15-00", Episodes: quirksScenarios(),
			About: "all quirks; two episodes in one file, the second cut mid-line"},
		{Dir: "2025-11-08T16-45-12", Episodes: []Scenario{llmCallsScenario()},
			About: "llm_call events for every LLM call, 60 turns"},
		{Dir: "2025-11-09T07-30-00", Episodes: []Scenario{liveScenario("2025-11-09T07:30:00", 20251109, 0)},
			About: "live run with the deployed max_turns_stuck 40: stuck_termination at 60 (last change at 20); the replay agrees"},
		{Dir: "2025-11-10T21-05-00", Episodes: []Scenario{liveScenario("2025-11-10T21:05:00", 20251110, 30)},
			About: "live run recorded with max_turns_stuck 30: stuck_termination at 50 (last change at 20); the default replay disagrees"},
		{Dir: "2025-06-09T20-04-36", Episodes: []Scenario{earlyScenario()},
			About: "early (June 2025) format: names-only map_movement_update every turn, 16 turns"},
		{Dir: "test_smoke", Episodes: []Scenario{smokeScenario()},
			About: "tiny test episode (ignored by default scans)"},
	}
}

func gameOverScenario() Scenario {
	return Scenario{
		EpisodeID:  "2025-11-05T14:20:07",
		Seed:       20251105,
		Turns:      62,
		Scores:     []ScorePoint{{8, 10}, {21, 35}, {33, 40}, {47, 45}},
		Objectives: []int{3, 8, 15, 21, 33, 47},
		Route: []Leg{
			{Until: 8, Rooms: []string{"WEST-OF-HOUSE", "NORTH-OF-HOUSE", "SOUTH-OF-HOUSE", "EAST-OF-HOUSE", "KITCHEN"}, EndAt: "KITCHEN"},
			{Until: 20, Rooms: house, EndAt: "LIVING-ROOM"},
			{Until: 21, Rooms: []string{"LIVING-ROOM", "CELLAR"}, EndAt: "CELLAR"},
			{Until: 61, Rooms: cellarish, EndAt: "TROLL-ROOM"},
		},
		Ending:            EndGameOver,
		MaxTurns:          500,
		WithIDs:           true,
		WithPenaltyEvents: true,
		LiveLoopBreak:     true,
		RejectionRate:     0.12,
		NoiseBytes:        400,
	}
}

func stuckScenario() Scenario {
	return Scenario{
		EpisodeID:  "2025-11-06T08:00:00",
		Seed:       20251106,
		Turns:      80,
		Scores:     []ScorePoint{{6, 10}, {18, 35}, {40, 45}},
		Objectives: []int{6, 18, 30, 39},
		Route: []Leg{
			{Until: 40, Rooms: join(aboveGround, house)},
			{Until: 80, Home: "Attic", Rooms: []string{"Attic", "Kitchen", "Living Room"}},
		},
		Ending:            EndStuckTermination,
		MaxTurns:          500,
		WithIDs:           true,
		WithPenaltyEvents: true,
		LiveLoopBreak:     true,
		RejectionRate:     0.1,
	}
}

// liveScenario is a live run (score_change, objective_progress_reset,
// location_penalty_applied, stuck_termination) whose score last changes at
// turn 20, recorded with max_turns_stuck maxStuck (0: the deployed 40)
// checked every 10 turns: it stops at turn 20 + maxStuck.
func liveScenario(id string, seed uint64, maxStuck int) Scenario {
	stop := 20 + 40
	if maxStuck != 0 {
		stop = 20 + maxStuck
	}
	return Scenario{
		EpisodeID:  id,
		Seed:       seed,
		Turns:      stop,
		Scores:     []ScorePoint{{8, 10}, {20, 25}},
		Objectives: []int{8},
		Route: []Leg{
			{Until: 20, Rooms: join(aboveGround, house)},
			{Until: stop, Home: "Kitchen", Rooms: []string{"Kitchen", "Living Room", "Attic"}},
		},
		Ending:            EndStuckTermination,
		MaxTurns:          500,
		WithIDs:           true,
		WithPenaltyEvents: true,
		LiveLoopBreak:     true,
		LiveMaxTurnsStuck: maxStuck,
		RejectionRate:     0.1,
	}
}

func namesOnlyScenario() Scenario {
	return Scenario{
		EpisodeID:     "2025-10-28T19:02:41",
		Seed:          20251028,
		Turns:         100,
		Scores:        []ScorePoint{{12, 10}, {60, 35}},
		Objectives:    []int{5, 12, 60, 88},
		Ending:        EndMaxTurns,
		RejectionRate: 0.1,
		AgentModel:    "deepseek/deepseek-r1",
		CriticModel:   "google/gemini-2.0-flash-001",
	}
}

func quirksScenarios() []Scenario {
	all := Quirks{NaN: true, TurnNumberAlias: true, Extras: true, NoEventType: true, NonASCII: true}
	a := Scenario{
		EpisodeID:         "2025-11-07T10:15:00",
		Seed:              20251107,
		Turns:             70,
		Scores:            []ScorePoint{{10, 10}, {45, 35}, {68, 40}},
		Objectives:        []int{10, 45, 58, 68},
		Ending:            EndMaxTurns,
		WithIDs:           true,
		WithPenaltyEvents: true,
		LiveLoopBreak:     true,
		RejectionRate:     0.15,
		NoiseBytes:        400,
		Quirks:            all,
	}
	a.Quirks.GapFrom, a.Quirks.GapLen = 50, 3
	a.Quirks.RestartFrom, a.Quirks.RestartAt = 61, 65
	b := Scenario{
		EpisodeID:     "2025-11-07T11:42:19",
		Seed:          20251108,
		Turns:         25,
		Scores:        []ScorePoint{{9, 10}},
		Objectives:    []int{9},
		Ending:        EndTruncated,
		WithIDs:       true,
		LiveLoopBreak: true,
		RejectionRate: 0.15,
		Quirks:        all,
	}
	return []Scenario{a, b}
}

func llmCallsScenario() Scenario {
	return Scenario{
		EpisodeID:         "2025-11-08T16:45:12",
		Seed:              20251109,
		Turns:             60,
		Scores:            []ScorePoint{{7, 10}, {30, 35}, {52, 40}},
		Objectives:        []int{7, 30, 44, 52},
		Ending:            EndMaxTurns,
		WithIDs:           true,
		WithPenaltyEvents: true,
		LiveLoopBreak:     true,
		RejectionRate:     0.15,
		LLMCallEvents:     true,
	}
}

// earlyScenario is a short episode in the early format: names-only moves
// logged on every turn, the agent oscillating between two rooms so the
// name-keyed map (rule 6) has moves to learn from.
func earlyScenario() Scenario {
	return Scenario{
		EpisodeID:   "2025-06-09T20:04:36",
		Seed:        20250609,
		Turns:       16,
		MaxTurns:    5000,
		Scores:      []ScorePoint{{6, 5}},
		Route:       []Leg{{Until: 16, Home: "PATH", Rooms: []string{"NORTH-OF-HOUSE", "PATH"}, Counts: map[string]int{"NORTH-OF-HOUSE": 5}}},
		Ending:      EndMaxTurns,
		EarlyFormat: true,
		AgentModel:  "qwen/qwen3-235b-a22b",
	}
}

func smokeScenario() Scenario {
	return Scenario{
		EpisodeID:  "test_smoke",
		Seed:       1,
		Turns:      10,
		Scores:     []ScorePoint{{4, 5}},
		Objectives: []int{4},
		Ending:     EndMaxTurns,
		WithIDs:    true,
	}
}

// WriteFixtures writes every fixture into root/<Dir>/episode_log.jsonl.
func WriteFixtures(root string) error {
	for _, f := range Fixtures() {
		if err := writeFile(filepath.Join(root, f.Dir, "episode_log.jsonl"), f.Episodes...); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes the episodes one after the other into path (creating
// its directory) and returns the number of bytes written.
func writeFile(path string, eps ...Scenario) error {
	_, err := writeFileN(path, eps...)
	return err
}

func writeFileN(path string, eps ...Scenario) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: f}
	bw := bufio.NewWriterSize(cw, 1<<20)
	for _, s := range eps {
		if err := Write(bw, s); err != nil {
			f.Close()
			return cw.n, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return cw.n, err
	}
	return cw.n, f.Close()
}

type countWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
