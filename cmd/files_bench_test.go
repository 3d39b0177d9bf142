package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// writeEpisodeFiles writes n episode directories under dir, each
// <dir>/ep<i>/episode_log.jsonl a copy of the smoke fixture under an id
// of its own: the shape of FILES=1 .ci/bench (issue 25).
func writeEpisodeFiles(tb testing.TB, dir string, n int) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "episodes", "test_smoke", "episode_log.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("ep%06d", i)
		d := filepath.Join(dir, id)
		if err := os.Mkdir(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "episode_log.jsonl"), bytes.ReplaceAll(data, []byte("test_smoke"), []byte(id)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkEpisodeFiles runs analyze (text) over a directory of 2,000
// small episode files, as FILES=1 .ci/bench does with 10,000 and
// 100,000: CPU and allocations a file. Run it as
//
//	go test ./cmd -run X -bench EpisodeFiles -benchtime 5x
func BenchmarkEpisodeFiles(b *testing.B) {
	const n = 2000
	dir := b.TempDir()
	writeEpisodeFiles(b, dir, n)
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), replaytest.ProcessCPU()
	for b.Loop() {
		ios, _, out, errOut := Test()
		if code := Main([]string{"analyze", dir}, ios); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
		if out.Len() == 0 {
			b.Fatal("no report")
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/n, "ns/file")
	b.ReportMetric(float64((replaytest.ProcessCPU()-cpu).Nanoseconds())/float64(b.N)/n, "cpu-ns/file")
}
