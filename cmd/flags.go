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
}

func (in *inputFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&in.IncludeTests, "include-tests", false, "also read test_*/test-* episode directories when scanning a tree")
	fs.BoolVar(&in.Strict, "strict", false, "treat any unreadable line or file as an error (exit 2)")
	fs.IntVarP(&in.Jobs, "jobs", "j", 0, "files read in parallel (default: number of CPUs)")
}

func (in *inputFlags) options() replay.Options { return replay.Options{Strict: in.Strict} }

// findLogs expands arguments; no log at all is an error worth exit 2.
// What a directory walk skipped (an unreadable directory, a log-named pipe
// or device) is reported on errOut and returned as file errors, like an
// unreadable file; with --strict the first is fatal.
func (in *inputFlags) findLogs(args []string, errOut io.Writer) ([]string, []analyze.FileError, error) {
	files, skipped, err := replay.Find(args, in.IncludeTests)
	if err != nil {
		return nil, nil, err
	}
	if len(skipped) > 0 && in.Strict {
		return nil, nil, skipped[0]
	}
	var errs []analyze.FileError
	for _, e := range skipped {
		fmt.Fprintf(errOut, "loopbreak: %v\n", e)
		errs = append(errs, analyze.FileError{Source: skippedPath(e), Error: e.Error()})
	}
	if len(files) == 0 && len(errs) == 0 {
		return nil, nil, fmt.Errorf("no episode logs (episode_log.jsonl[.gz]) found in %v", args)
	}
	return files, errs, nil
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
