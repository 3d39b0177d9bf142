package replay

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// footprint is the bytes a table holds: its arena's chunks, refs, index
// and folds (allocated, used or not).
func (t *symtab) footprint() int {
	n := 0
	for _, c := range t.chunks {
		n += cap(c)
	}
	for _, p := range t.refs {
		n += cap(p) * int(unsafe.Sizeof(symRef{}))
	}
	for _, p := range t.fold {
		n += cap(p) * 4
	}
	n += len(t.ids.slots) * 8
	return n
}

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
// linearly), where it grew 7x for 4x the turns. Run it with the
// collector off and on (a real run has it on):
//
//	GOGC=off go test ./replay -run X -bench DistinctStrings -benchtime 2x
//	go test ./replay -run X -bench DistinctStrings -benchtime 2x
//
// BIG=1 adds 4M turns (about 20M strings, 6 GB of memory with GOGC=off).
// B/string is what the built episode keeps per distinct string (its
// string table: bytes, refs) and heap-B/string the live heap after
// reading (turn table included) over the distinct strings.
func BenchmarkDistinctStrings(b *testing.B) {
	sizes := []int{125_000, 500_000, 2_000_000}
	if os.Getenv("BIG") != "" {
		sizes = append(sizes, 4_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			data := distinctLog(n)
			b.SetBytes(int64(len(data)))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			cpu := replaytest.ProcessCPU()
			var eps []*Episode
			for b.Loop() {
				eps = nil
				var err error
				eps, err = Read(bytes.NewReader(data), "bench", "d", Options{Outputs: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(eps) != 1 || len(eps[0].Turns) != n {
					b.Fatalf("read %d episodes", len(eps))
				}
			}
			b.StopTimer()
			strs := eps[0].syms.len()
			b.ReportMetric(float64(eps[0].syms.footprint())/float64(strs), "B/string")
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(strs), "heap-B/string")
			runtime.KeepAlive(eps)
			runtime.KeepAlive(data)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/turn")
			// CPU per turn: what to compare on a loaded machine (with
			// GOGC=off, the collector's share is out too).
			b.ReportMetric(float64((replaytest.ProcessCPU()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/turn")
		})
	}
}

// BenchmarkDistinctGoMap is the yardstick for BenchmarkDistinctStrings:
// the strings a distinctLog turn interns (the room it leaves, found
// again, and the new room's name and folded name, its action and its
// reply), made before the timer starts, interned into a Go map. What
// this costs a turn at 2M turns over 125k is what the memory hierarchy
// alone charges a hash table for 16x the strings on this machine (each
// new string a cache miss in a table larger than the caches), with no
// reading, no arena and no turn table:
//
//	go test ./replay -run X -bench 'Distinct(Strings|GoMap)/(125k|2000k)$' -benchtime 1x
func BenchmarkDistinctGoMap(b *testing.B) {
	sizes := []int{125_000, 500_000, 2_000_000}
	if os.Getenv("BIG") != "" {
		sizes = append(sizes, 4_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			strs := make([]string, 0, 5*n)
			for t := 1; t <= n; t++ {
				strs = append(strs,
					"Room "+strconv.Itoa(t-1)+" Of The Maze",
					"Room "+strconv.Itoa(t)+" Of The Maze",
					"room "+strconv.Itoa(t)+" of the maze",
					"go to object "+strconv.Itoa(t),
					"You see thing number "+strconv.Itoa(t)+" here.")
			}
			b.ResetTimer()
			cpu := replaytest.ProcessCPU()
			var m map[string]int32
			for b.Loop() {
				m = map[string]int32{}
				for _, s := range strs {
					if _, ok := m[s]; !ok {
						m[s] = int32(len(m))
					}
				}
			}
			b.StopTimer()
			runtime.KeepAlive(m)
			b.ReportMetric(float64((replaytest.ProcessCPU()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/turn")
		})
	}
}
