package rules

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// Gemini CLI's LoopDetectionService (RULES.md §11): tool_cycle and
// content_chanting share one count of firings, the first being feedback
// (a recovery prompt) and the later ones stop; a logged LLM verdict is
// llm_loop_check, recorded. tool_cycle runs the detector; the other two
// require it and report what it found for them. enable_gemini_cli turns
// all three on or off.

// Keys of the Gemini CLI rules.
var (
	enableGeminiCLI       = enableParam("enable_gemini_cli", "replay Gemini CLI's LoopDetectionService")
	geminiCLIOnZorkGPT    = offParam("gemini_cli_on_zorkgpt", "also on ZorkGPT logs (each turn a tool call, the game's reply its result)")
	toolCallLoopThreshold = detectInt(detect.GeminiParams, "tool_call_loop_threshold")
	toolCycleMaxLength    = detectInt(detect.GeminiParams, "tool_cycle_max_length")
	contentChunkSize      = detectInt(detect.GeminiParams, "content_chunk_size")
	contentLoopThreshold  = detectInt(detect.GeminiParams, "content_loop_threshold")
	contentMaxHistory     = detectInt(detect.GeminiParams, "content_max_history")
)

const (
	feedbackDoc = "the first loop of a user prompt: live, a recovery prompt, the prompt goes on"
	stopDoc     = "the prompt's second loop: live, the prompt ends"
)

// Kinds of the Gemini CLI rules.
var (
	ToolCycleFeedback       = &Kind{Name: "feedback", Doc: feedbackDoc, Fields: []string{"cycle_length"}}
	ToolCycleStop           = &Kind{Name: "stop", Doc: stopDoc, Fields: []string{"cycle_length"}}
	ContentChantingFeedback = &Kind{Name: "feedback", Doc: feedbackDoc}
	ContentChantingStop     = &Kind{Name: "stop", Doc: stopDoc}
	LLMLoopRecorded         = &Kind{Name: "recorded", Doc: "the log records the LLM check's verdict LLM_DETECTED_LOOP (not replayable)"}
)

// ToolCycle runs the Gemini CLI detector and reports its tool call loops.
var ToolCycle = &Rule{
	Name:    detect.RuleToolCycle,
	Origin:  OriginGeminiCLI,
	Title:   "Gemini CLI: a cycle of tool calls repeats tool_call_loop_threshold times",
	Section: "docs/rules.md#tool_cycle",
	Doc: "Gemini CLI's LoopDetectionService.checkToolCallLoop (@google/gemini-cli-core 0.61.0, " +
		"dist/src/services/loopDetectionService.js; unchanged since 0.55), fed as GeminiClient.processTurn " +
		"(dist/src/core/client.js) feeds it: reset at each user prompt (a new prompt_id; not at tool " +
		"results, the \"System: Potential loop detected\" recovery prompt or \"Please continue.\"). A tool " +
		"call's key is name + \":\" + JSON.stringify(args), the arguments in the order the model sent them, " +
		"taken as live's SHA-256 takes it, in UTF-8 (a lone surrogate in the name is U+FFFD); " +
		"the last K·R keys are kept (K tool_cycle_max_length, R tool_call_loop_threshold) and it fires when, " +
		"for some k ≤ K, the last k·R keys repeat the last k (A×5, AB×5, ...); cycle_length is the least such " +
		"k. The prompt's first firing is feedback, the second stop (the prompt ends). gemini-cli@0.52 " +
		"(5 consecutive identical calls, no cycles: 0.52.0's consecutive count) is tool_cycle_max_length = 1. " +
		"It runs the detector content_chanting and llm_loop_check report from.",
	Params:  []*Param{enableGeminiCLI.Param, geminiCLIOnZorkGPT.Param, toolCallLoopThreshold.Param, toolCycleMaxLength.Param},
	Kinds:   []*Kind{ToolCycleFeedback, ToolCycleStop},
	Enabled: enableGeminiCLI.Get, Applies: onStepsOr(geminiCLIOnZorkGPT), InputsDoc: "steps; zorkgpt with gemini_cli_on_zorkgpt",
	Check: func(c *Config) error {
		if contentMaxHistory.Get(c) < contentChunkSize.Get(c) {
			return &ConstraintError{Keys: []string{"content_max_history", "content_chunk_size"},
				Msg: "content_max_history must be >= content_chunk_size"}
		}
		return nil
	},
	New: func(c *Config, ep *replay.Episode) Stepper {
		d, err := detect.NewGemini(detect.GeminiConfig{
			ToolCallLoopThreshold: toolCallLoopThreshold.Get(c),
			ToolCycleMaxLength:    toolCycleMaxLength.Get(c),
			ContentChunkSize:      contentChunkSize.Get(c),
			ContentLoopThreshold:  contentLoopThreshold.Get(c),
			ContentMaxHistory:     contentMaxHistory.Get(c),
		})
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &geminiEngine{d: d}
	},
}

// geminiEngine is the detector's state; fired holds the current step's
// firings.
type geminiEngine struct {
	d          *detect.Gemini
	fired      []detect.GeminiFiring
	followSkip // its checks, skipped on a turn it found nothing for them
}

// Step is step and the skip of its checks in one body, step's report
// called only when the detector fired: the calls were ~30 instructions
// at each step, for a step that fires at few.
func (e *geminiEngine) Step(t *replay.Turn, env *Env) {
	e.fired = e.fired[:0]
	if st, ok := env.stepOf(t); ok {
		if e.fired = e.d.AppendStep(e.fired, st); len(e.fired) > 0 {
			reportGemini(t, env, e, ToolCycle)
		}
	}
	// none: no check would report (reportGemini would find no firing).
	e.skip(env, e, ToolCycle, isGeminiCheck, len(e.fired) == 0)
}

func isGeminiCheck(s Stepper) bool {
	_, ok := s.(*geminiCheck)
	return ok
}

// geminiKinds maps a rule and a detector kind to the registered kind.
func geminiKind(r *Rule, kind string) *Kind { return r.Kind(kind) }

func reportGemini(t *replay.Turn, env *Env, e *geminiEngine, r *Rule) {
	for _, f := range e.fired {
		if f.Rule == r.Name {
			if k := geminiKind(r, f.Kind); k != nil {
				env.Report(&Firing{Turn: t.N, Rule: r, Kind: k, CycleLength: f.CycleLength})
			}
		}
	}
}

// geminiCheck reports its rule's firings of the engine's step; the
// engine is looked up at the first step (a stepper is stepped in one Env),
// where each step looked it up among the replay's rules.
type geminiCheck struct {
	rule   *Rule
	engine *geminiEngine
	looked bool
}

func (c *geminiCheck) Step(t *replay.Turn, env *Env) {
	if !c.looked {
		c.engine, c.looked = resultOf[*geminiEngine](env, ToolCycle), true
	}
	if c.engine != nil {
		reportGemini(t, env, c.engine, c.rule)
	}
}

func geminiRule(name, title, doc string, params []*Param, kinds ...*Kind) *Rule {
	r := &Rule{
		Name: name, Origin: OriginGeminiCLI, Title: title, Section: "docs/rules.md#" + name, Doc: doc,
		Params: params, Kinds: kinds, Enabled: enableGeminiCLI.Get,
		Requires: []*Rule{ToolCycle}, Applies: onStepsOr(geminiCLIOnZorkGPT), InputsDoc: "steps; zorkgpt with gemini_cli_on_zorkgpt",
	}
	r.New = func(*Config, *replay.Episode) Stepper { return &geminiCheck{rule: r} }
	return r
}

// The other Gemini CLI rules.
var (
	ContentChanting = geminiRule(detect.RuleContentChanting,
		"Gemini CLI: the same chunk of text comes back content_loop_threshold times, close together",
		"Gemini CLI's LoopDetectionService.checkContentLoop (@google/gemini-cli-core 0.61.0, "+
			"dist/src/services/loopDetectionService.js) over the model's text, one Content event a message "+
			"(thought parts out; reset at a user prompt, as tool_cycle): text is cut in chunks of content_chunk_size "+
			"UTF-16 code units; a chunk seen content_loop_threshold times with an average distance of at most "+
			"5 chunks (and the text between taking few values) is a loop. Chunks are told apart as "+
			"isLoopDetectedForChunk does: by the SHA-256 of their UTF-8 (a surrogate the chunk does not pair, "+
			"lone or half a pair its edge cuts, is U+FFFD), and a chunk with the key of recorded chunks but "+
			"other code units is not recorded at all (isActualContentMatch compares it with the key's "+
			"first recorded chunk still kept); exact, checked against 0.61.0. A tool call, code fences, tables, "+
			"lists, headings, quotes and dividers reset or pause it, with the live patterns' quirks "+
			"(RULES.md §11).",
		[]*Param{contentChunkSize.Param, contentLoopThreshold.Param, contentMaxHistory.Param},
		ContentChantingFeedback, ContentChantingStop)
	LLMLoopCheck = geminiRule(detect.RuleLLMLoopCheck,
		"Gemini CLI: the log records the LLM loop check's verdict",
		"Gemini CLI's checkForLoopWithLLM (loopDetectionService.js, 0.61.0) asks a model; that cannot be "+
			"replayed, so a step whose log records LLM_DETECTED_LOOP (in a chat recording, a recovery prompt "+
			"whose details are the model's analysis) is reported as it was.",
		nil, LLMLoopRecorded)
)
