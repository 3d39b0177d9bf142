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
		if g.finishEach(func(stepRecord) error { return nil }) != nil {
			b.Fatal("read again whole")
		}
	}
	if cpu := replaytest.ProcessCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// BenchmarkHandedIDs measures what a session read as replayed asks of
// the hashes of its messages handed over, for every message: one lookup
// (a new id, not there) and the addition of the message handed over
// geminiWindow messages before, in a hashSet and in the
// map[uint64]struct{} it replaced. Between two messages, a reader reads a record or
// two, some KB: as many bytes are read here, which pushes the sets out
// of the caches as reading does.
func BenchmarkHandedIDs(b *testing.B) {
	const n = 150_000 // the messages of a 100 MB recording
	rng := rand.New(rand.NewPCG(24, 9))
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = maphash.Comparable(geminiIDSeed, rng.Uint64())
	}
	text := make([]uint64, 64<<20/8)
	var sum uint64
	read := func(i int) {
		for _, w := range text[i*256%len(text):][:256] {
			sum += w
		}
	}
	run := func(b *testing.B, has func(uint64) bool, add func(uint64)) {
		for i, k := range keys {
			if has(k) {
				b.Fatal("seen")
			}
			if i >= geminiWindow {
				add(keys[i-geminiWindow])
			}
			read(i)
		}
	}
	b.Run("hashSet", func(b *testing.B) {
		for b.Loop() {
			var s hashSet
			run(b, s.has, s.add)
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			s := map[uint64]struct{}{}
			run(b, func(k uint64) bool { _, ok := s[k]; return ok }, func(k uint64) { s[k] = struct{}{} })
		}
	})
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			run(b, func(uint64) bool { return false }, func(uint64) {})
		}
	})
	_ = sum
}
