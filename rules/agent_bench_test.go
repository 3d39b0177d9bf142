package rules_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// agentEpisode is a generated steps log of 3,000 steps in the shape
// .ci/agentlogs.py gives an agent's session (two thirds tool calls with
// 200 B to 4 KB of source-like output, some repeated, some with an error,
// a test failure or a modified file; one third messages of prose), read
// as analyze reads it, and its size in bytes.
var agentEpisode = sync.OnceValues(func() (*replay.Episode, int) {
	r := rand.New(rand.NewPCG(24, 3))
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
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	prev := ""
	for i := range 3000 {
		rec := map[string]any{"step": i + 1, "score": i / 40, "location": fmt.Sprintf("repo/pkg%d", r.IntN(5))}
		if r.IntN(3) < 2 {
			out := code(200+r.IntN(3800)) + tails[r.IntN(len(tails))]
			if prev != "" && r.IntN(4) == 0 {
				out = prev
			}
			prev = out
			rec["kind"], rec["action"], rec["output"] = "action", fmt.Sprintf("run_shell_command go test ./pkg%d", r.IntN(4)), out
			rec["error"] = strings.Contains(out, "Error")
		} else {
			var b strings.Builder
			for b.Len() < 100+r.IntN(1900) {
				b.WriteString("I will now run the tests to check the fix, then read ")
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString(". ")
			}
			rec["kind"], rec["output"] = "message", b.String()
		}
		if err := enc.Encode(rec); err != nil {
			panic(err)
		}
	}
	eps, err := replay.Read(strings.NewReader(buf.String()), "agent.jsonl", "d", replay.Options{Format: replay.FormatSteps})
	if err != nil || len(eps) != 1 {
		panic(fmt.Sprint(len(eps), err))
	}
	return eps[0], buf.Len()
})

// BenchmarkAgentRule replays each rule that reads a steps log alone (with
// the rules it requires) over the generated agent session, default
// configuration: ns/step, cpu-ns/step and allocs/step besides the usual
// per-op figures (an op is the whole session).
func BenchmarkAgentRule(b *testing.B) {
	ep, size := agentEpisode()
	steps := len(ep.Turns)
	cfg := rules.Default()
	for _, r := range rules.Registry {
		b.Run(r.Name, func(b *testing.B) {
			set := withRequired(r)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu := replaytest.ProcessCPU()
			firings := 0
			for b.Loop() {
				firings = 0
				rules.Run(ep, cfg, set, func(rules.Firing) { firings++ })
			}
			cpu = replaytest.ProcessCPU() - cpu
			runtime.ReadMemStats(&after)
			n := float64(b.N) * float64(steps)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/step")
			// CPU time, which a loaded machine's wall clock overstates.
			b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/step")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/step")
			b.ReportMetric(float64(firings), "firings/op")
		})
	}
}
