package rules_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// agentLogFormats are the formats of .ci/agentlogs.py that
// BenchmarkAgentLogRule replays, with the options of their flags.
var agentLogFormats = []struct {
	name string
	opts replay.Options
}{
	{"steps", replay.Options{Format: replay.FormatSteps}},
	{"openhands-events", replay.Options{Format: replay.FormatSteps, Preset: replay.PresetOpenHands}},
	{"gemini-jsonl", replay.Options{Format: replay.FormatSteps, Preset: replay.PresetGeminiCLI}},
	{"claude-code", replay.Options{Format: replay.FormatSteps, Preset: replay.PresetClaudeCode}},
	{"codex", replay.Options{Format: replay.FormatSteps, Preset: replay.PresetCodex}},
	{"cline", replay.Options{Format: replay.FormatSteps, Preset: replay.PresetCline}},
}

// BenchmarkAgentLogRule replays each rule alone (with the rules it
// requires) over a log .ci/agentlogs.py writes of each agent format,
// read once: the rules' share of `loopbreak analyze` on a generated agent
// log, where BenchmarkAgentRule's session compares far more outputs
// closely than a real log's do. AGENTBENCH_MB sets the logs' size
// (default 16):
//
//	go test ./rules -run '^$' -bench AgentLogRule/steps/fuzzy_repeat -benchtime 3x
//
// Reported besides: cpu-ns/step (CPU time, which a loaded machine's wall
// clock overstates) and the firings of an op.
func BenchmarkAgentLogRule(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed: .ci/agentlogs.py writes the logs")
	}
	mb := os.Getenv("AGENTBENCH_MB")
	if mb == "" {
		mb = "16"
	}
	dir := b.TempDir()
	cfg := rules.Default()
	for _, f := range agentLogFormats {
		b.Run(f.name, func(b *testing.B) {
			path := filepath.Join(dir, f.name+".log")
			cmd := exec.Command("python3", ".ci/agentlogs.py", f.name, mb, path)
			cmd.Dir = ".."
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("agentlogs.py %s: %v\n%s", f.name, err, out)
			}
			in, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			eps, err := replay.Read(in, filepath.Base(path), "d", f.opts)
			in.Close()
			if err != nil {
				b.Fatal(err)
			}
			steps := 0
			for _, ep := range eps {
				steps += len(ep.Turns)
			}
			for _, r := range rules.Registry {
				b.Run(r.Name, func(b *testing.B) {
					set := withRequired(r)
					b.ReportAllocs()
					cpu := replaytest.ProcessCPU()
					firings := 0
					for b.Loop() {
						firings = 0
						for _, ep := range eps {
							rules.Run(ep, cfg, set, func(rules.Firing) { firings++ })
						}
					}
					cpu = replaytest.ProcessCPU() - cpu
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(steps), "cpu-ns/step")
					b.ReportMetric(float64(firings), "firings/op")
				})
			}
		})
	}
}
