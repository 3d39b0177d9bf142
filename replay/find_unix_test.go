//go:build unix

package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// While walking a tree, a log-named FIFO (or device) is skipped and
// reported, never opened; named explicitly, it is read once as a stream
// (issue 9 item 7).
func TestFindSkipsNonRegular(t *testing.T) {
	root := rtTree(t, "a/episode_log.jsonl", "c/episode_log.jsonl")
	fifo := filepath.Join(root, "b", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	files, skipped, err := Find([]string{root}, false)
	if err != nil || len(files) != 2 || len(skipped) != 1 {
		t.Fatalf("files %v, skipped %v, err %v", files, skipped, err)
	}
	if want := "skip " + fifo + ": named pipe, not a regular file"; skipped[0].Error() != want {
		t.Errorf("skipped %q, want %q", skipped[0], want)
	}
	if _, err := FindLogs([]string{root}, false); err == nil {
		t.Error("FindLogs: no error for the FIFO")
	}
	// Named explicitly: read as a stream, once.
	files, skipped, err = Find([]string{fifo}, false)
	if err != nil || len(skipped) != 0 || !slices.Equal(files, []string{fifo}) {
		t.Fatalf("explicit: %v %v %v", files, skipped, err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.WriteString(rtTurn("E", 1, "n", 0, "Dam", 1))
		w.Close()
	}()
	st, err := StreamFile(context.Background(), fifo, nil, Options{Hash: true}, func(ep *Episode) error {
		if ep.ID != "E" || ep.RecordedTurns() != 1 {
			t.Errorf("episode %s, %d turns", ep.ID, ep.RecordedTurns())
		}
		return nil
	})
	if err != nil || !strings.HasPrefix(st.Hash, "sha256:") {
		t.Errorf("FIFO: %v, hash %q", err, st.Hash)
	}
}

// A read blocked on a FIFO whose writer went quiet ends when ctx is
// cancelled: StreamFile returns the cause and no episode of the part read.
func TestStreamFileCancelQuietFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "episode_log.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	w := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			close(w)
			return
		}
		f.WriteString(rtTurn("E", 1, "n", 0, "Dam", 1)) // then silence, the file left open
		w <- f
	}()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	done := make(chan struct{})
	defer close(done)
	go func() {
		if f, ok := <-w; ok {
			defer f.Close()
			time.Sleep(50 * time.Millisecond) // the reader is blocked by now, or soon
			cancel(stop)
			<-done // the writer stays open: only the cancel can end the read
		}
	}()
	emitted := 0
	_, err := StreamFile(ctx, fifo, nil, Options{}, func(*Episode) error { emitted++; return nil })
	if !errors.Is(err, stop) || emitted != 0 {
		t.Errorf("err %v, %d episodes emitted", err, emitted)
	}
}

// A FIFO that no writer ever opens blocks its open(2) in the kernel; a
// cancel ends the read all the same (the open is given up).
func TestStreamFileCancelUnopenedFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "episode_log.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	go func() {
		time.Sleep(50 * time.Millisecond) // the open is blocked by now, or soon
		cancel(stop)
	}()
	_, err := StreamFile(ctx, fifo, nil, Options{}, func(*Episode) error { return nil })
	if !errors.Is(err, stop) {
		t.Errorf("err %v, want the cancel's cause", err)
	}
	// The abandoned open ends when a writer comes, and closes its file.
	if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
		w.Close()
	}
}
