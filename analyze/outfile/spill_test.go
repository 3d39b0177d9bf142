package outfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestSpill: bytes written past the bound go to a temporary file, and
// WriteTo gives back every byte in order, again if asked; a small spill
// never makes a file; Reset removes it and the spill is used again.
func TestSpill(t *testing.T) {
	dir := t.TempDir()
	spillDir = func() string { return dir }
	defer func() { spillDir = os.TempDir }()
	for _, c := range []struct {
		bound, writes int
		spilled       bool
	}{{1 << 10, 10, false}, {1 << 10, 1000, true}, {0, 1000, false}, {1, 3, true}} {
		s := &Spill{Bound: c.bound}
		for round := range 2 {
			var want bytes.Buffer
			for i := range c.writes {
				line := fmt.Sprintf(`{"turn":%d,"rule":"r%d"},`, i, round)
				want.WriteString(line)
				if n, err := s.Write([]byte(line)); err != nil || n != len(line) {
					t.Fatalf("write: %d, %v", n, err)
				}
			}
			if s.Spilled() != c.spilled || s.Len() != int64(want.Len()) {
				t.Errorf("bound %d, %d writes: spilled %v (want %v), len %d (want %d)", c.bound, c.writes, s.Spilled(), c.spilled, s.Len(), want.Len())
			}
			for range 2 {
				var got bytes.Buffer
				if n, err := s.WriteTo(&got); err != nil || n != int64(want.Len()) || !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("bound %d, %d writes: WriteTo %d bytes, %v; equal %v", c.bound, c.writes, n, err, bytes.Equal(got.Bytes(), want.Bytes()))
				}
			}
			r, err := s.Reader()
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("bound %d, %d writes: Reader: %d bytes, %v", c.bound, c.writes, len(got), err)
			}
			if canUnlinkOpen {
				// Unlinked at once: nothing left whatever ends the process.
				if m, _ := filepath.Glob(filepath.Join(dir, SpillPrefix+"*")); len(m) != 0 {
					t.Errorf("a spill's file has a name while it lives: %v", m)
				}
			}
			s.Reset(1 << 10)
			if s.Len() != 0 || s.Spilled() {
				t.Fatalf("after Reset: len %d, spilled %v", s.Len(), s.Spilled())
			}
		}
		s.Close()
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("files left: %v", m)
	}
}

// TestSpillUnwritableDir: a spill that cannot make its file says so on
// the write that needed it, and on every later one.
func TestSpillUnwritableDir(t *testing.T) {
	spillDir = func() string { return filepath.Join(t.TempDir(), "missing") }
	defer func() { spillDir = os.TempDir }()
	s := &Spill{Bound: 4}
	if _, err := s.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte("defg")); err == nil {
		t.Fatal("no error past the bound without a directory")
	}
	if _, err := s.Write([]byte("h")); err == nil || s.Err() == nil {
		t.Fatal("a later write forgot the error")
	}
	if _, err := s.WriteTo(&bytes.Buffer{}); err == nil {
		t.Fatal("WriteTo of a failed spill succeeded")
	}
}

// TestSpillOpen: Open makes the file at once, so what is written next
// goes to it and reads back in order; without a directory Open says so
// before anything is written.
func TestSpillOpen(t *testing.T) {
	dir := t.TempDir()
	spillDir = func() string { return dir }
	defer func() { spillDir = os.TempDir }()
	s := &Spill{}
	if err := s.Open(); err != nil || !s.Spilled() {
		t.Fatalf("open: %v, spilled %v", err, s.Spilled())
	}
	if err := s.Open(); err != nil {
		t.Fatalf("open again: %v", err)
	}
	if _, err := s.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(r); err != nil || string(got) != "abc" || len(s.mem) != 0 {
		t.Errorf("read back %q, %v; %d bytes in memory", got, err, len(s.mem))
	}
	s.Close()
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("files left: %v", m)
	}
	spillDir = func() string { return filepath.Join(dir, "missing") }
	if err := (&Spill{}).Open(); err == nil {
		t.Error("opened without a directory")
	}
}
