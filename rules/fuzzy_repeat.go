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
var FuzzyLoop = &Kind{Name: "loop", Doc: "the step's text is at least fuzzy_threshold similar to one of the previous fuzzy_window steps", Fields: []string{"similarity", "matched_step"}}

// FuzzyRepeat is RULES.md §8: a step nearly identical to a recent one.
var FuzzyRepeat = &Rule{
	Name:    "fuzzy_repeat",
	Origin:  OriginGeneric,
	Title:   "loop when a step nearly repeats one of the last fuzzy_window steps",
	Section: "docs/rules.md#fuzzy_repeat",
	Doc: "A step's text is its raw action followed by its output. It fires when the text's similarity " +
		"2·LCS/(len1+len2) over characters (the Indel ratio) with one of the previous fuzzy_window steps, of " +
		"any kind, is at least fuzzy_threshold, compared exactly; the best match decides (matched_step, " +
		"the latest on a tie; similarity to 4 decimals).",
	Params:    []*Param{enableFuzzyRepeat.Param, fuzzyThreshold.Param, fuzzyWindow.Param},
	Kinds:     []*Kind{FuzzyLoop},
	Enabled:   enableFuzzyRepeat.Get,
	Applies:   withOutputs,
	InputsDoc: "steps; zorkgpt (its replies are read while an output rule is enabled)",
	New: func(c *Config, ep *replay.Episode) Stepper {
		d, err := detect.NewFuzzyRepeat(detect.FuzzyConfig{Threshold: fuzzyThreshold.Get(c), Window: fuzzyWindow.Get(c)})
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &fuzzyRepeat{d: d}
	},
}

type fuzzyRepeat struct{ d *detect.FuzzyRepeat }

func (s *fuzzyRepeat) release() { s.d.Release() }

func (s *fuzzyRepeat) Step(t *replay.Turn, env *Env) {
	st, ok := stepOf(t, env.Episode)
	if !ok {
		return
	}
	for _, f := range s.d.Step(st) {
		env.Report(Firing{Turn: t.N, Rule: FuzzyRepeat, Kind: FuzzyLoop, Similarity: round4(f.Similarity), MatchedStep: f.MatchedStep})
	}
}
