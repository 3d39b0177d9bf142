package replay

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkAgentRead measures reading alone (no rules) of a generated log
// in each agent's shape: .ci/agentlogs.py writes it once (AGENT_BENCH_MB,
// default 20) into AGENT_BENCH_DIR (default the system's temp dir), and
// StreamFile reads it, each episode dropped as it comes. MB/s is of the
// file's bytes; cpu-MB/s the same per second of the process's CPU time
// (GC included).
func BenchmarkAgentRead(b *testing.B) {
	mb := 20
	if s := os.Getenv("AGENT_BENCH_MB"); s != "" {
		mb, _ = strconv.Atoi(s)
	}
	dir := os.Getenv("AGENT_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "loopbreak-agentbench")
	}
	for _, f := range []struct{ name, preset string }{
		{"claude-code", PresetClaudeCode}, {"codex", PresetCodex}, {"swe-agent", PresetSWEAgent},
		{"cline", PresetCline}, {"gemini-json", PresetGeminiCLI}, {"gemini-jsonl", PresetGeminiCLI},
		{"aider", PresetAider},
	} {
		b.Run(f.name, func(b *testing.B) {
			path := filepath.Join(dir, f.name+"-"+strconv.Itoa(mb)+"mb.log")
			if _, err := os.Stat(path); err != nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				if f.name == "aider" {
					if err := os.WriteFile(path, aiderHistory(mb<<20), 0o644); err != nil {
						b.Fatal(err)
					}
				} else {
					cmd := exec.Command("python3", ".ci/agentlogs.py", f.name, strconv.Itoa(mb), path)
					cmd.Dir = ".."
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Skipf("cannot write the log: %v: %s", err, out)
					}
				}
			}
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				steps := 0
				_, err := StreamFile(context.Background(), path, nil, Options{Format: FormatSteps, Preset: f.preset}, func(ep *Episode) error {
					steps += len(ep.Steps)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if steps == 0 {
					b.Fatal("no steps read")
				}
			}
			if cpu := processCPU() - cpu0; cpu > 0 {
				// On a shared machine wall time counts the waits for a core.
				b.ReportMetric(float64(st.Size())*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
			}
		})
	}
}

// BenchmarkAgentRecords measures the agents' JSONL readers alone: each
// line of the generated log (BenchmarkAgentRead's) handed to recordRaw,
// with no line reading and no step table.
func BenchmarkAgentRecords(b *testing.B) {
	dir := os.Getenv("AGENT_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "loopbreak-agentbench")
	}
	mb := "20"
	if s := os.Getenv("AGENT_BENCH_MB"); s != "" {
		mb = s
	}
	for _, f := range []struct {
		name string
		new  func() rawStepReader
	}{
		{"claude-code", func() rawStepReader { return &claudeCodeReader{} }},
		{"codex", func() rawStepReader { return &codexReader{} }},
		{"gemini-jsonl", func() rawStepReader { return &geminiReader{} }},
	} {
		b.Run(f.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(dir, f.name+"-"+mb+"mb.log"))
			if err != nil {
				b.Skip("run BenchmarkAgentRead first: ", err)
			}
			lines := bytes.Split(data, []byte("\n"))
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				r := f.new()
				for i, l := range lines {
					if len(l) > 0 {
						r.recordRaw(l, i+1)
					}
				}
				r.finish()
			}
			if cpu := processCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
			}
		})
	}
}

// aiderHistory is an Aider chat history of about size bytes in the shape
// aider.go's comment shows (.ci/agentlogs.py has no Markdown format): a
// prompt, a reply of a few paragraphs and a SEARCH/REPLACE block, Aider's
// own "> " line, over and over.
func aiderHistory(size int) []byte {
	words := strings.Fields("def return import from self value error test assert path config result index")
	var b bytes.Buffer
	b.WriteString("# aider chat started at 2026-11-20 12:00:00\n\n> /usr/local/bin/aider --model sonnet\n> Aider v0.86.1\n\n")
	line := func(n, seed int) {
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(seed*7+i*3)%len(words)])
		}
	}
	for r := 0; b.Len() < size; r++ {
		fmt.Fprintf(&b, "#### Fix the divide test, try %d.\n\n", r%7)
		for p := 0; p < 2+r%5; p++ {
			line(5+(r+p)%10, r+p)
			b.WriteString("\n\n")
		}
		b.WriteString("calc.py\n```python\n<<<<<<< SEARCH\n")
		for l := 0; l < 3+r%20; l++ {
			b.WriteString("    ")
			line(8, r+l)
			b.WriteByte('\n')
		}
		b.WriteString("=======\n    return a / b\n>>>>>>> REPLACE\n```\n\n> Applied edit to calc.py\n\n")
	}
	return b.Bytes()
}
