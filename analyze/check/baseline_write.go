package check

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreak/loopbreak/analyze/outfile"
)

// TempPattern names the temporary files WriteBaseline writes next to the
// baseline before renaming one into place.
const TempPattern = ".loopbreak-baseline-*"

// ReadOnlyError is returned by WriteBaseline for a baseline file without
// write permission: someone made it read-only on purpose.
type ReadOnlyError struct{ File string }

func (e *ReadOnlyError) Error() string {
	return e.File + " is read-only: not overwriting it (make it writable to update it)"
}

// WriteBaseline writes b's canonical bytes to file, through a temporary
// file renamed into place, creating the directory if needed. It returns
// false, writing nothing, when the file already holds exactly these bytes.
// A rewrite keeps the file's mode; a read-only file is refused. When ctx
// is done before the rename, the temporary file is removed and the old
// baseline stays.
func WriteBaseline(ctx context.Context, file string, b *Baseline) (bool, error) {
	data := b.Encode()
	return writeBaseline(ctx, file, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeBaseline is WriteBaseline of the bytes write writes, called once
// to compare them with the file's (streaming: neither is held), then, if
// they differ, once more into the temporary file.
func writeBaseline(ctx context.Context, file string, write func(io.Writer) error) (bool, error) {
	if same, err := sameAsFile(file, write); err != nil {
		return false, err
	} else if same {
		return false, nil // up to date, read-only or not
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(file); err == nil {
		if st.Mode().Perm()&0o200 == 0 {
			return false, &ReadOnlyError{file}
		}
		mode = st.Mode().Perm()
	}
	f, err := outfile.Create(file, outfile.Options{Pattern: TempPattern, Mode: mode, MkdirAll: true, Raw: true,
		BeforeRename: func() error {
			if ctx.Err() != nil {
				return interrupted(ctx)
			}
			return nil
		}})
	if err != nil {
		return false, err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := write(bw); err != nil {
		return false, err
	}
	if err := bw.Flush(); err != nil {
		return false, err
	}
	if err := f.Commit(); err != nil {
		return false, err
	}
	return true, nil
}

// errDiffers stops a comparison at the first byte that differs.
var errDiffers = errors.New("differs")

// sameAsFile says whether file holds exactly the bytes write writes; a
// file that cannot be read is not the same. Only write's own errors are
// returned.
func sameAsFile(file string, write func(io.Writer) error) (bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	c := &compareWriter{r: bufio.NewReaderSize(f, 64<<10)}
	switch err := write(c); {
	case errors.Is(err, errDiffers) || c.differs:
		return false, nil
	case err != nil:
		return false, err
	}
	_, err = c.r.ReadByte() // the file must end here too
	return err == io.EOF, nil
}

// compareWriter compares what is written with what r reads.
type compareWriter struct {
	r       *bufio.Reader
	buf     []byte
	differs bool
}

func (c *compareWriter) Write(p []byte) (int, error) {
	if c.differs {
		return 0, errDiffers
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	b := c.buf[:len(p)]
	if _, err := io.ReadFull(c.r, b); err != nil || !bytes.Equal(b, p) {
		c.differs = true
		return 0, errDiffers
	}
	return len(p), nil
}

// removeStaleTemps removes temporary baselines older than age left in
// dir by a writer killed before it could clean up (kill -9, a crash).
// With the directory's lock held no live writer owns one, and age is 0.
func removeStaleTemps(dir string, age time.Duration) {
	removeStaleTempsIn(dir, TempPattern, age)
}

// removeStaleTempsIn removes the files of pattern in dir older than age.
func removeStaleTempsIn(dir, pattern string, age time.Duration) {
	olds, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, f := range olds {
		if st, err := os.Stat(f); err == nil && time.Since(st.ModTime()) >= age {
			os.Remove(f)
		}
	}
}
