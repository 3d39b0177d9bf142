package outfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// An error never names the temporary file: the user named the target, and
// .loopbreak-tmp-… means nothing to them. A directory in the target's
// place is refused before anything is written; an error writing, syncing
// or renaming names the target (raw: as the path of a *fs.PathError).
func TestErrorsNameTheTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.html")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []bool{false, true} {
		_, err := Create(target, Options{Raw: raw})
		if err == nil || !strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), "is a directory") || strings.Contains(err.Error(), TempPrefix) {
			t.Errorf("raw %v: a directory as the target: %v", raw, err)
		}
	}

	for _, raw := range []bool{false, true} {
		file := filepath.Join(dir, "x.json")
		f, err := Create(file, Options{Raw: raw, Pattern: ".loopbreak-baseline-*"})
		if err != nil {
			t.Fatal(err)
		}
		f.tmp.Close() // every write, sync and rename now fails
		_, werr := f.Write([]byte("x"))
		cerr := f.Commit()
		for _, err := range []error{werr, cerr, f.Named(werr)} {
			if err == nil || !strings.Contains(err.Error(), file) || strings.Contains(err.Error(), ".loopbreak-") || strings.Count(err.Error(), file) != 1 {
				t.Errorf("raw %v: %v", raw, err)
			}
		}
		var pe *fs.PathError
		if raw && (!errors.As(werr, &pe) || pe.Path != file) {
			t.Errorf("raw: %#v is not a *fs.PathError of %s", werr, file)
		}
		f.Abort()
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".loopbreak-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
