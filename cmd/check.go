package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/analyze/check"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// CheckOptions are check's inputs.
type CheckOptions struct {
	IO         *IOStreams
	Paths      []string
	Config     configFlags
	Input      inputFlags
	Baseline   string
	Update     bool
	Prune      bool // --update may drop the entries of unreadable logs
	NoBaseline bool
	Format     string // text, json, junit, github, markdown
	Color      string
	Partial    partialFlags

	MaxFalseRate percentFlag
	MinSaved     percentFlag
	MaxForfeit   numberFlag
	FailOn       []string

	failOn []*check.FailOn // FailOn, parsed and checked against the registry
}

// NewCmdCheck builds `loopbreak check`; runF replaces the run in tests.
func NewCmdCheck(ios *IOStreams, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: ios}
	c := &cobra.Command{
		Use:   "check [flags] <episode_log.jsonl | dir>...",
		Short: "Compare episode outcomes with a committed baseline and policy gates (CI)",
		Long: `Replay the rules over a set of reference episodes, as analyze does, and compare
each episode's outcome with a baseline file committed beside them
(default ` + check.DefaultBaseline + `). Drift is any outcome field that
differs, an episode that is new or missing, or a log whose sha256 changed; each
difference is reported on its own line. --update rewrites the baseline and
prints what changed.

Policy gates apply whether or not a baseline is compared:
  --max-false-rate P   false terminations as a share of terminated episodes
  --min-saved P        turns saved as a share of recorded turns
  --max-forfeit N      total score forfeited
  --fail-on SPEC       RULE/KIND[:rejected][@EPISODES], repeatable: fail when
                       that rule reports that kind (with :rejected, only when
                       a score adjustment would have rejected the action;
                       @EPISODES is a comma-separated list of globs on
                       episode ids, e.g. the winning reference episodes);
                       live[@EPISODES]: fail when a live run's logged
                       decisions disagree with the replay under this
                       configuration (the deployed config is not the one
                       reviewed)
P is a percentage (5%) or a fraction (0.05).

An update keeps the entries of logs it cannot read and exits 2 naming them
(--prune drops them); it refuses a read-only baseline and holds a lock so
two updates cannot race.

Exit status: 0 pass, 1 drift or a failed gate, 2 usage, configuration or
input error (a missing baseline, no episodes, an unreadable log during
--update, an interruption; with --strict, unreadable input).`,
		Example: `  loopbreak check --update testdata/episodes/
  loopbreak check testdata/episodes/
  loopbreak check --config pyproject.toml --max-false-rate 5% --min-saved 40% eps/
  loopbreak check --fail-on 'score_adjustment/adjustment:rejected@2025-11-05T*' eps/
  loopbreak check --format junit eps/ > loopbreak.xml
  loopbreak check --format github eps/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := checkFormat(opts.Format, "text", "json", "junit", "github", "markdown"); err != nil {
				return err
			}
			if err := checkColor(opts.Color); err != nil {
				return err
			}
			if err := opts.Partial.check(); err != nil {
				return err
			}
			if opts.Prune && !opts.Update {
				return usageErrorf("--prune needs --update")
			}
			if opts.Update && opts.NoBaseline {
				return usageErrorf("--update and --no-baseline: choose one")
			}
			if opts.Baseline == "" {
				return usageErrorf("--baseline: empty path")
			}
			opts.failOn = nil
			for _, spec := range opts.FailOn {
				f, err := check.ParseFailOn(spec)
				if err != nil {
					return &usageError{err}
				}
				opts.failOn = append(opts.failOn, f)
			}
			if runF != nil {
				return runF(opts)
			}
			if !opts.Partial.Partial {
				return toFile(opts.IO, opts.Partial.Output, func() error { return checkRun(opts) })
			}
			return checkRun(opts)
		},
	}
	opts.Config.register(c.Flags())
	opts.Input.register(c.Flags())
	opts.Partial.register(c.Flags())
	fl := c.Flags()
	fl.StringVar(&opts.Baseline, "baseline", check.DefaultBaseline, "baseline `file`; log paths in it are relative to its directory")
	fl.BoolVar(&opts.Update, "update", false, "write or refresh the baseline and print what changed (drift is not a failure; gates still apply)")
	fl.BoolVar(&opts.Prune, "prune", false, "with --update, drop the entries of logs that cannot be read (without it they are kept and the update fails)")
	fl.BoolVar(&opts.NoBaseline, "no-baseline", false, "apply the policy gates only, without a baseline")
	fl.StringVar(&opts.Format, "format", "text", "output `format`: text, json, junit, github (workflow annotations) or markdown (PR comment)")
	addJSONFlag(fl, &opts.Format)
	fl.StringVar(&opts.Color, "color", "auto", "colour the text report: auto, always or never (auto honours NO_COLOR)")
	fl.Var(&opts.MaxFalseRate, "max-false-rate", "fail when false terminations exceed this share of terminated episodes (`P`: 5% or 0.05)")
	fl.Var(&opts.MinSaved, "min-saved", "fail when turns saved are below this share of recorded turns (`P`: 40% or 0.4)")
	fl.Var(&opts.MaxForfeit, "max-forfeit", "fail when the total score forfeited exceeds `N`")
	fl.StringArrayVar(&opts.FailOn, "fail-on", nil, "fail when a rule reports a kind, or a live run disagrees with the replay (`SPEC`: RULE/KIND[:rejected][@EPISODES] or live[@EPISODES]; repeatable)")
	return c
}

// numberFlag is an optional finite number.
type numberFlag struct {
	V     float64
	Given bool
}

func (n *numberFlag) String() string {
	if !n.Given {
		return ""
	}
	return strconv.FormatFloat(n.V, 'f', -1, 64)
}

func (n *numberFlag) Type() string { return "number" }

func (n *numberFlag) Set(s string) error { // implements pflag.Value
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want a number, got %q", s)
	}
	n.V, n.Given = v, true
	return nil
}

// Ptr is the value, nil when the flag was not given.
func (n *numberFlag) Ptr() *float64 {
	if !n.Given {
		return nil
	}
	v := n.V
	return &v
}

func checkRun(opts *CheckOptions) error {
	cfg, cfgPath, err := opts.Config.load(opts.IO.ErrOut)
	if err != nil {
		return err
	}
	opts.Input.Outputs = rules.NeedsOutputs(cfg)
	mode := check.ModeCompare
	switch {
	case opts.NoBaseline:
		mode = check.ModeGatesOnly
	case opts.Update:
		mode = check.ModeUpdate
	}
	if opts.Partial.Partial {
		return checkPartialRun(opts, cfg, cfgPath, mode)
	}
	files, walkErrs, err := opts.Input.findLogs(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	res, err := runUntilSignal(ctx, func() (*check.Result, error) {
		return check.Run(check.Options{
			Files: files, Stdin: opts.IO.In, Read: opts.Input.options(), Workers: opts.Input.Jobs,
			Config: cfg, Mode: mode, Baseline: opts.Baseline, Prune: opts.Prune, Skipped: walkErrs, Context: ctx, Scope: opts.Paths,
			MaxFalseRatePct: opts.MaxFalseRate.Ptr(), MinSavedPct: opts.MinSaved.Ptr(), MaxForfeit: opts.MaxForfeit.Ptr(),
			FailOn: opts.failOn, Every: listsEvery(opts.Format),
			OnFileError: func(_ string, err error) { reportFileError(opts.IO, err) },
		})
	})
	if err != nil {
		return checkError(err, opts.Paths)
	}
	res.Errors = append(walkErrs, res.Errors...) // what the walk skipped, first
	return writeCheck(opts.IO, res, opts.Format, opts.Color, report.ConfigLine(cfgPath, cfg))
}

// listsEvery says whether a check report lists every episode (JSON, a
// JUnit testcase each), not only those that drifted or had unreadable
// lines.
func listsEvery(format string) bool { return format == "json" || format == "junit" }

// checkError names the arguments of a check over no episode, and says
// how to make a missing baseline.
func checkError(err error, paths []string) error {
	var missing *check.NoBaselineError
	var none *check.NoEpisodesError
	if errors.As(err, &none) {
		return noEpisodesError(paths)
	}
	if errors.As(err, &missing) {
		return fmt.Errorf("%v: create it with loopbreak check --update (or give --baseline FILE, or --no-baseline for the policy gates alone)", err)
	}
	return err
}

// writeCheck renders a check's result (a run's or a merge's); a failed
// check is a *failError. configLine is what the text report assumed.
func writeCheck(ios *IOStreams, res *check.Result, format, colorMode, configLine string) error {
	defer res.Close() // the temporary file of a large result's rows
	var err error
	// Buffered: a report of a million rows is a million lines, each a
	// write to the terminal or pipe otherwise.
	out := bufio.NewWriterSize(ios.Out, 64<<10)
	switch format {
	case "json":
		err = report.WriteCheckJSON(out, res)
	case "junit":
		err = report.WriteCheckJUnit(out, res)
	case "github":
		err = report.WriteCheckGitHub(out, res)
	case "markdown":
		err = report.WriteCheckMarkdown(out, res)
	default:
		err = report.WriteCheckText(out, res, ios.ColorEnabled(colorMode), configLine, ios.ReportWidth())
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if format != "text" && format != "github" {
		// The report went to a file or a tool; say the verdict in the log.
		fmt.Fprintf(ios.ErrOut, "loopbreak check: %s\n", report.CheckSummary(res))
	}
	if len(res.Kept) > 0 {
		lines := []string{fmt.Sprintf("kept the baseline entries of %d unreadable log(s), unchanged; fix them, or give --prune to drop their entries:", len(res.Kept))}
		for _, k := range res.Kept {
			if strings.Contains(k.Error, k.Source) {
				lines = append(lines, "  "+report.Term(k.Error))
			} else {
				lines = append(lines, "  "+report.Term(k.Source+": "+k.Error))
			}
		}
		return &linesError{lines}
	}
	if res.Failed() {
		return &failError{report.CheckSummary(res)}
	}
	return nil
}
