package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Options control reading.
type Options struct {
	// Strict turns the first unreadable line into an error.
	Strict bool
	// MaxLineBytes bounds one line; longer lines are skipped as problems.
	// Zero means DefaultMaxLineBytes.
	MaxLineBytes int
}

// DefaultMaxLineBytes is far above the largest lines real logs carry
// (knowledge-base dumps of a few MB) while keeping memory bounded.
const DefaultMaxLineBytes = 256 << 20

// LineError is a problem with one line of input.
type LineError struct {
	File   string
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// ReadFile reads every episode in a log file (.jsonl or gzip-compressed,
// detected by content). path "-" reads standard input from stdin.
func ReadFile(path string, stdin io.Reader, opts Options) ([]*Episode, error) {
	if path == "-" {
		return Read(stdin, "-", DefaultEpisodeID("-"), opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, DefaultEpisodeID(path), opts)
}

// DefaultEpisodeID names episodes whose lines carry no episode_id:
// game_files/episodes/<id>/episode_log.jsonl → <id>.
func DefaultEpisodeID(path string) string {
	if path == "-" {
		return "stdin"
	}
	base := filepath.Base(path)
	stem := base
	for _, ext := range []string{".gz", ".jsonl", ".json", ".log"} {
		stem = strings.TrimSuffix(stem, ext)
	}
	if stem == "episode_log" || stem == "" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	if stem == "" {
		return base // ".jsonl": better a name made of the extension than none
	}
	return stem
}

// Read reads every episode from r. source names the input in problems;
// defaultID names an episode whose lines carry no episode_id.
// Unreadable lines are skipped and counted (or, with opts.Strict, returned
// as a *LineError). An I/O error ends reading; what was read is returned
// with the error.
func Read(r io.Reader, source, defaultID string, opts Options) ([]*Episode, error) {
	maxLine := opts.MaxLineBytes
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	br := getReader(r)
	defer putReader(br)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			// Nothing of the file can be read: a file error, not a line
			// problem, so no empty episode is reported for it.
			return nil, fmt.Errorf("%s: not a readable gzip stream: %w", source, err)
		}
		defer zr.Close()
		zbr := getReader(zr)
		defer putReader(zbr)
		br = zbr
	}

	c := newCollector(source, defaultID)
	lr := lineReader{r: br, max: maxLine}
	for {
		line, lineNo, tooLong, err := lr.next()
		if tooLong {
			c.lineSeen()
			if perr := c.skip(lineNo, fmt.Sprintf("line longer than %d bytes", maxLine)); perr != nil && opts.Strict {
				return c.episodes(), perr
			}
		} else if line != nil {
			if perr := c.line(line, lineNo, err == io.EOF); perr != nil && opts.Strict {
				return c.episodes(), perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			reason := err.Error()
			if errors.Is(err, io.ErrUnexpectedEOF) {
				reason = "input ends unexpectedly (truncated compressed file?)"
			}
			perr := &LineError{File: source, Line: lineNo + 1, Reason: reason}
			c.current().Diag.Skipped++
			c.current().Diag.problem(perr.Error())
			if opts.Strict {
				return c.episodes(), perr
			}
			break
		}
	}
	eps := c.episodes()
	if opts.Strict && c.dropped != nil {
		return eps, c.dropped
	}
	return eps, nil
}

// readerPool recycles 1 MiB read buffers: a corpus is thousands of files
// and zeroing a fresh buffer per file costs more than reading small ones.
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<20) }}

func getReader(r io.Reader) *bufio.Reader {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

func putReader(br *bufio.Reader) {
	br.Reset(nil) // drop the file
	readerPool.Put(br)
}

// lineReader yields lines of any length up to max without holding more
// than one line.
type lineReader struct {
	r    *bufio.Reader
	max  int
	buf  []byte
	line int
}

// next returns the next line without its line end (nil at a clean end).
// err is io.EOF with the final line when the input does not end in '\n'.
// A line is too long when its content, line end excluded, exceeds max.
func (l *lineReader) next() (line []byte, lineNo int, tooLong bool, err error) {
	l.buf = l.buf[:0]
	n := 0 // bytes of this line read so far
	for {
		chunk, e := l.r.ReadSlice('\n')
		n += len(chunk)
		if n > l.max+2 { // room for "\r\n"
			tooLong = true
		}
		if e == bufio.ErrBufferFull {
			if !tooLong {
				l.buf = append(l.buf, chunk...)
			}
			continue
		}
		if n == 0 && e != nil {
			return nil, l.line, false, e
		}
		l.line++
		if tooLong {
			return nil, l.line, true, e
		}
		line = chunk
		if len(l.buf) > 0 {
			l.buf = append(l.buf, chunk...)
			line = l.buf
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > l.max {
			return nil, l.line, true, e
		}
		return line, l.line, false, e
	}
}
