package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
	"github.com/loopbreak/loopbreak/analyze/outfile"
	"github.com/loopbreak/loopbreak/analyze/partial"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// The --partial runs of analyze, sweep and check: the shard's run, its
// part written by analyze/partial (the file format) for `loopbreak merge`.

// partialFlags are --partial and -o, shared by analyze, sweep and check.
type partialFlags struct {
	Partial bool
	Output  string
}

func (p *partialFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&p.Partial, "partial", false, "write a mergeable partial result (JSON) for loopbreak merge instead of the report; use with --shard")
	fs.StringVarP(&p.Output, "output", "o", "", "write the report (or the partial result) to `file` instead of standard output, whole or not at all")
}

// check accepts -o with every format (toFile writes the report there).
func (p *partialFlags) check() error { return nil }

// toFile runs run with its standard output going to path, atomically (a
// run that fails leaves no file; check's exit 1 for a broken gate still
// writes its report), as to a file: no terminal width, no colour, no
// pager. A terminal is told where the report went. "" or "-" run as they
// are.
func toFile(ios *IOStreams, path string, run func() error) error {
	if path == "" || path == "-" {
		return run()
	}
	var runErr error
	err := outfile.Write(path, outfile.Options{Out: ios.Out}, func(w io.Writer) error {
		saved, tty := ios.Out, ios.StdoutTTY
		ios.Out, ios.StdoutTTY = w, false
		defer func() { ios.Out, ios.StdoutTTY = saved, tty }()
		runErr = run()
		var f *failError
		if runErr != nil && !errors.As(runErr, &f) {
			return runErr
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ios.StderrTTY {
		fmt.Fprintf(ios.ErrOut, "loopbreak: wrote %s\n", path)
	}
	return runErr
}

// partialSink takes an episode's firings for its part as the replay
// produces them: its JSON's (report.EpisodeFirings: kept packed, a few
// bytes a firing, and encoded as the part is written) and, when the part holds a text report, the
// text's story and chart marks (NewAgentStory, NewAgentListing with -v:
// a ZorkGPT log's trace too, NewChartSink with --chart; none for a
// ZorkGPT log's text without either, told from its Story).
type partialSink struct {
	json *report.EpisodeFirings
	text analyze.FiringSink
}

// newPartialSink is analyze --partial's analyze.Options.Sink: text says
// the part holds each episode's text report (verbose, with a chart).
func newPartialSink(text, verbose, chart bool) func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	var textSink func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink
	switch {
	case !text:
	case chart:
		textSink = report.NewChartSink(verbose, 0)
	case verbose:
		textSink = report.NewAgentListing(0)
	default:
		textSink = report.NewAgentStory
	}
	return func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
		s := &partialSink{json: report.NewEpisodeFirings(o, ep).(*report.EpisodeFirings)}
		if textSink != nil {
			s.text = textSink(o, ep)
		}
		return s
	}
}

// Firing gives f to both (an analyze.FiringSink).
func (s *partialSink) Firing(f *rules.Firing, afterCut bool) {
	s.json.Firing(f, afterCut)
	if s.text != nil {
		s.text.Firing(f, afterCut)
	}
}

// ListsFirings says the text lists every firing itself (-v): the outcome
// need not keep them.
func (s *partialSink) ListsFirings() bool {
	l, ok := s.text.(analyze.FiringLister)
	return ok && l.ListsFirings()
}

// partialAnalyzeOptions are what analyze --partial replays with. Labels
// are scored as the firings come; each episode's firings are kept packed
// for its JSON (and a steps or attempts log's -v listing) and the text's
// story, a ZorkGPT log's trace and chart tallied beside them (partialSink): none is kept as a
// struct.
func partialAnalyzeOptions(settings partial.AnalyzeSettings, labels *analyze.Labels) analyze.Options {
	rendered := settings.Text && !settings.SummaryOnly
	return analyze.Options{Story: settings.Text, Labels: labels, Sink: newPartialSink(rendered, settings.Verbose, settings.Chart)}
}

// analyzePartialEpisode adds one analysed episode to the part: its totals,
// its JSON with the firings streamed in their place, its text report.
func analyzePartialEpisode(opts *AnalyzeOptions, cfg *rules.Config, settings partial.AnalyzeSettings, out *partial.AnalyzeStream,
	totals *analyze.Totals, log int, o *analyze.Outcome, ep *replay.Episode, ps *partialSink) error {
	totals.Add(&o.Result, o.RecordedTurns, ep.Diag.Skipped)
	totals.AddLive(o.Live)
	if o.Labels != nil {
		totals.AddLabels(o.Labels, o.Scores)
	}
	// The JSON reads the firings' sink, the text its own.
	o.Sink = ps.json
	e := report.NewEpisode(o, ep)
	e.Labels = report.NewEpisodeLabels(o.Labels, o.Scores)
	js, err := report.AppendEpisode(nil, &e)
	if err != nil {
		return err
	}
	o.Sink = ps.text
	var writeText func(w io.Writer) error
	if settings.Text && !settings.SummaryOnly {
		// Rendered into the part as it is written, escaped as it comes.
		writeText = func(w io.Writer) error {
			text := &report.Text{W: w, Verbose: settings.Verbose}
			if err := text.Episode(o, ep); err != nil {
				return err
			}
			if settings.Chart {
				// As one run draws it into a pipe (80 columns or
				// $COLUMNS), into this block.
				chartOpts, ios := *opts, *opts.IO
				ios.Out, chartOpts.IO = w, &ios
				if err := writeChart(&chartOpts, o, ep, cfg); err != nil {
					return err
				}
			}
			return text.EpisodeLabels(o.Labels, o.Scores)
		}
	}
	return out.EpisodeTo(log, func(w io.Writer) error { return ps.json.WriteEpisode(w, js) }, writeText)
}

// analyzePartialRun is analyze --partial: the shard's episodes and totals
// into a partial file.
func analyzePartialRun(opts *AnalyzeOptions, cfg *rules.Config, cfgPath string) error {
	set, err := opts.Input.findShard(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	text := opts.Format == "text"
	settings := partial.AnalyzeSettings{Text: text, Verbose: text && opts.Verbose, Chart: text && opts.Chart, ASCII: text && opts.Chart && opts.ASCII}
	if text {
		settings.ConfigLine, settings.SummaryOnly = report.ConfigLine(cfgPath, cfg), opts.summaryOnly(set.Total)
	}
	p, err := partial.New("analyze", settings, cfg, opts.Input.args, set)
	if err != nil {
		return err
	}
	var (
		totals analyze.Totals
		errs   = partial.WalkErrors(set)
		runErr error
		n      int
	)
	read := opts.Input.options()
	// Each shard scores its own episodes; the totals' exact scores merge.
	labels, err := opts.Labels.load(set.Files, set.NoSidecar)
	if err != nil {
		return err
	}
	aopts := partialAnalyzeOptions(settings, labels)
	aopts.Regular = set.Regular
	aopts.Sizes = set.Sizes
	out, err := partial.NewAnalyzeStream(opts.IO.Out, opts.Partial.Output, p)
	if err != nil {
		return err
	}
	defer out.Abort()
	// SIGINT/SIGTERM stop the reads; nothing is written then.
	ctx, stop := signalContext()
	defer stop()
	analyze.Files(ctx, set.Files, opts.IO.In, read, opts.Input.Jobs, cfg, aopts, func(fr analyze.FileResult) bool {
		log := set.Index[n]
		if fr.Last { // a file comes in parts
			n++
		}
		if fr.Err != nil {
			if analyze.FatalFileErr(read, fr.Err) {
				runErr = fr.Err
				return false
			}
			errs = append(errs, partial.Error{Log: log, FileError: analyze.FileError{Source: fr.Path, Error: fr.Err.Error()}})
			reportFileError(opts.IO, fr.Err)
		}
		for i, ep := range fr.Episodes {
			if err := analyze.StrictErr(read, &ep.Diag); err != nil {
				runErr = err
				return false
			}
			o := fr.Outcomes[i]
			ps := o.Sink.(*partialSink)
			if fr.LabelErrs != nil {
				runErr = fr.LabelErrs[i]
			}
			if runErr == nil {
				runErr = analyzePartialEpisode(opts, cfg, settings, out, &totals, log, o, ep, ps)
			}
			ps.json.Release()
			if runErr != nil {
				return false
			}
		}
		return true
	})
	if ctx.Err() != nil {
		return fmt.Errorf("%v: nothing written", context.Cause(ctx))
	}
	if runErr != nil {
		return runErr
	}
	return out.Commit(&totals, errs)
}

// sweepPartialRun is sweep --partial.
func sweepPartialRun(opts *SweepOptions, cfg *rules.Config, cfgPath string) error {
	set, err := opts.Input.findShard(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	settings := partial.SweepSettings{MaxFalseRate: opts.MaxFalseRate.Ptr(), ByEpisode: opts.ByEpisode, ConfigLine: report.ConfigLine(cfgPath, cfg)}
	for _, g := range opts.GridArgs {
		settings.Grid = append(settings.Grid, partial.GridArg(g))
	}
	p, err := partial.New("sweep", settings, cfg, opts.Input.args, set)
	if err != nil {
		return err
	}
	// Each shard scores its own episodes; the rows' exact scores merge.
	labels, err := opts.Labels.load(set.Files, set.NoSidecar)
	if err != nil {
		return err
	}
	part, err := sweep.RunPartial(sweep.Options{
		Files: set.Files, Stdin: opts.IO.In, Read: opts.Input.options(), Workers: opts.Input.Jobs,
		Base: cfg, Axes: opts.Axes, ByEpisode: opts.ByEpisode, Labels: labels,
		OnFile: func(p sweep.Progress) {
			if p.Err != nil {
				fmt.Fprintf(opts.IO.ErrOut, "loopbreak: %v\n", p.Err)
			}
		},
	})
	if err != nil {
		return err
	}
	body, err := partial.NewSweepBody(part, set)
	if err != nil {
		return err
	}
	return partial.Write(opts.IO.Out, opts.Partial.Output, p, body)
}

// checkPartialRun is check --partial: the shard's replay, not compared.
func checkPartialRun(opts *CheckOptions, cfg *rules.Config, cfgPath, mode string) error {
	set, err := opts.Input.findShard(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	settings := partial.CheckSettings{ConfigLine: report.ConfigLine(cfgPath, cfg), Mode: mode, Baseline: opts.Baseline, Prune: opts.Prune, MaxFalseRate: opts.MaxFalseRate.Ptr(), MinSaved: opts.MinSaved.Ptr(), MaxForfeit: opts.MaxForfeit.Ptr(), FailOn: []string{}}
	for _, f := range opts.failOn {
		settings.FailOn = append(settings.FailOn, f.Spec)
	}
	p, err := partial.New("check", settings, cfg, opts.Input.args, set)
	if err != nil {
		return err
	}
	col, err := check.Collect(check.Options{
		Files: set.Files, Stdin: opts.IO.In, Read: opts.Input.options(), Workers: opts.Input.Jobs,
		Config: cfg, Mode: mode, Baseline: opts.Baseline, FailOn: opts.failOn,
		OnFileError: func(_ string, err error) { reportFileError(opts.IO, err) },
	})
	if err != nil {
		return err
	}
	body, err := partial.NewCheckBody(col, set)
	if err != nil {
		return err
	}
	return partial.Write(opts.IO.Out, opts.Partial.Output, p, body)
}
