package check

// The rows a check's report names, held within a bound: past rowRun rows
// they are sorted and spilled, compactly encoded, to a temporary file (as
// the sorter spills a new baseline's entries), merged back in order when
// the comparison finishes, and the report reads the finished rows back
// from a second temporary file. A million new episodes cost a few MB of
// rows in memory, not a GB.

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"time"
)

// rowRun is how many rows are held in memory before they are spilled (a
// few MB of rows); a variable so tests can spill small comparisons.
var rowRun = 1 << 14

// rowFile is a temporary file of encoded rows, in runs written one after
// another.
type rowFile struct {
	f       *os.File
	w       *bufio.Writer
	written int64
	runs    []spillRun

	keys countKeys // firing count keys, numbered
	buf  []byte
	rbuf []byte
}

func newRowFile() (*rowFile, error) {
	f, err := createSpill("loopbreak-rows-*")
	if err != nil {
		return nil, spillError("holding the report's rows", err)
	}
	return &rowFile{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// close removes the file.
func (rf *rowFile) close() {
	if rf != nil && rf.f != nil {
		closeSpill(rf.f)
		rf.f = nil
	}
}

// startRun and endRun bracket the rows of one sorted run.
func (rf *rowFile) startRun() int64 { return rf.written }

func (rf *rowFile) endRun(start int64) {
	rf.runs = append(rf.runs, spillRun{start, rf.written - start})
}

// write appends a row; log is the index of the spilled log whose hash the
// row still waits for, -1 when it is final.
func (rf *rowFile) write(r *Episode, log int32) error {
	rf.buf = rf.appendRow(rf.buf[:0], r, log)
	n, err := rf.w.Write(rf.buf)
	rf.written += int64(n)
	if err != nil {
		return spillError("holding the report's rows", err)
	}
	return nil
}

// flush makes what was written readable.
func (rf *rowFile) flush() error {
	if err := rf.w.Flush(); err != nil {
		return spillError("holding the report's rows", err)
	}
	return nil
}

// reader reads run i back.
func (rf *rowFile) reader(i int) *bufio.Reader {
	r := rf.runs[i]
	return bufio.NewReaderSize(io.NewSectionReader(rf.f, r.off, r.size), 32<<10)
}

// The record of a row: its length, then its fields; numbers as varints,
// strings length-prefixed, firing count keys by number, a list or an
// entry that may be nil preceded by a byte (0: nil).

func (rf *rowFile) appendRow(b []byte, r *Episode, log int32) []byte {
	b = append(b, 0, 0, 0, 0) // the record's length
	b = binary.AppendVarint(b, int64(log))
	b = binary.AppendVarint(b, r.seq)
	b = binary.AppendVarint(b, int64(r.base))
	if r.hashPending {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, s := range [...]string{r.EpisodeID, r.Source, r.Label, r.Status, r.Unreadable, r.Path} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, int64(r.Skipped))
	b = rf.appendStrings(b, r.Problems)
	if r.Drift == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(r.Drift)))
		for _, d := range r.Drift {
			b = appendString(b, d.Field)
			b = appendString(b, d.Baseline)
			b = appendString(b, d.Current)
		}
	}
	b = rf.appendEntry(b, r.Baseline)
	b = rf.appendEntry(b, r.Current)
	binary.LittleEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func (rf *rowFile) appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func (rf *rowFile) appendEntry(b []byte, e *Entry) []byte {
	if e == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = appendString(b, e.EpisodeID)
	b = appendString(b, e.Source)
	b = appendString(b, e.LogHash)
	b = appendFigures(b, e, appendString)
	if e.Checkpoints == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
	}
	if e.FiringCounts == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	return rf.keys.appendCounts(b, e.FiringCounts)
}

// readRow reads back a record appendRow wrote; io.EOF at a run's end.
func (rf *rowFile) readRow(r *bufio.Reader) (Episode, int32, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return Episode{}, 0, err
	}
	n := binary.LittleEndian.Uint32(head[:])
	if cap(rf.rbuf) < int(n) {
		rf.rbuf = make([]byte, n)
	}
	b := rf.rbuf[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		return Episode{}, 0, fmt.Errorf("holding the report's rows: reading back: %w", errRecord)
	}
	d := decoder{b: b}
	var e Episode
	log := int32(d.varint())
	e.seq = d.varint()
	e.base = int32(d.varint())
	e.hashPending = d.byte() == 1
	e.EpisodeID, e.Source, e.Label, e.Status, e.Unreadable, e.Path = d.str(), d.str(), d.str(), d.str(), d.str(), d.str()
	e.Skipped = int(d.varint())
	e.Problems = rf.readStrings(&d, len(b))
	if d.byte() == 1 {
		e.Drift = make([]Drift, min(d.uvarint(), uint64(len(b))))
		for i := range e.Drift {
			e.Drift[i] = Drift{Field: d.str(), Baseline: d.str(), Current: d.str()}
		}
	}
	var ok bool
	if e.Baseline, ok = rf.readEntry(&d, len(b)); ok {
		e.Current, ok = rf.readEntry(&d, len(b))
	}
	if !ok || d.bad || len(d.b) != 0 {
		return Episode{}, 0, fmt.Errorf("holding the report's rows: reading back: %w", errRecord)
	}
	return e, log, nil
}

func (rf *rowFile) readStrings(d *decoder, max int) []string {
	if d.byte() != 1 {
		return nil
	}
	ss := make([]string, min(d.uvarint(), uint64(max)))
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (rf *rowFile) readEntry(d *decoder, max int) (*Entry, bool) {
	if d.byte() != 1 {
		return nil, true
	}
	e := &Entry{EpisodeID: d.str(), Source: d.str(), LogHash: d.str()}
	d.figures(e, uint64(max))
	if d.byte() == 0 && len(e.Checkpoints) == 0 {
		e.Checkpoints = nil
	}
	if d.byte() == 1 {
		var ok bool
		if e.FiringCounts, ok = rf.keys.readCounts(d, uint64(max)); !ok {
			return nil, false
		}
	}
	return e, true
}

// lessRow is the canonical order of rows: episode id, source, arrival.
func lessRow(a, b *Episode) bool {
	if a.EpisodeID != b.EpisodeID {
		return a.EpisodeID < b.EpisodeID
	}
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	return a.seq < b.seq
}

func sortRows(rows []Episode) {
	sort.Slice(rows, func(i, j int) bool { return lessRow(&rows[i], &rows[j]) })
}

// rowCursor reads one sorted run of rows.
type rowCursor struct {
	next func() (bool, error) // loads the next row into row and log
	row  Episode
	log  int32
}

// runHeap is a min-heap of the cursors of sorted runs (heap.Interface),
// ordered by less: the k-way merges of spilled rows and spilled entries.
type runHeap[C any] struct {
	cs   []C
	less func(a, b C) bool
}

func (h *runHeap[C]) Len() int           { return len(h.cs) }
func (h *runHeap[C]) Less(i, j int) bool { return h.less(h.cs[i], h.cs[j]) }
func (h *runHeap[C]) Swap(i, j int)      { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *runHeap[C]) Push(x any)         { h.cs = append(h.cs, x.(C)) }
func (h *runHeap[C]) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

// mergeRows calls f with the rows of the cursors in canonical order.
func mergeRows(cs []*rowCursor, f func(r *Episode, log int32) error) error {
	h := &runHeap[*rowCursor]{less: func(a, b *rowCursor) bool { return lessRow(&a.row, &b.row) }}
	for _, c := range cs {
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			h.cs = append(h.cs, c)
		}
	}
	heap.Init(h)
	for len(h.cs) > 0 {
		c := h.cs[0]
		if err := f(&c.row, c.log); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// fileCursor reads run i of rf.
func (rf *rowFile) cursor(i int) *rowCursor {
	r := rf.reader(i)
	c := &rowCursor{}
	c.next = func() (bool, error) {
		row, log, err := rf.readRow(r)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		c.row, c.log = row, log
		return true, nil
	}
	return c
}

// memCursor reads rows held in memory, final and sorted.
func memCursor(rows []Episode) *rowCursor {
	c := &rowCursor{log: -1}
	c.next = func() (bool, error) {
		if len(rows) == 0 {
			return false, nil
		}
		c.row, rows = rows[0], rows[1:]
		return true, nil
	}
	return c
}

// each calls f with the rows of rf's single run, in order.
func (rf *rowFile) each(f func(*Episode) error) error {
	if len(rf.runs) == 0 {
		return nil
	}
	r := rf.reader(0)
	for {
		row, _, err := rf.readRow(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(&row); err != nil {
			return err
		}
	}
}

// createSpill creates a temporary file in the sorter's directory. Where
// the system allows, its name is removed at once: the open file lives on
// until it is closed or the process ends, so no exit (an interruption, a
// kill -9) leaves it behind. Elsewhere (Windows) close removes it, and
// what a killed run left is removed by a later one after a day.
func createSpill(pattern string) (*os.File, error) {
	if runtime.GOOS == "windows" {
		removeStaleTempsIn(os.TempDir(), pattern, 24*time.Hour)
	}
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" {
		os.Remove(f.Name())
	}
	return f, nil
}

// spillError is an error of a spill file, for what it was doing: the
// file's own name (loopbreak-rows-…, unlinked already) means nothing to
// the user; the temporary directory it lives in ($TMPDIR) is what they
// can free or move.
func spillError(what string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s in the temporary directory %s: %w", what, os.TempDir(), err)
}

// closeSpill closes and removes a file createSpill made.
func closeSpill(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}
