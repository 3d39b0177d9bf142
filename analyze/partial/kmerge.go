package partial

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// in a heap by (log, part).
type episodeMerge struct {
	parts              []*File
	names              []string
	scans              []*analyzeScan
	keepJSON, keepText bool
	heap               []*episodeCursor
	held               int // cursors holding an episode
}

// episodeCursor reads one part's episodes, one at a time, into ep.
type episodeCursor struct {
	part int
	dec  *json.Decoder
	left int // episodes the first pass counted, not yet read
	ep   mergeEpisode
	full bool // ep holds an episode
}

// mergeHeld, when set (tests), is told after each episode read how many
// decoded episodes the merge holds.
var mergeHeld func(int)

// run calls print with every episode of the parts in log order.
func (m *episodeMerge) run(print func(*mergeEpisode) error) error {
	m.heap = m.heap[:0]
	for i, s := range m.scans {
		if s.episodes == 0 {
			continue
		}
		p := m.parts[i]
		c := &episodeCursor{part: i, left: s.episodes, dec: json.NewDecoder(io.NewSectionReader(p.src, s.at, p.size-s.at))}
		c.dec.DisallowUnknownFields()
		c.ep.JSON.keep, c.ep.Text.keep = m.keepJSON, m.keepText
		if tok, err := c.dec.Token(); err != nil || tok != json.Delim('[') {
			return m.changed(i, fmt.Errorf("no episodes at byte %d (%v)", s.at, err))
		}
		if err := m.next(c); err != nil {
			return err
		}
		m.heap = append(m.heap, c)
	}
	heap.Init(m)
	for len(m.heap) > 0 {
		c := m.heap[0]
		if err := print(&c.ep); err != nil {
			return err
		}
		if c.left == 0 {
			heap.Pop(m)
			c.full = false
			m.held--
			continue
		}
		if err := m.next(c); err != nil {
			return err
		}
		heap.Fix(m, 0)
	}
	return nil
}

// next reads c's next episode.
func (m *episodeMerge) next(c *episodeCursor) error {
	c.ep.Log, c.ep.JSON.data, c.ep.Text.text = 0, c.ep.JSON.data[:0], ""
	if !c.dec.More() {
		return m.changed(c.part, errors.New("fewer episodes than the first reading"))
	}
	if err := c.dec.Decode(&c.ep); err != nil {
		return m.changed(c.part, err)
	}
	c.left--
	if !c.full {
		c.full = true
		m.held++
	}
	if mergeHeld != nil {
		mergeHeld(m.held)
	}
	return nil
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
