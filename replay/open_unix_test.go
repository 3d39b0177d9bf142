//go:build unix

package replay

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStreamRegularFile: a file the caller stat'ed is read as StreamFile
// reads it, episode for episode.
func TestStreamRegularFile(t *testing.T) {
	path := filepath.Join("..", "testdata", "episodes", "test_smoke", "episode_log.jsonl")
	var want, got []*Episode
	if _, err := StreamFile(context.Background(), path, nil, Options{Outputs: true}, func(ep *Episode) error {
		want = append(want, ep)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st, err := StreamRegularFile(context.Background(), path, Options{Outputs: true}, func(ep *Episode) error {
		got = append(got, ep)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got, want) || st.Bytes == 0 {
		t.Errorf("StreamRegularFile read %d episodes (%d bytes), StreamFile %d; or they differ", len(got), st.Bytes, len(want))
	}
}

// TestFdFile: the descriptor reader ends with io.EOF, names the path in
// a read error as os.File does, and refuses a second Close.
func TestFdFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(path, []byte("ab"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openRegular(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "ab" {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
	if n, err := f.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want 0, EOF", n, err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
	// A directory opens, and its read fails naming it.
	d, err := openRegular(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var pe *fs.PathError
	if _, err := d.Read(make([]byte, 4)); !errors.As(err, &pe) || pe.Op != "read" || pe.Path != filepath.Dir(path) {
		t.Errorf("Read of a directory = %v, want a read PathError naming it", err)
	}
	if _, err := openRegular(filepath.Join(path, "none")); err == nil {
		t.Error("opening a path under a file succeeded")
	}
}
