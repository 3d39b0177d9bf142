package analyze

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// FileResult is one log file read and analysed, or a part of one: its
// episodes with their outcomes, or why it could not be read.
type FileResult struct {
	Path     string
	Episodes []*replay.Episode
	Outcomes []*Outcome // Outcomes[i] is Episodes[i]'s
	// Rendered[i] is Options.Render's output for Episodes[i] (nil
	// without Render); RenderErrs[i] its error.
	Rendered   [][]byte
	RenderErrs []error
	// LabelErrs[i] is the error looking up Episodes[i]'s labels (nil
	// without Options.Labels): a labels file that does not fit the log.
	LabelErrs []error
	Err       error // nil, an open/read error, or with Strict a *replay.LineError
	// Hash is "sha256:<hex>" of the file as stored, computed while reading
	// when the read options ask for it (replay.Options.Hash), on a file's
	// last part once it was read to its end.
	Hash string
	// Last marks a file's last part; Err and Hash are set on it only.
	Last bool
}

// partEpisodes, partTurns and partIDBytes bound a part: a file of a
// million episodes reaches emit a few dozen episodes at a time, and one
// of episodes with 500 KB ids (agents write them) a few at a time, as a
// part holds each id several times (episode, outcome, rendered text).
const (
	partEpisodes = 64
	partTurns    = 1 << 16
	partIDBytes  = 1 << 20
)

// Files reads files on a bounded pool of workers, analyses each episode
// under cfg on the worker that read it, and calls emit with each file's
// episodes in input order, whatever the scheduling: in parts (one or more
// per file, the last with Last set), so memory is bounded by a few parts
// and the episodes a reader keeps open (replay.Stream), not by the corpus
// or by one file. With read.Strict a file comes as one part (its first
// problem discards it whole). emit runs on the caller's goroutine;
// returning false stops early. Once ctx is done no further part is
// emitted and the reads stop promptly (replay.StreamFile), even one
// blocked on a quiet FIFO; the caller tells an interruption by ctx.Err.
func Files(ctx context.Context, files []string, stdin io.Reader, read replay.Options, workers int, cfg *rules.Config, opts Options, emit func(FileResult) bool) {
	var scored []string
	if opts.Labels != nil {
		scored = ScoredKinds(opts.Rules, cfg)
	}
	if read.Stepper == nil {
		// A steps log is replayed as it is read, on the worker reading
		// it: its outputs are not kept to the end of a session
		// (rules.ReadReplay), and analyzeInto takes the firings.
		read.Stepper = func(ep *replay.Episode) replay.TurnStepper {
			return rules.NewReadReplay(ctx, ep, cfg, opts.Rules)
		}
	}
	// analyse analyses, labels and renders a part's episodes, one after
	// the other; sc is its worker's (its firing list reused with
	// Options.RenderLast only: the outcome holds it until rendered).
	analyse := func(fr *FileResult, sc *scratch) {
		n := len(fr.Episodes)
		fr.Outcomes = make([]*Outcome, n)
		if opts.Labels != nil {
			fr.LabelErrs = make([]error, n)
		}
		if opts.Render != nil {
			fr.Rendered, fr.RenderErrs = make([][]byte, n), make([]error, n)
		}
		reuse := opts.RenderLast && opts.Render != nil
		sc.firingList = reuse
		for k, ep := range fr.Episodes {
			// A file's parts are read in turn on one worker: its
			// episodes are looked up in order, as For's one-episode
			// check needs. The firings are scored as they come, so
			// nothing needs to keep them for it.
			var lab *EpisodeLabels
			if opts.Labels != nil {
				lab, fr.LabelErrs[k] = opts.Labels.For(fr.Path, ep.ID)
			}
			o, err := analyzeInto(ctx, ep, cfg, opts, sc, lab, scored)
			if err != nil {
				// Interrupted: emitLive drops this part (ctx is done),
				// so its missing outcomes are never seen.
				return
			}
			fr.Outcomes[k] = o
			if opts.Render != nil {
				fr.Rendered[k], fr.RenderErrs[k] = opts.Render(o, ep)
			}
			if reuse {
				o.Firings = nil // sc's again
			}
			if opts.ReleaseOutputs {
				ep.ReleaseOutputs()
			}
		}
	}
	emitLive := func(fr FileResult) bool { return ctx.Err() == nil && emit(fr) }
	if read.Strict {
		InOrder(len(files), workers, func() func(int) FileResult {
			var sc scratch // this worker's
			return func(i int) FileResult {
				eps, st, err := replay.ReadFileStats(ctx, files[i], stdin, read)
				fr := FileResult{Path: files[i], Episodes: eps, Err: err, Hash: st.Hash, Last: true}
				if ctx.Err() == nil {
					analyse(&fr, &sc)
				}
				return fr
			}
		}, emitLive)
		return
	}
	// readFile streams files[i] to send, reporting false once emit
	// stopped.
	readFile := func(i int, send func(FileResult) bool, sc *scratch) bool {
		path := files[i]
		var batch []*replay.Episode
		turns, idBytes := 0, 0
		flush := func(fr FileResult) bool {
			fr.Path, fr.Episodes = path, batch
			analyse(&fr, sc)
			batch, turns, idBytes = nil, 0, 0
			return send(fr)
		}
		add := func(ep *replay.Episode) error {
			batch = append(batch, ep)
			turns += ep.NumTurns()
			idBytes += len(ep.ID)
			if (len(batch) >= partEpisodes || turns >= partTurns || idBytes >= partIDBytes) && !flush(FileResult{}) {
				return errStopped
			}
			return nil
		}
		var st replay.Stats
		var err error
		if i < len(opts.Regular) && opts.Regular[i] {
			st, err = replay.StreamRegularFile(ctx, path, read, add)
		} else {
			st, err = replay.StreamFile(ctx, path, stdin, read, add)
		}
		if err == errStopped {
			return false
		}
		return flush(FileResult{Err: err, Hash: st.Hash, Last: true})
	}
	batches := fileBatches(len(files), opts.Sizes)
	streamInOrder(len(batches)-1, workers, func(b int) int {
		return partsAhead + batches[b+1] - batches[b]
	}, func() func(int, func(FileResult) bool) {
		var sc scratch // this worker's
		return func(b int, send func(FileResult) bool) {
			for i := batches[b]; i < batches[b+1]; i++ {
				if !readFile(i, send, &sc) || ctx.Err() != nil {
					return
				}
			}
		}
	}, emitLive)
}

// batchBytes and batchFiles bound a batch of small files handed to a
// worker at once (fileBatches). A directory of 100,000 episode files of
// 16 KB each spent 3-4% of analyze's CPU handing files one at a time
// between goroutines (a channel made and three hand-offs a file, issue
// 25); in batches of 16 that is a sixteenth. A batch is small enough
// that two workers still share the work evenly.
const (
	batchBytes = 256 << 10
	batchFiles = 64
)

// fileBatches cuts n files into runs of consecutive indices, each a
// batch for one worker: bounds[b] to bounds[b+1]. A run holds regular
// files whose sizes (as stat'ed by the walk) add up to batchBytes at
// most; a file larger, or of unknown size (sizes shorter, or -1: a pipe,
// stdin, a directory), is a batch alone, so a large file keeps a worker
// to itself and memory stays bounded as before.
func fileBatches(n int, sizes []int64) []int {
	bounds := make([]int, 0, n/batchFiles+2)
	bounds = append(bounds, 0)
	var bytes int64
	for i := range n {
		size := int64(-1)
		if i < len(sizes) {
			size = sizes[i]
		}
		start := bounds[len(bounds)-1]
		if i > start && (size < 0 || size > batchBytes || bytes+size > batchBytes || i-start >= batchFiles) {
			bounds = append(bounds, i) // i starts the next batch
			bytes = 0
		}
		if size < 0 || size > batchBytes {
			bounds = append(bounds, i+1) // alone
			continue
		}
		bytes += size
	}
	if bounds[len(bounds)-1] != n {
		bounds = append(bounds, n)
	}
	return bounds
}

var errStopped = errors.New("stopped")

// InOrder computes n results on a bounded pool of workers (each with the
// state newWorker gives it) and calls emit with them in index order,
// whatever the scheduling; at most 2×workers results are held at once.
// emit runs on the caller's goroutine; returning false stops early.
func InOrder[T any](n, workers int, newWorker func() func(i int) T, emit func(T) bool) {
	StreamInOrder(n, workers, func() func(int, func(T) bool) {
		work := newWorker()
		return func(i int, send func(T) bool) { send(work(i)) }
	}, emit)
}

// StreamInOrder is InOrder for work that yields several parts per index
// (a file's episodes as they are read): each index has its own bounded
// channel, drained in turn, so emit gets the parts in index order and a
// worker ahead of emit blocks once its channel is full. send reports false
// once emit stopped.
func StreamInOrder[T any](n, workers int, newWorker func() func(i int, send func(T) bool), emit func(T) bool) {
	streamInOrder(n, workers, nil, newWorker, emit)
}

// partsAhead is how many parts of an index its worker may send before
// emit takes them.
const partsAhead = 4

// streamInOrder is StreamInOrder with room for capOf(i) parts (partsAhead
// when capOf is nil) in index i's channel: an index standing for a batch
// of files (fileBatches) has room for each file's last part, so its
// worker does not wait on emit once per file while emit drains an
// earlier batch.
func streamInOrder[T any](n, workers int, capOf func(i int) int, newWorker func() func(i int, send func(T) bool), emit func(T) bool) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// A worker per index at most: each holds its own buffers, so a
	// --jobs far above the number of files allocated for nothing.
	workers = min(workers, n)
	type job struct {
		i     int
		parts chan T
	}
	jobs := make(chan job)
	window := make(chan chan T, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			for j := range jobs {
				work(j.i, func(v T) bool {
					select {
					case j.parts <- v:
						return true
					case <-stop:
						return false
					}
				})
				close(j.parts)
			}
		}()
	}
	go func() {
		defer close(window)
		defer close(jobs)
		for i := range n {
			c := partsAhead
			if capOf != nil {
				c = capOf(i)
			}
			parts := make(chan T, c)
			select {
			case window <- parts:
			case <-stop:
				return
			}
			select {
			case jobs <- job{i, parts}:
			case <-stop:
				return
			}
		}
	}()
	stopped := false
	for parts := range window {
		if stopped {
			continue // an index never handed to a worker has nobody to close its channel
		}
		for v := range parts {
			if !emit(v) {
				stopped = true
				close(stop)
				break
			}
		}
	}
	wg.Wait()
}

// FileError is an input file that could not be read at all.
type FileError struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

// FatalFileErr reports whether a file's error ends the run: each one with
// Strict but a session without a step (replay.IsStepless), where every line
// was read and nothing is unreadable; it is reported as without Strict.
func FatalFileErr(opts replay.Options, err error) bool {
	return opts.Strict && !replay.IsStepless(err)
}

// StrictErr is the error Strict makes of an episode with skipped lines:
// some problems are found after the line was read, while building turns,
// so the reader cannot refuse them itself.
func StrictErr(opts replay.Options, d *replay.Diagnostics) error {
	if opts.Strict && d.Skipped > 0 && len(d.Problems) > 0 {
		return errors.New(d.Problems[0])
	}
	return nil
}
