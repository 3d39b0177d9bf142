package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestRun goes through a baseline's life: missing, written, unchanged,
// compared with a failing gate, and an unreadable file.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	files, err := replaytest.WriteCorpusCapped(filepath.Join(dir, "eps"), 4, 2, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Files: files, Config: rules.Default(), Mode: ModeCompare, Baseline: filepath.Join(dir, DefaultBaseline)}

	_, err = Run(opts)
	var missing *NoBaselineError
	if !errors.As(err, &missing) || !errors.Is(err, fs.ErrNotExist) || missing.File != opts.Baseline {
		t.Fatalf("no baseline: %v", err)
	}

	opts.Mode = ModeUpdate
	res, err := Run(opts)
	if err != nil || !res.Wrote || res.Count(StatusNew) != len(res.Episodes) || len(res.Episodes) == 0 || res.Total() != len(res.Episodes) || res.Failed() {
		t.Fatalf("first update: %+v, %v", res, err)
	}
	res, err = Run(opts)
	if err != nil || res.Wrote || res.Count(StatusUnchanged) != res.Total() || res.Total() == 0 {
		t.Fatalf("second update: %+v, %v", res, err)
	}

	opts.Mode = ModeCompare
	none := -1.0
	opts.MaxForfeit = &none // forfeiting nothing is still above -1
	opts.Every = true
	res, err = Run(opts)
	if err != nil || res.Drifted() != 0 || res.GatesFailed() != 1 || !res.Failed() || res.Totals.Episodes != len(res.Episodes) || res.Total() != len(res.Episodes) {
		t.Fatalf("compare: %+v, %v", res, err)
	}
	if e := res.Episodes[0]; e.Path != SourcePath(opts.Baseline, e.Source) || e.Status != StatusUnchanged {
		t.Errorf("episode %+v", e)
	}
	opts.Every = false

	// An unreadable file: reported as it happens, its episodes missing.
	opts.MaxForfeit = nil
	if err := os.WriteFile(files[0], []byte{0x1f, 0x8b, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	var heard []string
	opts.OnFileError = func(path string, err error) { heard = append(heard, path) }
	res, err = Run(opts)
	if err != nil || len(heard) != 1 || heard[0] != files[0] || len(res.Errors) != 1 || res.Count(StatusMissing) == 0 || !res.Failed() {
		t.Fatalf("unreadable: heard %v, %+v, %v", heard, res, err)
	}
	for _, e := range res.Episodes {
		if e.Status == StatusMissing && e.Unreadable == "" {
			t.Errorf("missing %s without the reason", e.Label)
		}
	}
	// With Strict, the error ends the run.
	opts.Read.Strict = true
	if _, err := Run(opts); err == nil {
		t.Error("strict: no error for an unreadable file")
	}
}

// tinyLog is n episodes of three turns in one log, as .ci/bench's tiny().
func tinyLog(n int) []byte {
	var b []byte
	for e := range n {
		for t := 1; t <= 3; t++ {
			b = fmt.Appendf(b, `{"timestamp": "2025-11-01T00:00:00.000000", "level": "INFO", "message": "m", "event_type": "turn_completed", "episode_id": "ep-%07d", "turn": %d, "action": "north", "score": %d, "location": "Dam", "confidence": 0.5}`+"\n", e, t, t)
		}
	}
	return b
}

// A check of many episodes in one log keeps a row for none of them when
// none drifts (every one with Every), and an update spilling its entries
// through many runs writes the baseline byte for byte as one held in
// memory.
func TestRunKeepsNoRowPerEpisode(t *testing.T) {
	const n = 3000
	dir := t.TempDir()
	log := filepath.Join(dir, "tiny.jsonl")
	if err := os.WriteFile(log, tinyLog(n), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Files: []string{log}, Config: rules.Default(), Mode: ModeUpdate, Baseline: filepath.Join(dir, "held.json")}
	if _, err := Run(opts); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { sortRun = n }(sortRun)
	sortRun = 100
	opts.Baseline = filepath.Join(dir, "spilled.json")
	if _, err := Run(opts); err != nil {
		t.Fatal(err)
	}
	held, _ := os.ReadFile(filepath.Join(dir, "held.json"))
	spilled, _ := os.ReadFile(filepath.Join(dir, "spilled.json"))
	if !bytes.Equal(held, spilled) || !bytes.Contains(held, []byte(`"episode_id": "ep-0002999"`)) {
		t.Fatalf("spilled baseline differs from the held one (%d and %d bytes)", len(spilled), len(held))
	}
	for _, mode := range []string{ModeCompare, ModeUpdate, ModeGatesOnly} {
		opts.Mode = mode
		res, err := Run(opts)
		if err != nil || len(res.Episodes) != 0 || res.Total() != n || res.Failed() || res.Wrote {
			t.Fatalf("%s: %d rows kept, %d episodes, %v", mode, len(res.Episodes), res.Total(), err)
		}
		opts.Every = true
		if res, err = Run(opts); err != nil || len(res.Episodes) != n {
			t.Fatalf("%s, every episode: %d rows, %v", mode, len(res.Episodes), err)
		}
		opts.Every = false
	}
}

// An update of many new episodes holds their rows in a temporary file
// past rowRun: the rows read back are those held in memory, and the file
// has no name from the moment it is made (no exit leaves it behind).
func TestRunSpillsNewRows(t *testing.T) {
	const n = 3000
	dir := t.TempDir()
	log := filepath.Join(dir, "tiny.jsonl")
	if err := os.WriteFile(log, tinyLog(n), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Files: []string{log}, Config: rules.Default(), Mode: ModeUpdate, Baseline: filepath.Join(dir, "held.json")}
	held, err := Run(opts)
	if err != nil || held.rows != nil || len(held.Episodes) != n {
		t.Fatalf("held: %d rows, %v", len(held.Episodes), err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	defer func(n, m int) { rowRun, sortRun = n, m }(rowRun, sortRun)
	rowRun, sortRun = 100, 100
	opts.Baseline = filepath.Join(dir, "spilled.json")
	res, err := Run(opts)
	if err != nil || res.rows == nil || len(res.Episodes) != 0 || res.Count(StatusNew) != n {
		t.Fatalf("spilled: %d rows in memory, %d new, %v", len(res.Episodes), res.Count(StatusNew), err)
	}
	if names, _ := os.ReadDir(tmp); runtime.GOOS != "windows" && len(names) != 0 {
		t.Errorf("temporary files named: %v", names)
	}
	for range 2 { // a report may read the rows more than once
		var got []Episode
		if err := res.EachEpisode(func(e *Episode) error { got = append(got, *e); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, held.Episodes) {
			t.Fatalf("%d rows read back differ from the %d held", len(got), len(held.Episodes))
		}
	}
	res.Close()

	// Interrupted: nothing left either.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts.Context = ctx
	opts.Baseline = filepath.Join(dir, "interrupted.json")
	if _, err := Run(opts); err == nil {
		t.Fatal("interrupted run: no error")
	}
	if names, _ := os.ReadDir(tmp); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// BenchmarkCheckBigBaseline: a check of 10 logs against a baseline of
// 100,000 entries, most of them missing (each a row of the report): the
// cost per baseline entry (issue 25: ~19 µs an entry, through
// encoding/json). .ci/bench's BIGBASE=1 times the command at 1,000,000.
//
//	go test -run '^$' -bench CheckBigBaseline ./analyze/check
func BenchmarkCheckBigBaseline(b *testing.B) {
	const entries, logs = 100_000, 10
	dir := b.TempDir()
	base := NewBaseline(rules.Default())
	var files []string
	for i := range logs {
		f := filepath.Join(dir, fmt.Sprintf("log-%d.jsonl", i))
		if err := os.WriteFile(f, tinyLog(1), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	for i := range entries {
		base.Episodes = append(base.Episodes, entry(fmt.Sprintf("ep-%07d", i), fmt.Sprintf("eps/%07d/episode_log.jsonl", i), 40+i%50, i%30))
	}
	base.Sort()
	file := filepath.Join(dir, "big.baseline.json")
	if err := os.WriteFile(file, base.Encode(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		res, err := Run(Options{Files: files, Config: rules.Default(), Mode: ModeCompare, Baseline: file})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := res.EachEpisode(func(*Episode) error { n++; return nil }); err != nil || n < entries {
			b.Fatalf("%d rows, %v", n, err)
		}
		res.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/entries, "ns/entry")
}
