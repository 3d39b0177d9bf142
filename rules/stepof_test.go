package rules_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// The detectors get a step's exit code as logged, whatever its size (the
// table keeps those past int32 beside its rows), and none for a step
// without one.
func TestStepOfExitCode(t *testing.T) {
	codes := []int{0, 2, -1, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, 1<<32 - 1, 1 << 53}
	var b strings.Builder
	for i, c := range codes {
		fmt.Fprintf(&b, `{"step": %d, "action": "make", "output": "x", "exit_code": %d}`+"\n", 2*i+1, c)
		fmt.Fprintf(&b, `{"step": %d, "action": "ls", "output": "y"}`+"\n", 2*i+2)
	}
	eps, err := replay.Read(strings.NewReader(b.String()), "log.jsonl", "ep", replay.Options{Format: replay.FormatSteps})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	for i, want := range codes {
		s, ok := rules.StepOf(&ep.Turns[2*i], ep)
		if !ok || !s.HasExitCode || s.ExitCode != want {
			t.Errorf("step %d: exit code %d (%v), want %d", 2*i+1, s.ExitCode, s.HasExitCode, want)
		}
		if s, _ := rules.StepOf(&ep.Turns[2*i+1], ep); s.HasExitCode {
			t.Errorf("step %d: exit code %d, want none", 2*i+2, s.ExitCode)
		}
	}
}

// makeStepOfRef is makeStepOf as a literal: every field of detect.Step
// not named is zero.
func makeStepOfRef(t *replay.Turn, ep *replay.Episode) (detect.Step, bool) {
	if t.Filled {
		return detect.Step{}, false
	}
	s := detect.Step{N: t.N, Kind: detect.KindAction, Action: ep.Str(t.Action), Output: ep.Output(t.N), OutputTransient: ep.OutputsRecycled()}
	if len(ep.Steps) > 0 {
		i := t.N - ep.Turns[0].N
		info := &ep.Steps[i]
		s.Kind = detect.Kind(info.Kind)
		s.Error, s.LLMLoopVerdict, s.NewPrompt = info.Error, info.LLMLoop, info.NewPrompt
		if info.HasExitCode {
			s.ExitCode, s.HasExitCode = ep.ExitCode(i)
		}
	}
	return s, true
}

// TestMakeStepOfSetsAll holds makeStepOf, which writes a Step's fields
// one by one over the Env's last, to the literal: every field of
// detect.Step set at random before (a field added to Step and not
// written fails it), over the steps logs of testdata (errors, exit codes,
// gaps filled, Gemini CLI's prompts and messages) and ZorkGPT episodes.
func TestMakeStepOfSetsAll(t *testing.T) {
	files := []struct{ path, format, preset string }{
		{"../testdata/steps/agent.jsonl", replay.FormatSteps, ""},
		{"../testdata/steps/openhands/events.jsonl", replay.FormatSteps, replay.PresetOpenHands},
		{"../testdata/steps/gemini-cli/session-2025-11-12T14-00-3f0c9a7e.jsonl", replay.FormatSteps, replay.PresetGeminiCLI},
		{"../testdata/steps/gemini-cli/session.json", replay.FormatSteps, replay.PresetGeminiCLI},
		{"../testdata/episodes/2025-11-07T10-15-00/episode_log.jsonl", "", ""},
	}
	rng := rand.New(rand.NewPCG(24, 41))
	typ := reflect.TypeOf(detect.Step{})
	steps, fields := 0, map[string]bool{}
	for _, file := range files {
		eps, err := replay.ReadFile(file.path, nil, replay.Options{Format: file.format, Preset: file.preset})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			for i := range ep.Turns {
				var s detect.Step
				for k := range typ.NumField() {
					v := reflect.ValueOf(&s).Elem().Field(k)
					switch v.Kind() {
					case reflect.String:
						v.SetString(fmt.Sprint("stale", rng.IntN(9)))
					case reflect.Int:
						v.SetInt(1 + rng.Int64N(99))
					case reflect.Uint8:
						v.SetUint(1 + rng.Uint64N(9))
					case reflect.Bool:
						v.SetBool(true)
					default:
						t.Fatalf("detect.Step.%s is a %s", typ.Field(k).Name, v.Kind())
					}
				}
				ok := rules.MakeStepOf(&s, &ep.Turns[i], ep)
				want, wantOK := makeStepOfRef(&ep.Turns[i], ep)
				if s != want || ok != wantOK {
					t.Fatalf("%s, turn %d: %+v (%v), want %+v (%v)", file.path, ep.Turns[i].N, s, ok, want, wantOK)
				}
				steps++
				for k := range typ.NumField() {
					if !reflect.ValueOf(want).Field(k).IsZero() {
						fields[typ.Field(k).Name] = true
					}
				}
			}
		}
	}
	if steps < 50 || len(fields) < 6 {
		t.Fatalf("%d steps, fields set %v: too few to test", steps, fields)
	}
}
