// Package outfile writes output files whole or not at all: the bytes go
// to a temporary file beside the target, synced, then renamed over it, so
// an error, a signal or a kill never leaves a half-written report,
// Parquet file, partial file or baseline for a reader to choke on. Every
// writer of loopbreak goes through it. It imports nothing of loopbreak.
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Options say how Create writes.
type Options struct {
	// Out receives the output when the file is "" or "-", at Commit.
	Out io.Writer
	// Pattern is the temporary file's name beside the target, as
	// os.CreateTemp takes it; "" for "."+base+".*".
	Pattern string
	// Mode is the target's permissions once in place; 0 for 0644.
	Mode os.FileMode
	// MkdirAll creates the target's directory if it is missing.
	MkdirAll bool
	// Raw returns the system's errors as they are, instead of
	// "writing FILE: …" (the baseline's callers name it themselves).
	Raw bool
	// BeforeRename, when set, is called once the bytes are synced, just
	// before the rename: an error (an interruption) keeps the old file.
	BeforeRename func() error
}

// File is an output written through a temporary file and put in place
// whole by Commit: renamed to the target, or, for standard output, copied
// to Options.Out.
type File struct {
	tmp      *os.File
	held     *bytes.Buffer // instead of tmp, when none could be made
	file     string
	out      io.Writer
	raw      bool
	unlinked bool // tmp has no name left
	before   func() error
}

// Create starts the output to file ("" or "-": to o.Out); errors of its
// own name the file.
func Create(file string, o Options) (*File, error) {
	if file == "-" {
		file = ""
	}
	dir, pattern := os.TempDir(), "loopbreak-output-*"
	if file != "" {
		dir, pattern = filepath.Dir(file), "."+filepath.Base(file)+".*"
		if o.Pattern != "" {
			pattern = o.Pattern
		}
		if o.MkdirAll {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, (&File{file: file, raw: o.Raw}).named(err)
			}
		}
	}
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		if file == "" { // no temporary directory: held in memory
			return &File{out: o.Out, held: &bytes.Buffer{}}, nil
		}
		if o.Raw {
			return nil, err
		}
		return nil, fmt.Errorf("writing %s: %w", file, errors.Unwrap(err)) // CreateTemp's error names the temporary file
	}
	f := &File{tmp: tmp, file: file, out: o.Out, raw: o.Raw, before: o.BeforeRename}
	if file == "" {
		// Gone at once where the system allows it: a SIGPIPE that
		// kills the copy to out leaves nothing behind.
		f.unlinked = os.Remove(tmp.Name()) == nil
		return f, nil
	}
	// CreateTemp makes 0600; an output is read by others (a part by the
	// merging job's user, a report by a web server).
	mode := o.Mode
	if mode == 0 {
		mode = 0o644
	}
	if err := tmp.Chmod(mode); err != nil {
		f.Abort()
		return nil, f.named(err)
	}
	return f, nil
}

// Write writes to the temporary file (or memory) until Commit.
func (f *File) Write(p []byte) (int, error) {
	if f.held != nil {
		return f.held.Write(p)
	}
	if f.tmp == nil {
		return 0, errors.New("outfile: write after commit or abort")
	}
	return f.tmp.Write(p)
}

func (f *File) remove(tmp *os.File) {
	if !f.unlinked {
		os.Remove(tmp.Name())
	}
}

// named says which file an error is about.
func (f *File) named(err error) error {
	if f.file == "" || f.raw {
		return err
	}
	return fmt.Errorf("writing %s: %w", f.file, err)
}

// Named is an error of the caller's while writing to f, named as f's own.
func (f *File) Named(err error) error { return f.named(err) }

// Commit puts the output in place: synced, then renamed over the target
// (or copied to standard output). Once it returns, nothing is left to
// remove.
func (f *File) Commit() error {
	if f.held != nil {
		_, err := f.out.Write(f.held.Bytes())
		f.held = nil
		return err
	}
	tmp := f.tmp
	if tmp == nil {
		return errors.New("outfile: commit after commit or abort")
	}
	f.tmp = nil
	defer f.remove(tmp) // once renamed, nothing to remove
	if f.file == "" {
		defer tmp.Close()
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		_, err := io.Copy(f.out, tmp)
		return err
	}
	if err := tmp.Sync(); err != nil { // the rename must not publish unwritten bytes
		tmp.Close()
		return f.named(err)
	}
	if err := tmp.Close(); err != nil {
		return f.named(err)
	}
	if f.before != nil {
		if err := f.before(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), f.file); err != nil {
		return f.named(err)
	}
	return nil
}

// Abort removes the temporary file, unless committed; it may be deferred
// after Create and called any number of times.
func (f *File) Abort() {
	f.held = nil
	if f.tmp != nil {
		f.tmp.Close()
		f.remove(f.tmp)
		f.tmp = nil
	}
}

// Write writes file whole through fill, or not at all; errors of its own
// name the file, fill's are returned as they are.
func Write(file string, o Options, fill func(io.Writer) error) error {
	f, err := Create(file, o)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}
