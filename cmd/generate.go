package cmd

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// GenerateOptions are `loopbreak generate` inputs.
type GenerateOptions struct {
	IO       *IOStreams
	Dir      string
	Episodes int
	Seed     uint64
	Size     string // e.g. 300MB; empty: no size target
	MaxNoise string // cap on noise line size; empty: realistic, up to several MB
	Format   string // "" (mixed eras), early or live: see replaytest.Format
	// LiveMaxStuck, LiveInterval: the live loop-break configuration the
	// live episodes were recorded with (0: ZorkGPT's deployed 40 and 10).
	LiveMaxStuck, LiveInterval int

	// SizeBytes and MaxNoiseBytes are Size and MaxNoise parsed (0: none).
	SizeBytes, MaxNoiseBytes int64
}

// NewCmdGenerate builds `loopbreak generate`: synthetic ZorkGPT-format
// episodes for trying loopbreak and for benchmarks.
func NewCmdGenerate(ios *IOStreams, runF func(*GenerateOptions) error) *cobra.Command {
	opts := &GenerateOptions{IO: ios}
	c := &cobra.Command{
		Use:   "generate [flags] <dir>",
		Short: "Write synthetic ZorkGPT-format episodes (for trying loopbreak and benchmarks)",
		Long: `Write a deterministic corpus of realistic ZorkGPT episode logs as
<dir>/<episode_id>/episode_log.jsonl: a real Zork I room graph, every event in
the order the agent logs them, large noise lines, rejections, objectives, and
endings by game over, turn limit and live stuck termination.`,
		Example: `  loopbreak generate /tmp/corpus                 # at most 50 MB
  loopbreak generate --episodes 1000 --size 0 /tmp/corpus   # several GB: no limit
  loopbreak generate --episodes 100000 --size 300MB /tmp/big   # stops at 300 MB (300MiB: 300 x 2^20 bytes)`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if opts.Episodes < 1 {
				return usageErrorf("--episodes must be at least 1")
			}
			switch replaytest.Format(opts.Format) {
			case replaytest.FormatMixed, replaytest.FormatEarly, replaytest.FormatLive:
			default:
				return usageErrorf("--log-format %q: want early or live (default: mixed eras)", opts.Format)
			}
			// ZorkGPT's loader bounds and cross-key check (RULES.md §1).
			maxStuck, interval := opts.LiveMaxStuck, opts.LiveInterval
			if maxStuck == 0 {
				maxStuck = 40
			}
			if interval == 0 {
				interval = 10
			}
			switch {
			case maxStuck < 1 || maxStuck > 1000:
				return usageErrorf("--live-max-stuck must be in [1, 1000], got %d", maxStuck)
			case interval < 1 || interval > 100:
				return usageErrorf("--live-check-interval must be in [1, 100], got %d", interval)
			case maxStuck < interval:
				return usageErrorf("--live-max-stuck (%d) must be >= --live-check-interval (%d)", maxStuck, interval)
			}
			var err error
			if opts.SizeBytes, err = parseSize(opts.Size); err != nil {
				return usageErrorf("--size %v", err)
			}
			if opts.MaxNoiseBytes, err = parseSize(opts.MaxNoise); err != nil {
				return usageErrorf("--max-noise %v", err)
			}
			if runF != nil {
				return runF(opts)
			}
			return generateRun(opts)
		},
	}
	c.Flags().IntVarP(&opts.Episodes, "episodes", "n", 100, "number of episodes")
	c.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed (same seed, same corpus)")
	c.Flags().StringVar(&opts.Size, "size", "50MB", "stop once the corpus reaches this `size` (e.g. 300MB = 300,000,000 bytes, 300MiB, 1.5GiB; 0: no limit); an episode is a few MB")
	c.Flags().StringVar(&opts.MaxNoise, "max-noise", "", "cap noise lines (knowledge dumps, raw responses) at this `size`, e.g. 64KiB")
	c.Flags().IntVar(&opts.LiveMaxStuck, "live-max-stuck", 0, "max_turns_stuck the live loop-break system ran with in live episodes (default 40, as deployed)")
	c.Flags().IntVar(&opts.LiveInterval, "live-check-interval", 0, "stuck_check_interval the live loop-break system ran with (default 10)")
	c.Flags().StringVar(&opts.Format, "log-format", "", "write every episode in one log `format`: early (June 2025: room names only, names-only map_movement_update every turn) or live (ids, map_movement_update every turn); default: mixed eras")
	return c
}

func generateRun(opts *GenerateOptions) error {
	// On SIGINT/SIGTERM the episode being written is removed; the
	// complete ones stay (each one whole, as an uninterrupted run writes it).
	ctx, stop := signalContext()
	defer stop()
	removeStalePartials(opts.Dir)
	live := replaytest.LiveConfig{MaxTurnsStuck: opts.LiveMaxStuck, CheckInterval: opts.LiveInterval}
	done := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		if opts.IO.StderrTTY {
			generateProgress(opts, done)
		}
	}()
	paths, err := replaytest.WriteCorpusLive(ctx, opts.Dir, opts.Episodes, opts.Seed, opts.SizeBytes, int(opts.MaxNoiseBytes), replaytest.Format(opts.Format), live)
	close(done)
	<-progressDone
	if ctx.Err() != nil {
		return fmt.Errorf("%v: %d complete episodes under %s, the one being written removed", context.Cause(ctx), len(paths), opts.Dir)
	}
	if err != nil {
		return err
	}
	var size int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
		}
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s (%s) under %s\n", plural(len(paths), "episode"), humanize.Bytes(uint64(size)), opts.Dir)
	if len(paths) < opts.Episodes && opts.SizeBytes > 0 {
		fmt.Fprintf(opts.IO.Out, "stopped at --size %s, before %d episodes (--size 0: no limit)\n", opts.Size, opts.Episodes)
	}
	return nil
}

// generateProgress says on the terminal (stderr) how far generate has
// got, twice a second, until done: episodes and bytes written so far.
func generateProgress(opts *GenerateOptions, done <-chan struct{}) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	shown := false
	for {
		select {
		case <-done:
			if shown {
				fmt.Fprint(opts.IO.ErrOut, "\r\x1b[K")
			}
			return
		case <-tick.C:
			eps, size := 0, int64(0)
			logs, _ := filepath.Glob(filepath.Join(opts.Dir, "*", "episode_log.jsonl"))
			for _, l := range logs {
				if st, err := os.Stat(l); err == nil {
					eps++
					size += st.Size()
				}
			}
			fmt.Fprintf(opts.IO.ErrOut, "\rwriting: %d of %d episodes, %s", eps, opts.Episodes, humanize.Bytes(uint64(size)))
			shown = true
		}
	}
}

// removeStalePartials removes episodes a killed run (kill -9) left half
// written in dir. A partial file younger than a minute may belong to a
// generate still running into the same directory: an episode takes
// well under a second to write.
func removeStalePartials(dir string) {
	partials, _ := filepath.Glob(filepath.Join(dir, "*", replaytest.PartialName))
	for _, p := range partials {
		if st, err := os.Stat(p); err == nil && time.Since(st.ModTime()) > time.Minute {
			os.Remove(p)
			os.Remove(filepath.Dir(p)) // only if empty
		}
	}
}

// parseSize reads a byte size as github.com/dustin/go-humanize does:
// SI units are powers of 1000 (300MB, 1.5GB, 64kB), IEC units powers of
// 1024 (300MiB, 1.5GiB, 64KiB), a bare number is bytes, case is ignored.
// "" and 0 mean no limit. Thousands separators are refused: humanize drops
// commas, which would read a decimal comma (1,5GB) as 15GB.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := humanize.ParseBytes(s)
	if err != nil || strings.Contains(s, ",") || n > math.MaxInt64 {
		return 0, fmt.Errorf("%q: want a size like 300MB or 300MiB", s)
	}
	return int64(n), nil
}
