package report

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/outfile"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// ZorkTrace is what a ZorkGPT episode's verbose text (-v) reads off its
// firings, written as the replay produces them (an analyze.FiringSink,
// made by NewAgentListing and NewChartSink for a ZorkGPT log): each
// firing's words in the turn-by-turn trace, and the lines of the generic
// rules' output loops, each a record (its turn, its words) in a spill
// (8 MiB in memory, then an unlinked temporary file). The trace is drawn
// from them, read twice (Grid.Each: widths, then rows), so an episode of
// a million turns and four million firings costs its turn table and the
// bound, not a 300-byte struct per firing and every row's cells.
type ZorkTrace struct {
	ep     *replay.Episode
	trace  outfile.Spill
	loops  outfile.Spill
	nLoops int
	rec    []byte
	marks  *TimelineMarks // the chart's (NewChartSink); nil without one
}

func newZorkTrace(ep *replay.Episode) *ZorkTrace { return &ZorkTrace{ep: ep} }

// ListsFirings says the trace lists every firing itself: the outcome
// need not keep them (analyze.Options.KeepFirings).
func (z *ZorkTrace) ListsFirings() bool { return true }

// Firing records f (an analyze.FiringSink); a write's error stays in its
// spill (Err) and is said when the trace is read.
func (z *ZorkTrace) Firing(f *rules.Firing, afterCut bool) {
	if z.marks != nil {
		z.marks.Firing(f, afterCut)
	}
	z.record(&z.trace, f.Turn, describeFiring(f, z.ep))
	if f.Rule.Origin == rules.OriginGeneric {
		z.nLoops++
		z.record(&z.loops, f.Turn, Term(describeAgentFiring(f)))
	}
}

func (z *ZorkTrace) record(s *outfile.Spill, turn int, words string) {
	b := binary.AppendVarint(z.rec[:0], int64(turn))
	b = binary.AppendUvarint(b, uint64(len(words)))
	z.rec = append(b, words...)
	s.Write(z.rec)
}

// Close removes the spills' temporary files, if any.
func (z *ZorkTrace) Close() {
	z.trace.Close()
	z.loops.Close()
}

// traceRecord is one record of a ZorkTrace spill.
type traceRecord struct {
	turn  int
	words string
}

// traceReader reads a ZorkTrace spill's records in order, or an
// outcome's kept firings as the same records.
type traceReader struct {
	spill *outfile.Spill
	r     *bufio.Reader
	kept  []rules.Firing
	ep    *replay.Episode
	n     int // records read
	peek  *traceRecord
	err   error
}

// seek goes back to the k-th record (from the start: a spill is read
// sequentially).
func (t *traceReader) seek(k int) {
	t.n, t.peek = 0, nil
	if t.spill != nil && t.err == nil {
		r, err := t.spill.Reader()
		if err != nil {
			t.err = err
			return
		}
		t.r = bufio.NewReaderSize(r, 64<<10)
	}
	for t.n < k && t.next() != nil {
		t.peek = nil
	}
}

// next is the record at the cursor, read (not consumed) once; nil at
// the end or after an error.
func (t *traceReader) next() *traceRecord {
	if t.peek != nil || t.err != nil {
		return t.peek
	}
	if t.spill == nil {
		if t.n >= len(t.kept) {
			return nil
		}
		f := &t.kept[t.n]
		t.peek = &traceRecord{f.Turn, describeFiring(f, t.ep)}
		t.n++
		return t.peek
	}
	turn, err := binary.ReadVarint(t.r)
	if errors.Is(err, io.EOF) {
		return nil
	}
	var size uint64
	if err == nil {
		size, err = binary.ReadUvarint(t.r)
	}
	if err == nil && size > 1<<30 {
		err = errors.New("bad record")
	}
	var words []byte
	if err == nil {
		words = make([]byte, size)
		_, err = io.ReadFull(t.r, words)
	}
	if err != nil {
		t.err = fmt.Errorf("reading back the episode's firings: %w", err)
		return nil
	}
	t.peek = &traceRecord{int(turn), string(words)}
	t.n++
	return t.peek
}

// at consumes the records at the cursor of turn n, appending their words
// to words: a record of another turn stops it (as the kept list's index
// did).
func (t *traceReader) at(n int, words []string) []string {
	for r := t.next(); r != nil && r.turn == n; r = t.next() {
		words = append(words, r.words)
		t.peek = nil
	}
	return words
}

// consumed is how many records the cursor has gone past.
func (t *traceReader) consumed() int {
	if t.peek != nil {
		return t.n - 1
	}
	return t.n
}

// traceOf reads o's firings for the trace: its ZorkTrace's, or its kept
// firings when it has none.
func traceOf(o *analyze.Outcome, ep *replay.Episode) *traceReader {
	if z, ok := o.Sink.(*ZorkTrace); ok && o.Firings == nil {
		return &traceReader{spill: &z.trace}
	}
	return &traceReader{kept: o.Firings, ep: ep}
}
