//go:build unix

package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A log-named FIFO met while walking a tree is reported as a file error
// and never opened (the run would hang on it): exit 0, or 2 with --strict.
func TestAnalyzeTreeSkipsFIFO(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "eps", "a", "episode_log.jsonl"), stuckLog("A", 20))
	fifo := filepath.Join(dir, "eps", "b", "episode_log.jsonl")
	writeFile(t, filepath.Join(dir, "eps", "b", "notes"), "")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	code, out, stderr := run(t, dir, "", "analyze", "--format", "json", "eps")
	want := "skip eps/b/episode_log.jsonl: named pipe, not a regular file"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	res := decodeAnalyze(t, out)
	if len(res.Episodes) != 1 || len(res.Errors) != 1 || !strings.Contains(fmt.Sprint(res.Errors[0]), "eps/b/episode_log.jsonl") {
		t.Errorf("%d episodes, errors %+v", len(res.Episodes), res.Errors)
	}
	if code, _, stderr := run(t, dir, "", "analyze", "--strict", "eps"); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("strict: exit %d, %q", code, stderr)
	}
}

// check reads a pipe named explicitly once, hashing it as it reads: it
// used to hash the file first, then wait forever to read the pipe again.
func TestCheckReadsFIFOOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "episode_log.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	content := stuckLog("A", 20)
	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.WriteString(content)
			w.Close()
		}
		// A second reader (the old behaviour) gets an empty stream, not a hang.
		time.Sleep(5 * time.Second)
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}()
	code, out, stderr := runCheck(t, dir, "--no-baseline", "--format", "json", fifo)
	if code != 0 || !strings.Contains(out, `"episode_id": "A"`) || !strings.Contains(stderr, "PASS: 1 episode") {
		t.Errorf("exit %d, stderr %q, out %.300s", code, stderr, out)
	}
}
