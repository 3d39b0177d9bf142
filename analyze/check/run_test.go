package check

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
