package cmd

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// writeDistinctEpisode writes one ZorkGPT episode of n turns (room ids)
// whose every turn goes to a room, takes an action and gets a reply never
// seen before: the shape whose time grew twice as fast as its turns
// (issue 23: 32x the time for 16x the turns). Generated, never committed:
// 4M turns are 1.5 GB.
func writeDistinctEpisode(b *testing.B, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	room := func(i int) string { return "Room " + strconv.Itoa(i) + " Of The Maze" }
	fmt.Fprintf(w, `{"event_type": "episode_initialized", "episode_id": "maze", "max_turns": %d}`+"\n", n)
	for t := 1; t <= n; t++ {
		act := "go to object " + strconv.Itoa(t)
		fmt.Fprintf(w, `{"event_type": "map_movement_update", "episode_id": "maze", "turn": %d, "action": %q, "from_room_id": %d, "from_room": %q, "to_room_id": %d, "to_room": %q}`+"\n",
			t, act, t-1, room(t-1), t, room(t))
		fmt.Fprintf(w, `{"event_type": "zork_response", "episode_id": "maze", "turn": %d, "action": %q, "zork_response": "You see thing number %d here."}`+"\n",
			t, act, t)
		fmt.Fprintf(w, `{"event_type": "turn_completed", "episode_id": "maze", "turn": %d, "action": %q, "score": %d, "location": %q, "confidence": 0.5}`+"\n",
			t, act, t/1000, room(t))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDistinctEpisode runs analyze (text) over one episode of
// distinct rooms, actions and replies, at 250k, 1M and 4M turns: 16x the
// turns should take about 16x the time (ns/turn flat), with the
// collector on as in a real run. Run it as
//
//	go test ./cmd -run X -bench DistinctEpisode -benchtime 1x
func BenchmarkDistinctEpisode(b *testing.B) {
	for _, n := range []int{250_000, 1_000_000, 4_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			log := filepath.Join(b.TempDir(), "episode_log.jsonl")
			writeDistinctEpisode(b, log, n)
			b.ResetTimer()
			start, cpu := time.Now(), replaytest.ProcessCPU()
			for b.Loop() {
				ios, _, out, errOut := Test()
				if code := Main([]string{"analyze", log}, ios); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut)
				}
				if out.Len() == 0 {
					b.Fatal("no report")
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/float64(n), "ns/turn")
			// CPU per turn: what to compare on a loaded machine.
			b.ReportMetric(float64((replaytest.ProcessCPU()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/turn")
		})
	}
}
