//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO named explicitly is read once, as a stream: check used to read
// it once to hash it and reopen it to replay it, and hung.
func TestCheckFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "episode_log.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString(checkLog("F", 60, map[int]int{3: 5}))
		f.Close()
	}()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runCheck(t, dir, "--update", fifo)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		data, _ := os.ReadFile(filepath.Join(dir, "loopbreak.baseline.json"))
		if r.code != ExitOK || !strings.Contains(string(data), `"episode_id": "F"`) || !strings.Contains(string(data), `"source": "episode_log.jsonl"`) {
			t.Errorf("exit %d\n%s%s\n%s", r.code, r.out, r.errOut, data)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("check on a FIFO hangs")
	}
}

// A read-only baseline is refused, not replaced; a writable one keeps
// its mode when rewritten.
func TestCheckBaselineMode(t *testing.T) {
	dir := updatedCorpus(t)
	bl := filepath.Join(dir, "loopbreak.baseline.json")
	before, _ := os.ReadFile(bl)
	os.Chmod(bl, 0o444)
	if code, out, errOut := runCheck(t, dir, "--update", "eps"); code != ExitOK { // nothing to write
		t.Errorf("read-only and up to date: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCheck(t, dir, "--update", "--set", "max_turns_stuck=30", "eps")
	after, _ := os.ReadFile(bl)
	if code != ExitError || !strings.Contains(errOut, "loopbreak.baseline.json is read-only") || string(after) != string(before) {
		t.Errorf("read-only: exit %d\n%s%s", code, out, errOut)
	}
	os.Chmod(bl, 0o640)
	if code, out, errOut := runCheck(t, dir, "--update", "--set", "max_turns_stuck=30", "eps"); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	st, err := os.Stat(bl)
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode after rewrite: %v %v", st.Mode(), err)
	}
}

// A directory whose name is not UTF-8 round-trips through the baseline:
// the next check finds no drift.
func TestCheckNonUTF8Path(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "eps", "caf\xe9", "episode_log.jsonl"), checkLog("A", 60, map[int]int{3: 5}))
	if code, out, errOut := runCheck(t, dir, "--update", "eps"); code != ExitOK {
		t.Fatalf("update: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "loopbreak.baseline.json"))
	if !strings.Contains(string(data), `"source": "eps/caf%E9/episode_log.jsonl"`) {
		t.Errorf("source not escaped:\n%s", data)
	}
	if code, out, errOut := runCheck(t, dir, "eps"); code != ExitOK {
		t.Errorf("compare: exit %d\n%s%s", code, out, errOut)
	}
}

// A log the directory walk has to skip (here a FIFO where A's log was;
// an unreadable directory alike) is unreadable for --update too: A's
// entry is kept and the update fails.
func TestCheckUpdateKeepsWalkSkipped(t *testing.T) {
	dir := updatedCorpus(t)
	bl := filepath.Join(dir, "loopbreak.baseline.json")
	before, _ := os.ReadFile(bl)
	a := filepath.Join(dir, "eps", "A", "episode_log.jsonl")
	os.Remove(a)
	if err := syscall.Mkfifo(a, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	code, out, errOut := runCheck(t, dir, "--update", "eps")
	after, _ := os.ReadFile(bl)
	if code != ExitError || !strings.Contains(errOut, "eps/A/episode_log.jsonl") || string(after) != string(before) {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// A log without episode ids in a directory whose name is not UTF-8: the
// episode is named after the directory, and still matches next time.
func TestCheckNonUTF8EpisodeName(t *testing.T) {
	dir := t.TempDir()
	log := strings.ReplaceAll(checkLog("A", 60, map[int]int{3: 5}), `"episode_id":"A",`, "")
	writeFile(t, filepath.Join(dir, "eps", "caf\xe9", "episode_log.jsonl"), log)
	if code, out, errOut := runCheck(t, dir, "--update", "eps"); code != ExitOK {
		t.Fatalf("update: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCheck(t, dir, "eps"); code != ExitOK {
		t.Errorf("compare: exit %d\n%s%s", code, out, errOut)
	}
}
