package replaytest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// thousands formats n as Python's "{:,}".
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func nameVariant(name string, rng *rand.Rand) string {
	switch rng.IntN(3) {
	case 0:
		return strings.ToLower(name)
	case 1:
		words := strings.Fields(name)
		for i, w := range words {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
		return strings.Join(words, " ")
	default:
		if i := strings.IndexByte(name, ' '); i > 0 {
			return strings.ToLower(name[:i]) + "  " + strings.ToLower(name[i+1:])
		}
		return strings.ToUpper(name)
	}
}

// earlyEpisode writes the June 2025 format (Scenario.EarlyFormat), shaped
// after ZorkGPT's public episode.jsonl of that time.
func (e *emitter) earlyEpisode() {
	s, p := e.s, e.p
	e.begin("INFO", fmt.Sprintf("Enhanced prompt with knowledge base (%s characters)", thousands(4000+e.rng.IntN(9000))))
	e.flush()
	e.begin("INFO", "ZorkOrchestrator v2 initialized")
	e.l.str("event_type", "orchestrator_init")
	e.l.null("agent_model") // the early orchestrator logged its models unset
	e.l.null("critic_model")
	e.l.null("info_ext_model")
	e.l.int("max_turns", e.maxTurns)
	e.flush()
	e.begin("INFO", "Initializing new episode: "+s.EpisodeID)
	e.l.str("event_type", "progress")
	e.l.str("component", "episode_synthesizer")
	e.l.str("stage", "episode_initialization")
	e.l.int("turn", 0)
	e.l.str("details", "Starting episode "+s.EpisodeID)
	e.flush()
	e.begin("INFO", "Episode initialized: "+s.EpisodeID)
	e.ev("episode_initialized", 0)
	e.l.int("max_turns", e.maxTurns)
	e.flush()
	first := p.steps[0].from
	e.hybridExtraction(first.name)
	e.begin("INFO", "Initial room added to map: "+first.name)
	e.ev("map_initial_room_added", 0)
	e.l.str("room_name", first.name)
	e.flush()
	for _, st := range p.steps {
		if e.err != nil {
			return
		}
		if st.n > s.Turns {
			e.truncatedTurn(st)
			return
		}
		if !st.gap {
			e.earlyTurn(st)
		}
	}
	e.ending()
}

func (e *emitter) hybridExtraction(room string) {
	e.begin("INFO", fmt.Sprintf("[%s] Hybrid extraction successful: %s", e.s.EpisodeID, room))
	e.l.str("event_type", "hybrid_extraction_success")
	e.l.str("episode_id", e.s.EpisodeID)
	e.l.str("extracted_location", room)
	e.l.bool("location_changed", false) // as the early extractor logged it, moved or not
	e.l.str("location_change_reason", "No previous location provided")
	e.l.bool("structured_available", false)
	e.l.str("combat_state_transition", "False -> False")
	e.flush()
}

func (e *emitter) earlyTurn(st *step) {
	s, t := e.s, st.n
	e.advance(30*time.Second, 60*time.Second) // early turns took most of a minute
	raw := "<thinking>\n" + st.reasoning + "\n</thinking>\n" + st.action
	e.begin("INFO", "[DEBUG] Raw agent response:")
	e.l.str("event_type", "agent_raw_response_debug")
	e.l.str("episode_id", s.EpisodeID)
	e.l.str("model", e.agentModel)
	e.l.str("raw_response", raw)
	e.l.int("raw_response_length", utf8.RuneCountInString(raw))
	e.flush()
	e.begin("INFO", "[DEBUG] Reasoning extraction results:")
	e.l.str("event_type", "reasoning_extraction_debug")
	e.l.str("episode_id", s.EpisodeID)
	e.l.int("think_matches_count", 0)
	e.l.int("thinking_matches_count", 1)
	e.l.int("reflection_matches_count", 0)
	e.l.int("total_reasoning_parts", 1)
	e.l.strList("think_matches", nil)
	e.l.strList("thinking_matches", []string{"\n" + st.reasoning + "\n"})
	e.l.strList("reflection_matches", nil)
	e.flush()
	e.begin("INFO", "[DEBUG] Final reasoning result:")
	e.l.str("event_type", "final_reasoning_debug")
	e.l.str("episode_id", s.EpisodeID)
	e.l.str("final_reasoning", st.reasoning)
	e.l.int("final_reasoning_length", utf8.RuneCountInString(st.reasoning))
	e.l.bool("reasoning_is_none", false)
	e.flush()
	e.advance(30*time.Second, 50*time.Second)
	e.hybridExtraction(st.to.name)
	e.begin("INFO", "Map updated from movement")
	e.ev("map_movement_update", t)
	e.l.str("action", st.action)
	e.l.str("from_room", st.from.name)
	e.l.str("to_room", st.to.name)
	e.flush()
	if st.objective != "" {
		e.begin("INFO", "Objective completed: "+st.objective)
		e.ev("objective_completed", t)
		e.l.str("objective", st.objective)
		e.l.str("completion_action", st.action)
		e.l.str("completion_location", st.to.name)
		e.l.int("completion_score", st.score)
		e.flush()
	}
	e.begin("INFO", fmt.Sprintf("Turn %d completed", t))
	e.ev("turn_completed", t)
	e.l.str("action", st.action)
	e.l.int("score", st.score)
	e.l.str("location", st.to.name)
	e.l.float("confidence", st.finalConf)
	e.flush()
}
