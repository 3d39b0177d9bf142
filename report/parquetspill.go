package report

import (
	"encoding/json"
	"fmt"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// ParquetFirings is an episode's --parquet-firings rows recorded as the
// replay produces them (an analyze.FiringSink, made by
// NewParquetFiringsSink for analyze.Options.Sink): the firings kept packed
// (rules.FiringList, a few bytes a firing, tagged after the cut) and
// turned into rows only as they are written, one at a time, a Parquet row
// group at a time (WriteRows). Without firing rows to write it only
// tallies what the episode's row reads off its firings (a steps or
// attempts log's detectors and tasks).
type ParquetFirings struct {
	rows bool // record the firings (--parquet-firings)
	list rules.FiringList
	enc  jsonEnc // WriteRows' fields, and its kinds' heads
	err  error
	agentTallies
}

// NewParquetFiringsSink returns an analyze.Options.Sink for analyze
// --format parquet: rows says whether the firings are written as rows
// (--parquet-firings) or only tallied.
func NewParquetFiringsSink(rows bool) func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	return func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
		s := &ParquetFirings{rows: rows}
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
	if !finiteFloats(f) {
		// What json.Marshal says of the value NewParquetFirings
		// marshals, known before a row is written.
		w := jsonEnc{}
		if w.fields(f); w.refused {
			s.err = fmt.Errorf("firing at %s %d: a field json.Marshal refuses", f.Unit, f.Turn)
			for _, field := range f.Kind.Fields {
				if _, err := json.Marshal(FieldValue(f, field)); err != nil {
					s.err = err
					break
				}
			}
			return
		}
	}
	tag := 0
	if afterCut {
		tag = 1
	}
	s.list.Add(f, tag)
}

// WriteRows writes the recorded firings as rows of the episode e, in
// order, each read back in turn.
func (s *ParquetFirings) WriteRows(w *ParquetWriter[ParquetFiring], e *Episode) error {
	if s.err != nil {
		return s.err
	}
	var f rules.Firing
	for it := s.list.Iter(); it.Next(&f); {
		s.enc.b = s.enc.b[:0]
		s.enc.fields(&f)
		row := ParquetFiring{EpisodeID: e.EpisodeID, Source: e.Source, Turn: int64(f.Turn), Rule: f.Rule.Name, Kind: f.Kind.Name,
			Origin: f.Rule.Origin, Fields: string(s.enc.b), AfterCut: it.Tag() == 1}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

// Release lets go of the recorded firings.
func (s *ParquetFirings) Release() { s.list = rules.FiringList{} }

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
