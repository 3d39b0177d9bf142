package detect

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// agentTrace is 600 steps in the shape of an agent's session, as
// .ci/agentlogs.py writes them: two thirds tool calls whose outputs are
// 200 B to 4 KB of source-like lines (some with an error, a test failure
// or a modified file in them, as signature_repeat looks for), one third
// messages of 100 B to 2 KB of prose, some of them lists or fences, some
// repeated word for word.
func agentTrace() []Step {
	r := rand.New(rand.NewPCG(24, 24))
	words := strings.Fields("def return import from self value error test assert path config " +
		"result index append string buffer open close read write line count token parse check state event handle")
	code := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(strings.Repeat("    ", r.IntN(3)))
			for j := range 3 + r.IntN(7) {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	tails := []string{"", "", "", "Error: TypeError: x is undefined at main.go:12\n", "3 tests failed: TestA: boom\n",
		"modified calc/add.go - updated add\n"}
	prose := []string{"Let me look at the config file once more. ", "I will now run the tests to check the fix. ",
		"The parser fails on empty input, so I add a guard before the loop. "}
	steps := make([]Step, 600)
	for i := range steps {
		s := Step{N: i + 1}
		switch k := r.IntN(3); {
		case k < 2:
			s.Kind = KindAction
			s.Action = fmt.Sprintf(`run_shell_command {"command":"go test ./pkg%d"}`, r.IntN(4))
			s.Output = code(200+r.IntN(3800)) + tails[r.IntN(len(tails))]
		default:
			s.Kind = KindMessage
			var b strings.Builder
			if r.IntN(4) == 0 {
				b.WriteString("Plan:\n1. read the file\n2. fix it\n")
			}
			for b.Len() < 100+r.IntN(1900) {
				b.WriteString(prose[r.IntN(len(prose))])
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString(". ")
			}
			s.Output = b.String()
		}
		s.NewPrompt = r.IntN(50) == 0
		steps[i] = s
	}
	return steps
}

// benchStep runs one step per iteration, round the trace, so that ns/op,
// cpu-ns/op and allocs/op are per step.
func benchStep[F any](b *testing.B, steps []Step, step func(Step) []F) {
	var size int64
	for _, s := range steps {
		size += int64(len(s.Action) + len(s.Output))
	}
	b.SetBytes(size / int64(len(steps)))
	b.ReportAllocs()
	before, n := replaytest.ProcessCPU(), 0
	for ; b.Loop(); n++ {
		step(steps[n%len(steps)])
	}
	// CPU time, which a loaded machine's wall clock overstates.
	b.ReportMetric(float64(replaytest.ProcessCPU()-before)/float64(n), "cpu-ns/op")
}

// BenchmarkStep is each peer detector and signature_repeat over the agent
// trace, one step an op: ns/op and allocs/op are per step, MB/s of the
// step's action and output.
func BenchmarkStep(b *testing.B) {
	steps := agentTrace()
	b.Run("gemini", func(b *testing.B) {
		d, _ := NewGemini(DefaultGeminiConfig())
		benchStep(b, steps, d.Step)
	})
	b.Run("gemini-chanting", func(b *testing.B) {
		// Messages only, so that the text grows past the history and the
		// chunk table is searched at every code unit.
		var msgs []Step
		for _, s := range steps {
			if s.Kind == KindMessage {
				s.NewPrompt = false
				msgs = append(msgs, s)
			}
		}
		d, _ := NewGemini(DefaultGeminiConfig())
		benchStep(b, msgs, func(s Step) []GeminiFiring {
			d.fired, d.stopped = 0, false // keep scanning past firings
			return d.Step(s)
		})
	})
	b.Run("openhands", func(b *testing.B) {
		d, _ := NewOpenHands(DefaultOpenHandsConfig())
		benchStep(b, steps, d.Step)
	})
	b.Run("signature_repeat", func(b *testing.B) {
		d, _ := NewSignatureRepeat(DefaultSignatureConfig())
		benchStep(b, steps, d.Step)
	})
	b.Run("fuzzy_repeat", func(b *testing.B) {
		d, _ := NewFuzzyRepeat(DefaultFuzzyConfig())
		benchStep(b, steps, d.Step)
	})
}
