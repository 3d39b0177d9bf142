//go:build unix

package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func writeString(file string, o Options, s string) error {
	return Write(file, o, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

// TestFIFOWrittenNotReplaced: a FIFO target is written to, and is still
// the FIFO afterwards; its reader gets every byte.
func TestFIFOWrittenNotReplaced(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until a writer opens it
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	want := bytes.Repeat([]byte("a part's bytes\n"), 10000) // more than a pipe holds
	done := make(chan error, 1)
	go func() { done <- writeString(fifo, Options{}, string(want)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write never reached the FIFO's reader (the FIFO was replaced?)")
	}
	select {
	case b := <-got:
		if !bytes.Equal(b, want) {
			t.Errorf("the reader got %d bytes, want %d", len(b), len(want))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO's reader got no end of file")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO: %v, %v", fifo, st.Mode(), err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(fifo)); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestCharDeviceNotReplaced: a character device target (a null device
// made for the test, then /dev/null) is written to, never replaced by a
// regular file, and nothing is left beside it.
func TestCharDeviceNotReplaced(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	// 1,3 is Linux's null device; mknod needs privileges the test may
	// not have.
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("mknod: %v (testing /dev/null only)", err)
		if os.Geteuid() == 0 {
			t.Skip("root without mknod: /dev/null is not risked")
		}
	} else {
		if err := writeString(null, Options{}, "report"); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s was replaced: %v, %v", null, st.Mode(), err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("left behind: %v", entries)
		}
	}
	if err := writeString("/dev/null", Options{}, "report"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null was replaced: %v, %v", st.Mode(), err)
	}
}

// TestDevStdoutIsOut: /dev/stdout is Options.Out, as "-" is.
func TestDevStdoutIsOut(t *testing.T) {
	for _, name := range []string{"-", "/dev/stdout", "/dev/fd/1"} {
		var out bytes.Buffer
		if err := writeString(name, Options{Out: &out}, "report"); err != nil || out.String() != "report" {
			t.Errorf("%s: %v, %q", name, err, out.String())
		}
	}
}

// TestStaleTempsRemoved: a temporary file has a recognisable name while
// it is written; one left by a writer that died (unlocked, untouched) is
// removed by the next Create in its directory; one a live writer holds,
// or one just made, is not.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	stale := filepath.Join(dir, TempPrefix+"part-1.json-123")
	live := filepath.Join(dir, TempPrefix+"part-2.json-456")
	fresh := filepath.Join(dir, TempPrefix+"part-3.json-789")
	other := filepath.Join(dir, ".part-1.json.123") // not ours
	for _, f := range []string{stale, live, fresh, other} {
		if err := os.WriteFile(f, []byte("half a part"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f != fresh {
			os.Chtimes(f, old, old)
		}
	}
	held, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "part-4.json")
	err = Write(target, Options{}, func(w io.Writer) error {
		if m, _ := filepath.Glob(filepath.Join(dir, TempPrefix+"part-4.json-*")); len(m) != 1 {
			return errors.New("no recognisable temporary file while writing")
		}
		_, err := io.WriteString(w, "part")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]bool{stale: false, live: true, fresh: true, other: true, target: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}

// TestLongTargetName: a target whose name is near the system's limit
// still gets a temporary file.
func TestLongTargetName(t *testing.T) {
	name := filepath.Join(t.TempDir(), string(bytes.Repeat([]byte("é"), 120))+".json") // 245 bytes
	if err := writeString(name, Options{}, "x"); err != nil {
		t.Fatal(err)
	}
}
