package rules

// Which rules run on which input format, and the glue between the turn
// table and the detectors of rules/detect (RULES.md §8, §9, §11).

import (
	"math"
	"unsafe"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// notZorkGPT is what the live ZorkGPT agent does about the keys of rules it
// never had (Param.Unread): a pyproject.toml setting them is told so.
const notZorkGPT = "run without this rule (ZorkGPT has no such detector)"

// AppliesTo says whether r replays over ep's format at all (its Enabled
// says whether the configuration turns it on):
//   - the ZorkGPT family runs on ZorkGPT logs; progress_velocity and
//     stuck_warnings also on steps logs that carry a score;
//   - signature_repeat and fuzzy_repeat on every log with outputs: steps,
//     and ZorkGPT logs read with their replies (replay.Options.Outputs);
//   - the OpenHands and Gemini CLI detectors on steps logs, and on ZorkGPT
//     logs (their replies as observations) with openhands_on_zorkgpt /
//     gemini_cli_on_zorkgpt;
//   - task_attempts on attempts logs;
//   - Cline's and Roo Code's checks on steps logs read as that agent's
//     (cline, roo); Goose's on any steps log (it is off by default).
func (r *Rule) AppliesTo(ep *replay.Episode, cfg *Config) bool {
	if r.Applies != nil {
		return r.Applies(ep, cfg)
	}
	return isZorkGPT(ep)
}

func isZorkGPT(ep *replay.Episode) bool {
	return ep.Format == "" || ep.Format == replay.FormatZorkGPT
}

func onScoredSteps(ep *replay.Episode, _ *Config) bool {
	return isZorkGPT(ep) || (ep.Format == replay.FormatSteps && ep.HasScore)
}

func withOutputs(ep *replay.Episode, _ *Config) bool {
	return ep.Format == replay.FormatSteps || (isZorkGPT(ep) && ep.Outputs != nil)
}

func onAttempts(ep *replay.Episode, _ *Config) bool { return ep.Format == replay.FormatAttempts }

// onStepsOr runs a peer detector on steps logs, and on ZorkGPT logs read
// with their replies when the key says so.
func onStepsOr(zorkgpt BoolParam) func(*replay.Episode, *Config) bool {
	return func(ep *replay.Episode, cfg *Config) bool {
		return ep.Format == replay.FormatSteps || (isZorkGPT(ep) && ep.Outputs != nil && zorkgpt.Get(cfg))
	}
}

// Inputs describes where a rule runs, for docs and `loopbreak rules`.
func (r *Rule) Inputs() string {
	if r.InputsDoc != "" {
		return r.InputsDoc
	}
	return "zorkgpt"
}

func init() {
	for _, r := range []*Rule{ProgressVelocity, StuckWarnings} {
		r.Applies, r.InputsDoc = onScoredSteps, "zorkgpt; steps with a score"
	}
}

// NeedsOutputs says whether cfg enables a rule that reads each ZorkGPT
// turn's output, so the reader keeps them (replay.Options.Outputs).
func NeedsOutputs(cfg *Config) bool {
	return SignatureRepeat.Enabled(cfg) || FuzzyRepeat.Enabled(cfg) ||
		(RepeatActionObservation.Enabled(cfg) && openHandsOnZorkGPT.Get(cfg)) ||
		(ToolCycle.Enabled(cfg) && geminiCLIOnZorkGPT.Get(cfg))
}

// ReadsOutputs says whether key belongs to a rule that may read ZorkGPT
// turns' outputs, so a sweep over it must have them read.
func ReadsOutputs(key string) bool {
	for _, r := range []*Rule{SignatureRepeat, FuzzyRepeat, RepeatActionObservation, ToolCycle} {
		for _, p := range r.Params {
			if p.Key == key {
				return true
			}
		}
	}
	return false
}

// offParam is a boolean key that defaults to false, for a rule outside
// ZorkGPT.
func offParam(key, doc string) BoolParam {
	p := enableParam(key, doc)
	p.Default = false
	return p
}

// stepOf is turn t as the detectors' Step: for a steps log, its kind,
// error and exit code; for a ZorkGPT turn, an action step whose output is
// the game's reply. Filled turns (gaps) are no step.
func stepOf(t *replay.Turn, ep *replay.Episode) (detect.Step, bool) {
	var s detect.Step
	ok := makeStepOf(&s, t, ep)
	return s, ok
}

// makeStepOf writes stepOf(t, ep) into *s and returns its bool: the
// Env's step made by an Env of ep (makeStep), over s.
func makeStepOf(s *detect.Step, t *replay.Turn, ep *replay.Episode) bool {
	e := &Env{Episode: ep, step: *s}
	e.makeStep(t)
	*s = e.step
	return e.stepOK
}

// makeStep makes e.step, stepOf(t, e.Episode), in place (not returned
// and copied), and notes it is t's. It is the step's whole making, not
// a call of it: the call was ~20 instructions a turn.
//
//go:noinline
func (e *Env) makeStep(t *replay.Turn) {
	e.turn = turnAddr(t)
	s, ep := &e.step, e.Episode
	if t.Filled {
		*s = detect.Step{}
		e.stepOK = false
		return
	}
	// Every field is written once, in place: the literal was built on
	// the stack, zeroed first, then copied into s through the write
	// barrier's test (~40 instructions a turn). TestMakeStepOfSetsAll
	// holds every field of detect.Step to the literal's.
	kind, failed, loop, prompt := detect.KindAction, false, false, false
	code, hasCode := 0, false
	if len(ep.Steps) > 0 {
		i := t.N - ep.Turns[0].N
		info := &ep.Steps[i]
		kind = detect.Kind(info.Kind) // replay.StepKind has detect.Kind's order
		failed, loop, prompt = info.Error, info.LLMLoop, info.NewPrompt
		if info.HasExitCode {
			code, hasCode = ep.ExitCode(i)
		}
	}
	s.N, s.Kind, s.Error, s.ExitCode, s.HasExitCode, s.NewPrompt, s.LLMLoopVerdict = t.N, kind, failed, code, hasCode, prompt, loop
	s.Action = ep.Str(t.Action)
	s.Output, s.OutputTransient = ep.Output(t.N), ep.OutputsRecycled()
	e.stepOK = true
}

// turnAddr is t's address, which Env.turn keeps to tell whether the step
// was made for t: only compared, never read through, so no pointer for
// the write barrier's test at each turn's two stores (at's and
// makeStep's). Every replay clears it (at) before a turn's steps, so an
// address reused by another turn is not taken for the one before.
func turnAddr(t *replay.Turn) uintptr { return uintptr(unsafe.Pointer(t)) }

// fromDetect declares a rule's key from a detector's Param, so bounds,
// defaults and docs live once, with the detector.
func fromDetect(p detect.Param) *Param {
	out := &Param{Key: p.Key, Doc: p.Doc, Default: p.Default, Min: p.Min, Max: p.Max, Unread: notZorkGPT}
	switch p.Type {
	case detect.TypeInt:
		out.Type = Int
	case detect.TypeFloat:
		out.Type = Float
	case detect.TypeBool:
		out.Type = Bool
	}
	return out
}

func detectParam(params []detect.Param, key string) detect.Param {
	for _, p := range params {
		if p.Key == key {
			return p
		}
	}
	panic("rules: detector key " + key + " not declared")
}

func detectInt(params []detect.Param, key string) IntParam {
	return IntParam{fromDetect(detectParam(params, key))}
}

func detectFloat(params []detect.Param, key string) FloatParam {
	return FloatParam{fromDetect(detectParam(params, key))}
}

func detectBool(params []detect.Param, key string) BoolParam {
	return BoolParam{fromDetect(detectParam(params, key))}
}

func enableParam(key, doc string) BoolParam {
	return unread(boolParam(key, doc), notZorkGPT)
}

// round4 keeps similarities to 4 decimals, as firings report them.
func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// IsLoop says f is a loop firing of the generic or peer rules (kinds
// loop, stop, feedback; not a recorded verdict): what sweeps and the
// headline table count as the detector's alarms.
// A registered kind of its registered rule has the answer (Kind.loop);
// a kind outside the registry, another rule's, or a copy of a rule, is
// asked of the rule's origin.
func (f *Firing) IsLoop() bool {
	if k := f.Kind; k != nil && k.rule == f.Rule {
		return k.loop
	}
	return isLoop(f.Rule, f.Kind)
}

func isLoop(r *Rule, k *Kind) bool {
	switch r.Origin {
	case OriginGeneric, OriginOpenHands, OriginOpenHandsV1, OriginGeminiCLI, OriginCline, OriginRoo, OriginGoose:
		return k != LLMLoopRecorded
	}
	return false
}
