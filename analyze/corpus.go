package analyze

import (
	"io"
	"runtime"
	"sync"

	"github.com/loopbreak/loopbreak/replay"
)

// FileResult is one log file read: its episodes, or why it could not be read.
type FileResult struct {
	Path     string
	Episodes []*replay.Episode
	Err      error // nil, an open/read error, or with Strict a *replay.LineError
}

// ReadAll reads files on a bounded pool of workers and calls emit for each
// file in input order, whatever the scheduling. At most 2×workers files are
// held at once, so memory is bounded by a few turn tables, not the corpus.
// emit runs on the caller's goroutine; returning false stops early.
func ReadAll(files []string, stdin io.Reader, opts replay.Options, workers int, emit func(FileResult) bool) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		i   int
		out chan FileResult
	}
	jobs := make(chan job)
	window := make(chan chan FileResult, 2*workers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				eps, err := replay.ReadFile(files[j.i], stdin, opts)
				j.out <- FileResult{Path: files[j.i], Episodes: eps, Err: err}
			}
		}()
	}
	go func() {
		defer close(window)
		defer close(jobs)
		for i := range files {
			out := make(chan FileResult, 1)
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
			// In-flight workers deliver into buffered channels; don't wait.
			continue
		}
		if !emit(<-out) {
			stopped = true
			close(stop)
		}
	}
	wg.Wait()
}
