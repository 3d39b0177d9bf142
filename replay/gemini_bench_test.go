package replay

import (
	"bytes"
	"hash/maphash"
	"math/rand/v2"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// BenchmarkGeminiAsRead measures the Gemini CLI recording reader as a
// session read from a file is (replayed as read: each message past the
// window handed over, its id's hash kept), each line of a generated log
// (agentBenchLog's) handed to recordReleased, with no line reading and
// no step table. BenchmarkAgentRecords' gemini-jsonl holds the session.
func BenchmarkGeminiAsRead(b *testing.B) {
	data := agentBenchLog(b, b.TempDir(), "gemini-jsonl")
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := replaytest.ProcessCPU()
	for b.Loop() {
		g := &geminiReader{speculate: true}
		for i, l := range lines {
			if len(l) > 0 {
				g.recordReleased(l, i+1)
			}
		}
		if g.failed {
			b.Fatal("read again whole")
		}
		g.finish()
	}
	if cpu := replaytest.ProcessCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// BenchmarkHandedIDs measures what a session read as replayed asks of
// the hashes of its messages handed over, for every message: one lookup
// (a new id, not there) and one addition, in a hashSet and in the
// map[uint64]struct{} it replaced.
func BenchmarkHandedIDs(b *testing.B) {
	const n = 150_000 // the messages of a 100 MB recording
	rng := rand.New(rand.NewPCG(24, 9))
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = maphash.Comparable(geminiIDSeed, rng.Uint64())
	}
	b.Run("hashSet", func(b *testing.B) {
		for b.Loop() {
			var s hashSet
			for _, k := range keys {
				if s.has(k) {
					b.Fatal("seen")
				}
				s.add(k)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			s := map[uint64]struct{}{}
			for _, k := range keys {
				if _, ok := s[k]; ok {
					b.Fatal("seen")
				}
				s[k] = struct{}{}
			}
		}
	})
}
