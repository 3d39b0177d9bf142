package replaytest

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
	"unicode/utf8"
)

const (
	defaultAgentModel  = "qwen/qwen3-235b-a22b"
	defaultCriticModel = "google/gemini-2.5-flash"
	extractorModel     = "google/gemini-2.5-flash-lite"
	synthesisModel     = "qwen/qwen3-30b-a3b"
)

type emitter struct {
	s   *Scenario
	p   *episodePlan
	w   *bufio.Writer
	l   lineBuf
	rng *rand.Rand
	now time.Time
	err error

	agentModel, criticModel string
	maxTurns                int
}

func newEmitter(s *Scenario, p *episodePlan, w *bufio.Writer) *emitter {
	e := &emitter{s: s, p: p, w: w,
		rng:         rand.New(rand.NewPCG(s.Seed, 0x74657874)), // text/time stream
		agentModel:  s.AgentModel,
		criticModel: s.CriticModel,
		maxTurns:    s.MaxTurns,
	}
	if e.agentModel == "" {
		e.agentModel = defaultAgentModel
	}
	if e.criticModel == "" {
		e.criticModel = defaultCriticModel
	}
	if e.maxTurns == 0 {
		e.maxTurns = 500
		if s.Ending == EndMaxTurns {
			e.maxTurns = s.Turns
		}
	}
	e.now = s.Start
	if e.now.IsZero() {
		if t, err := time.Parse("2006-01-02T15:04:05", s.EpisodeID); err == nil {
			e.now = t
		} else {
			e.now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	return e
}

// advance moves the clock by a random amount in [lo, hi).
func (e *emitter) advance(lo, hi time.Duration) {
	e.now = e.now.Add(lo + time.Duration(e.rng.Int64N(int64(hi-lo))))
}

func (e *emitter) begin(level, msg string) {
	e.advance(200*time.Microsecond, 180*time.Millisecond)
	e.l.begin(e.now, level, msg)
}

func (e *emitter) flush() {
	e.l.end()
	if e.err == nil {
		_, e.err = e.w.Write(e.l.b)
	}
}

// ev writes the usual correlation fields.
func (e *emitter) ev(eventType string, turn int) {
	e.l.str("event_type", eventType)
	e.l.str("episode_id", e.s.EpisodeID)
	e.l.int("turn", turn)
}

func (e *emitter) turnKey() string {
	if e.s.Quirks.TurnNumberAlias {
		return "turn_number"
	}
	return "turn"
}

func (e *emitter) episode() {
	s, p := e.s, e.p
	if s.EarlyFormat {
		e.earlyEpisode()
		return
	}
	if s.Quirks.NoEventType {
		e.begin("INFO", fmt.Sprintf("Enhanced prompt with knowledge base (%s characters)", thousands(4000+e.rng.IntN(9000))))
		e.flush()
	}
	e.orchestratorInit()
	e.begin("INFO", "Episode initialized: "+s.EpisodeID)
	e.ev("episode_initialized", 0)
	e.l.int("max_turns", e.maxTurns)
	e.l.str("agent_model", e.agentModel)
	e.l.str("critic_model", e.criticModel)
	e.flush()
	first := p.steps[0].from
	e.begin("INFO", "Initial room added to map: "+first.name)
	e.ev("map_initial_room_added", 0)
	e.l.str("component", "map_manager")
	e.l.str("room_name", first.name)
	if s.WithIDs {
		e.l.int("room_id", first.id)
	}
	e.flush()

	restarted := false
	for i := 0; i < len(p.steps) && e.err == nil; i++ {
		st := p.steps[i]
		if st.n > s.Turns {
			e.truncatedTurn(st)
			return
		}
		if !st.gap {
			e.turn(st)
		}
		if !restarted && s.Quirks.RestartAt > 0 && st.n == s.Quirks.RestartAt {
			restarted = true
			e.advance(20*time.Second, 90*time.Second)
			e.orchestratorInit()
			e.begin("INFO", fmt.Sprintf("Restored episode %s from checkpoint at turn %d", s.EpisodeID, s.Quirks.RestartFrom-1))
			e.ev("episode_restored", s.Quirks.RestartFrom-1)
			e.l.str("component", "orchestrator")
			e.flush()
			for j := s.Quirks.RestartFrom - 1; j < i; j++ {
				if !p.steps[j].gap {
					e.turn(p.steps[j])
				}
			}
			e.turn(st)
		}
	}
	e.ending()
}

func (e *emitter) orchestratorInit() {
	e.begin("INFO", "ZorkOrchestrator v2 initialized")
	e.l.str("event_type", "orchestrator_init")
	e.l.str("episode_id", e.s.EpisodeID)
	e.l.str("agent_model", e.agentModel)
	e.l.str("critic_model", e.criticModel)
	e.l.str("info_ext_model", extractorModel)
	e.l.int("max_turns", e.maxTurns)
	e.flush()
}

func (e *emitter) llmCall(turn int, component, model string) {
	e.begin("DEBUG", "LLM call completed")
	e.ev("llm_call", turn)
	e.l.str("component", component)
	e.l.str("model", model)
	e.flush()
}

func (e *emitter) turn(st *step) {
	s := e.s
	t := st.n
	e.advance(2*time.Second, 8*time.Second)
	if s.LLMCallEvents {
		e.llmCall(t, "agent", e.agentModel)
		e.llmCall(t, "critic", e.criticModel)
		for range st.rejections {
			e.llmCall(t, "agent", e.agentModel)
			e.llmCall(t, "critic", e.criticModel)
		}
	}
	if s.NoiseBytes > 0 {
		e.rawAgentResponse(st, min(s.NoiseBytes/4, 200+e.rng.IntN(1300)))
	}
	if s.Quirks.NoEventType && e.rng.Float64() < 0.1 {
		msgs := []string{
			"Agent declared new objective: " + pick(e.rng, objectiveTexts),
			fmt.Sprintf("Critic evaluation took %.2fs", 0.4+3*e.rng.Float64()),
			fmt.Sprintf("Map has %d rooms and %d connections", 5+t/8, 7+t/5),
		}
		e.begin("INFO", pick(e.rng, msgs))
		e.flush()
	}

	// final_action_selection
	e.begin("INFO", fmt.Sprintf("SELECTED ACTION: %s (Score: %.2f, Confidence: %.2f, Override: %s)",
		st.action, st.criticScore, st.finalConf, pyBool(st.override != nil)))
	e.ev("final_action_selection", t)
	e.l.str("agent_action", st.action)
	e.l.str("agent_reasoning", st.reasoning)
	e.l.float("critic_score", st.criticScore)
	e.l.float("critic_confidence", st.finalConf)
	e.l.bool("was_overridden", st.override != nil)
	e.l.bool("critic_enabled", true)
	e.flush()

	if st.penalised {
		penalty := -0.2 * float64(st.visits)
		e.begin("INFO", fmt.Sprintf("Applied location penalty: %.2f \u2192 %.2f", st.baseConf, st.finalConfBeforeRejection()))
		e.l.str("event_type", "location_penalty_applied")
		e.l.int("turn", t)
		e.l.float("base_confidence", st.baseConf)
		e.l.float("adjusted_confidence", st.finalConfBeforeRejection())
		e.l.str("reason", fmt.Sprintf("Location revisit penalty %.2f (%dx return to %s)", penalty, st.visits, st.from.name))
		e.l.int("location_id", st.from.id)
		e.l.int("recent_visits", st.visits)
		e.flush()
	}
	for i, r := range st.rejections {
		e.begin("INFO", fmt.Sprintf("Critic rejected action: %s (score: %.2f)", r.action, r.score))
		e.l.str("event_type", "action_rejected")
		e.l.str("episode_id", s.EpisodeID)
		e.l.int(e.turnKey(), t)
		e.l.str("action", r.action)
		e.l.float("score", r.score)
		e.l.str("justification", r.justification)
		e.l.int("rejection_attempt", i+1)
		e.flush()
	}
	if o := st.override; o != nil {
		e.begin("INFO", "Overriding critic rejection: "+o.justification)
		e.l.str("event_type", "critic_override")
		e.l.str("episode_id", s.EpisodeID)
		e.l.str("reason", o.justification)
		e.l.int(e.turnKey(), t)
		e.l.str("original_action", o.action)
		e.l.float("original_score", o.score)
		e.flush()
	}
	if s.Quirks.Extras && e.rng.Float64() < 0.08 {
		delay := float64(int(1) << e.rng.IntN(3))
		e.begin("WARNING", fmt.Sprintf("LLM call failed (attempt 1/3), retrying in %.1fs: 429 Too Many Requests", delay))
		e.l.openObj("extras")
		e.ev("llm_retry", t)
		e.l.str("component", "llm_client")
		e.l.int("attempt", 1)
		e.l.int("max_attempts", 3)
		e.l.float("delay_seconds", delay)
		e.l.str("error", "429 Too Many Requests")
		e.flush()
	}
	e.zorkResponse(st, false)
	if s.LLMCallEvents {
		e.llmCall(t, "extractor", extractorModel)
	}
	if s.WithIDs && (st.kind == kMove || s.EveryTurnMoves) {
		e.begin("INFO", "Map updated from movement")
		e.ev("map_movement_update", t)
		e.l.str("action", st.action)
		e.l.int("from_room_id", st.from.id)
		e.l.str("from_room", st.from.name)
		e.l.int("to_room_id", st.to.id)
		e.l.str("to_room", st.to.name)
		e.flush()
	}
	if s.WithIDs && st.describes {
		e.begin("INFO", "Room description captured")
		if s.Quirks.Extras {
			e.l.openObj("extras")
		}
		e.l.str("event_type", "room_description_captured")
		e.l.int("turn", t)
		e.l.int("location_id", st.to.id)
		e.l.int("text_length", len(st.response))
		e.flush()
	}
	if st.objective != "" {
		e.begin("INFO", "Objective completed: "+st.objective)
		e.l.str("event_type", "objective_completed")
		e.l.str("episode_id", s.EpisodeID)
		e.l.int(e.turnKey(), t)
		e.l.str("component", "objective_manager")
		e.l.str("objective", st.objective)
		e.l.str("completion_action", st.action)
		e.l.str("completion_location", st.to.name)
		e.l.int("completion_score", st.score)
		e.flush()
	}
	if s.LLMCallEvents {
		e.llmCall(t, "synthesis", synthesisModel)
	}
	if s.Quirks.NaN && t%20 == 7 {
		e.begin("DEBUG", "LLM usage recorded")
		e.ev("llm_usage", t)
		e.l.str("component", "llm_client")
		e.l.str("model", e.agentModel)
		e.l.int("prompt_tokens", 3000+e.rng.IntN(9000))
		e.l.int("completion_tokens", 80+e.rng.IntN(900))
		e.l.float("cost_usd", math.NaN())
		inf := math.Inf(1)
		if t%40 == 27 {
			inf = math.Inf(-1)
		}
		e.l.float("tokens_per_second", inf)
		e.flush()
	}

	loc := st.to.name
	if s.Quirks.NameVariants && e.rng.Float64() < 0.1 {
		loc = nameVariant(loc, e.rng)
	}
	e.begin("INFO", fmt.Sprintf("Turn %d completed", t))
	e.ev("turn_completed", t)
	e.l.str("action", st.action)
	e.l.int("score", st.score)
	e.l.str("location", loc)
	e.l.float("confidence", st.finalConf)
	e.flush()

	if s.LiveLoopBreak && st.liveScoreChange {
		e.begin("INFO", fmt.Sprintf("Score changed: %d \u2192 %d (was stuck for %d turns)", st.oldScore, st.score, st.stuckFor))
		e.ev("score_change", t)
		e.l.int("old_score", st.oldScore)
		e.l.int("new_score", st.score)
		e.l.int("was_stuck_for", st.stuckFor)
		e.flush()
	}
	if s.LiveLoopBreak && st.liveObjReset {
		e.begin("INFO", fmt.Sprintf("Objective progress: resetting stuck timer (was stuck for %d turns)", st.stuckFor))
		e.ev("objective_progress_reset", t)
		e.l.int("was_stuck_for", st.stuckFor)
		e.flush()
	}
	switch {
	case s.NoiseBytes > 0 && e.rng.IntN(12) == 0:
		e.bigNoise(st)
	case s.NoiseBytes == 0 && e.rng.Float64() < 0.03:
		e.begin("DEBUG", "Exported coordinated state")
		e.ev("state_export", t)
		e.l.str("component", "state_manager")
		e.l.int("bytes", 20000+e.rng.IntN(60000))
		e.flush()
	}
}

// finalConfBeforeRejection is the penalised confidence of the first proposal.
func (st *step) finalConfBeforeRejection() float64 {
	return max(0, min(1, st.baseConf+-0.2*float64(st.visits)))
}

func (e *emitter) zorkResponse(st *step, truncate bool) {
	raw := st.response + "\n\n"
	if e.rng.Float64() < 0.3 {
		raw = "\n" + raw
	}
	e.begin("INFO", fmt.Sprintf("ZORK RESPONSE for '%s':\n%s\n", st.action, st.response))
	e.ev("zork_response", st.n)
	e.l.str("action", st.action)
	e.l.str("zork_response", st.response)
	e.l.str("raw_zork_response", raw)
	if !truncate {
		e.flush()
		return
	}
	e.l.end()
	cut := len(e.l.b) * (40 + e.rng.IntN(30)) / 100
	if e.err == nil {
		_, e.err = e.w.Write(e.l.b[:cut])
	}
}

func (e *emitter) truncatedTurn(st *step) {
	e.advance(2*time.Second, 8*time.Second)
	if e.s.LLMCallEvents {
		e.llmCall(st.n, "agent", e.agentModel)
		e.llmCall(st.n, "critic", e.criticModel)
	}
	e.begin("INFO", fmt.Sprintf("SELECTED ACTION: %s (Score: %.2f, Confidence: %.2f, Override: False)", st.action, st.criticScore, st.finalConf))
	e.ev("final_action_selection", st.n)
	e.l.str("agent_action", st.action)
	e.l.str("agent_reasoning", st.reasoning)
	e.l.float("critic_score", st.criticScore)
	e.l.float("critic_confidence", st.finalConf)
	e.l.bool("was_overridden", false)
	e.l.bool("critic_enabled", true)
	e.flush()
	e.zorkResponse(st, true)
}

func (e *emitter) ending() {
	s, p := e.s, e.p
	if s.Ending == EndTruncated {
		return
	}
	last := p.steps[s.Turns-1]
	final := last.score
	e.advance(50*time.Millisecond, 900*time.Millisecond)
	switch s.Ending {
	case EndStuckTermination:
		stuck := s.Turns - p.lastChange
		e.begin("WARNING", fmt.Sprintf("Terminating episode: no progress for %d turns (score stuck at %d)", stuck, final))
		e.ev("stuck_termination", s.Turns)
		e.l.int("score", final)
		e.l.int("turns_stuck", stuck)
		e.flush()
	case EndGameOver:
		e.begin("INFO", "Game over detected: You have died")
		e.l.str("event_type", "game_over_detected")
		e.l.str("episode_id", s.EpisodeID)
		e.l.int("turn_number", s.Turns)
		e.l.str("reason", "You have died")
		e.flush()
		fallthrough
	default:
		e.begin("INFO", "Episode completed")
		e.ev("episode_completed", s.Turns)
		e.l.int("final_score", final)
		e.l.bool("game_over", s.Ending == EndGameOver)
		reason := "max_turns"
		if s.Ending == EndGameOver {
			reason = "game_over"
		}
		e.l.str("reason", reason)
		e.flush()
	}
	deaths := 0
	if s.Ending == EndGameOver {
		deaths = 1
	}
	e.begin("INFO", "Episode finalized: "+s.EpisodeID)
	e.ev("episode_finalized", s.Turns)
	e.l.int("final_score", final)
	e.l.int("death_count", deaths)
	e.l.int("objectives_completed", p.objectives)
	e.flush()
}

func (e *emitter) rawAgentResponse(st *step, size int) {
	e.begin("INFO", "[DEBUG] Raw agent response:")
	e.l.str("event_type", "agent_raw_response_debug")
	e.l.str("episode_id", e.s.EpisodeID)
	e.l.int("turn", st.n)
	e.l.str("model", e.agentModel)
	// raw_response_length is the length in characters, as Python's len()
	parts := [][]byte{[]byte(`<thinking>\n`), escBody(st.reasoning)}
	n := 11 + utf8.RuneCountInString(st.reasoning) + 13 + utf8.RuneCountInString(st.action)
	if extra := size - n; extra > 40 {
		parts = append(parts, []byte(`\nRelevant notes:\n`))
		n += 17
		for _, x := range noiseParts(e.rng, extra) {
			parts = append(parts, x)
			n += len(x) - bytes.Count(x, []byte(`\n`))
		}
	}
	parts = append(parts, []byte(`\n</thinking>\n`), escBody(st.action))
	e.l.rawStr("raw_response", parts...)
	e.l.int("raw_response_length", n)
	e.flush()
}

// bigNoise writes one line of about NoiseBytes: a knowledge-base dump (the
// text in the message itself), a long raw agent response, or a memory
// synthesis prompt.
func (e *emitter) bigNoise(st *step) {
	size := int(float64(e.s.NoiseBytes) * (0.5 + e.rng.Float64()))
	switch e.rng.IntN(3) {
	case 0:
		e.advance(time.Millisecond, 50*time.Millisecond)
		e.l.head(e.now, "INFO")
		parts := append([][]byte{[]byte(`Knowledge base updated:\n\n# Zork Strategy Knowledge Base\n\n`)}, noiseParts(e.rng, size)...)
		e.l.rawStr("message", parts...)
		if e.s.Quirks.Extras {
			e.l.openObj("extras")
		}
		e.ev("knowledge_base_dump", st.n)
		e.l.str("component", "knowledge_manager")
		e.l.int("characters", size)
		e.flush()
	case 1:
		e.rawAgentResponse(st, size)
	default:
		e.begin("DEBUG", "Memory synthesis prompt built")
		if e.s.Quirks.Extras {
			e.l.openObj("extras")
		}
		e.ev("memory_synthesis_prompt", st.n)
		e.l.str("component", "simple_memory")
		e.l.rawStr("prompt", noiseParts(e.rng, size)...)
		e.flush()
	}
}
