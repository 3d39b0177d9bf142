//go:build unix

package cmd

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loopbreakProcess starts this test binary as loopbreak with args in dir.
func loopbreakProcess(t *testing.T, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "LOOPBREAK_TEST_MAIN=1")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	return c, &stderr
}

// waitExit waits for c with a timeout and returns its exit code.
func waitExit(t *testing.T, c *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatal("the process did not exit after SIGTERM")
		return -1
	}
}

// waitFor polls until ok or fails after 30 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for start := time.Now(); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// SIGTERM during generate leaves only complete episode files, each the
// same bytes an uninterrupted run writes, and no partial file.
func TestGenerateSIGTERM(t *testing.T) {
	dir := t.TempDir()
	c, stderr := loopbreakProcess(t, dir, "generate", "--episodes", "100000", "corpus")
	waitFor(t, "a first episode", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "corpus", "*", "*"))
		return len(m) > 1
	})
	c.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, c); code != ExitError || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var logs []string
	filepath.Walk(filepath.Join(dir, "corpus"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if fi.Name() != "episode_log.jsonl" {
				t.Errorf("left behind: %s", p)
			}
			logs = append(logs, p)
		}
		return nil
	})
	if len(logs) == 0 || len(logs) > 1000 {
		t.Fatalf("%d episodes written", len(logs))
	}
	full := filepath.Join(dir, "full")
	// The uninterrupted run's first len(logs) episodes, compared byte for byte.
	if code, _, errOut := run(t, "", "", "generate", "--episodes", strconv.Itoa(len(logs)), full); code != ExitOK {
		t.Fatal(errOut)
	}
	for _, p := range logs {
		rel, _ := filepath.Rel(filepath.Join(dir, "corpus"), p)
		got, _ := os.ReadFile(p)
		want, err := os.ReadFile(filepath.Join(full, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, an uninterrupted run writes %d (%v)", rel, len(got), len(want), err)
		}
	}
}

// SIGTERM during check --update (here blocked reading a FIFO whose writer
// went quiet) exits promptly, leaves the baseline as it was and no
// temporary file.
func TestCheckUpdateSIGTERM(t *testing.T) {
	dir := updatedCorpus(t)
	bl := filepath.Join(dir, "loopbreak.baseline.json")
	before, _ := os.ReadFile(bl)
	fifo := filepath.Join(dir, "eps", "F", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	c, stderr := loopbreakProcess(t, dir, "check", "--update", "eps/A", "eps/B", "eps/C", fifo)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until loopbreak opens it
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteString(checkLog("F", 60, nil)[:500]) // half a log, then silence
	time.Sleep(100 * time.Millisecond)
	c.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, c); code != ExitError || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	after, _ := os.ReadFile(bl)
	if !bytes.Equal(before, after) {
		t.Error("the baseline changed")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".loopbreak-baseline-*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}

// A partial episode left by a killed generate (kill -9) is removed by
// the next run into that directory.
func TestGenerateRemovesStalePartial(t *testing.T) {
	dir := t.TempDir()
	stale := writeFile(t, filepath.Join(dir, "2020-01-01T00:00:00", ".episode_log.jsonl.partial"), "{\"half")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	if code, _, errOut := run(t, "", "", "generate", "--episodes", "1", dir); code != ExitOK {
		t.Fatal(errOut)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale partial episode left: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(stale)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its empty directory left: %v", err)
	}
}
