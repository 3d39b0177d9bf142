package analyze

import (
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// FileResult is one log file read and analysed: its episodes with their
// outcomes, or why it could not be read.
type FileResult struct {
	Path     string
	Episodes []*replay.Episode
	Outcomes []*Outcome // Outcomes[i] is Episodes[i]'s
	Err      error      // nil, an open/read error, or with Strict a *replay.LineError
}

// Files reads files on a bounded pool of workers, analyses each episode under
// cfg on the worker that read it, and calls emit for each file in input
// order, whatever the scheduling. At most 2×workers files are held at
// once, so memory is bounded by a few turn tables, not the corpus. emit
// runs on the caller's goroutine; returning false stops early.
func Files(files []string, stdin io.Reader, read replay.Options, workers int, cfg *rules.Config, opts Options, emit func(FileResult) bool) {
	InOrder(len(files), workers, func() func(int) FileResult {
		return func(i int) FileResult {
			eps, err := replay.ReadFile(files[i], stdin, read)
			fr := FileResult{Path: files[i], Episodes: eps, Err: err, Outcomes: make([]*Outcome, len(eps))}
			for k, ep := range eps {
				fr.Outcomes[k] = Analyze(ep, cfg, opts)
			}
			return fr
		}
	}, emit)
}

// InOrder computes n results on a bounded pool of workers (each with the
// state newWorker gives it) and calls emit with them in index order,
// whatever the scheduling; at most 2×workers results are held at once.
// emit runs on the caller's goroutine; returning false stops early.
func InOrder[T any](n, workers int, newWorker func() func(i int) T, emit func(T) bool) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		i   int
		out chan T
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
				j.out <- work(j.i)
			}
		}()
	}
	go func() {
		defer close(window)
		defer close(jobs)
		for i := range n {
			out := make(chan T, 1)
			select {
			case window <- out:
			case <-stop:
				return
			}
			select {
			case jobs <- job{i, out}:
			case <-stop:
				return
			}
		}
	}()
	stopped := false
	for out := range window {
		if stopped {
			continue // in-flight workers deliver into buffered channels
		}
		if !emit(<-out) {
			stopped = true
			close(stop)
		}
	}
	wg.Wait()
}

// FileError is an input file that could not be read at all.
type FileError struct {
	Source string `json:"source"`
	Error  string `json:"error"`
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
