package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/partial"
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
	Shard        partial.Shard
	args         []string // as findShard was given them, for a partial file

	Format string   // --input-format: auto, zorkgpt, steps, attempts
	Preset string   // --preset: openhands, gemini-cli
	Fields []string // --field field=path, for steps logs
	// Outputs: read each ZorkGPT turn's reply, because an output rule is
	// enabled (set from the configuration, rules.NeedsOutputs).
	Outputs bool

	fields map[string]string // Fields, parsed by checkInput
}

func (in *inputFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&in.IncludeTests, "include-tests", false, "also read test_*/test-* episode directories when scanning a tree")
	fs.BoolVar(&in.Strict, "strict", false, "treat any unreadable line or file as an error (exit 2)")
	fs.VarP((*jobsValue)(&in.Jobs), "jobs", "j", "files read in parallel (default: number of CPUs; at most 4 per CPU)")
	fs.Var(&in.Shard, "shard", "read only shard `K/N` of the logs (a stable 1/N, by a hash of each log's path under its argument)")
	fs.StringVar(&in.Format, "input-format", replay.FormatAuto, "log `format`: auto (detected from the first records), zorkgpt, steps, attempts, or an agent's: "+strings.Join(replay.Presets, ", "))
	fs.StringVar(&in.Preset, "preset", "", "read a steps log as a framework writes it: openhands (an event stream or trajectory) or gemini-cli (a session file)")
	fs.StringArrayVar(&in.Fields, "field", nil, "map a steps field to the log's own name, `field=path` with a dotted path (step=iteration, output=result.text); repeatable")
}

// jobsValue is -j: a positive number of files read at once. Each worker
// holds read buffers and an episode or more, so a huge -j is capped at
// maxJobs (analyze.StreamInOrder also caps it at the number of files).
type jobsValue int

// maxJobs is the most workers -j starts: a few per CPU keep the CPUs busy
// through reads and decompression; more only add memory.
func maxJobs() int { return 4 * runtime.NumCPU() }

func (j *jobsValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err != nil {
		return errors.New("want a whole number of files read in parallel")
	}
	if n <= 0 {
		return errors.New("want at least 1 file read at a time (leave -j out for one per CPU)")
	}
	*j = jobsValue(min(n, int64(maxJobs())))
	return nil
}

func (j *jobsValue) String() string { return strconv.Itoa(int(*j)) }
func (j *jobsValue) Type() string   { return "int" }

func (in *inputFlags) options() replay.Options {
	return replay.Options{Strict: in.Strict, Format: in.Format, Preset: in.Preset, Fields: in.fields, Outputs: in.Outputs}
}

// checkInput validates --input-format, --preset and --field.
func (in *inputFlags) checkInput() error {
	if in.Format == "" {
		in.Format = replay.FormatAuto // the flag's default, for flags built in code
	}
	if !slices.Contains(replay.Formats, in.Format) {
		return usageErrorf("--input-format %q: want one of %s", in.Format, strings.Join(replay.Formats, ", "))
	}
	if in.Preset != "" && !slices.Contains(replay.Presets, in.Preset) {
		return usageErrorf("--preset %q: want %s", in.Preset, strings.Join(replay.Presets, " or "))
	}
	if (in.Preset != "" || len(in.Fields) > 0) && in.Format != replay.FormatAuto && in.Format != replay.FormatSteps {
		return usageErrorf("--preset and --field read steps logs, not --input-format %s", in.Format)
	}
	if in.Preset != "" && len(in.Fields) > 0 {
		return usageErrorf("--preset and --field: a preset maps its framework's log itself; use one or the other")
	}
	fields, err := replay.ParseFieldMap(in.Fields)
	if err != nil {
		return &usageError{err}
	}
	in.fields = fields
	return nil
}

// agentLogs says the logs asked for are other agents' (by format, preset
// or fields): a directory is searched for any *.jsonl or *.json[.gz], not
// for ZorkGPT's episode_log.jsonl[.gz].
func (in *inputFlags) agentLogs() bool {
	// Any format named but ZorkGPT's: steps, attempts, or an agent's own
	// (--input-format claude-code reads that agent's files, whatever their
	// names, as --preset does).
	return in.Format != replay.FormatAuto && in.Format != replay.FormatZorkGPT || in.Preset != "" || len(in.Fields) > 0
}

// findShard expands the arguments and keeps the logs of --shard (all of
// them without it), each read once (partial.Select). No log at all is an
// error worth exit 2; a shard that gets none of them is not (more shards
// than logs). What a directory walk skipped (an unreadable directory, a
// log-named pipe or device) is reported on errOut and returned as file
// errors, like an unreadable file, by the first shard only; with --strict
// the first is fatal.
func (in *inputFlags) findShard(args []string, errOut io.Writer) (*partial.LogSet, error) {
	if err := in.checkInput(); err != nil {
		return nil, err
	}
	in.args = args
	match, keep := in.scanFilter()
	set, err := partial.Select(args, partial.SelectOptions{Shard: in.Shard, IncludeTests: in.IncludeTests, Match: match, Keep: keep, Sidecar: analyze.LabelsSidecar})
	if errors.Is(err, partial.ErrStdinShard) {
		return nil, &usageError{err}
	}
	if err != nil {
		return nil, err
	}
	if len(set.Skipped) > 0 && in.Strict {
		return nil, set.Skipped[0]
	}
	if set.Total == 0 && len(set.Skipped) == 0 {
		return nil, in.noLogsError(args)
	}
	for _, e := range set.WalkErrs {
		fmt.Fprintf(errOut, "loopbreak: %s\n", e.Error)
	}
	return set, nil
}

// scanFilter is what a directory scan picks up for --input-format: the
// file names it matches and, when set, the test a matched file must pass
// (FindSniffing).
func (in *inputFlags) scanFilter() (match func(name string) bool, keep func(path string) bool) {
	switch {
	case in.agentLogs():
		return replay.AgentLogName, nil
	case in.Format == replay.FormatAuto:
		return scanMatch, scanKeep
	}
	return func(name string) bool { return slices.Contains(replay.LogNames, name) }, nil
}

// scanMatch and scanKeep are a scan's choice with --input-format auto
// (analyze's walk and watch's): every format loopbreak reads, ZorkGPT's
// episode logs by their name, other agents' logs by their first records.
// A ZorkGPT log under another name is left alone: ZorkGPT's trees hold
// copies and digests of its episode logs.
func scanMatch(name string) bool {
	return slices.Contains(replay.LogNames, name) || replay.AgentLogName(name)
}

func scanKeep(path string) bool {
	if slices.Contains(replay.LogNames, filepath.Base(path)) {
		return true
	}
	f, _, known := replay.SniffLog(path)
	return known && f != replay.FormatZorkGPT
}

// findLogs expands arguments into this shard's logs (see findShard) and
// what the walk skipped.
func (in *inputFlags) findLogs(args []string, errOut io.Writer) ([]string, []analyze.FileError, error) {
	set, err := in.findShard(args, errOut)
	if err != nil {
		return nil, nil, err
	}
	return set.Files, set.WalkErrs, nil
}

func checkFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageErrorf("--format %q: want one of %s", format, strings.Join(allowed, ", "))
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

// load reads --labels and the sidecars of files (not looked for where
// noSidecar, partial.LogSet's, says the walk saw none); nil when nothing
// is labelled. A labels file that breaks the format is an error (exit 2)
// before any output.
func (l *labelFlags) load(files []string, noSidecar []bool) (*analyze.Labels, error) {
	labels, err := analyze.LoadLabels(l.Path, files, noSidecar)
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

// noLogsError says that a scan found no log: which formats it looked
// for, and what would read the files it did find.
func (in *inputFlags) noLogsError(args []string) error {
	var looked string
	switch {
	case in.agentLogs():
		looked = "looked for " + cmp.Or(in.Preset, in.Format) + " logs (*.jsonl, *.json[.gz|.zst], *.traj, Aider chat histories)"
	case in.Format == replay.FormatZorkGPT:
		looked = "looked for ZorkGPT's episode logs (episode_log.jsonl[.gz|.zst]); --input-format auto also finds other agents' logs"
	default:
		looked = "looked for ZorkGPT's episode logs (episode_log.jsonl[.gz|.zst]) and, by their first records, OpenHands event streams and trajectories, Gemini CLI, Claude Code, Codex and Cline/Roo sessions, steps and attempts logs (*.jsonl, *.json[.gz|.zst]), SWE-agent trajectories (*.traj) and Aider chat histories"
	}
	msg := "no logs found in " + strings.Join(args, ", ") + ": " + looked
	if !in.IncludeTests {
		// Everything found was in test episode directories, which a
		// scan skips: say so, and how to read them.
		match, keep := in.scanFilter()
		if tests, _, err := replay.FindSniffing(args, true, match, keep); err == nil && len(tests) > 0 {
			return fmt.Errorf("%s; found %s in test episode directories (test_*, test-*), which scans skip: --include-tests reads them", msg, plural(len(tests), "log"))
		}
	}
	found, _, err := replay.FindSniffing(args, in.IncludeTests, func(string) bool { return true }, nil)
	if err != nil || len(found) == 0 {
		return errors.New(msg + "; the " + plural(len(args), "argument") + " hold no files")
	}
	var zork, unknown, other []string
	for _, f := range found {
		if !replay.AgentLogName(filepath.Base(f)) {
			other = append(other, f)
			continue
		}
		switch format, _, known := replay.SniffLog(f); {
		case known && format == replay.FormatZorkGPT:
			zork = append(zork, f)
		case !known:
			unknown = append(unknown, f)
		case in.agentLogs() || in.Format == replay.FormatZorkGPT:
			msg += fmt.Sprintf("; %s holds a %s log: --input-format auto reads it", shellQuote(f), format)
			return errors.New(msg)
		}
	}
	// eg names the files: "a.json is" or "3 files, e.g. a.json, are".
	eg := func(fs []string, one, many string) string {
		if len(fs) == 1 {
			return shellQuote(fs[0]) + " " + one
		}
		return fmt.Sprintf("%d files, e.g. %s, %s", len(fs), shellQuote(fs[0]), many)
	}
	if len(zork) > 0 {
		msg += "; " + eg(zork, "holds", "hold") + " ZorkGPT events under another name: name such a file as an argument to read it"
	}
	if len(unknown) > 0 {
		msg += "; " + eg(unknown, "is", "are") + " JSON in no format loopbreak detects: a steps log with its own field names reads with --input-format steps --field step=… --field action=… (loopbreak analyze --help)"
	}
	if len(other) > 0 {
		msg += "; " + eg(other, "is", "are") + " not a JSON log (*.jsonl, *.json[.gz|.zst])"
	}
	return errors.New(msg)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// jsonFlag is --json, as gh users reach for it: the same as --format json.
type jsonFlag struct{ format *string }

func (j jsonFlag) String() string   { return "false" }
func (j jsonFlag) Type() string     { return "bool" }
func (j jsonFlag) IsBoolFlag() bool { return true }
func (j jsonFlag) Set(v string) error {
	switch v {
	case "true":
		*j.format = "json"
	case "false":
	default:
		return fmt.Errorf("want true or false, got %q", v)
	}
	return nil
}

// addJSONFlag adds --json beside --format.
func addJSONFlag(fs *pflag.FlagSet, format *string) {
	f := fs.VarPF(jsonFlag{format}, "json", "", "the same as --format json")
	f.NoOptDefVal = "true"
}
