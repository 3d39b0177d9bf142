package replay

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// agentBenchFormats are the formats .ci/agentlogs.py writes whose reading
// BenchmarkReadAgentFormats measures, with the options of their flags.
var agentBenchFormats = []struct {
	name string
	opts Options
}{
	{"steps", Options{Format: FormatSteps}},
	{"attempts", Options{Format: FormatAttempts}},
	{"openhands-events", Options{Format: FormatSteps, Preset: PresetOpenHands}},
	{"openhands-trajectory", Options{Format: FormatSteps, Preset: PresetOpenHands}},
	{"openhands-v1", Options{Format: FormatSteps, Preset: PresetOpenHandsV1}},
	{"claude-code", Options{Format: FormatSteps, Preset: PresetClaudeCode}},
	{"codex", Options{Format: FormatSteps, Preset: PresetCodex}},
	{"swe-agent", Options{Format: FormatSteps, Preset: PresetSWEAgent}},
	{"cline", Options{Format: FormatSteps, Preset: PresetCline}},
	{"gemini-json", Options{Format: FormatSteps, Preset: PresetGeminiCLI}},
	{"gemini-jsonl", Options{Format: FormatSteps, Preset: PresetGeminiCLI}},
	{"aider", Options{Format: FormatSteps, Preset: PresetAider}},
}

// agentBenchLog writes (once in dir) a log of the format of about
// AGENTBENCH_MB megabytes (default 16) with .ci/agentlogs.py (Aider's
// Markdown with aiderHistory).
func agentBenchLog(b *testing.B, dir, format string) []byte {
	b.Helper()
	mb := os.Getenv("AGENTBENCH_MB")
	if mb == "" {
		mb = "16"
	}
	path := filepath.Join(dir, format+"-"+mb+".log")
	if format == "aider" {
		n, _ := strconv.Atoi(mb)
		if err := os.WriteFile(path, aiderHistory(n<<20), 0o644); err != nil {
			b.Fatal(err)
		}
	} else if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed: .ci/agentlogs.py writes the logs")
	}
	if _, err := os.Stat(path); err != nil {
		cmd := exec.Command("python3", ".ci/agentlogs.py", format, mb, path)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("agentlogs.py %s: %v\n%s", format, err, out)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReadAgentFormats measures reading each agent format alone (no
// rules), in MB/s of log text:
//
//	go test ./replay -run '^$' -bench ReadAgentFormats -benchtime 3x
//
// AGENTBENCH_MB sets the size of the generated logs. Besides MB/s it
// reports the live heap per step once read (B/step).
func BenchmarkReadAgentFormats(b *testing.B) {
	dir := b.TempDir() // the logs, written once for every run of a sub-benchmark
	for _, f := range agentBenchFormats {
		b.Run(f.name, func(b *testing.B) {
			data := agentBenchLog(b, dir, f.name)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var eps []*Episode
			cpu := replaytest.ProcessCPU()
			for b.Loop() {
				eps = nil
				var err error
				eps, err = Read(bytes.NewReader(data), "bench."+f.name, "d", f.opts)
				if err != nil {
					b.Fatal(err)
				}
			}
			if cpu := replaytest.ProcessCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
			}
			steps := 0
			for _, ep := range eps {
				steps += len(ep.Turns)
			}
			if steps == 0 {
				b.Fatal("no steps read")
			}
			b.StopTimer()
			// The live heap of what was read: the heap with the episodes
			// held less the heap once they are dropped.
			var held, dropped runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&held)
			runtime.KeepAlive(eps)
			eps = nil
			runtime.GC()
			runtime.ReadMemStats(&dropped)
			b.ReportMetric(float64(int64(held.HeapAlloc)-int64(dropped.HeapAlloc))/float64(steps), "B/step")
			b.ReportMetric(float64(steps), "steps")
			b.StartTimer()
		})
	}
}
