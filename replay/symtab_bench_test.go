package replay

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
)

// distinctLog is a ZorkGPT log of one episode whose every turn has a room
// name, an action and a reply never seen before (an early-format name
// move, its reply and turn_completed): each turn adds about five strings
// to the episode's table, the shape whose time grew faster than its turns
// (issue 23).
func distinctLog(turns int) []byte {
	var buf bytes.Buffer
	buf.Grow(turns * 600)
	room := func(i int) string { return "Room " + strconv.Itoa(i) + " Of The Maze" }
	for t := 1; t <= turns; t++ {
		act := "go to object " + strconv.Itoa(t)
		fmt.Fprintf(&buf, `{"event_type": "map_movement_update", "episode_id": "ep", "turn": %d, "action": %q, "from_room": %q, "to_room": %q}`+"\n",
			t, act, room(t-1), room(t))
		fmt.Fprintf(&buf, `{"event_type": "zork_response", "episode_id": "ep", "turn": %d, "action": %q, "zork_response": "You see thing number %d here."}`+"\n",
			t, act, t)
		fmt.Fprintf(&buf, `{"event_type": "turn_completed", "episode_id": "ep", "turn": %d, "action": %q, "score": %d, "location": %q, "confidence": 0.5}`+"\n",
			t, act, t%7, room(t))
	}
	return buf.Bytes()
}

// BenchmarkDistinctStrings reads episodes of distinct strings at growing
// sizes: ns/turn should stay about flat (the string tables scale
// linearly), where it grew 7x for 4x the turns. Run it as
//
//	GOGC=off go test ./replay -run X -bench DistinctStrings -benchtime 2x
func BenchmarkDistinctStrings(b *testing.B) {
	for _, n := range []int{125_000, 500_000, 2_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			data := distinctLog(n)
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			cpu := processCPU()
			for b.Loop() {
				eps, err := Read(bytes.NewReader(data), "bench", "d", Options{Outputs: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(eps) != 1 || len(eps[0].Turns) != n {
					b.Fatalf("read %d episodes", len(eps))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/turn")
			// CPU per turn: what to compare on a loaded machine (with
			// GOGC=off, the collector's share is out too).
			b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/turn")
		})
	}
}
