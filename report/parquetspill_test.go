package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestParquetFiringsMatchesKept: the firing rows recorded as the replay
// produced them (NewParquetFiringsSink), in memory or spilled, are the
// rows NewParquetFirings makes of the kept firings, in the same file
// bytes; the episode's row (detectors, tasks) is the same too.
func TestParquetFiringsMatchesKept(t *testing.T) {
	var logs []string
	for _, glob := range []string{"episodes/*/episode_log.jsonl", "steps/*.jsonl", "attempts/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join("..", "testdata", glob))
		logs = append(logs, m...)
	}
	var eps []*replay.Episode
	for _, path := range logs {
		more, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			continue // a steps log needing --field
		}
		eps = append(eps, more...)
	}
	defer func() { firingSpillBound = 0 }()
	for _, bound := range []int{0, 64} {
		firingSpillBound = bound
		var wantEps, gotEps, want, got bytes.Buffer
		we, ge := NewParquetWriter[ParquetEpisode](&wantEps), NewParquetWriter[ParquetEpisode](&gotEps)
		wf, gf := NewParquetWriter[ParquetFiring](&want), NewParquetWriter[ParquetFiring](&got)
		rows := 0
		for _, ep := range eps {
			kept := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true})
			e := NewEpisode(kept, ep)
			if err := we.Write(NewParquetEpisode(&e)); err != nil {
				t.Fatal(err)
			}
			rs, err := NewParquetFirings(&e)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if err := wf.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			rows += len(rs)
			o := analyze.Analyze(ep, rules.Default(), analyze.Options{Sink: NewParquetFiringsSink(true)})
			s := o.Sink.(*ParquetFirings)
			e = NewEpisode(o, ep)
			if err := ge.Write(NewParquetEpisode(&e)); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteRows(gf, &e); err != nil {
				t.Fatal(err)
			}
			s.Release()
		}
		for _, w := range []interface{ Close() error }{we, ge, wf, gf} {
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if rows == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) || !bytes.Equal(gotEps.Bytes(), wantEps.Bytes()) {
			back, _ := parquet.Read[ParquetFiring](bytes.NewReader(got.Bytes()), int64(got.Len()))
			t.Fatalf("bound %d: %d rows; files differ (firings %v, episodes %v); read back %d rows", bound, rows,
				bytes.Equal(got.Bytes(), want.Bytes()), bytes.Equal(gotEps.Bytes(), wantEps.Bytes()), len(back))
		}
	}
}
