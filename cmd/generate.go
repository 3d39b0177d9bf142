package cmd

import (
	"fmt"

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
		Example: `  loopbreak generate --episodes 1000 /tmp/corpus
  loopbreak generate --episodes 100000 --size 300MB /tmp/big   # stops at 300 MB`,
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
			for _, s := range []string{opts.Size, opts.MaxNoise} {
				if _, err := parseSize(s); err != nil {
					return &usageError{err}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return generateRun(opts)
		},
	}
	c.Flags().IntVarP(&opts.Episodes, "episodes", "n", 100, "number of episodes")
	c.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed (same seed, same corpus)")
	c.Flags().StringVar(&opts.Size, "size", "", "stop once the corpus reaches this `size` (e.g. 300MB, 1GB)")
	c.Flags().StringVar(&opts.MaxNoise, "max-noise", "", "cap noise lines (knowledge dumps, raw responses) at this `size`, e.g. 64KB")
	c.Flags().StringVar(&opts.Format, "log-format", "", "write every episode in one log `format`: early (June 2025: room names only, names-only map_movement_update every turn) or live (ids, map_movement_update every turn); default: mixed eras")
	return c
}

func generateRun(opts *GenerateOptions) error {
	size, _ := parseSize(opts.Size)
	noise, _ := parseSize(opts.MaxNoise)
	paths, err := replaytest.WriteCorpusFormat(opts.Dir, opts.Episodes, opts.Seed, size, int(noise), replaytest.Format(opts.Format))
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %d episodes under %s\n", len(paths), opts.Dir)
	return nil
}

// parseSize reads 300MB, 1GB, 512KB or a plain byte count ("" = 0).
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	var n float64
	var unit string
	if _, err := fmt.Sscanf(s, "%g%s", &n, &unit); err != nil {
		if _, err2 := fmt.Sscanf(s, "%g", &n); err2 != nil {
			return 0, fmt.Errorf("size %q: want a size like 300MB", s)
		}
	}
	mult := map[string]float64{"": 1, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
	m, ok := mult[unit]
	if !ok || n < 0 {
		return 0, fmt.Errorf("size %q: want a size like 300MB", s)
	}
	return int64(n * m), nil
}
