// Package outfile writes output files whole or not at all: the bytes go
// to a temporary file beside the target, synced, then renamed over it, so
// an error, a signal or a kill never leaves a half-written report,
// Parquet file, partial file or baseline for a reader to choke on. Every
// writer of loopbreak goes through it. It imports nothing of loopbreak.
//
// What cannot be replaced is written to, never replaced: standard output
// ("-", /dev/stdout), a FIFO, a device, anything under /dev or /proc. Its
// bytes are staged in an unlinked temporary file and copied at Commit, so
// a failed run writes nothing there either.
//
// Temporary files are named .loopbreak-tmp-<target>-<random> and locked
// (flock, on Unix) by their writer; a later Create in the same directory
// removes those whose writer is gone (killed by kill -9).
//
// A Spill (spill.go) holds bytes to be written later, in memory up to a
// bound and in an unlinked temporary file past it: an episode's firings
// until its output's turn comes.
package outfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
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
	direct   string // a target written to at Commit, not replaced
}

// TempPrefix starts the name of every temporary file Create makes beside
// its target (unless Options.Pattern says otherwise).
const TempPrefix = ".loopbreak-tmp-"

// Create starts the output to file ("" or "-": to o.Out); errors of its
// own name the file.
func Create(file string, o Options) (*File, error) {
	if file == "-" || (o.Out != nil && isStdout(file)) {
		file = ""
	}
	if file != "" && isDirect(file) {
		return createStaged(o.Out, file), nil
	}
	if file == "" {
		return createStaged(o.Out, ""), nil
	}
	if st, err := os.Stat(file); err == nil && st.IsDir() {
		// Refused now, not at the rename after all the work.
		return nil, (&File{file: file, raw: o.Raw}).named(&fs.PathError{Op: "open", Path: file, Err: errIsDir})
	}
	dir := filepath.Dir(file)
	pattern := TempPrefix + shortBase(filepath.Base(file)) + "-*"
	if o.Pattern != "" {
		pattern = o.Pattern
	}
	if o.MkdirAll {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, (&File{file: file, raw: o.Raw}).named(err)
		}
	}
	RemoveStale(dir)
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, (&File{file: file, raw: o.Raw}).named(err) // CreateTemp's error names the temporary file
	}
	lock(tmp) // held until closed: a live writer's file is not stale
	f := &File{tmp: tmp, file: file, out: o.Out, raw: o.Raw, before: o.BeforeRename}
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

// createStaged starts an output copied at Commit to out or, when direct
// is named, to that file opened then: staged in a temporary file unlinked
// at once where the system allows it (a SIGPIPE that kills the copy
// leaves nothing behind), or held in memory without a temporary
// directory.
func createStaged(out io.Writer, direct string) *File {
	tmp, err := os.CreateTemp(os.TempDir(), "loopbreak-output-*")
	if err != nil {
		return &File{out: out, direct: direct, held: &bytes.Buffer{}}
	}
	f := &File{tmp: tmp, out: out, direct: direct}
	f.unlinked = os.Remove(tmp.Name()) == nil
	return f
}

// isStdout says whether file names standard output.
func isStdout(file string) bool {
	switch filepath.Clean(file) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

// isDirect says whether file must be written to, never replaced: a FIFO,
// a device, a socket, or anything under /dev or /proc (/dev/stderr is a
// link to whatever standard error is, a regular file included).
func isDirect(file string) bool {
	if abs, err := filepath.Abs(file); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
		return true
	}
	st, err := os.Stat(file)
	return err == nil && !st.Mode().IsRegular() && !st.IsDir()
}

// shortBase keeps a temporary file's name within the system's limit
// (255 bytes), whole UTF-8 characters.
func shortBase(base string) string {
	const max = 100
	if len(base) <= max {
		return base
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(base[cut]) {
		cut--
	}
	return base[:cut]
}

// staleAge is how long a temporary file must have been left unwritten
// before it can be stale: a writer locks its file just after creating it.
const staleAge = 10 * time.Second

// RemoveStale removes from dir the temporary files of Create whose writer
// is gone: unlocked (on Unix; elsewhere, untouched for a day) and not
// written to for staleAge.
func RemoveStale(dir string) { removeStale(dir, TempPrefix) }

// Write writes to the temporary file (or memory) until Commit.
func (f *File) Write(p []byte) (int, error) {
	if f.held != nil {
		return f.held.Write(p)
	}
	if f.tmp == nil {
		return 0, errors.New("outfile: write after commit or abort")
	}
	n, err := f.tmp.Write(p)
	if err != nil {
		err = f.named(err)
	}
	return n, err
}

func (f *File) remove(tmp *os.File) {
	if !f.unlinked {
		os.Remove(tmp.Name())
	}
}

// named says which file an error is about: the target, never the
// temporary file, whose name an error of the system's about it holds
// (write, sync, rename): that name means nothing to the user. Raw, it is
// a *fs.PathError of the target; otherwise "writing FILE: reason", once
// however often it is named.
func (f *File) named(err error) error {
	name := f.file
	if f.direct != "" {
		name = f.direct
	}
	if name == "" || err == nil {
		return err
	}
	var ne *namedError
	if errors.As(err, &ne) && ne.file == name {
		return err
	}
	op, reason := "", err
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		op, reason = pe.Op, pe.Err
	case errors.As(err, &le):
		op, reason = le.Op, le.Err
	}
	if f.raw {
		if op == "" {
			return err
		}
		return &fs.PathError{Op: op, Path: name, Err: reason}
	}
	return &namedError{file: name, err: reason}
}

// namedError is an error writing file, as named gives it.
type namedError struct {
	file string
	err  error
}

func (e *namedError) Error() string { return "writing " + e.file + ": " + e.err.Error() }
func (e *namedError) Unwrap() error { return e.err }

// errIsDir is the reason a directory cannot be an output.
var errIsDir = errors.New("is a directory")

// Named is an error of the caller's while writing to f, named as f's own.
func (f *File) Named(err error) error { return f.named(err) }

// Commit puts the output in place: synced, then renamed over the target
// (or copied to standard output). Once it returns, nothing is left to
// remove.
func (f *File) Commit() error {
	if f.held != nil {
		held := f.held
		f.held = nil
		return f.copyOut(held)
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
		return f.copyOut(tmp)
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

// copyOut copies a staged output to standard output or, opened now, to
// its direct target (appended to: a file behind /dev/fd/N keeps what its
// shell's redirection put there).
func (f *File) copyOut(r io.Reader) error {
	if f.direct == "" {
		_, err := io.Copy(f.out, r)
		return err
	}
	d, err := os.OpenFile(f.direct, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return f.named(unwrapPath(err))
	}
	// Plain writer and reader: the error says which side failed.
	_, err = io.Copy(struct{ io.Writer }{d}, struct{ io.Reader }{r})
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return f.named(unwrapPath(err))
	}
	return nil
}

// unwrapPath drops an *os.PathError's operation and path, for a caller
// that names the file itself.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
