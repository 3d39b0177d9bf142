package replay

import (
	"fmt"
	"math/rand"
	"testing"
	"unsafe"
)

// stepQueueMap is stepQueue as it was before it held its last call
// (stepQueue.last): every call waiting in a map by its id, which the
// caller copied. The reference TestStepQueueLast holds stepQueue to.
type stepQueueMap struct {
	n       int
	queue   []*queuedStep
	pending map[string]*queuedStep
}

func (q *stepQueueMap) push(r stepRecord, callID string) {
	p := &queuedStep{rec: r}
	q.queue = append(q.queue, p)
	if callID != "" {
		if q.pending == nil {
			q.pending = map[string]*queuedStep{}
		}
		if old, ok := q.pending[callID]; ok {
			old.waiting = false
		}
		p.waiting = true
		q.pending[callID] = p
	}
}

func (q *stepQueueMap) result(callID, output string, isErr bool) *stepRecord {
	p, ok := q.pending[callID]
	if !ok {
		return nil
	}
	delete(q.pending, callID)
	p.waiting = false
	p.rec.output, p.rec.hasText = output, true
	p.rec.info.Error = p.rec.info.Error || isErr
	return &p.rec
}

func (q *stepQueueMap) forget(p *queuedStep) {
	p.waiting = false
	for id, w := range q.pending {
		if w == p {
			delete(q.pending, id)
		}
	}
}

func (q *stepQueueMap) ready(all bool) []stepRecord {
	var out []stepRecord
	i := 0
	for ; i < len(q.queue); i++ {
		p := q.queue[i]
		if p.waiting && !all && len(q.queue)-i <= maxQueued {
			break
		}
		if p.waiting {
			p.waiting = false
			for id, w := range q.pending {
				if w == p {
					delete(q.pending, id)
				}
			}
		}
		q.n++
		p.rec.n, p.rec.hasStep = q.n, true
		out = append(out, p.rec)
	}
	q.queue = q.queue[i:]
	return out
}

// TestStepQueueLast drives stepQueue, recycling its steps or not, and
// the map-only stepQueueMap through the same pushes, results, forgets
// and readies: ids used twice (the last call's and one in pending),
// results of no call, results out of order, calls still waiting flushed
// or forgotten, more than maxQueued calls waiting. stepQueue's ids are
// views of one buffer written over after each call, as a reader passes
// a view of its record: a call held as last whose id was not copied, or
// an id in both pending and last, hands out other steps.
func TestStepQueueLast(t *testing.T) {
	for _, recycle := range []bool{false, true} {
		rng := rand.New(rand.NewSource(2))
		var q stepQueue
		var ref stepQueueMap
		q.recycle = recycle
		buf := make([]byte, 0, 64)
		view := func(s string) string {
			buf = append(buf[:0], s...)
			return unsafe.String(unsafe.SliceData(buf), len(buf))
		}
		scribble := func() {
			for i := range buf {
				buf[i] = '#'
			}
		}
		for round := 0; round < 20000; round++ {
			switch op := rng.Intn(12); {
			case op < 5:
				id := ""
				if rng.Intn(4) > 0 {
					id = fmt.Sprint("c", rng.Intn(6))
				}
				r := stepRecord{action: fmt.Sprint("a", round), hasAction: true}
				ref.push(r, id)
				q.push(r, view(id))
				scribble()
			case op < 10:
				id := fmt.Sprint("c", rng.Intn(6))
				out := fmt.Sprint("out", round)
				a, b := ref.result(id, out, op == 7), q.result(view(id), out, op == 7)
				scribble()
				if (a == nil) != (b == nil) || a != nil && *a != *b {
					t.Fatalf("recycle %v, round %d: result %+v, want %+v", recycle, round, b, a)
				}
			case op == 10 && len(ref.queue) > 0:
				k := rng.Intn(len(ref.queue))
				ref.forget(ref.queue[k])
				q.forget(q.queue[k])
			case round%5000 == 4999:
				for k := 0; k < maxQueued+10; k++ {
					id := fmt.Sprint("w", k)
					ref.push(stepRecord{action: id}, id)
					q.push(stepRecord{action: id}, view(id))
				}
				scribble()
			}
			all := rng.Intn(60) == 0
			a, b := ref.ready(all), q.ready(all)
			if len(a) != len(b) {
				t.Fatalf("recycle %v, round %d: %d steps ready, want %d", recycle, round, len(b), len(a))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("recycle %v, round %d: step %+v, want %+v", recycle, round, b[i], a[i])
				}
			}
		}
	}
}
