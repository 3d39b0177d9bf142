package rules

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// Keys of signature_repeat.
var (
	enableSignatureRepeat = enableParam("enable_signature_repeat", "replay signature_repeat (output loops)")
	signatureThreshold    = detectInt(detect.SignatureParams, "signature_threshold")
)

// SignatureLoop is the kind of signature_repeat.
var SignatureLoop = &Kind{Name: "loop", Doc: "the last signature_threshold steps have the same signature (action and output)", Fields: []string{"signature"}}

// SignatureRepeat is RULES.md §8: the same action with the same kind of
// output, several times in a row.
var SignatureRepeat = &Rule{
	Name:    "signature_repeat",
	Origin:  OriginGeneric,
	Title:   "loop when the last steps share one action-and-output signature",
	Section: "docs/rules.md#signature_repeat",
	Doc: "A step's signature is its normalised action, \"|\", and the signature of its output: an error " +
		"(error:<word>-<location>), a test failure (test-fail:<count>-<names>), a file modification " +
		"(file:<file>-<word>), else its first 50 characters in lower case with white space runs as \"-\". " +
		"It fires at every step whose last signature_threshold signatures, its own included, are equal: " +
		"\"open door → The door is locked\" three times is a loop. On ZorkGPT logs the output is the game's " +
		"reply (zork_response).",
	Params:    []*Param{enableSignatureRepeat.Param, signatureThreshold.Param},
	Kinds:     []*Kind{SignatureLoop},
	Enabled:   enableSignatureRepeat.Get,
	Applies:   withOutputs,
	InputsDoc: "steps; zorkgpt (its replies are read while an output rule is enabled)",
	New: func(c *Config, ep *replay.Episode) Stepper {
		th := signatureThreshold.Get(c)
		if s, ok := freeSignatureRepeats.Get(); ok && s.d.Threshold() == th {
			s.d.Reset()
			return s
		}
		d, err := detect.NewSignatureRepeat(detect.SignatureConfig{Threshold: th})
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &signatureRepeat{d: d}
	},
}

type signatureRepeat struct{ d *detect.SignatureRepeat }

// freeSignatureRepeats holds released steppers, a few workers' worth, for
// the next episode of their threshold (detect.SignatureRepeat.Reset): a
// directory of small episodes made a stepper, a detector and its ring an
// episode.
var freeSignatureRepeats = make(replay.FreeList[*signatureRepeat], 16)

// release keeps the stepper for the next episode (its replay is over).
func (s *signatureRepeat) release() { freeSignatureRepeats.Put(s) }

func (s *signatureRepeat) Step(t *replay.Turn, env *Env) {
	st, ok := env.stepOf(t)
	if !ok {
		return
	}
	if sig, ok := s.d.Fires(st); ok {
		env.reportSignature(t.N, SignatureRepeat, SignatureLoop, sig)
	}
}
