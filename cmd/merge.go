package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// MergeOptions are merge's inputs.
type MergeOptions struct {
	IO    *IOStreams
	Paths []string
	// Format is the output format of the partials' command ("": its
	// default); Color as that command's --color.
	Format string
	Color  string
}

// NewCmdMerge builds `loopbreak merge`; runF replaces the run in tests.
func NewCmdMerge(ios *IOStreams, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{IO: ios}
	c := &cobra.Command{
		Use:   "merge [flags] <part.json>...",
		Short: "Merge the partial results of sharded runs into the report of one run",
		Long: `Merge the partial files that analyze, sweep or check wrote with --shard K/N
--partial into the report one run over every shard's logs would print, byte for
byte. Every shard 1/N to N/N must be given once, made by the same command with
the same configuration, settings and inputs; anything else is refused.

--format takes the formats of the partials' command: analyze text (when the
shards ran with --format text), json or jsonl; sweep table, json or csv;
check text, json, junit, github or markdown. Without it, the command's default
(analyze: text if the partials keep text, else json).`,
		Example: `  loopbreak sweep --shard 1/4 --partial -o part-1.json --max-stuck 30,40,50 eps/
  loopbreak merge part-*.json
  loopbreak merge --format csv part-*.json > sweep.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if opts.Format != "" {
				if err := checkFormat(opts.Format, formatValues["merge"]...); err != nil {
					return err
				}
			}
			if err := checkColor(opts.Color); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Format, "format", "", "output `format` of the partials' command (default: its default)")
	fl.StringVar(&opts.Color, "color", "auto", "colour the text report or table: auto, always or never (auto honours NO_COLOR)")
	return c
}

func mergeRun(opts *MergeOptions) error {
	parts := make([]*partialFile, len(opts.Paths))
	for i, name := range opts.Paths {
		src, size, closeSrc, err := openPart(name)
		if err != nil {
			return err
		}
		defer closeSrc()
		if parts[i], err = readPartialAt(name, src, size); err != nil {
			return err
		}
	}
	return mergeParts(opts, parts)
}

// openPart opens a part to be read, maybe twice (analyze: see
// mergeAnalyze), from the file as it was opened even if a shard replaces
// it meanwhile. A part that cannot be read twice (a pipe: merge <(...))
// is first copied to a temporary file.
func openPart(name string) (io.ReaderAt, int64, func(), error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	switch {
	case fi.Mode().IsRegular():
		return f, fi.Size(), func() { f.Close() }, nil
	case fi.IsDir():
		f.Close()
		return nil, 0, nil, fmt.Errorf("%s: a directory, not a partial file", name)
	}
	defer f.Close()
	tmp, err := os.CreateTemp("", "loopbreak-merge-*.json")
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: copying it to read it twice: %w", name, err)
	}
	// Gone at once where the system allows it: nothing is left behind
	// if the merge is killed (a SIGPIPE from merge ... | head).
	unlinked := os.Remove(tmp.Name()) == nil
	closeTmp := func() {
		tmp.Close()
		if !unlinked {
			os.Remove(tmp.Name())
		}
	}
	// Plain reader and writer: the error says which side failed.
	size, err := io.Copy(struct{ io.Writer }{tmp}, struct{ io.Reader }{f})
	if err != nil {
		closeTmp()
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Path == tmp.Name() {
			return nil, 0, nil, fmt.Errorf("%s: copying it to read it twice: %w", name, err)
		}
		return nil, 0, nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	return tmp, size, closeTmp, nil
}

// unwrapPath drops an *os.PathError's operation and path, for a caller
// that names the file itself.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// mergeParts merges parsed partials; opts.Paths names them.
func mergeParts(opts *MergeOptions, parts []*partialFile) error {
	if err := compatible(parts, opts.Paths); err != nil {
		return err
	}
	switch parts[0].Command {
	case "analyze":
		return mergeAnalyze(opts, parts, opts.Paths)
	case "sweep":
		return mergeSweep(opts, parts, opts.Paths)
	}
	return mergeCheck(opts, parts, opts.Paths)
}
