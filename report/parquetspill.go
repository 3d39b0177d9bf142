package report

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/outfile"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// ParquetFirings is an episode's --parquet-firings rows recorded as the
// replay produces them (an analyze.FiringSink, made by
// NewParquetFiringsSink for analyze.Options.Sink): each firing a compact
// record (its turn, its kind's number in the episode, after_cut and its
// fields' JSON), spilled past a bound to a temporary file
// (outfile.Spill), and turned into rows only as they are written, a
// Parquet row group at a time (WriteRows). Without firing rows to write
// it only tallies what the episode's row reads off its firings (a steps or
// attempts log's detectors and tasks).
type ParquetFirings struct {
	rows  bool // record the firings (--parquet-firings)
	enc   jsonEnc
	spill outfile.Spill
	kinds []headKey // a record's kind number indexes this
	rec   []byte
	err   error
	agentTallies
}

// NewParquetFiringsSink returns an analyze.Options.Sink for analyze
// --format parquet: rows says whether the firings are written as rows
// (--parquet-firings) or only tallied.
func NewParquetFiringsSink(rows bool) func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	return func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
		s := &ParquetFirings{rows: rows}
		s.spill.Bound = firingSpillBound
		s.start(o, ep)
		return s
	}
}

// Firing records f (an analyze.FiringSink).
func (s *ParquetFirings) Firing(f *rules.Firing, afterCut bool) {
	s.add(f)
	if !s.rows || s.err != nil {
		return
	}
	k := headKey{f.Rule, f.Kind}
	n := 0
	for n < len(s.kinds) && s.kinds[n] != k {
		n++
	}
	if n == len(s.kinds) {
		s.kinds = append(s.kinds, k)
	}
	s.enc.b = s.enc.b[:0]
	s.enc.fields(f)
	if s.enc.refused {
		// What json.Marshal says of the value NewParquetFirings marshals.
		s.err = fmt.Errorf("firing at %s %d: a field json.Marshal refuses", f.Unit, f.Turn)
		for _, field := range f.Kind.Fields {
			if _, err := json.Marshal(FieldValue(f, field)); err != nil {
				s.err = err
				break
			}
		}
		return
	}
	b := binary.AppendVarint(s.rec[:0], int64(f.Turn))
	b = binary.AppendUvarint(b, uint64(n))
	if afterCut {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s.enc.b)))
	b = append(b, s.enc.b...)
	s.rec = b
	if _, err := s.spill.Write(b); err != nil {
		s.err = fmt.Errorf("holding the episode's firings: %w", err)
	}
}

// WriteRows writes the recorded firings as rows of the episode e, in
// order; the spill is read back a record at a time.
func (s *ParquetFirings) WriteRows(w *ParquetWriter[ParquetFiring], e *Episode) error {
	if s.err != nil {
		return s.err
	}
	r, err := s.spill.Reader()
	if err != nil {
		return fmt.Errorf("holding the episode's firings: %w", err)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var fields []byte
	for {
		turn, err := binary.ReadVarint(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading back the episode's firings: %w", err)
		}
		n, err := binary.ReadUvarint(br)
		if err != nil || n >= uint64(len(s.kinds)) {
			return fmt.Errorf("reading back the episode's firings: bad record (%v)", err)
		}
		cut, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("reading back the episode's firings: %w", err)
		}
		size, err := binary.ReadUvarint(br)
		if err != nil || size > 1<<40 {
			return fmt.Errorf("reading back the episode's firings: bad record (%v)", err)
		}
		if uint64(cap(fields)) < size {
			fields = make([]byte, size)
		}
		fields = fields[:size]
		if _, err := io.ReadFull(br, fields); err != nil {
			return fmt.Errorf("reading back the episode's firings: %w", err)
		}
		k := s.kinds[n]
		row := ParquetFiring{EpisodeID: e.EpisodeID, Source: e.Source, Turn: turn, Rule: k.rule.Name, Kind: k.kind.Name,
			Origin: k.rule.Origin, Fields: string(fields), AfterCut: cut == 1}
		if err := w.Write(row); err != nil {
			return err
		}
	}
}

// Release removes the temporary file, if any.
func (s *ParquetFirings) Release() { s.spill.Close() }

// fields writes the JSON object of f's kind's fields, as
// NewParquetFirings does (json.Marshal of each FieldValue).
func (w *jsonEnc) fields(f *rules.Firing) {
	h := w.head(f.Rule, f.Kind)
	w.b = append(w.b, '{')
	for i, field := range f.Kind.Fields {
		key := h.keys[i] // ",key:"
		if i == 0 {
			key = key[1:]
		}
		w.b = append(w.b, key...)
		w.field(f, field)
	}
	w.b = append(w.b, '}')
}
