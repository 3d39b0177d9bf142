// Package replaytest generates realistic ZorkGPT episode logs
// (episode_log.jsonl, as described in the project's LOG_FORMAT.md) for
// loopbreak's tests, golden files and benchmarks. Generation is
// deterministic: a Scenario (with its Seed) always produces the same bytes.
// Only the standard library is used.
//
// # What a generated log looks like
//
// One JSON object per line, as Python's logging JSON formatter writes it:
// json.dumps separators (", " and ": "), non-ASCII as \uXXXX escapes, float
// repr ("0.44999999999999996"), timestamps with microseconds and no zone.
// Every line has timestamp, level and message; most have event_type,
// episode_id and turn (component on auxiliary events). As in the ZorkGPT
// source, location_penalty_applied and room_description_captured carry no
// episode_id, and game_over_detected uses turn_number.
//
// The episode starts with orchestrator_init, episode_initialized and
// map_initial_room_added (turn 0). Each turn t logs, in this order:
//
//	llm_call (agent, critic, and again per rejection)  [LLMCallEvents]
//	agent_raw_response_debug                            [NoiseBytes > 0]
//	final_action_selection
//	location_penalty_applied                            [WithPenaltyEvents, start room among the previous 5 start rooms]
//	action_rejected (1-2) / critic_override             [RejectionRate]
//	zork_response
//	llm_call (extractor)                                [LLMCallEvents]
//	map_movement_update                                 [WithIDs, the room changed; every turn with EveryTurnMoves]
//	room_description_captured                           [WithIDs, the reply describes a room]
//	objective_completed                                 [Objectives]
//	llm_call (synthesis)                                [LLMCallEvents]
//	turn_completed (action, score, location name, confidence)
//	score_change / objective_progress_reset             [LiveLoopBreak]
//	occasional noise (knowledge-base dump, raw reasoning, memory prompt)
//
// and the episode ends with stuck_termination, or game_over_detected and
// episode_completed, or episode_completed alone, then episode_finalized
// (nothing for a crash, whose last line is cut mid-JSON).
//
// EarlyFormat writes the June 2025 shape instead: agent_raw_response_debug,
// reasoning_extraction_debug, final_reasoning_debug,
// hybrid_extraction_success, a names-only map_movement_update and
// turn_completed per turn (see Scenario.EarlyFormat).
//
// final_action_selection.agent_action always equals turn_completed.action.
// A direction that leads nowhere gets "You can't go that way." (or the
// game's specific refusal) and no movement. Rooms and exits are those of the
// released Zork I (see Rooms); ids are synthetic but stable. Revisit
// penalties and live score_change / objective_progress_reset /
// stuck_termination events are computed exactly as RULES.md rules 3 and 1
// define them, so a correct replay reproduces them.
//
// # Scenarios
//
// Scenario sets the turn count, score script, objective turns, route (Leg:
// random walk, walk steered to a room, or camping around a room with exact
// per-room turn counts), ending, and the format toggles (ids or names only,
// penalty events, live loop-break events, rejections, noise size, llm_call
// events, Quirks). WriteCorpus writes many RandomScenario episodes quickly.
//
// Incident20251103 and Incident20251104 rebuild the two incidents of
// LOG_FORMAT.md with their exact figures. Fixtures lists the episodes
// committed under testdata/episodes (regenerate them with
// `go test ./replay/replaytest -update`):
//
//	2025-11-03T12:38:53  incident: 341 turns, max_turns; 40 from turn 105; Dam 139, Dam Lobby 26, Maintenance Room 37
//	2025-11-04T09:35:24  incident: 273 turns, max_turns; 10 at 20..89, 39 at 102..148, 44 from 149; no rejections after 60
//	2025-11-05T14:20:07  62 turns, objectives and score increases, penalty and live events, killed by the troll at turn 62
//	2025-11-06T08:00:00  live stuck_termination at turn 80 with turns_stuck 40 (score last changed at turn 40)
//	2025-10-28T19:02:41  old names-only log (no ids, no penalty or live events), 100 turns, max_turns
//	2025-11-07T10:15:00  all quirks; episode 2025-11-07T10:15:00 (70 turns, gap 50-52, turns 61-65 logged twice
//	                     after a restart, NaN/Infinity in llm_usage lines) then 2025-11-07T11:42:19 (25 turns,
//	                     the file ends with turn 26's zork_response cut mid-line)
//	2025-11-08T16:45:12  llm_call event for every LLM call, 60 turns
//	2025-11-09T07:30:00  live run with the deployed max_turns_stuck 40: stuck_termination at 60 (last change at 20)
//	2025-11-10T21:05:00  live run recorded with max_turns_stuck 30 (Scenario.LiveMaxTurnsStuck): stuck_termination
//	                     at 50, which a replay with the default 40 disagrees with
//	2025-06-09T20:04:36  early (June 2025) format: names-only map_movement_update on every turn, 16 turns
//	test_smoke           tiny 10-turn test episode (ignored by default scans)
package replaytest
