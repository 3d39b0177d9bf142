package replay

import (
	"bytes"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// BenchmarkLineStep measures the steps reader's own work on a line
// (scanLine, parseFields, the fields and the output's unescaping into the
// table's block) over the lines of a generated steps log, without the
// line splitting, the table or the rules, in MB/s of line text, and of
// the process's CPU time (cpu-MB/s: steadier on a loaded machine):
//
//	go test ./replay -run '^$' -bench LineStep
func BenchmarkLineStep(b *testing.B) {
	data := agentBenchLog(b, b.TempDir(), "steps")
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.SetBytes(int64(len(data)))
	p := newStepPaths(nil)
	var copies outputCopies
	p.copies = &copies
	cpu := replaytest.ProcessCPU()
	for b.Loop() {
		for _, l := range lines {
			if _, reason := lineStep(l, p); reason != "" {
				b.Fatal(reason)
			}
		}
	}
	if cpu := replaytest.ProcessCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}
