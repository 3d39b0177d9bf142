package rules

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// Keys of fuzzy_repeat.
var (
	enableFuzzyRepeat = enableParam("enable_fuzzy_repeat", "replay fuzzy_repeat (near-identical steps)")
	fuzzyThreshold    = detectFloat(detect.FuzzyParams, "fuzzy_threshold")
	fuzzyWindow       = detectInt(detect.FuzzyParams, "fuzzy_window")
)

// FuzzyLoop is the kind of fuzzy_repeat.
var FuzzyLoop = &Kind{Name: "loop", Doc: "the step's output is at least fuzzy_threshold similar to one of the outputs kept", Fields: []string{"similarity", "matched_step"}}

// FuzzyRepeat is RULES.md §8: Ralph's detect_loop, an output nearly
// identical to a recent one.
var FuzzyRepeat = &Rule{
	Name:    "fuzzy_repeat",
	Origin:  OriginGeneric,
	Title:   "loop when a step's output nearly repeats one of the last fuzzy_window outputs kept",
	Section: "docs/rules.md#fuzzy_repeat",
	Doc: "Ralph's SafetyGuard.detect_loop (mikeyobrien/ralph-orchestrator src/ralph_orchestrator/safety.py " +
		"at 2c49ef9) with rapidfuzz's fuzz.ratio: a step's output (not its action) is compared with the outputs " +
		"kept (at most fuzzy_window, the oldest dropped); it fires when one has similarity 2·LCS/(len1+len2) " +
		"over code points (the Indel ratio) at least fuzzy_threshold, compared exactly. An empty output never " +
		"fires and is never kept; an output that fires is not kept. Reported: the best match (matched_step, the " +
		"latest on a tie) and its similarity to 4 decimals.",
	Params:    []*Param{enableFuzzyRepeat.Param, fuzzyThreshold.Param, fuzzyWindow.Param},
	Kinds:     []*Kind{FuzzyLoop},
	Enabled:   enableFuzzyRepeat.Get,
	Applies:   withOutputs,
	InputsDoc: "steps; zorkgpt (its replies are read while an output rule is enabled)",
	New: func(c *Config, ep *replay.Episode) Stepper {
		cfg := detect.FuzzyConfig{Threshold: fuzzyThreshold.Get(c), Window: fuzzyWindow.Get(c)}
		if s, ok := freeFuzzyRepeats.Get(); ok && s.cfg == cfg {
			return s
		}
		d, err := detect.NewFuzzyRepeat(cfg)
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &fuzzyRepeat{d: d, cfg: cfg}
	},
}

type fuzzyRepeat struct {
	d   *detect.FuzzyRepeat
	cfg detect.FuzzyConfig // d's
}

// freeFuzzyRepeats holds released steppers, a few workers' worth, for
// the next episode of their configuration: a directory of small episodes
// made a stepper, a detector and its list of outputs an episode.
var freeFuzzyRepeats = make(replay.FreeList[*fuzzyRepeat], 16)

// release empties the detector (detect.FuzzyRepeat.Release: it starts
// afresh) and keeps the stepper for the next episode.
func (s *fuzzyRepeat) release() {
	s.d.Release()
	freeFuzzyRepeats.Put(s)
}

func (s *fuzzyRepeat) Step(t *replay.Turn, env *Env) {
	st, ok := env.stepOf(t)
	if !ok {
		return
	}
	if matched, similarity, ok := s.d.Match(st); ok {
		env.reportMatch(t.N, FuzzyRepeat, FuzzyLoop, round4(similarity), matched)
	}
}
