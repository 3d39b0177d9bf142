package replay

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestStepQueueRecycle drives a queue that recycles its steps, clearing
// none (ready) and handing a step out at once when none is queued
// (pushReady), and one that does not through the same pushes, results
// and readies (ids used twice, results of no call, flushes with steps
// still waiting, more than maxQueued calls waiting): a step freed still
// waiting, or written in part when pushed again, hands out other steps.
func TestStepQueueRecycle(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var plain, recycled stepQueue
	recycled.recycle = true
	for round := 0; round < 3000; round++ {
		id := ""
		var r stepRecord
		switch op := rng.Intn(10); {
		case op < 4:
			if rng.Intn(3) > 0 {
				id = fmt.Sprint("c", rng.Intn(8))
			}
			r.action, r.hasAction = fmt.Sprint("a", round), true
			if rng.Intn(4) == 0 {
				r.info.Error, r.output, r.hasText = true, "o", true
			}
			if rng.Intn(5) == 0 {
				r.setExitCode(round)
			}
			plain.prompt = round%7 == 0
			recycled.prompt = plain.prompt
			if id == "" && rng.Intn(2) == 0 {
				// pushReady: at once when nothing is queued.
				a, b := plain.pushReady(r), recycled.pushReady(r)
				if len(a) != len(b) || len(a) > 0 && a[len(a)-1] != b[len(b)-1] {
					t.Fatalf("round %d: pushReady %+v, recycled %+v", round, a, b)
				}
				continue
			}
			plain.push(r, id)
			recycled.push(r, id)
		case op < 8:
			id = fmt.Sprint("c", rng.Intn(8))
			out := fmt.Sprint("out", round)
			a, b := plain.result(id, out, op == 5), recycled.result(id, out, op == 5)
			if (a == nil) != (b == nil) || a != nil && *a != *b {
				t.Fatalf("round %d: result %v, recycled %v", round, a, b)
			}
		case round == 1000:
			// Calls never answered, more than maxQueued of them.
			for k := 0; k < maxQueued+100; k++ {
				id = fmt.Sprint("w", round, "-", k)
				plain.push(stepRecord{action: id}, id)
				recycled.push(stepRecord{action: id}, id)
			}
		}
		all := rng.Intn(50) == 0
		a, b := plain.ready(all), recycled.ready(all)
		if len(a) != len(b) {
			t.Fatalf("round %d: %d steps ready, recycled %d", round, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("round %d: step %+v, recycled %+v", round, a[i], b[i])
			}
		}
	}
}
