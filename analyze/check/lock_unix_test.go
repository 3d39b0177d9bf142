//go:build unix

package check

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// Two updates of one baseline at once: the second fails instead of both
// passing with one's file lost. A temporary baseline left by a killed
// writer is removed by the next update.
func TestUpdateLockAndStaleTemp(t *testing.T) {
	dir := t.TempDir()
	files, err := replaytest.WriteCorpusCapped(filepath.Join(dir, "eps"), 2, 3, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Files: files, Config: rules.Default(), Mode: ModeUpdate, Baseline: filepath.Join(dir, DefaultBaseline)}

	unlock, err := lockBaseline(opts.Baseline) // another update in progress
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(opts)
	var locked *LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("concurrent update: %v", err)
	}
	if _, err := os.Stat(opts.Baseline); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the locked-out update wrote the baseline: %v", err)
	}
	unlock()

	stale := filepath.Join(dir, ".loopbreak-baseline-12345")
	if err := os.WriteFile(stale, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := Run(opts); err != nil || !res.Wrote {
		t.Fatalf("update: %+v %v", res, err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary baseline left: %v", err)
	}
}
