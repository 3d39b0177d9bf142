package sweep

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
)

// part is what a worker sends of a file, in order: each episode as it is
// replayed, then the file's end (End set) with its errors.
type part struct {
	End      bool
	Path     string
	Err      error
	LabelErr error // a labels file that does not fit the log: fatal

	// An episode (End unset): its facts, what each termination class did
	// to it, every configuration's result when the outcome flips, and
	// its labels.
	ID, Source    string
	RecordedTurns int
	Diag          replay.Diagnostics
	Classes       []classResult
	Outcomes      []analyze.Result
	Labels        *analyze.EpisodeLabels
}

// replayFiles reads each file once on a bounded pool of workers, replays
// plan over its episodes on the worker, and calls emit with each file's
// parts in input order whatever the scheduling. A file is streamed (as
// analyze reads it): each episode is replayed as soon as it is finished,
// its turn table dropped and its part sent, so a file of many episodes
// holds a handful of turn tables and parts at a time, not all of them;
// with Strict a file is read whole, as analyze does (its first problem
// discards it). emit runs on the caller's goroutine; returning false
// stops early. It returns the workers' Replayers, whose sums hold what
// Accumulate added up.
func replayFiles(files []string, stdin io.Reader, opts replay.Options, workers int, plan *Plan, emit func(*part) bool) []*Replayer {
	var (
		mu  sync.Mutex
		rps []*Replayer
	)
	analyze.StreamInOrder(len(files), workers, func() func(int, func(*part) bool) {
		rp := plan.NewReplayer() // scratch space and sums: one per worker
		mu.Lock()
		rps = append(rps, rp)
		mu.Unlock()
		return func(i int, send func(*part) bool) {
			path := files[i]
			replayOne := func(ep *replay.Episode, lab *analyze.EpisodeLabels) bool {
				pt := &part{ID: ep.ID, Source: ep.Source, RecordedTurns: ep.RecordedTurns(), Diag: ep.Diag, Labels: lab}
				pt.Classes, pt.Outcomes = rp.Accumulate(ep, lab)
				return send(pt)
			}
			if opts.Strict {
				// Read whole: a labels misfit, then the file's error,
				// come before any episode's, as they did when a file's
				// episodes were sent at once.
				eps, err := replay.ReadFile(path, stdin, opts)
				labs := make([]*analyze.EpisodeLabels, len(eps))
				for k, ep := range eps {
					lab, lerr := plan.Labels.For(path, ep.ID)
					if lerr != nil {
						send(&part{End: true, Path: path, LabelErr: lerr})
						return
					}
					labs[k] = lab
				}
				if err != nil {
					send(&part{End: true, Path: path, Err: err})
					return
				}
				for k, ep := range eps {
					if !replayOne(ep, labs[k]) {
						return
					}
					eps[k] = nil // let the turn table go
				}
				send(&part{End: true, Path: path})
				return
			}
			var labelErr error
			stopped := false
			_, err := replay.StreamFile(context.Background(), path, stdin, opts, func(ep *replay.Episode) error {
				lab, lerr := plan.Labels.For(path, ep.ID)
				if lerr != nil {
					labelErr = lerr
					return lerr
				}
				if !replayOne(ep, lab) {
					stopped = true
					return errStopped
				}
				return nil
			})
			if stopped {
				return
			}
			if labelErr != nil {
				err = nil
			}
			send(&part{End: true, Path: path, Err: err, LabelErr: labelErr})
		}
	}, emit)
	return rps
}

var errStopped = fmt.Errorf("stopped")
