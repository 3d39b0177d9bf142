//go:build unix

package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/analyze/outfile"
)

// TestOutputToFIFO: -o naming a FIFO writes the part and the Parquet
// file into it, byte for byte what -o writes to a regular file, and
// leaves the FIFO a FIFO (it was replaced by a renamed temporary file,
// and its reader got nothing).
func TestOutputToFIFO(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"sweep", "--max-stuck", "30,40", "--partial", "--shard", "1/2"},
		{"analyze", "--format", "parquet"},
	} {
		file := filepath.Join(dir, "regular")
		if code, _, errOut := run(t, "", "", append(append(args, "-o", file), episodesDir)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		want, _ := os.ReadFile(file)
		fifo := filepath.Join(dir, "fifo")
		os.Remove(fifo)
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		got := make(chan []byte, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- nil
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			got <- b
		}()
		if code, _, errOut := run(t, "", "", append(append(args, "-o", fifo), episodesDir)...); code != 0 {
			t.Fatalf("%v -o fifo: exit %d: %s", args, code, errOut)
		}
		select {
		case b := <-got:
			if !bytes.Equal(b, want) {
				t.Errorf("%v: the FIFO's reader got %d bytes, -o to a file writes %d", args, len(b), len(want))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: the FIFO's reader got nothing (the FIFO was replaced?)", args)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%v: the FIFO was replaced: %v, %v", args, st.Mode(), err)
		}
	}
}

// TestOutputToDevNull: -o /dev/null is written to, and /dev/null stays
// the character device (as root it was replaced by an HTML file).
func TestOutputToDevNull(t *testing.T) {
	for _, args := range [][]string{
		{"report", "-o", "/dev/null", episodesDir},
		{"analyze", "--format", "parquet", "-o", "/dev/null", episodesDir},
		{"sweep", "--max-stuck", "30", "--partial", "-o", "/dev/null", episodesDir},
	} {
		if code, _, errOut := run(t, "", "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if st, err := os.Lstat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%v replaced /dev/null: %v, %v", args, st.Mode(), err)
		}
	}
}

// TestOutputRemovesStaleTemporaries: what a writer killed by kill -9 left
// beside its target (a recognisable .loopbreak-tmp-* file no live writer
// holds) is removed by the next run writing there.
func TestOutputRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, outfile.TempPrefix+"part-1.json-2718281828")
	if err := os.WriteFile(stale, bytes.Repeat([]byte("{"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	part := filepath.Join(dir, "part-2.json")
	if code, _, errOut := run(t, "", "", "sweep", "--max-stuck", "30", "--shard", "2/2", "--partial", "-o", part, episodesDir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the stale temporary %s is still there", stale)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("in %s: %v; want the part alone", dir, entries)
	}
}
