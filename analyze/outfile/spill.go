package outfile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"
)

// A Spill holds bytes written now and read back once, in order, later: an
// episode's firings, encoded as the replay produces them and written out
// whole when the episode's turn comes. Its first Bound bytes stay in
// memory; past them everything goes to a temporary file, so one episode
// of millions of firings costs the bound, not its output's size.
//
// The temporary file is named SpillPrefix+random in os.TempDir(), locked
// (flock, on Unix) while it lives and unlinked at once where the system
// allows it (Unix), so nothing is left behind whatever ends the process;
// where it cannot be unlinked, Close removes it and a later spill sweeps
// those whose writer is gone, as Create does beside its targets.
type Spill struct {
	// Bound is how many bytes are held in memory before the spill moves
	// to a file; 0 means DefaultSpillBound.
	Bound int

	mem []byte
	f   *os.File
	w   *bufio.Writer
	n   int64
	err error
}

// SpillPrefix starts the name of a spill's temporary file.
const SpillPrefix = "loopbreak-spill-"

// DefaultSpillBound is a spill's memory when Bound is 0.
const DefaultSpillBound = 8 << 20

// spillDir is where spills' files go; a variable so tests can look.
var spillDir = os.TempDir

// Write appends p. Once a write to the temporary file fails, every later
// write returns that error.
func (s *Spill) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	bound := s.Bound
	if bound <= 0 {
		bound = DefaultSpillBound
	}
	if s.f == nil && len(s.mem)+len(p) <= bound {
		s.mem = append(s.mem, p...)
		s.n += int64(len(p))
		return len(p), nil
	}
	if s.f == nil {
		if err := s.open(); err != nil {
			s.err = err
			return 0, err
		}
	}
	n, err := s.w.Write(p)
	s.n += int64(n)
	if err != nil {
		s.err = err
	}
	return n, err
}

// open moves the spill to a temporary file (what is in memory stays
// there: it is read back first).
func (s *Spill) open() error {
	dir := spillDir()
	if !canUnlinkOpen {
		removeStale(dir, SpillPrefix)
	}
	f, err := os.CreateTemp(dir, SpillPrefix+"*")
	if err != nil {
		return err
	}
	lock(f)
	if canUnlinkOpen {
		os.Remove(f.Name())
	}
	s.f, s.w = f, bufio.NewWriterSize(f, 256<<10)
	return nil
}

// Open moves the spill to its temporary file now, before anything is
// written past the bound: a writer that must know the file can be made
// (a spool of its whole input, replay) asks here, not at a later Write.
func (s *Spill) Open() error {
	if s.f != nil {
		return nil
	}
	return s.open()
}

// Len is how many bytes were written.
func (s *Spill) Len() int64 { return s.n }

// Spilled says whether the spill went to a temporary file.
func (s *Spill) Spilled() bool { return s.f != nil }

// Err is the first write error, if any.
func (s *Spill) Err() error { return s.err }

// WriteTo writes everything written so far to w, in order: what is held
// in memory, then the temporary file's bytes. It reads the file from its
// start, so it can be called again; writes may not come in between.
func (s *Spill) WriteTo(w io.Writer) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := w.Write(s.mem)
	total := int64(n)
	if err != nil || s.f == nil {
		return total, err
	}
	if err := s.w.Flush(); err != nil {
		s.err = err
		return total, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return total, err
	}
	// A plain reader: w's ReadFrom (a file's copy_file_range, a
	// bufio.Writer's) reads from the file's offset to its end.
	m, err := io.Copy(w, struct{ io.Reader }{s.f})
	total += m
	if err == nil {
		_, err = s.f.Seek(0, io.SeekEnd)
	}
	return total, err
}

// Reader reads everything written so far, in order: what is held in
// memory, then the temporary file's bytes. Writes may not come in
// between.
func (s *Spill) Reader() (io.Reader, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.f == nil {
		return bytes.NewReader(s.mem), nil
	}
	if err := s.w.Flush(); err != nil {
		s.err = err
		return nil, err
	}
	return io.MultiReader(bytes.NewReader(s.mem), io.NewSectionReader(s.f, 0, s.n-int64(len(s.mem)))), nil
}

// Reset empties the spill for reuse, keeping at most keep bytes of its
// memory, and removes its temporary file.
func (s *Spill) Reset(keep int) {
	s.Close()
	if cap(s.mem) > keep {
		s.mem = nil
	}
	s.mem, s.n, s.err = s.mem[:0], 0, nil
}

// Close removes the temporary file, if any; the spill may be written
// again (into memory first).
func (s *Spill) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if !canUnlinkOpen {
		if rerr := os.Remove(s.f.Name()); err == nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	s.f, s.w = nil, nil
	return err
}

// removeStale removes from dir the files named prefix* whose writer is
// gone: unlocked (on Unix; elsewhere, untouched for a day) and not
// written to for staleAge.
func removeStale(dir, prefix string) {
	olds, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	for _, name := range olds {
		st, err := os.Lstat(name)
		if err != nil || !st.Mode().IsRegular() || time.Since(st.ModTime()) < staleAge {
			continue
		}
		removeIfUnlocked(name, st)
	}
}
