package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteWholeOrNothing: a file is in place with its bytes and mode
// once Write returns; a failing fill leaves the old file and no
// temporary file.
func TestWriteWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out.json")
	if err := Write(file, Options{}, func(w io.Writer) error {
		_, err := io.WriteString(w, "first")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(file, Options{}, func(w io.Writer) error {
		io.WriteString(w, "second, half")
		return boom
	}); err != boom {
		t.Fatalf("fill's error: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "first" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestStdoutStaged: "-" is copied to Out at Commit, and only then; with
// no temporary directory it is held in memory.
func TestStdoutStaged(t *testing.T) {
	for _, tmp := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		t.Setenv("TMPDIR", tmp)
		var out bytes.Buffer
		f, err := Create("-", Options{Out: &out})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, "data")
		if out.Len() != 0 {
			t.Fatalf("TMPDIR=%s: written before Commit", tmp)
		}
		if err := f.Commit(); err != nil || out.String() != "data" {
			t.Errorf("TMPDIR=%s: %v, %q", tmp, err, out.String())
		}
		f.Abort()
	}
}

// TestBeforeRename: an error of BeforeRename keeps the old file.
func TestBeforeRename(t *testing.T) {
	file := filepath.Join(t.TempDir(), "b.json")
	os.WriteFile(file, []byte("old"), 0o644)
	stop := errors.New("interrupted")
	err := Write(file, Options{BeforeRename: func() error { return stop }}, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	})
	if err != stop {
		t.Fatalf("%v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "old" {
		t.Errorf("%q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(file)); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestMissingDirectoryNamed: an error of its own names the target.
func TestMissingDirectoryNamed(t *testing.T) {
	file := filepath.Join(t.TempDir(), "no", "part.json")
	_, err := Create(file, Options{})
	if err == nil || err.Error() != "writing "+file+": no such file or directory" {
		t.Errorf("%v", err)
	}
}
