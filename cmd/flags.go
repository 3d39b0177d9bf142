package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/pflag"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// configFlags are --config and --set, shared by every command that
// replays rules.
type configFlags struct {
	Path string
	Sets []string
	// Dir is where a config is discovered without --config ("" = cwd).
	Dir string
}

func (c *configFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.Path, "config", "", "`file` with loop-break keys: a pyproject.toml ([tool.zorkgpt.loop_break]) or a loopbreak.toml ([loop_break]); default ./loopbreak.toml, else ./pyproject.toml")
	fs.StringArrayVar(&c.Sets, "set", nil, "override a key, `key=value` (repeatable)")
}

// load builds the effective configuration: defaults, then the file, then
// --set; warnings (unknown pyproject keys) go to errOut.
func (c *configFlags) load(errOut io.Writer) (*rules.Config, string, error) {
	cfg := rules.Default()
	path := c.Path
	if path == "" {
		dir := c.Dir
		if dir == "" {
			dir = "."
		}
		found, err := rules.Discover(dir)
		if err != nil {
			return nil, "", err
		}
		path = found
	} else if _, err := os.Stat(path); err != nil {
		return nil, "", fmt.Errorf("--config: %w", err)
	}
	if path != "" {
		warnings, err := rules.LoadFile(cfg, path)
		if err != nil {
			return nil, "", err
		}
		for _, w := range warnings {
			fmt.Fprintf(errOut, "loopbreak: warning: %s\n", w)
		}
	}
	for _, kv := range c.Sets {
		if err := cfg.SetString(kv); err != nil {
			return nil, "", &usageError{err}
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, "", cfg.LocateConstraint(err)
	}
	return cfg, path, nil
}

// inputFlags select and read episode logs.
type inputFlags struct {
	IncludeTests bool
	Strict       bool
	Jobs         int
	Shard        shardFlag
	args         []string // as findShard was given them, for a partial file
}

func (in *inputFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&in.IncludeTests, "include-tests", false, "also read test_*/test-* episode directories when scanning a tree")
	fs.BoolVar(&in.Strict, "strict", false, "treat any unreadable line or file as an error (exit 2)")
	fs.IntVarP(&in.Jobs, "jobs", "j", 0, "files read in parallel (default: number of CPUs)")
	fs.Var(&in.Shard, "shard", "read only shard `K/N` of the logs (a stable 1/N, by a hash of each log's path under its argument)")
}

func (in *inputFlags) options() replay.Options { return replay.Options{Strict: in.Strict} }

// findLogs expands arguments into this shard's logs (see findShard) and
// what the walk skipped.
func (in *inputFlags) findLogs(args []string, errOut io.Writer) ([]string, []analyze.FileError, error) {
	set, err := in.findShard(args, errOut)
	if err != nil {
		return nil, nil, err
	}
	return set.Files, set.WalkErrs, nil
}

// skippedPath is the path a skipped entry's error names.
func skippedPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	return ""
}

func checkFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageErrorf("--format %q: want one of %v", format, allowed)
}

func checkColor(mode string) error {
	switch mode {
	case "auto", "always", "never":
		return nil
	}
	return usageErrorf("--color %q: want auto, always or never", mode)
}

// labelFlags is --labels, for the commands that score rules against
// labelled episodes (analyze, sweep).
type labelFlags struct {
	Path string
}

func (l *labelFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.Path, "labels", "", "`file` of episodes a person labelled, {\"episodes\": {id: {\"stuck\": [{\"from\": N, \"to\": N}]}}}; sidecar labels.json files next to the logs are read too")
}

// load reads --labels and the sidecars of files; nil when nothing is
// labelled. A labels file that breaks the format is an error (exit 2)
// before any output.
func (l *labelFlags) load(files []string) (*analyze.Labels, error) {
	labels, err := analyze.LoadLabels(l.Path, files)
	if err != nil && l.Path != "" && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--labels: %w", err)
	}
	return labels, err
}

// warnUnused tells stderr of labels no episode took (a mistyped id
// would otherwise score nothing, silently).
func warnUnused(labels *analyze.Labels, errOut io.Writer) {
	for _, w := range labels.Unused() {
		fmt.Fprintf(errOut, "loopbreak: warning: %s\n", w)
	}
}
