package rules_test

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// benchEpisodes are 40 generated episodes (some 7,000 turns, noise lines
// capped at 1 KB: the rules see turns, not bytes), their turn count and
// the size of their log.
var benchEpisodes = sync.OnceValues(func() ([]*replay.Episode, [2]int) {
	var buf bytes.Buffer
	start := time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := range 40 {
		s := replaytest.RandomScenario(uint64(2000+i), start.Add(time.Duration(i)*3*time.Hour))
		s.NoiseBytes = min(s.NoiseBytes, 1<<10)
		if err := replaytest.Write(&buf, s); err != nil {
			panic(err)
		}
		if b := buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			buf.WriteByte('\n') // a crashed episode's cut line
		}
	}
	size := buf.Len()
	eps, err := replay.Read(&buf, "bench", "d", replay.Options{})
	if err != nil {
		panic(err)
	}
	turns := 0
	for _, ep := range eps {
		turns += len(ep.Turns)
	}
	return eps, [2]int{turns, size}
})

// withRequired is r after the rules it reads, as Run wants them.
func withRequired(r *rules.Rule) []*rules.Rule {
	var set []*rules.Rule
	for _, q := range r.Requires {
		set = append(set, withRequired(q)...)
	}
	return append(set, r)
}

// BenchmarkRule replays each rule alone (with the rules it requires) over
// the bench episodes, default configuration: MB/s of log replayed (to set
// against BenchmarkRead's) and turns/s.
func BenchmarkRule(b *testing.B) {
	eps, n := benchEpisodes()
	turns, size := n[0], n[1]
	cfg := rules.Default()
	for _, r := range append(rules.Registry, nil) {
		name, set := "all", rules.Registry
		if r != nil {
			name, set = r.Name, withRequired(r)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			firings := 0
			for b.Loop() {
				firings = 0
				for _, ep := range eps {
					rules.Run(ep, cfg, set, func(rules.Firing) { firings++ })
				}
			}
			b.ReportMetric(float64(turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
			b.ReportMetric(float64(firings), "firings/op")
		})
	}
}
