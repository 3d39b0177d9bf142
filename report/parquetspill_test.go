package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestParquetFiringsMatchesKept: the firing rows recorded as the replay
// produced them (NewParquetFiringsSink, packed) are the rows
// NewParquetFirings makes of the kept firings, in the same file bytes; the
// episode's row (detectors, tasks) is the same too.
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
		t.Fatalf("%d rows; files differ (firings %v, episodes %v); read back %d rows", rows,
			bytes.Equal(got.Bytes(), want.Bytes()), bytes.Equal(gotEps.Bytes(), wantEps.Bytes()), len(back))
	}
}

// TestParquetRowGroupBytes: a row group ends at 16 MiB of its rows'
// strings (rows of 4 MiB ids: four to a group), and otherwise at 8,192
// rows, so files of ordinary ids are as before.
func TestParquetRowGroupBytes(t *testing.T) {
	for _, c := range []struct {
		rows, idBytes, groups int
	}{{10, 4 << 20, 3}, {9000, 20, 2}, {100, 1000, 1}} {
		var b bytes.Buffer
		w := NewParquetWriter[ParquetEpisode](&b)
		for i := range c.rows {
			id := fmt.Sprint(i) + strings.Repeat("x", c.idBytes)
			if err := w.Write(ParquetEpisode{EpisodeID: id, Source: "s"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(f.RowGroups()); n != c.groups || f.NumRows() != int64(c.rows) {
			t.Errorf("%d rows of %d-byte ids: %d row groups, %d rows; want %d groups", c.rows, c.idBytes, n, f.NumRows(), c.groups)
		}
	}
}

// TestParquetIDsWithoutStatistics: long ids and sources are kept out of
// the column statistics (the footer held each row group's least and
// greatest id whole until the file ended, and each page header a copy),
// and a reader still reads every row.
func TestParquetIDsWithoutStatistics(t *testing.T) {
	var b bytes.Buffer
	w := NewParquetWriter[ParquetEpisode](&b)
	const rows, idBytes = 40, 100_000
	for i := range rows {
		id := fmt.Sprint(i) + strings.Repeat("x", idBytes)
		if err := w.Write(ParquetEpisode{EpisodeID: id, Source: id + ".jsonl", RecordedTurns: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Compressed, the ids cost little; whole in statistics, 2 x 2 x 4 MB.
	if b.Len() > idBytes {
		t.Errorf("%d rows of %d-byte ids and sources: a file of %d bytes", rows, idBytes, b.Len())
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	md := f.Metadata()
	for _, rg := range md.RowGroups {
		for _, c := range rg.Columns {
			name := strings.Join(c.MetaData.PathInSchema, ".")
			st := c.MetaData.Statistics
			if (name == "episode_id" || name == "source") && len(st.MinValue)+len(st.MaxValue)+len(st.Min)+len(st.Max) > 0 {
				t.Errorf("column %s keeps statistics of %d bytes", name, len(st.MinValue)+len(st.MaxValue)+len(st.Min)+len(st.Max))
			}
			if name == "recorded_turns" && len(st.MaxValue) == 0 {
				t.Errorf("column %s lost its statistics", name)
			}
		}
	}
	back, err := parquet.Read[ParquetEpisode](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != rows {
		t.Fatalf("read %d rows, want %d", len(back), rows)
	}
	for i, r := range back {
		if want := fmt.Sprint(i) + strings.Repeat("x", idBytes); r.EpisodeID != want || r.Source != want+".jsonl" || r.RecordedTurns != int64(i) {
			t.Errorf("row %d read back as id of %d bytes, source of %d, %d turns", i, len(r.EpisodeID), len(r.Source), r.RecordedTurns)
		}
	}
}

// TestParquetLongIDsHeldLittle: rows of 1 MiB ids cost the writer the
// buffers of a few ids (13 MiB of live heap from the first row on), not
// a row group's worth (16 MiB of ids) copied several times. Before, it
// held a row group's rows and handed them to the library at once (one
// page of every id, encoded whole: 47 MiB here), and the library kept a
// dictionary of the ids (a copy of each, and its page: 77 MiB); 2,000
// episodes of 500 KB ids peaked at 361 MB. The live heap is read after a
// collection at each row, so the bound does not depend on timing.
func TestParquetLongIDsHeldLittle(t *testing.T) {
	var b bytes.Buffer
	w := NewParquetWriter[ParquetEpisode](&b)
	const rows, idBytes = 40, 1 << 20
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	for i := range rows {
		id := fmt.Sprint(i) + strings.Repeat("x", idBytes)
		if err := w.Write(ParquetEpisode{EpisodeID: id, Source: "s.jsonl", RecordedTurns: int64(i)}); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if peak > 24<<20 {
		t.Errorf("%d rows of %d-byte ids: %d MiB held at most, want at most 24", rows, idBytes, peak>>20)
	}
	back, err := parquet.Read[ParquetEpisode](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != rows {
		t.Fatalf("read %d rows, want %d", len(back), rows)
	}
	for i, r := range back {
		if r.EpisodeID != fmt.Sprint(i)+strings.Repeat("x", idBytes) || r.RecordedTurns != int64(i) {
			t.Errorf("row %d read back as an id of %d bytes, %d turns", i, len(r.EpisodeID), r.RecordedTurns)
		}
	}
}

// TestParquetZstd: the writer's codec round-trips, and keeps its encoder
// across collections: the library's kept it in a sync.Pool, which two
// collections empty, and made a new one each time, its history sized by
// an 8 MiB window (193 MiB allocated here; this one 5).
func TestParquetZstd(t *testing.T) {
	c := &parquetZstd{}
	defer c.Close()
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "%d ", i*7919)
	}
	src := []byte(sb.String())
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	var dst, back []byte
	for range 10 {
		var err error
		if dst, err = c.Encode(dst, src); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	if n := ms.TotalAlloc - before; n > 16<<20 {
		t.Errorf("10 pages of 1 MiB compressed, two collections apart: %d MiB allocated, want at most 16", n>>20)
	}
	back, err := c.Decode(back, dst)
	if err != nil || !bytes.Equal(back, src) {
		t.Fatalf("%d bytes back of %d (%v)", len(back), len(src), err)
	}
	// The library's codec reads what this one writes.
	if back, err := (&zstd.Codec{}).Decode(nil, dst); err != nil || !bytes.Equal(back, src) {
		t.Errorf("the library's codec read %d bytes back of %d (%v)", len(back), len(src), err)
	}
}

// TestParquetFiringsLongIDsDictionary: firing rows' ids and sources are
// dictionary-encoded, so an episode's 1 MiB id is stored about once,
// not once a page (100 firings of one incompressible id: a file of 2 or
// 3 MiB, not 100), and a row group ends once its distinct ids pass 1 MiB,
// so rows of ever new 1 MiB ids cost the writer a few of them (the live
// heap after each row, as TestParquetLongIDsHeldLittle). Every row reads
// back.
func TestParquetFiringsLongIDsDictionary(t *testing.T) {
	id := func(seed uint64) string {
		r := rand.New(rand.NewPCG(seed, 1))
		b := make([]byte, 3<<18) // base64: 1 MiB, hardly compressible
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	// Written to a file: a buffer of the file would be the heap's most.
	path := filepath.Join(t.TempDir(), "firings.parquet")
	write := func(rows []ParquetFiring) ([]byte, uint64) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := NewParquetWriter[ParquetFiring](f)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, peak := ms.HeapAlloc, uint64(0)
		for i, r := range rows {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
			rows[i] = ParquetFiring{} // the writer's to hold, or not
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data, peak
	}
	check := func(data []byte, want []ParquetFiring) {
		back, err := parquet.Read[ParquetFiring](bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if len(back) != len(want) {
			t.Fatalf("read %d rows, want %d", len(back), len(want))
		}
		for i := range back {
			if back[i] != want[i] {
				t.Errorf("row %d read back as turn %d, id of %d bytes", i, back[i].Turn, len(back[i].EpisodeID))
			}
		}
	}

	one := id(1)
	var same []ParquetFiring
	for i := range 100 {
		same = append(same, ParquetFiring{EpisodeID: one, Source: "s.jsonl", Turn: int64(i), Rule: "r", Kind: "k", Fields: "{}"})
	}
	want := slices.Clone(same)
	data, _ := write(same)
	if len(data) > 4<<20 {
		t.Errorf("100 firings of one 1 MiB id: a file of %d MiB", len(data)>>20)
	}
	check(data, want)

	var distinct []ParquetFiring
	for i := range 24 {
		distinct = append(distinct, ParquetFiring{EpisodeID: id(uint64(i + 2)), Source: "s.jsonl", Turn: int64(i), Rule: "r", Kind: "k", Fields: "{}"})
	}
	want = slices.Clone(distinct)
	data, peak := write(distinct)
	if peak > 24<<20 {
		t.Errorf("24 firings of distinct 1 MiB ids: %d MiB held at most, want at most 24", peak>>20)
	}
	check(data, want)
}

// TestParquetFiringsRefused: a firing field json.Marshal refuses (a NaN)
// fails the rows with json.Marshal's error, before a row is written.
func TestParquetFiringsRefused(t *testing.T) {
	ep := &replay.Episode{ID: "e", Source: "x.jsonl", Turns: []replay.Turn{{N: 1}}}
	o := analyze.Analyze(ep, rules.Default(), analyze.Options{Sink: NewParquetFiringsSink(true)})
	s := o.Sink.(*ParquetFirings)
	s.Firing(&rules.Firing{Turn: 1, Rule: rules.LocationRevisit, Kind: rules.Penalty, Penalty: 0.5}, false)
	s.Firing(&rules.Firing{Turn: 2, Rule: rules.LocationRevisit, Kind: rules.Penalty, Penalty: math.NaN()}, false)
	var b bytes.Buffer
	w := NewParquetWriter[ParquetFiring](&b)
	e := NewEpisode(o, ep)
	err := s.WriteRows(w, &e)
	if err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("error %v", err)
	}
	// A NaN in a field the kind does not write is not refused.
	s = NewParquetFiringsSink(true)(o, ep).(*ParquetFirings)
	s.Firing(&rules.Firing{Turn: 1, Rule: rules.LocationRevisit, Kind: rules.Penalty, Similarity: math.NaN()}, false)
	if err := s.WriteRows(w, &e); err != nil {
		t.Fatal(err)
	}
}
