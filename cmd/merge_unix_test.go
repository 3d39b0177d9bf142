//go:build unix

package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMergePipedPart: a part read from a pipe (merge <(curl ...)) cannot
// be read twice, so the merge copies it aside first; the output is the
// same, and nothing is left in $TMPDIR.
func TestMergePipedPart(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
	os.Mkdir(filepath.Join(dir, "tmp"), 0o755)
	var parts []string
	for k := 1; k <= 2; k++ {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
		if code, _, errOut := run(t, "", "", "analyze", "--format", "json", "--shard", fmt.Sprintf("%d/2", k), "--partial", "-o", p, episodesDir); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		parts = append(parts, p)
	}
	_, want, _ := run(t, "", "", "merge", parts[0], parts[1])
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	data, _ := os.ReadFile(parts[1])
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	done := make(chan struct{})
	var code int
	var got, errOut string
	go func() {
		code, got, errOut = run(t, "", "", "merge", parts[0], fifo)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("merge of a pipe hangs")
	}
	if code != 0 || got != want {
		t.Errorf("merge with a piped part: exit %d, %s; output equal: %v", code, errOut, got == want)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
