package replay

// Reading a log into episodes: options, errors, files and the read loop.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options control reading.
type Options struct {
	// Strict turns the first unreadable line into an error.
	Strict bool
	// MaxLineBytes bounds one line; longer lines are skipped as problems.
	// Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// Hash computes Stats.Hash while reading, so a caller that needs the
	// file's hash (check's baseline) reads it once, also from a pipe.
	Hash bool

	// Format is the log format: FormatZorkGPT ("" too), FormatSteps,
	// FormatAttempts, or FormatAuto to detect it from the first records
	// (detect.go). Preset and Fields map a steps log (steps.go); either
	// makes auto read steps.
	Format string
	Preset string
	Fields map[string]string
	// Outputs keeps each ZorkGPT turn's output (the game's reply,
	// zork_response) in Episode.Outputs, for the output rules (RULES.md
	// §8). Off, the reader skips those lines unread.
	Outputs bool
	// Stepper, when set, is given each steps log's episode as its
	// reading starts, and what it returns replays the turns as they are
	// read (TurnStepper): the outputs are then not kept, only the turn
	// table (Episode.Stepped). Logs whose reader records a history
	// besides the steps (OpenHands) are read whole first, as without it.
	Stepper func(ep *Episode) TurnStepper

	// rereadable: the input is a regular file readFile can read again
	// (errRereadWhole), or one whose bytes are spooled (readSpooled).
	rereadable bool
	// spool copies a pipe's bytes for a second read; dropped once the
	// input's reader will not replay as read (spool.go).
	spool *spoolReader
}

// DefaultMaxLineBytes is far above the largest lines real logs carry
// (knowledge-base dumps of a few MB). Memory does not depend on it: a long
// line streams by (longline.go).
const DefaultMaxLineBytes = 256 << 20

// LineError is a problem with one line of input.
type LineError struct {
	File   string
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// ErrNoEvents matches (errors.Is) a NoEventsError.
var ErrNoEvents = errors.New("no loop-break events")

// NoEventsError is a file without a single readable loop-break event: an
// empty file, another program's log, or one whose every relevant line is
// unreadable. It is a file error, not an episode of 0 turns, so a wrong
// path or a broken recording is never mistaken for an empty episode.
type NoEventsError struct {
	File    string
	What    string // "" for ZorkGPT logs; "steps" or "attempts"
	Lines   int    // non-blank lines read
	Skipped int    // of which unreadable
	First   string // the first unreadable line's problem, "file:line: reason"
}

func (e *NoEventsError) Error() string {
	msg := "no loop-break events in " + e.File
	if e.What != "" {
		msg = "no " + e.What + " in " + e.File
	}
	switch {
	case e.Lines == 0:
		return msg + " (empty)"
	case e.Skipped > 0:
		return fmt.Sprintf("%s (%s, %d unreadable; first: %s)", msg, nLines(e.Lines), e.Skipped, e.First)
	}
	if e.Stepless() {
		return fmt.Sprintf("%s: a session without a step (%s, each read)", msg, nLines(e.Lines))
	}
	if e.What != "" {
		return fmt.Sprintf("%s (%s, none a readable %s record)", msg, nLines(e.Lines), strings.TrimSuffix(e.What, "s"))
	}
	return fmt.Sprintf("%s (%s, none a ZorkGPT event the rules use)", msg, nLines(e.Lines))
}

func nLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// Stepless reports a session of an agent's format that has no step though
// every line of it was read: a Claude Code session of local commands only,
// a Codex rollout ended by an API error before any call, an Aider history
// started and quit. Nothing in it is unreadable, so Strict does not refuse
// it (IsStepless); it is still no episode.
func (e *NoEventsError) Stepless() bool {
	return e.What == "steps" && e.Lines > 0 && e.Skipped == 0
}

// IsStepless reports whether err is a NoEventsError of a Stepless session.
func IsStepless(err error) bool {
	var ne *NoEventsError
	return errors.As(err, &ne) && ne.Stepless()
}

// Is makes errors.Is(err, ErrNoEvents) true.
func (e *NoEventsError) Is(target error) bool { return target == ErrNoEvents }

// Stats is what a read learned about its input as a whole.
type Stats struct {
	// Hash is "sha256:<hex>" of the input's bytes as stored (before any
	// gzip decoding), computed while reading when Options.Hash is set and
	// the input was read to its end; "" otherwise.
	Hash  string
	Bytes int64 // bytes as stored read
}

// ReadFile reads every episode in a log file (.jsonl, gzip- or
// zstd-compressed, detected by content). path "-" reads standard input from stdin.
func ReadFile(path string, stdin io.Reader, opts Options) ([]*Episode, error) {
	eps, _, err := ReadFileStats(context.Background(), path, stdin, opts)
	return eps, err
}

// ReadFileStats is ReadFile with what was learned about the file as a
// whole (its hash with opts.Hash); ctx stops it as it stops StreamFile.
func ReadFileStats(ctx context.Context, path string, stdin io.Reader, opts Options) ([]*Episode, Stats, error) {
	var eps []*Episode
	st, err := readFile(ctx, path, stdin, opts, false, false, func(ep *Episode) error {
		eps = append(eps, ep)
		return nil
	})
	return eps, st, err
}

// StreamFile is ReadFile for inputs of any number of episodes: emit gets
// each episode as soon as it is finished (see Stream), so memory does not
// grow with the file. A non-nil error from emit stops reading and is
// returned. Once ctx is done the read stops, between lines and between
// reads, and returns ctx's cause; a read blocked on a FIFO whose writer is
// quiet is ended by closing the file.
func StreamFile(ctx context.Context, path string, stdin io.Reader, opts Options, emit func(*Episode) error) (Stats, error) {
	return readFile(ctx, path, stdin, opts, true, false, emit)
}

// StreamRegularFile is StreamFile for a path the caller has just stat'ed
// and found a regular file (a directory walk's dedupe does, for every log
// it keeps): it is opened without a stat of its own, one system call of a
// dozen a file on a directory of small episode files.
func StreamRegularFile(ctx context.Context, path string, opts Options, emit func(*Episode) error) (Stats, error) {
	return readFile(ctx, path, nil, opts, true, true, emit)
}

func readFile(ctx context.Context, path string, stdin io.Reader, opts Options, early, regular bool, emit func(*Episode) error) (Stats, error) {
	if path == "-" {
		return readSpooled(ctx, stdin, "-", DefaultEpisodeID("-"), opts, early, emit)
	}
	fifo := false
	if !regular { // else the caller's stat said so (StreamRegularFile)
		fi, err := os.Stat(path)
		if err == nil && fi.IsDir() {
			// An OpenHands event store: its event files, as one session
			// named by its conversation (openhands_store.go).
			sr, err := openEventStore(path)
			if err != nil {
				return Stats{}, err
			}
			defer sr.Close()
			return read(ctx, sr, path, filepath.Base(filepath.Dir(path)), opts, early, emit)
		}
		regular = err == nil && fi.Mode().IsRegular()
		fifo = err == nil && fi.Mode()&fs.ModeNamedPipe != 0
	}
	if regular {
		// A regular file's reads never block on a writer: nothing to
		// wake, and it is opened without the poller (openRegular).
		f, err := openRegular(path)
		if err != nil {
			return Stats{}, err
		}
		defer f.Close()
		st, err := read(ctx, &endOnce{r: f}, path, DefaultEpisodeID(path), withRereadable(opts), early, emit)
		if errors.Is(err, errRereadWhole) {
			// A replay as read went wrong before anything was emitted
			// (gemini_stream.go): the file again, read whole.
			f2, oerr := openRegular(path)
			if oerr != nil {
				return Stats{}, oerr
			}
			defer f2.Close()
			opts.Stepper = nil
			st, err = read(ctx, &endOnce{r: f2}, path, DefaultEpisodeID(path), opts, early, emit)
		}
		if ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		return st, err
	}
	f, err := openCtx(ctx, path, fifo)
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	// Pipes and FIFOs are read through the runtime poller, so closing
	// the file wakes a Read blocked on a silent writer.
	defer context.AfterFunc(ctx, func() { f.Close() })()
	st, err := readSpooled(ctx, f, path, DefaultEpisodeID(path), opts, early, emit)
	if ctx.Err() != nil {
		return st, context.Cause(ctx) // not the "file already closed" the Close caused
	}
	return st, err
}

// withRereadable is opts for a regular file, which readFile can read
// again.
func withRereadable(opts Options) Options {
	opts.rereadable = true
	return opts
}

// endOnce reads r until its first io.EOF, then reports io.EOF without
// reading again: the format's detection and the line reader each ran
// into a regular file's end, a system call each.
type endOnce struct {
	r   io.Reader
	end bool
}

func (e *endOnce) Read(p []byte) (int, error) {
	if e.end {
		return 0, io.EOF
	}
	n, err := e.r.Read(p)
	e.end = err == io.EOF
	return n, err
}

// openCtx opens path for reading. Opening a FIFO (fifo: the path's stat
// says so) blocks in the kernel until some writer opens it, which no
// signal ends: a FIFO is opened on its own goroutine, and when ctx is done
// first the open is given up (the goroutine closes the file if a writer
// ever comes), so Ctrl-C ends `loopbreak analyze fifo` as it ends `cat
// fifo`.
func openCtx(ctx context.Context, path string, fifo bool) (*os.File, error) {
	if !fifo {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, context.Cause(ctx)
	}
}

// DefaultEpisodeID names episodes whose lines carry no episode_id:
// game_files/episodes/<id>/episode_log.jsonl → <id>.
func DefaultEpisodeID(path string) string {
	if path == "-" {
		return "stdin"
	}
	base := filepath.Base(path)
	stem := base
	for _, ext := range []string{".gz", ".zst", ".jsonl", ".json", ".log"} {
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
// with the error. An input without any loop-break event is a
// *NoEventsError.
func Read(r io.Reader, source, defaultID string, opts Options) ([]*Episode, error) {
	var eps []*Episode
	_, err := read(context.Background(), r, source, defaultID, opts, false, func(ep *Episode) error {
		eps = append(eps, ep)
		return nil
	})
	return eps, err
}

// Stream reads r as Read does and calls emit with each episode once it is
// finished: when StreamOpenEpisodes other episodes have started since its
// last line (the file moved on), or at the end of the input. Episodes come
// out in the order they finish, which is the file's order unless episodes
// interleave. An episode whose id comes back after it was finished is read
// as a second episode of that id. A non-nil error from emit stops reading
// and is returned.
func Stream(ctx context.Context, r io.Reader, source, defaultID string, opts Options, emit func(*Episode) error) (Stats, error) {
	return read(ctx, r, source, defaultID, opts, true, emit)
}

// StreamOpenEpisodes is how many episodes Stream keeps open besides the
// current one: interleaved writers (a restarted run appending while the
// old one flushes) stay one episode each, while a file of a million
// episodes holds a handful at a time.
const StreamOpenEpisodes = 8

func read(ctx context.Context, r io.Reader, source, defaultID string, opts Options, early bool, emit func(*Episode) error) (st Stats, err error) {
	maxLine := opts.MaxLineBytes
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	// The hash sees the bytes as stored, below the gzip decoder.
	counted := &countingReader{r: r, ctx: ctx}
	if opts.Hash {
		counted.h = sha256.New()
	}
	defer func() {
		st.Bytes = counted.n
		if counted.h != nil && err == nil {
			// Whatever the decoder left unread (bytes after a gzip
			// stream's end) is part of the file too.
			if _, derr := io.Copy(io.Discard, counted); derr == nil {
				st.Bytes = counted.n
				st.Hash = "sha256:" + hex.EncodeToString(counted.h.Sum(nil))
			}
		}
	}()
	br := getReader(counted)
	defer putReader(br)
	gauge := inputGauge{read: &counted.n, file: r, ahead: br} // ahead: not once a decompressor reads it
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		zr, err := getGzip(br)
		if err != nil {
			// Nothing of the file can be read: a file error, not a line
			// problem, so no empty episode is reported for it.
			return st, fmt.Errorf("%s: not a readable gzip stream: %w", source, err)
		}
		defer putGzip(zr)
		zbr := getReader(zr)
		defer putReader(zbr)
		br, gauge.ahead = zbr, nil
	case bytes.Equal(magic, zstdMagic):
		zr, err := getZstd(br)
		if err != nil {
			return st, fmt.Errorf("%s: not a readable zstd stream: %w", source, err)
		}
		defer putZstd(zr)
		zbr := getReader(zr)
		defer putReader(zbr)
		gauge.ahead = nil
		// The decoder reads nothing until asked: a stream broken from its
		// first frame is a file error, as a bad gzip header is.
		if _, err := zbr.Peek(1); err != nil && err != io.EOF {
			return st, fmt.Errorf("%s: not a readable zstd stream: %w", source, err)
		}
		br = zbr
	}

	format, detected := opts.Format, false
	format, opts.Preset = agentFormat(format, opts.Preset)
	if format == FormatAuto {
		if opts.Preset != "" || len(opts.Fields) > 0 {
			format = FormatSteps
		} else {
			var preset string
			format, preset = DetectFormat(peekStart(br))
			if opts.Preset == "" {
				opts.Preset = preset
			}
			detected = true
		}
	}
	if format == FormatSteps && opts.Preset == "" && len(opts.Fields) == 0 {
		// A steps log in a framework's shape needs no --preset either.
		if f, preset := DetectFormat(peekStart(br)); f == FormatSteps {
			opts.Preset = preset
		}
	}
	if format != FormatSteps {
		opts.spool.drop() // only a Gemini CLI session is read again
	}
	switch format {
	case FormatSteps, FormatAttempts:
		rc := &readContext{source: source, defaultID: defaultID, opts: opts, detected: detected, maxLine: maxLine, emit: emit,
			input: gauge}
		if format == FormatSteps {
			return st, readSteps(br, rc)
		}
		return st, readAttempts(&recordSource{br: br, max: maxLine}, rc)
	case "", FormatZorkGPT:
	default:
		return st, fmt.Errorf("unknown input format %q", format)
	}

	c := newCollector(source, defaultID)
	defer freeCollector(c)
	c.detected = detected
	c.outputs = opts.Outputs
	c.strict = opts.Strict
	c.emit = emit
	if early {
		c.keepOpen = StreamOpenEpisodes
	}
	lr := lineReader{r: br, max: maxLine}
	var readErr error // what ended the input early, as a line problem
	for {
		if ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		line, lineNo, tooLong, err := lr.next()
		if tooLong {
			c.lineSeen()
			if perr := c.skip(lineNo, fmt.Sprintf("line longer than %d bytes", maxLine)); perr != nil && opts.Strict {
				return st, c.finishAll(perr)
			}
		} else if lr.long {
			if perr := c.longLine(&lr, line, lineNo, err == io.EOF); perr != nil && opts.Strict {
				return st, c.finishAll(perr)
			}
		} else if line != nil {
			if perr := c.line(line, lineNo, err == io.EOF); perr != nil && opts.Strict {
				return st, c.finishAll(perr)
			}
		}
		if c.err != nil {
			return st, c.err // emit refused, or Strict and a dropped turn
		}
		if err == io.EOF {
			break
		}
		if err != nil && ctx.Err() != nil {
			return st, context.Cause(ctx) // interrupted: no episode is finished from a part
		}
		if err != nil {
			reason := err.Error()
			if errors.Is(err, io.ErrUnexpectedEOF) {
				reason = "input ends unexpectedly (truncated compressed file?)"
			}
			perr := &LineError{File: source, Line: lineNo + 1, Reason: reason}
			if corruptMember(err) {
				// The checksum comes at the member's end, after its lines:
				// they may be corrupt, so the episodes still open are not
				// finished from them; the file is an error.
				perr.Reason += ": the compressed data is corrupt; its episodes are not read"
				return st, perr
			}
			readErr = perr
			c.current().Diag.Skipped++
			c.current().Diag.problem(perr.Error())
			if opts.Strict {
				return st, c.finishAll(perr)
			}
			break
		}
	}
	if c.relevant == 0 && readErr != nil {
		// Nothing read before the input broke (a corrupt deflate stream
		// after a valid gzip header): the break is the file's error, not
		// an empty file.
		return st, readErr
	}
	if c.relevant == 0 {
		// Nothing the rules use: a file error naming the file (with the
		// first problem, so no unreadable line goes unreported).
		ne := &NoEventsError{File: source}
		for _, b := range c.order {
			ne.Lines += b.Diag.Lines
			ne.Skipped += b.Diag.Skipped
			if ne.First == "" && len(b.Diag.Problems) > 0 {
				ne.First = b.Diag.Problems[0]
			}
		}
		return st, ne
	}
	if err := c.finishAll(nil); err != nil {
		return st, err
	}
	if opts.Strict && c.dropped != nil {
		return st, c.dropped
	}
	return st, nil
}
