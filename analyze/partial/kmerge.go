package partial

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Each calls f with every episode of the parts in log order: its JSON
// object when keepJSON, its text report when keepText (the bytes are
// f's only during the call). It may be called more than once.
func (a *AnalyzeMerge) Each(keepJSON, keepText bool, f func(json []byte, text string) error) error {
	m := &episodeMerge{parts: a.parts, names: a.names, scans: a.scans, keepJSON: keepJSON, keepText: keepText}
	return m.run(func(e *mergeEpisode) error { return f(e.JSON.data, e.Text.text) })
}

// mergeEpisode is an Episode as the second pass reads it: what the
// format prints, the rest only scanned.
type mergeEpisode struct {
	Log  int      `json:"log"`
	JSON keptJSON `json:"json"`
	Text keptText `json:"text"`
}

type keptJSON struct {
	keep bool
	data []byte // reused from episode to episode
}

func (k *keptJSON) UnmarshalJSON(b []byte) error {
	if k.keep {
		k.data = append(k.data[:0], b...)
	}
	return nil
}

type keptText struct {
	keep bool
	text string
}

func (k *keptText) UnmarshalJSON(b []byte) error {
	if k.keep {
		k.text = ""
		return json.Unmarshal(b, &k.text)
	}
	return nil
}

// episodeMerge is the second pass: a cursor per part on its next episode,
// in a heap by (log, part). Each part's episodes are decoded on a worker
// of their own, a few ahead of the merge (mergeAhead), so the parts'
// decoding runs in parallel and the merge only compares and prints.
type episodeMerge struct {
	parts              []*File
	names              []string
	scans              []*analyzeScan
	keepJSON, keepText bool
	heap               []*episodeCursor
	held               atomic.Int64 // decoded episodes not yet printed
}

// mergeAhead is how many episodes a part's worker decodes ahead of the
// merge: the merge holds at most mergeAhead+2 decoded episodes per part.
const mergeAhead = 4

// episodeCursor is one part's episodes, as its worker decodes them.
type episodeCursor struct {
	part int
	ep   *mergeEpisode // the part's next episode in the merge
	in   chan decoded  // from the worker, in order; closed after its last
	free chan *mergeEpisode
}

// decoded is a worker's next episode, or the error that ends its part.
type decoded struct {
	ep  *mergeEpisode
	err error
}

// mergeHeld, when set (tests), is told after each episode decoded how
// many decoded episodes the merge holds.
var mergeHeld func(int)

var heldMu sync.Mutex // workers tell mergeHeld one at a time

// run calls print with every episode of the parts in log order.
func (m *episodeMerge) run(print func(*mergeEpisode) error) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(done) // stops the workers of a merge that ends early
		wg.Wait()
	}()
	m.heap = m.heap[:0]
	for i, s := range m.scans {
		if s.episodes == 0 {
			continue
		}
		p := m.parts[i]
		r := newEpisodeReader(io.NewSectionReader(p.src, s.at, p.size-s.at))
		c := &episodeCursor{part: i, in: make(chan decoded, mergeAhead), free: make(chan *mergeEpisode, mergeAhead+2)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.decode(c, r, s, done)
		}()
		if err := m.next(c); err != nil {
			return err
		}
		if c.ep != nil {
			m.heap = append(m.heap, c)
		}
	}
	heap.Init(m)
	for len(m.heap) > 0 {
		c := m.heap[0]
		if err := print(c.ep); err != nil {
			return err
		}
		m.release(c)
		if err := m.next(c); err != nil {
			return err
		}
		if c.ep == nil {
			heap.Pop(m)
			continue
		}
		heap.Fix(m, 0)
	}
	return nil
}

// decode is part c's worker: it reads the part's episodes (s.episodes of
// them) into c.in, in order, an error (and nothing after it) ending the
// part early. The bytes read are those the first pass checked (s.sum),
// or the last episode is an error.
func (m *episodeMerge) decode(c *episodeCursor, r *episodeReader, s *analyzeScan, done <-chan struct{}) {
	defer close(c.in)
	send := func(d decoded) bool {
		select {
		case c.in <- d:
			return true
		case <-done:
			return false
		}
	}
	for left := s.episodes; left > 0; left-- {
		var ep *mergeEpisode
		select {
		case ep = <-c.free:
		default:
			ep = &mergeEpisode{}
		}
		ep.JSON.keep, ep.Text.keep = m.keepJSON, m.keepText
		elem, ok := r.next()
		if !ok {
			send(decoded{err: m.changed(c.part, errors.New("fewer episodes than the first reading"))})
			return
		}
		if err := decodeEpisode(elem, ep); err != nil {
			send(decoded{err: m.changed(c.part, err)})
			return
		}
		if left == 1 && r.h.Sum64() != s.sum {
			send(decoded{err: m.changed(c.part, errChanged)})
			return
		}
		n := m.held.Add(1)
		if mergeHeld != nil {
			heldMu.Lock()
			mergeHeld(int(n))
			heldMu.Unlock()
		}
		if !send(decoded{ep: ep}) {
			return
		}
	}
}

// next takes c's next episode from its worker (c.ep nil after its last).
func (m *episodeMerge) next(c *episodeCursor) error {
	d, ok := <-c.in
	if !ok {
		c.ep = nil
		return nil
	}
	if d.err != nil {
		return d.err
	}
	c.ep = d.ep
	return nil
}

// release hands c's printed episode back to its worker.
func (m *episodeMerge) release(c *episodeCursor) {
	m.held.Add(-1)
	select {
	case c.free <- c.ep:
	default:
	}
	c.ep = nil
}

// changed is an error of the second reading of a part that the first
// found sound.
func (m *episodeMerge) changed(part int, err error) error {
	return fmt.Errorf("%s: changed while merging: %v", m.names[part], err)
}

// heap.Interface, by (log, part): a stable k-way merge.
func (m *episodeMerge) Len() int { return len(m.heap) }
func (m *episodeMerge) Less(i, j int) bool {
	a, b := m.heap[i], m.heap[j]
	return a.ep.Log < b.ep.Log || (a.ep.Log == b.ep.Log && a.part < b.part)
}
func (m *episodeMerge) Swap(i, j int) { m.heap[i], m.heap[j] = m.heap[j], m.heap[i] }
func (m *episodeMerge) Push(x any)    { m.heap = append(m.heap, x.(*episodeCursor)) }
func (m *episodeMerge) Pop() any {
	c := m.heap[len(m.heap)-1]
	m.heap = m.heap[:len(m.heap)-1]
	return c
}
