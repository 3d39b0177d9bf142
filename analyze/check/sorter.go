package check

// A new baseline's entries put in their canonical order without holding
// them all: runs of sortRun entries are sorted in memory and spilled, in
// a compact binary form, to a temporary file; the baseline is then
// written by merging the runs.

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"sort"
	"unsafe"
)

// sortRun is how many entries are held in memory before they are
// spilled (a few MB of entries); a variable so tests can spill small
// corpora.
var sortRun = 1 << 15

// entrySorter collects a baseline's entries as a check replays them, a
// log at a time (their log hash comes when the log ends), and writes
// them in canonical order: by episode id, then source, then as they came
// (what Baseline.Sort, a stable sort, gives).
type entrySorter struct {
	run     []sortItem // not spilled yet
	spill   *os.File   // runs spilled so far, one after another
	spillW  *bufio.Writer
	runs    []spillRun
	written int64

	hashes  []string // per log, once it ended: its hash
	dropped []bool   // per log: not read to its end, its entries dropped
	seq     int64

	keys   countKeys // firing count keys, numbered in the spill
	buf    []byte
	sorted bool
}

// sortItem is one entry; log -1: its LogHash is final, else the hash of
// the log it came from.
type sortItem struct {
	e   *Entry
	seq int64
	log int32
}

type spillRun struct{ off, size int64 }

func newEntrySorter() *entrySorter {
	return &entrySorter{}
}

// add takes an entry of the current log (pending: its hash comes with
// endFile) or, pending false, one whose LogHash is final.
func (s *entrySorter) add(e Entry, pending bool) error {
	it := sortItem{e: &e, seq: s.seq, log: -1}
	s.seq++
	if pending {
		it.log = int32(len(s.hashes))
	}
	s.run = append(s.run, it)
	if len(s.run) >= sortRun {
		return s.spillRun()
	}
	return nil
}

// endFile ends the current log with its hash.
func (s *entrySorter) endFile(hash string) {
	s.hashes = append(s.hashes, hash)
	s.dropped = append(s.dropped, false)
}

// dropFile ends the current log, dropping its entries.
func (s *entrySorter) dropFile() {
	log := int32(len(s.hashes))
	n := len(s.run)
	for n > 0 && s.run[n-1].log == log {
		n--
	}
	clear(s.run[n:])
	s.run = s.run[:n]
	s.hashes = append(s.hashes, "")
	s.dropped = append(s.dropped, true) // for entries already spilled
}

func lessItem(a, b *sortItem) bool {
	if a.e.EpisodeID != b.e.EpisodeID {
		return a.e.EpisodeID < b.e.EpisodeID
	}
	if a.e.Source != b.e.Source {
		return a.e.Source < b.e.Source
	}
	return a.seq < b.seq
}

func (s *entrySorter) sortRun() {
	sort.Slice(s.run, func(i, j int) bool { return lessItem(&s.run[i], &s.run[j]) })
}

// spillRun writes the run, sorted, to the spill file.
func (s *entrySorter) spillRun() error {
	if s.spill == nil {
		f, err := createSpill("loopbreak-sort-*")
		if err != nil {
			return spillError("sorting the baseline", err)
		}
		s.spill, s.spillW = f, bufio.NewWriterSize(f, 256<<10)
	}
	s.sortRun()
	start := s.written
	for i := range s.run {
		s.buf = s.appendItem(s.buf[:0], &s.run[i])
		n, err := s.spillW.Write(s.buf)
		s.written += int64(n)
		if err != nil {
			return spillError("sorting the baseline", err)
		}
	}
	s.runs = append(s.runs, spillRun{start, s.written - start})
	clear(s.run)
	s.run = s.run[:0]
	return nil
}

// close removes the spill file.
func (s *entrySorter) close() {
	if s.spill != nil {
		closeSpill(s.spill)
		s.spill = nil
	}
}

// writeEntries writes the entries in order as Baseline.Encode does
// between the brackets of "episodes"; it may be called more than once.
func (s *entrySorter) writeEntries(w io.Writer) error {
	if !s.sorted {
		s.sortRun()
		if s.spillW != nil {
			if err := s.spillW.Flush(); err != nil {
				return spillError("sorting the baseline", err)
			}
		}
		s.sorted = true
	}
	h := &runHeap[*cursor]{less: func(a, b *cursor) bool { return lessItem(&a.item, &b.item) }}
	for _, r := range s.runs {
		c := &cursor{s: s, r: bufio.NewReaderSize(io.NewSectionReader(s.spill, r.off, r.size), 32<<10)}
		if err := c.next(); err != nil {
			return err
		}
		if c.ok {
			h.cs = append(h.cs, c)
		}
	}
	if mem := (&cursor{s: s, mem: s.run}); mem.next() == nil && mem.ok {
		h.cs = append(h.cs, mem)
	}
	heap.Init(h)
	var b bytes.Buffer
	n := 0
	for len(h.cs) > 0 {
		c := h.cs[0]
		it := c.item
		if it.log < 0 || !s.dropped[it.log] {
			if it.log >= 0 {
				it.e.LogHash = s.hashes[it.log]
			}
			b.Reset()
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			it.e.encode(&b, "    ")
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			n++
		}
		if err := c.next(); err != nil {
			return err
		}
		if c.ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	if n > 0 {
		_, err := io.WriteString(w, "\n  ")
		return err
	}
	return nil
}

// cursor reads one sorted run: spilled (r) or in memory (mem).
type cursor struct {
	s    *entrySorter
	r    *bufio.Reader
	mem  []sortItem
	item sortItem
	ok   bool
}

func (c *cursor) next() error {
	if c.r == nil {
		c.ok = len(c.mem) > 0
		if c.ok {
			c.item, c.mem = c.mem[0], c.mem[1:]
		}
		return nil
	}
	it, err := c.s.readItem(c.r)
	if err == io.EOF {
		c.ok = false
		return nil
	}
	if err != nil {
		return spillError("sorting the baseline: reading back", err)
	}
	c.item, c.ok = it, true
	return nil
}

// The spill's record of an entry: its length, then the fields in the
// order of Entry, numbers as varints (floats as their 8 bytes), strings
// length-prefixed, firing count keys by number.

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (s *entrySorter) appendItem(b []byte, it *sortItem) []byte {
	b = append(b, 0, 0, 0, 0) // the record's length
	e := it.e
	b = binary.AppendVarint(b, it.seq)
	b = binary.AppendVarint(b, int64(it.log))
	b = appendString(b, e.EpisodeID)
	b = appendString(b, e.Source)
	b = appendString(b, e.LogHash)
	b = appendFigures(b, e, appendString)
	b = s.keys.appendCounts(b, e.FiringCounts)
	binary.LittleEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

var errRecord = errors.New("corrupt record")

// readItem reads back a record appendItem wrote.
func (s *entrySorter) readItem(r *bufio.Reader) (sortItem, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return sortItem{}, err // io.EOF at a record's start: the run's end
	}
	n := binary.LittleEndian.Uint32(head[:])
	if cap(s.buf) < int(n) {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		return sortItem{}, errRecord
	}
	d := decoder{b: b}
	it := sortItem{e: &Entry{}}
	e := it.e
	it.seq = d.varint()
	if it.log = int32(d.varint()); int(it.log) >= len(s.hashes) {
		return sortItem{}, errRecord
	}
	e.EpisodeID, e.Source, e.LogHash = d.str(), d.str(), d.str()
	d.figures(e, uint64(len(b)))
	var ok bool
	if e.FiringCounts, ok = s.keys.readCounts(&d, uint64(len(b))); !ok {
		return sortItem{}, errRecord
	}
	if d.bad || len(d.b) != 0 {
		return sortItem{}, errRecord
	}
	return it, nil
}

// decoder reads a record; bad is set once it ran short.
type decoder struct {
	b   []byte
	bad bool
}

// countKeys numbers firing count keys for a spill file's records, which
// hold each key's number, not its text. A set of counts met again (the
// maps entries share: a baseline store's, sharedCounts') is held once
// and a record holds its number: every missing episode of a large
// baseline carries one of a handful of sets. The file's reader is its
// writer, so the numbers need not be in the file.
type countKeys struct {
	nums  map[string]uint64
	names []string
	setOf map[unsafe.Pointer]uint64 // a map of sets → its number
	sets  []map[string]int          // held, so no other map takes their addresses
}

// countSetsMax bounds the sets held (each a map of every kind, a KB or
// two); past it counts are written in full.
var countSetsMax = 1 << 10

// appendCounts appends m as 0 and its set's number, or as its length
// plus one, then each key's number and count.
func (ck *countKeys) appendCounts(b []byte, m map[string]int) []byte {
	if ck.nums == nil {
		ck.nums = map[string]uint64{}
		ck.setOf = map[unsafe.Pointer]uint64{}
	}
	p := reflect.ValueOf(m).UnsafePointer()
	set, ok := ck.setOf[p]
	if !ok && p != nil && len(ck.sets) < countSetsMax {
		set, ok = uint64(len(ck.sets)), true
		ck.setOf[p] = set
		ck.sets = append(ck.sets, m)
	}
	if ok {
		b = append(b, 0)
		return binary.AppendUvarint(b, set)
	}
	b = binary.AppendUvarint(b, uint64(len(m))+1)
	for k, n := range m {
		num, ok := ck.nums[k]
		if !ok {
			num = uint64(len(ck.names))
			ck.nums[k] = num
			ck.names = append(ck.names, k)
		}
		b = binary.AppendUvarint(b, num)
		b = binary.AppendVarint(b, int64(n))
	}
	return b
}

// readCounts reads back what appendCounts wrote (a length above limit is
// cut to limit); false for a key or set number it never gave. A set's
// map is shared, not to be modified (entries never modify their counts).
func (ck *countKeys) readCounts(d *decoder, limit uint64) (map[string]int, bool) {
	k := d.uvarint()
	if k == 0 {
		set := d.uvarint()
		if set >= uint64(len(ck.sets)) {
			return nil, false
		}
		return ck.sets[set], true
	}
	k = min(k-1, limit)
	m := make(map[string]int, k)
	for range k {
		num := d.uvarint()
		if num >= uint64(len(ck.names)) {
			return nil, false
		}
		m[ck.names[num]] = int(d.varint())
	}
	return m, true
}

// figures reads what appendFigures wrote with inline strings
// (appendString) into e; a count above limit is cut to limit (a corrupt
// record then runs short, setting bad).
func (d *decoder) figures(e *Entry, limit uint64) {
	e.RecordedTurns = int(d.varint())
	e.FinalScore = d.float()
	if d.byte() == 1 {
		t := int(d.varint())
		e.TerminationTurn = &t
	}
	e.Checkpoints = make([]int, min(d.uvarint(), limit))
	for i := range e.Checkpoints {
		e.Checkpoints[i] = int(d.varint())
	}
	e.TurnsSaved = int(d.varint())
	e.LLMCallsSaved = int(d.varint())
	e.LLMCallsMethod = d.str()
	e.ScoreForfeited = d.float()
	flags := d.byte()
	e.FalseTermination, e.Censored = flags&1 != 0, flags&2 != 0
	e.WouldReject = int(d.varint())
	e.LowConfidence = int(d.varint())
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) float() float64 {
	if len(d.b) < 8 {
		d.bad, d.b = true, nil
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return f
}
