package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// signalContext is done at the first SIGINT or SIGTERM, its cause naming
// the signal. Commands that write files pass it down, so an interrupted
// run removes what it was writing instead of dying with a partial file.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(fmt.Errorf("%w by %v", errInterrupted, s))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

var errInterrupted = errors.New("interrupted")

// cleanupGrace is how long an interrupted run may take to remove what it
// was writing before the command returns anyway. Reads stop at once (a
// read blocked on a quiet FIFO is closed, an open blocked on a FIFO no
// writer opened is given up: replay.openCtx).
const cleanupGrace = time.Second

// runUntilSignal runs f on its own goroutine and returns its result, or,
// once ctx is done, waits up to cleanupGrace for f to clean up and
// returns the interruption.
func runUntilSignal[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
	}
	var zero T
	select {
	case r := <-ch:
		return r.v, r.err // finished (or cleaned up) on its own
	case <-time.After(cleanupGrace):
	}
	return zero, fmt.Errorf("%v: nothing written", context.Cause(ctx))
}
