package replay

// A pipe cannot be read again, so a Gemini CLI session read from one was
// held to its end (gemini_stream.go): 85 MB of RSS for a 100 MB JSONL
// recording, 138 MB for a 140 MB session document, where the same files
// given by path peaked at ~54 MB. What is read from a pipe is now copied
// into a spool, an unlinked temporary file (outfile.Spill), so a replay
// as read that goes wrong reads the input again from the spool and then
// the rest of the pipe. The spool costs disk, the input's size, and only
// while a Gemini CLI recording is replayed as read: any other input lets
// it go once its format and reader are known.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/loopbreak/loopbreak/analyze/outfile"
)

// spoolReader reads r and copies what it reads into spill until drop.
type spoolReader struct {
	r     io.Reader
	spill *outfile.Spill // nil once dropped
	werr  error          // the first failed copy: the spool is incomplete
}

func (s *spoolReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 && s.spill != nil && s.werr == nil {
		if _, werr := s.spill.Write(p[:n]); werr != nil {
			s.werr = werr
		}
	}
	return n, err
}

// drop ends the copy and removes the spool: the input will not be read
// again.
func (s *spoolReader) drop() {
	if s == nil || s.spill == nil {
		return
	}
	s.spill.Close()
	s.spill = nil
}

// readSpooled is read for an input that cannot be read again (a pipe, a
// FIFO, standard input): with a stepper, what it reads is spooled so that
// a Gemini CLI session can be replayed as read (errRereadWhole). Where no
// spool can be made (no writable temporary directory), the input is read
// as before: a session held to its end.
func readSpooled(ctx context.Context, r io.Reader, source, defaultID string, opts Options, early bool, emit func(*Episode) error) (Stats, error) {
	if opts.Stepper == nil {
		return read(ctx, r, source, defaultID, opts, early, emit)
	}
	spill := &outfile.Spill{}
	if err := spill.Open(); err != nil {
		return read(ctx, r, source, defaultID, opts, early, emit)
	}
	sp := &spoolReader{r: r, spill: spill}
	defer sp.drop()
	spooled := opts
	spooled.rereadable, spooled.spool = true, sp
	st, err := read(ctx, sp, source, defaultID, spooled, early, emit)
	if !errors.Is(err, errRereadWhole) {
		return st, err
	}
	if sp.spill == nil || sp.werr != nil {
		return st, fmt.Errorf("%s: the session must be read again whole, and the copy of what was read could not be kept: %v", source, sp.werr)
	}
	again, err := spill.Reader()
	if err != nil {
		return st, fmt.Errorf("%s: the session must be read again whole, and the copy of what was read cannot be read: %w", source, err)
	}
	// The spool holds every byte read from r so far; the rest is still
	// in r.
	opts.Stepper = nil
	return read(ctx, io.MultiReader(again, r), source, defaultID, opts, early, emit)
}
