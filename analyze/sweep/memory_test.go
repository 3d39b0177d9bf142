package sweep

import (
	"runtime"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// The grids of the memory bound: 100 configurations of the stuck keys,
// and the same times 100 of the loop-detection keys (10,000), as
// .ci/bench SWEEP=1 runs them.
var (
	memoryGrid100 = [][2]string{{"max_turns_stuck", "30:120:10"}, {"stuck_check_interval", "5,10"}, {"stuck_warning_threshold", "5:25:5"}}
	memoryGrid10k = append(memoryGrid100[:3:3], [2]string{"camping_threshold", "1:10:1"}, [2]string{"camping_window", "5:50:5"})
)

// sweepMemory runs a sweep of the grid over files on one worker (the same episodes in flight each time) and
// returns the most live heap seen after a file (collected first) and the
// heap the result holds: what the run holds while it replays, and what it
// hands the report. It returns the number of configurations too.
func sweepMemory(t testing.TB, files []string, grid [][2]string) (during, result uint64, configs int) {
	t.Helper()
	var axes []Axis
	for _, kv := range grid {
		axes = append(axes, mustAxis(t, kv[0], kv[1]))
	}
	var ms runtime.MemStats
	live := func() uint64 {
		// Twice: pools keep what they held until the second collection.
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := live()
	res, err := Run(Options{Files: files, Workers: 1, Base: rules.Default(), Axes: axes, OnFile: func(Progress) {
		during = max(during, live())
	}})
	if err != nil {
		t.Fatal(err)
	}
	result = live()
	runtime.KeepAlive(res)
	return max(during, before) - before, max(result, before) - before, len(res.Rows)
}

// Bounds on what a sweep holds per configuration beyond what a
// 100-configuration sweep holds, about twice what it takes: while
// replaying, a few indexes and counters (~200 B; a Config per
// configuration took 7.7 KB); in the result, its row, settings and totals
// without a histogram of its own (~370 B; 650 B with one).
const (
	maxReplayBytesPerConfig = 512
	maxResultBytesPerConfig = 512
)

// TestSweepMemoryPerConfiguration holds the memory of a 10,000-
// configuration sweep to the 100-configuration one's plus a structural
// bound per configuration, measured on the live heap (no timing).
func TestSweepMemoryPerConfiguration(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 10,000 configurations")
	}
	files, err := replaytest.WriteCorpusCapped(t.TempDir(), 24, 11, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	sweepMemory(t, files, memoryGrid100) // once-only state (tables, pools) out of the figures
	during100, result100, n100 := sweepMemory(t, files, memoryGrid100)
	during10k, result10k, n10k := sweepMemory(t, files, memoryGrid10k)
	extra := uint64(n10k - n100)
	perReplay := (max(during10k, during100) - during100) / extra
	perResult := (max(result10k, result100) - result100) / extra
	t.Logf("%d configurations: %d KB live while replaying, result %d KB; %d: %d KB, %d KB; per extra configuration %d B replaying, %d B in the result",
		n100, during100>>10, result100>>10, n10k, during10k>>10, result10k>>10, perReplay, perResult)
	if perReplay > maxReplayBytesPerConfig {
		t.Errorf("replaying holds %d B per configuration, over %d", perReplay, maxReplayBytesPerConfig)
	}
	if perResult > maxResultBytesPerConfig {
		t.Errorf("the result holds %d B per configuration, over %d", perResult, maxResultBytesPerConfig)
	}
}

// BenchmarkSweepMemory reports the live heap a 10,000-configuration sweep
// holds per configuration beyond a 100-configuration one (B/config while
// replaying and in the result), over 24 generated episodes.
//
//	go test -run '^$' -bench SweepMemory -benchtime 1x ./analyze/sweep
func BenchmarkSweepMemory(b *testing.B) {
	files, err := replaytest.WriteCorpusCapped(b.TempDir(), 24, 11, 0, 1<<10)
	if err != nil {
		b.Fatal(err)
	}
	sweepMemory(b, files, memoryGrid100) // once-only state (tables, pools) out of the figures
	for b.Loop() {
		during100, result100, n100 := sweepMemory(b, files, memoryGrid100)
		during10k, result10k, n10k := sweepMemory(b, files, memoryGrid10k)
		extra := float64(n10k - n100)
		b.ReportMetric(float64(max(during10k, during100)-during100)/extra, "replay-B/config")
		b.ReportMetric(float64(max(result10k, result100)-result100)/extra, "result-B/config")
		b.ReportMetric(float64(during10k)/(1<<20), "live-MB-10k")
		b.ReportMetric(float64(during100)/(1<<20), "live-MB-100")
	}
}
