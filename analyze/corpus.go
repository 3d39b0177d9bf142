package analyze

import (
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/loopbreak/loopbreak/replay"
)

// FileResult is one log file read, or a part of one: its episodes, or why
// it could not be read.
type FileResult struct {
	Path     string
	Episodes []*replay.Episode
	Err      error // nil, an open/read error, or with Strict a *replay.LineError
	// Hash is "sha256:<hex>" of the file as stored, computed while reading
	// when the options ask for it (replay.Options.Hash), on a file's last
	// part once it was read to its end.
	Hash string
	// Last marks a file's last part; Err and Hash are set on it only.
	Last bool
}

// partEpisodes and partTurns bound a part: a file of a million episodes
// reaches emit a few dozen episodes at a time.
const (
	partEpisodes = 64
	partTurns    = 1 << 16
)

// ReadAll reads files on a bounded pool of workers and calls emit with
// each file's episodes in input order, whatever the scheduling: in parts
// (one or more per file, the last with Last set), so memory is bounded by
// a few parts and the episodes a reader keeps open, not by the corpus or
// by one file. With opts.Strict a file comes as one part (its first
// problem discards it whole, as before). emit runs on the caller's
// goroutine; returning false stops early.
func ReadAll(files []string, stdin io.Reader, opts replay.Options, workers int, emit func(FileResult) bool) {
	if opts.Strict {
		inOrder(len(files), workers, func() func(int) FileResult {
			return func(i int) FileResult {
				eps, st, err := replay.ReadFileStats(files[i], stdin, opts)
				return FileResult{Path: files[i], Episodes: eps, Err: err, Hash: st.Hash, Last: true}
			}
		}, emit)
		return
	}
	streamInOrder(files, stdin, opts, workers, emit)
}

var errStopped = errors.New("stopped")

// streamInOrder is ReadAll's streaming pool: each file's worker sends its
// parts on the file's own channel, which emit drains in file order; a
// worker ahead of emit blocks once its channel is full.
func streamInOrder(files []string, stdin io.Reader, opts replay.Options, workers int, emit func(FileResult) bool) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		i     int
		parts chan FileResult
	}
	jobs := make(chan job)
	window := make(chan chan FileResult, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				readParts(files[j.i], stdin, opts, j.parts, stop)
			}
		}()
	}
	go func() {
		defer close(window)
		defer close(jobs)
		for i := range files {
			parts := make(chan FileResult, 4)
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
		for fr := range parts {
			if !stopped && !emit(fr) {
				stopped = true
				close(stop)
			}
			if stopped {
				break
			}
		}
	}
	wg.Wait()
}

// readParts streams one file into parts, closing the channel after the
// last; it gives up when stop closes.
func readParts(path string, stdin io.Reader, opts replay.Options, parts chan<- FileResult, stop <-chan struct{}) {
	defer close(parts)
	send := func(fr FileResult) bool {
		select {
		case parts <- fr:
			return true
		case <-stop:
			return false
		}
	}
	var batch []*replay.Episode
	turns := 0
	st, err := replay.StreamFile(path, stdin, opts, func(ep *replay.Episode) error {
		batch = append(batch, ep)
		turns += len(ep.Turns)
		if len(batch) >= partEpisodes || turns >= partTurns {
			if !send(FileResult{Path: path, Episodes: batch}) {
				return errStopped
			}
			batch, turns = nil, 0
		}
		return nil
	})
	if err == errStopped {
		return
	}
	send(FileResult{Path: path, Episodes: batch, Err: err, Hash: st.Hash, Last: true})
}

// inOrder computes n results on a bounded pool of workers (each with the
// state newWorker gives it) and calls emit with them in index order,
// whatever the scheduling; at most 2×workers results are held at once.
// emit runs on the caller's goroutine; returning false stops early.
func inOrder[T any](n, workers int, newWorker func() func(i int) T, emit func(T) bool) {
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
