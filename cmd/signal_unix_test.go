//go:build unix

package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/analyze"
)

// loopbreakProcess starts this test binary as loopbreak with args in dir.
func loopbreakProcess(t *testing.T, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	c, _, stderr := loopbreakProcessOut(t, dir, args...)
	return c, stderr
}

// syncBuffer is a bytes.Buffer read while the process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

// loopbreakProcessOut is loopbreakProcess with its standard output too.
func loopbreakProcessOut(t *testing.T, dir string, args ...string) (c *exec.Cmd, stdout *syncBuffer, stderr *bytes.Buffer) {
	t.Helper()
	c = exec.Command(os.Args[0], args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "LOOPBREAK_TEST_MAIN=1")
	stdout, stderr = new(syncBuffer), new(bytes.Buffer)
	c.Stdout, c.Stderr = stdout, stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	return c, stdout, stderr
}

// waitExit waits for c (30 s at most) and returns its exit code.
func waitExit(t *testing.T, c *exec.Cmd) int {
	t.Helper()
	return waitExitWithin(t, c, 30*time.Second)
}

// waitExitWithin waits for c to end and returns its exit code, failing
// the test when it has not ended within timeout.
func waitExitWithin(t *testing.T, c *exec.Cmd, timeout time.Duration) int {
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
	case <-time.After(timeout):
		t.Fatalf("the process did not exit within %v", timeout)
	}
	return -1
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
	// The read itself stopped (the FIFO was closed), not the grace
	// period running out on a read still blocked ("nothing written").
	if code := waitExit(t, c); code != ExitError || !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "nothing written") {
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

// SIGTERM during analyze --format json blocked reading a quiet FIFO ends
// the run: the document begun with the episodes before the FIFO is closed,
// naming the interruption in its errors, and the exit is 2.
func TestAnalyzeSIGTERMOnQuietFIFO(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "A", "episode_log.jsonl"), checkLog("A", 60, nil))
	fifo := filepath.Join(dir, "F", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	c, stdout, stderr := loopbreakProcessOut(t, dir, "analyze", "--format", "json", "A/episode_log.jsonl", fifo)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until loopbreak opens it
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteString(checkLog("F", 60, nil)[:500]) // half a log, then silence
	waitFor(t, "episode A written", func() bool { return bytes.Contains(stdout.Bytes(), []byte(`"A"`)) })
	time.Sleep(100 * time.Millisecond)
	c.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, c); code != ExitError || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var doc struct {
		Episodes []struct {
			EpisodeID string `json:"episode_id"`
		} `json:"episodes"`
		Errors []analyze.FileError `json:"errors"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, stdout.Bytes())
	}
	if len(doc.Episodes) != 1 || doc.Episodes[0].EpisodeID != "A" || len(doc.Errors) != 1 || !strings.Contains(doc.Errors[0].Error, "interrupted") {
		t.Errorf("episodes %+v, errors %+v", doc.Episodes, doc.Errors)
	}
}

// SIGTERM during analyze --format parquet and report, blocked reading a
// quiet FIFO, exits 2 and leaves no output file, temporary or final.
func TestWritersSIGTERMOnQuietFIFO(t *testing.T) {
	for _, args := range [][]string{
		{"analyze", "--format", "parquet", "-o", "out.parquet"},
		{"report", "-o", "out.html"},
	} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "A", "episode_log.jsonl"), checkLog("A", 60, nil))
			fifo := filepath.Join(dir, "F", "episode_log.jsonl")
			os.MkdirAll(filepath.Dir(fifo), 0o755)
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			c, stderr := loopbreakProcess(t, dir, append(args, "A/episode_log.jsonl", fifo)...)
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
			if m, _ := filepath.Glob(filepath.Join(dir, "*out*")); len(m) > 0 {
				t.Errorf("left behind: %v", m)
			}
		})
	}
}

// SIGINT while analyze, check and report wait to open a FIFO no writer
// ever opens (open(2) blocks in the kernel) ends them at once, exit 2:
// the open is given up, as Ctrl-C gives up `cat fifo`.
func TestSIGINTOnUnopenedFIFO(t *testing.T) {
	for _, args := range [][]string{
		{"analyze"},
		{"check", "--no-baseline"},
		{"report", "-o", "out.html"},
	} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo.jsonl")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			c, _, stderr := loopbreakProcessOut(t, dir, append(args, fifo)...)
			time.Sleep(200 * time.Millisecond) // loopbreak is blocked opening it by now, or soon
			c.Process.Signal(syscall.SIGINT)
			if code := waitExit(t, c); code != ExitError || !strings.Contains(stderr.String(), "interrupted") {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if strings.Count(stderr.String(), "interrupted") != 1 {
				t.Errorf("stderr %q says interrupted more than once", stderr)
			}
		})
	}
}

// readAt reports how far process pid has read file path (its offset
// there), from Linux's /proc; open is false once it has closed it, ok is
// false where /proc cannot tell.
func readAt(pid int, path string) (pos int64, open, ok bool) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, false, false
	}
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err != nil || target != path {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		if err != nil {
			return 0, false, false
		}
		for line := range strings.Lines(string(info)) {
			if v, found := strings.CutPrefix(line, "pos:"); found {
				pos, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return pos, err == nil, err == nil
			}
		}
		return 0, false, false
	}
	return 0, false, true
}

// SIGTERM while analyze replays a long episode (400,000 attempts at one
// task) stops it within a second: the replay looks at the signal's
// context as it steps, where it once ran on for the rest of the episode
// (minutes for task attempts).
func TestAnalyzeSIGTERMWhileReplaying(t *testing.T) {
	if _, err := os.Stat("/proc/self/fdinfo"); err != nil {
		t.Skip("no /proc to tell how far the log is read")
	}
	dir := t.TempDir()
	var b strings.Builder
	for i := range 400000 {
		fmt.Fprintf(&b, `{"task_id": "t", "status": "%s", "blockers": [], "completed_work": ["w%d"], "session_id": "s%d", "timestamp": "2025-11-14T08:00:00Z"}`+"\n",
			[]string{"pending", "in_progress", "blocked", "done"}[i%4], i, i)
	}
	path := filepath.Join(dir, "attempts.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, stderr := loopbreakProcess(t, dir, "analyze", path)
	exited := make(chan struct{})
	// c.Wait, not c.Process.Wait: it also waits for stderr to be copied
	// into its buffer (read at the end, where it once came up empty).
	go func() { c.Wait(); close(exited) }()
	// An attempts log is replayed as it is read: once a quarter of it is
	// read, the replay is under way with three quarters still to go
	// (about a second). Waiting for the log to be closed, as this test
	// once did when logs were read whole first, left nothing to
	// interrupt: the log now stays open until the replay's end, and a
	// descheduled poll saw the run end (exit 0).
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		select {
		case <-exited:
			t.Skip("the analysis finished before a quarter of the log was seen read: nothing long to interrupt")
		default:
		}
		pos, open, ok := readAt(c.Process.Pid, path)
		if !ok {
			t.Skip("/proc does not show the process's files")
		}
		if open && pos >= int64(b.Len()/4) {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatal("the log was never read to a quarter")
		}
	}
	c.Process.Signal(syscall.SIGTERM)
	sent := time.Now()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("no exit 10 s after SIGTERM")
	}
	// Within a second, with as much again for a loaded machine.
	if d := time.Since(sent); d > 2*time.Second {
		t.Errorf("exited %v after SIGTERM, want within a second", d)
	}
	if code := c.ProcessState.ExitCode(); code != ExitError || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
