package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/analyze"
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
	NoBaseline bool
	Format     string // text, json, junit, github, markdown
	Color      string

	MaxFalseRate percentFlag
	MinSaved     percentFlag
	MaxForfeit   numberFlag
	FailOn       []string

	failOn []*analyze.FailOn // FailOn, parsed and checked against the registry
}

// NewCmdCheck builds `loopbreak check`; runF replaces the run in tests.
func NewCmdCheck(ios *IOStreams, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: ios}
	c := &cobra.Command{
		Use:   "check [flags] <episode_log.jsonl | dir>...",
		Short: "Compare episode outcomes with a committed baseline and policy gates (CI)",
		Long: `Replay the rules over a set of reference episodes, as analyze does, and compare
each episode's outcome with a baseline file committed beside them
(default ` + analyze.DefaultBaseline + `). Drift is any outcome field that
differs, an episode that is new or missing, or a log whose sha256 changed; each
difference is reported on its own line. --update rewrites the baseline and
prints what changed.

Policy gates apply whether or not a baseline is compared:
  --max-false-rate P   false terminations as a share of terminated episodes
  --min-saved P        turns saved as a share of recorded turns
  --max-forfeit N      total score forfeited
  --fail-on SPEC       RULE/KIND[:rejected][@EPISODES], repeatable: fail when
                       that rule reports that kind (with :rejected, only when
                       the action would have been rejected; @EPISODES is a
                       comma-separated list of globs on episode ids, e.g.
                       the winning reference episodes)
P is a percentage (5%) or a fraction (0.05).

Exit status: 0 pass, 1 drift or a failed gate, 2 usage, configuration or
input error (a missing baseline; with --strict, unreadable input).`,
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
			if opts.Update && opts.NoBaseline {
				return usageErrorf("--update and --no-baseline: choose one")
			}
			if opts.Baseline == "" {
				return usageErrorf("--baseline: empty path")
			}
			opts.failOn = nil
			for _, spec := range opts.FailOn {
				f, err := analyze.ParseFailOn(spec)
				if err != nil {
					return &usageError{err}
				}
				opts.failOn = append(opts.failOn, f)
			}
			if runF != nil {
				return runF(opts)
			}
			return checkRun(opts)
		},
	}
	opts.Config.register(c.Flags())
	opts.Input.register(c.Flags())
	fl := c.Flags()
	fl.StringVar(&opts.Baseline, "baseline", analyze.DefaultBaseline, "baseline `file`; log paths in it are relative to its directory")
	fl.BoolVar(&opts.Update, "update", false, "write or refresh the baseline and print what changed (drift is not a failure; gates still apply)")
	fl.BoolVar(&opts.NoBaseline, "no-baseline", false, "apply the policy gates only, without a baseline")
	fl.StringVar(&opts.Format, "format", "text", "output `format`: text, json, junit, github (workflow annotations) or markdown (PR comment)")
	fl.StringVar(&opts.Color, "color", "auto", "colour the text report: auto, always or never (auto honours NO_COLOR)")
	fl.Var(&opts.MaxFalseRate, "max-false-rate", "fail when false terminations exceed this share of terminated episodes (`P`: 5% or 0.05)")
	fl.Var(&opts.MinSaved, "min-saved", "fail when turns saved are below this share of recorded turns (`P`: 40% or 0.4)")
	fl.Var(&opts.MaxForfeit, "max-forfeit", "fail when the total score forfeited exceeds `N`")
	fl.StringArrayVar(&opts.FailOn, "fail-on", nil, "fail when a rule reports a kind (`SPEC`: RULE/KIND[:rejected][@EPISODES]; repeatable)")
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

func checkRun(opts *CheckOptions) error {
	cfg, _, err := opts.Config.load(opts.IO.ErrOut)
	if err != nil {
		return err
	}
	files, walkErrs, err := opts.Input.findLogs(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	files = uniqueFiles(files)

	mode := report.CheckCompare
	var base *analyze.Baseline
	switch {
	case opts.NoBaseline:
		mode = report.CheckGatesOnly
	default:
		base, err = analyze.ReadBaseline(opts.Baseline)
		if opts.Update {
			mode = report.CheckUpdate
		}
		switch {
		case errors.Is(err, fs.ErrNotExist) && opts.Update:
			base, err = nil, nil
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("baseline %s does not exist: create it with loopbreak check --update (or give --baseline FILE, or --no-baseline for the policy gates alone)", opts.Baseline)
		case err != nil:
			return fmt.Errorf("baseline %w", err)
		}
	}

	cur := analyze.NewBaseline(cfg)
	threshold := rules.RejectionThreshold.Get(cfg)
	keep := false
	for _, f := range opts.failOn {
		keep = keep || f.NeedsFirings()
	}
	type diagKey struct{ id, source string }
	type diag struct {
		skipped  int
		problems []string
	}
	diags := map[diagKey]diag{}
	var (
		totals     analyze.Totals
		errs       = walkErrs // what the walk skipped, first
		unreadable = map[string]string{}
		runErr     error
	)
	// The reader hashes each file as it reads it (once: a pipe or standard
	// input cannot be read twice); the hash comes with a file's last part,
	// so the file's entries get it then.
	ropts := opts.Input.options()
	ropts.Hash = true
	fileStart, newFile := 0, true
	analyze.ReadAll(files, opts.IO.In, ropts, opts.Input.Jobs, func(fr analyze.FileResult) bool {
		if newFile {
			fileStart, newFile = len(cur.Episodes), false
		}
		if fr.Last {
			defer func() {
				newFile = true
				for i := fileStart; i < len(cur.Episodes); i++ {
					cur.Episodes[i].LogHash = fr.Hash
				}
			}()
		}
		source := analyze.BaselineSource(opts.Baseline, fr.Path)
		if fr.Err != nil {
			if opts.Input.Strict {
				runErr = fr.Err
				return false
			}
			// A file that cannot be read at all: its episodes, if in the
			// baseline, are missing.
			errs = append(errs, report.FileError{Source: fr.Path, Error: fr.Err.Error()})
			unreadable[source] = fr.Err.Error()
			reportFileError(opts.IO, fr)
			return true
		}
		for _, ep := range fr.Episodes {
			if err := strictCheck(opts.Input.Strict, ep); err != nil {
				runErr = err
				return false
			}
			o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: keep})
			totals.Add(o, ep.Diag.Skipped)
			for _, f := range opts.failOn {
				f.Observe(o, threshold)
			}
			cur.Episodes = append(cur.Episodes, analyze.BaselineEntry(o, source, ""))
			if ep.Diag.Skipped > 0 {
				diags[diagKey{ep.ID, source}] = diag{ep.Diag.Skipped, ep.Diag.Problems}
			}
		}
		return true
	})
	if runErr != nil {
		return runErr
	}
	totals.Finish()
	cur.Sort()

	var cmp *analyze.Comparison
	switch {
	case mode == report.CheckGatesOnly:
		cmp = analyze.Compare(nil, cur, nil)
	case base == nil: // first --update: every episode is added
		cmp = analyze.Compare(&analyze.Baseline{Config: cur.Config}, cur, unreadable)
	default:
		cmp = analyze.Compare(base, cur, unreadable)
	}

	res := &report.Check{Mode: mode, Baseline: opts.Baseline, Config: cmp.Config, Totals: &totals, Errors: errs}
	for _, e := range cmp.Episodes {
		ce := report.CheckEpisode{EpisodeCheck: e, Path: analyze.SourcePath(opts.Baseline, e.Source)}
		if d, ok := diags[diagKey{e.EpisodeID, e.Source}]; ok && e.Current != nil {
			ce.Skipped, ce.Problems = d.skipped, d.problems
		}
		res.Episodes = append(res.Episodes, ce)
	}
	if opts.MaxFalseRate.Given {
		res.Gates = append(res.Gates, analyze.MaxFalseRateGate(&totals, opts.MaxFalseRate.Pct))
	}
	if opts.MinSaved.Given {
		res.Gates = append(res.Gates, analyze.MinSavedGate(&totals, opts.MinSaved.Pct))
	}
	if opts.MaxForfeit.Given {
		res.Gates = append(res.Gates, analyze.MaxForfeitGate(&totals, opts.MaxForfeit.V))
	}
	for _, f := range opts.failOn {
		res.Gates = append(res.Gates, f.Result())
	}

	if mode == report.CheckUpdate {
		wrote, err := analyze.WriteBaseline(opts.Baseline, cur)
		if err != nil {
			return fmt.Errorf("writing baseline: %w", err)
		}
		res.Wrote = wrote
	}

	out := opts.IO.Out
	switch opts.Format {
	case "json":
		err = report.WriteCheckJSON(out, res)
	case "junit":
		err = report.WriteCheckJUnit(out, res)
	case "github":
		err = report.WriteCheckGitHub(out, res)
	case "markdown":
		err = report.WriteCheckMarkdown(out, res)
	default:
		err = report.WriteCheckText(out, res, opts.IO.ColorEnabled(opts.Color))
	}
	if err != nil {
		return err
	}
	if opts.Format != "text" && opts.Format != "github" {
		// The report went to a file or a tool; say the verdict in the log.
		fmt.Fprintf(opts.IO.ErrOut, "loopbreak check: %s\n", res.Summary())
	}
	if res.Failed() {
		return &failError{res.Summary()}
	}
	return nil
}

// uniqueFiles drops a file named twice (a directory and a file inside
// it): its episodes would otherwise be compared twice.
func uniqueFiles(files []string) []string {
	seen := map[string]bool{}
	out := files[:0:0]
	for _, f := range files {
		key := f
		if f != "-" {
			if abs, err := filepath.Abs(f); err == nil {
				key = abs
			}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	return out
}
