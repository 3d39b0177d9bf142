package replaytest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"
)

// ScorePoint sets the score from Turn on (see Scenario.Scores).
type ScorePoint struct {
	Turn  int
	Score int
}

// Ending says how an episode's log ends.
type Ending int

const (
	// EndMaxTurns: the turn limit was hit; episode_completed has reason
	// "max_turns" and max_turns equals Turns.
	EndMaxTurns Ending = iota
	// EndGameOver: the agent dies on the last turn (game_over_detected,
	// episode_completed with reason "game_over").
	EndGameOver
	// EndStuckTermination: the live loop-break system stops the episode at the
	// last turn: stuck_termination with turns_stuck (Turns minus the last
	// score change or objective reset, as in RULES.md rule 1), no
	// episode_completed. Implies LiveLoopBreak.
	EndStuckTermination
	// EndTruncated: the process crashed during turn Turns+1; the file ends
	// with a line cut in the middle (no newline), no episode_completed or
	// episode_finalized.
	EndTruncated
)

func (e Ending) String() string {
	switch e {
	case EndMaxTurns:
		return "max_turns"
	case EndGameOver:
		return "game_over"
	case EndStuckTermination:
		return "stuck_termination"
	case EndTruncated:
		return "truncated"
	}
	return fmt.Sprintf("Ending(%d)", int(e))
}

// Quirks switches on the irregularities LOG_FORMAT.md documents.
type Quirks struct {
	// NaN: every ~20 turns an llm_usage line carries NaN, Infinity or
	// -Infinity in cost_usd / tokens_per_second (invalid JSON, as Python
	// writes it). No other event is affected.
	NaN bool
	// TurnNumberAlias: objective_completed, action_rejected and
	// critic_override carry "turn_number" instead of "turn".
	TurnNumberAlias bool
	// Extras: llm_retry lines (about 1 turn in 12) and every
	// room_description_captured line nest their fields, event_type included,
	// under "extras".
	Extras bool
	// NoEventType: plain lines with only timestamp, level and message (at
	// the start and on about 1 turn in 10).
	NoEventType bool
	// NonASCII: reasoning and messages contain non-ASCII characters (em
	// dashes, accents, emoji), written as \uXXXX escapes.
	NonASCII bool
	// NameVariants: about 1 turn_completed.location in 10 differs from the
	// canonical name in case or spacing ("West Of House", "west of  house").
	NameVariants bool
	// GapFrom, GapLen: turns GapFrom .. GapFrom+GapLen-1 are played (as
	// turns that change nothing: no move, no score change) but not logged.
	GapFrom, GapLen int
	// RestartAt, RestartFrom: after turn RestartAt the run restarts from a
	// checkpoint and logs turns RestartFrom .. RestartAt again (same
	// actions, rooms and scores; new timestamps), then goes on.
	RestartAt, RestartFrom int
}

// Leg scripts where the agent walks during the turns after the previous
// leg's Until, up to and including Until. Turns after the last leg (or all
// turns, with no Route) are a random walk over the whole map. Rooms are named
// by key ("FOREST-1") or by a unique name ("Dam").
//
// A walk leg (Home empty) is a random walk inside Rooms (nil: whole map);
// with EndAt it is steered so that the agent is in EndAt at turn Until.
//
// A camp leg (Home set) first walks the shortest way to Home, then makes a
// closed walk from Home inside Rooms (nil: Home plus the Counts rooms),
// oscillating along the map's two-way exits and staying put for many turns
// (repeating room actions). Counts gives exact episode-wide totals: the
// number of turns 1..Until whose turn_completed.location is that room; the
// other Rooms share the remaining turns. Camp legs must not overlap the gap
// quirk.
type Leg struct {
	Until    int
	Rooms    []string
	EndAt    string
	Home     string
	Counts   map[string]int
	MoveRate float64 // walk legs: probability of trying a direction each turn (0: 0.45)
}

// Scenario describes one episode to write.
type Scenario struct {
	EpisodeID string
	Seed      uint64 // all randomness comes from math/rand/v2 PCG streams seeded with this
	Turns     int    // recorded turns: the last turn_completed
	MaxTurns  int    // max_turns logged at the start; 0: Turns for EndMaxTurns, else 500
	// Start: the clock at the first line (which is logged a few ms later);
	// zero: the time EpisodeID names. Turns take 2-8 s each.
	Start time.Time
	// Scores: the score after turn t is the Score of the last ScorePoint
	// with Turn <= t (0 before the first).
	Scores     []ScorePoint
	Objectives []int // turns with an objective_completed event
	Route      []Leg // nil: random walk from West of House
	Ending     Ending

	// WithIDs: map_movement_update and room_description_captured carry room
	// ids. false: an old log with room names only (no map_movement_update,
	// room_description_captured or location_penalty_applied).
	WithIDs bool
	// EveryTurnMoves: map_movement_update on every turn, as live ZorkGPT
	// logs it, with from_room_id == to_room_id when the agent stays (needs
	// WithIDs). false: only on turns that change room.
	EveryTurnMoves bool
	// EarlyFormat: the June 2025 format LOG_FORMAT.md describes (the public
	// episode.jsonl of ZorkGPT at commit 61680e8): room names only, no
	// final_action_selection; each turn logs agent_raw_response_debug,
	// reasoning_extraction_debug, final_reasoning_debug,
	// hybrid_extraction_success, a names-only map_movement_update
	// (from_room == to_room when the agent stays) and turn_completed.
	// Excludes WithIDs, WithPenaltyEvents, LiveLoopBreak and LLMCallEvents.
	EarlyFormat bool
	// WithPenaltyEvents: location_penalty_applied whenever the turn's start
	// room is among the previous 5 turns' start rooms (needs WithIDs).
	WithPenaltyEvents bool
	// LiveLoopBreak: the live loop-break system was deployed: score_change
	// and objective_progress_reset events, computed as RULES.md rule 1
	// (the logs predating it, like the two incidents, have none).
	LiveLoopBreak bool
	// LiveMaxTurnsStuck, LiveCheckInterval: the configuration the live
	// system ran with (0: ZorkGPT's deployed 40 and 10). An
	// EndStuckTermination episode must end at its first check point, so
	// its live events are consistent with it (RULES.md §1, §10).
	LiveMaxTurnsStuck, LiveCheckInterval int

	RejectionRate     float64 // probability of 1-2 action_rejected events in a turn
	NoRejectionsAfter int     // if > 0, no rejection or override after this turn
	// NoiseBytes: approximate size of the occasional big noise lines
	// (knowledge-base dumps, raw reasoning); 0: small messages only.
	NoiseBytes int
	// LLMCallEvents: one llm_call event (turn, component, model) per LLM
	// call: agent, critic, extractor, synthesis, plus agent and critic again
	// per rejected action.
	LLMCallEvents bool
	Quirks        Quirks

	AgentModel, CriticModel string // "" : defaults
}

// Write writes the episode s as JSONL to w. It is deterministic: the same
// Scenario always gives the same bytes.
func Write(w io.Writer, s Scenario) error {
	p, err := plan(&s)
	if err != nil {
		return err
	}
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriterSize(w, 1<<20)
	}
	e := newEmitter(&s, p, bw)
	e.episode()
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// scoreAt returns the scripted score after turn t.
func scoreAt(pts []ScorePoint, t int) int {
	s := 0
	for _, p := range pts {
		if p.Turn <= t {
			s = p.Score
		}
	}
	return s
}

func (s *Scenario) validate() error {
	if s.EpisodeID == "" {
		return errors.New("replaytest: empty EpisodeID")
	}
	if s.Turns < 1 {
		return fmt.Errorf("replaytest: %s: Turns = %d, need >= 1", s.EpisodeID, s.Turns)
	}
	prev := 0
	for i, l := range s.Route {
		if l.Until <= prev || l.Until > s.Turns+1 {
			return fmt.Errorf("replaytest: %s: Route[%d].Until = %d, want increasing values in 1..Turns", s.EpisodeID, i, l.Until)
		}
		prev = l.Until
	}
	for _, o := range s.Objectives {
		if o < 1 || o > s.Turns {
			return fmt.Errorf("replaytest: %s: objective turn %d outside 1..%d", s.EpisodeID, o, s.Turns)
		}
	}
	q := s.Quirks
	if q.GapLen < 0 || (q.GapLen > 0 && (q.GapFrom < 2 || q.GapFrom+q.GapLen-1 >= s.Turns)) {
		return fmt.Errorf("replaytest: %s: gap %d+%d must lie inside 2..Turns-1", s.EpisodeID, q.GapFrom, q.GapLen)
	}
	if q.RestartAt != 0 || q.RestartFrom != 0 {
		if q.RestartFrom < 1 || q.RestartFrom > q.RestartAt || q.RestartAt >= s.Turns {
			return fmt.Errorf("replaytest: %s: restart %d..%d must satisfy 1 <= RestartFrom <= RestartAt < Turns", s.EpisodeID, q.RestartFrom, q.RestartAt)
		}
		if q.GapLen > 0 && q.RestartFrom <= q.GapFrom+q.GapLen-1 && q.GapFrom <= q.RestartAt {
			return fmt.Errorf("replaytest: %s: restart range overlaps the gap", s.EpisodeID)
		}
	}
	if s.EveryTurnMoves && !s.WithIDs {
		return fmt.Errorf("replaytest: %s: EveryTurnMoves needs WithIDs", s.EpisodeID)
	}
	if s.EarlyFormat && (s.WithIDs || s.WithPenaltyEvents || s.LiveLoopBreak || s.LLMCallEvents) {
		return fmt.Errorf("replaytest: %s: EarlyFormat logs have no ids, penalty, live or llm_call events", s.EpisodeID)
	}
	if s.WithPenaltyEvents && !s.WithIDs {
		return fmt.Errorf("replaytest: %s: WithPenaltyEvents needs WithIDs", s.EpisodeID)
	}
	return nil
}

func (s *Scenario) inGap(t int) bool {
	q := s.Quirks
	return q.GapLen > 0 && t >= q.GapFrom && t < q.GapFrom+q.GapLen
}

func (s *Scenario) sortedScores() []ScorePoint {
	pts := append([]ScorePoint(nil), s.Scores...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Turn < pts[j].Turn })
	return pts
}

// liveConfig is the live system's max_turns_stuck and
// stuck_check_interval.
func (s *Scenario) liveConfig() (maxStuck, interval int) {
	maxStuck, interval = s.LiveMaxTurnsStuck, s.LiveCheckInterval
	if maxStuck == 0 {
		maxStuck = 40
	}
	if interval == 0 {
		interval = 10
	}
	return maxStuck, interval
}
