package cmd

import (
	"bufio"
	"bytes"
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// AnalyzeOptions are analyze's inputs.
type AnalyzeOptions struct {
	IO      *IOStreams
	Paths   []string
	Config  configFlags
	Input   inputFlags
	Labels  labelFlags
	Format  string // text, json, jsonl, parquet
	Color   string // auto, always, never
	Verbose bool
	Partial partialFlags
	// ParquetFirings, with --format parquet, also writes one row per
	// firing to this file.
	ParquetFirings string
	Chart          bool // --chart: the timeline even when stdout is not a terminal
	ASCII          bool // --ascii: the timeline in plain characters
	// Detail writes every episode in full when several are read (-v too);
	// without it several episodes are only the corpus table.
	Detail bool
}

// NewCmdAnalyze builds `loopbreak analyze`; runF replaces the run in tests.
func NewCmdAnalyze(ios *IOStreams, runF func(*AnalyzeOptions) error) *cobra.Command {
	opts := &AnalyzeOptions{IO: ios}
	c := &cobra.Command{
		Use:   "analyze [flags] <episode_log.jsonl | dir | ->...",
		Short: "Replay every rule over episodes and show where it would have fired",
		Long: `Replay every loop-break rule turn by turn over one episode log, a tree of them
(every episode_log.jsonl[.gz|.zst] below; test_*/test-* directories skipped unless
--include-tests) or standard input (-), and report where termination,
penalties and warnings would have fired and what termination would have saved.`,
		Example: `  loopbreak analyze game_files/episodes/2025-11-03T12:38:53/episode_log.jsonl
  loopbreak analyze game_files/episodes/
  loopbreak analyze --config pyproject.toml --format json ep.jsonl > out.json
  cat ep.jsonl | loopbreak analyze -
  loopbreak analyze --preset openhands trajectory.json     # another agent's log
  loopbreak analyze --field step=iteration --field output=result.text run.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := checkFormat(opts.Format, "text", "json", "jsonl", "parquet"); err != nil {
				return err
			}
			if err := checkAnalyzeOutput(opts); err != nil {
				return err
			}
			if err := checkColor(opts.Color); err != nil {
				return err
			}
			if (opts.Chart || opts.ASCII) && opts.Format != "text" {
				return usageErrorf("--chart and --ascii draw in the text report, not with --format %s", opts.Format)
			}
			if runF != nil {
				return runF(opts)
			}
			if !opts.Partial.Partial && opts.Format != "parquet" {
				return toFile(opts.IO, opts.Partial.Output, func() error { return analyzeRun(opts) })
			}
			return analyzeRun(opts)
		},
	}
	opts.Config.register(c.Flags())
	opts.Input.register(c.Flags())
	opts.Labels.register(c.Flags())
	opts.Partial.register(c.Flags())
	c.Flags().StringVar(&opts.Format, "format", "text", "output `format`: text, json, jsonl (one episode per line, as each finishes) or parquet (one row per episode; needs -o)")
	addJSONFlag(c.Flags(), &opts.Format)
	c.Flags().StringVar(&opts.ParquetFirings, "parquet-firings", "", "with --format parquet, also write one row per firing to `file`")
	c.Flags().StringVar(&opts.Color, "color", "auto", "colour the text report: auto, always or never (auto honours NO_COLOR)")
	c.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "add the turn-by-turn trace and every run to the text report (implies --detail)")
	c.Flags().BoolVar(&opts.Detail, "detail", false, "with several episodes, write each in full before the corpus table")
	c.Flags().BoolVar(&opts.Chart, "chart", false, "draw each episode's timeline (default: only for a single episode on a terminal)")
	c.Flags().BoolVar(&opts.ASCII, "ascii", false, "draw the timeline in plain ASCII characters")
	return c
}

// analyzeRun writes through a buffer: a text report is many small writes
// per episode, one syscall each on an unbuffered stdout. The buffer is
// flushed after each part of a file (JSON Lines still come out as files
// finish) and before anything is said on stderr, so the two interleave as
// before.
func analyzeRun(opts *AnalyzeOptions) error {
	bw := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	err := analyzeWrite(opts, bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

func analyzeWrite(opts *AnalyzeOptions, bw *bufio.Writer) error {
	cfg, cfgPath, err := opts.Config.load(opts.IO.ErrOut)
	if err != nil {
		return err
	}
	opts.Input.Outputs = rules.NeedsOutputs(cfg)
	switch {
	case opts.Partial.Partial:
		return analyzePartialRun(opts, cfg, cfgPath)
	case opts.Format == "parquet":
		return analyzeParquetRun(opts, cfg)
	}
	set, err := opts.Input.findShard(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	files, walkErrs := set.Files, set.WalkErrs
	labels, err := opts.Labels.load(files, set.NoSidecar)
	if err != nil {
		return err
	}
	out := bw
	width := opts.IO.ReportWidth()
	text := &report.Text{W: out, Color: opts.IO.ColorEnabled(opts.Color), Verbose: opts.Verbose,
		Width: width, Config: report.ConfigLine(cfgPath, cfg), AgentConfig: report.AgentConfigLine(cfgPath, cfg),
		Detectors: &report.DetectorTotals{}}
	// Several logs are a corpus: its table first, an episode's detail only
	// when asked for.
	summaryOnly := opts.summaryOnly(len(files))
	jw := &report.JSONWriter{Lines: opts.Format == "jsonl"}
	begun := false // the JSON document starts with the first episode: no episodes, no output
	lastPath := "" // the file being emitted, to name a failure in the document
	var (
		totals analyze.Totals
		rows   report.CorpusRows // text's summary table; JSON needs only the totals
		n      int               // episodes reported
		errs   = walkErrs        // what the walk skipped, first
		runErr error
	)
	// Text shows each episode's story (built as the firings come; -v's
	// trace lists them); JSON lists its firings.
	// The timeline (--chart, or one episode on a terminal) reads them too.
	chart := opts.Chart || (opts.IO.StdoutTTY && len(files) == 1)
	// Labels are looked up and scored on the workers too (before they
	// render), as the firings come: they need not be kept for it. JSON
	// keeps each episode's firings packed as they come (Sink), never
	// holding them as structs.
	// No output keeps the firings: each reads what it needs of them as
	// they come (below).
	aopts := analyze.Options{Story: opts.Format == "text", Labels: labels, Regular: set.Regular, Sizes: set.Sizes}
	// What the episodes' outputs were read for, the rules, is done on the
	// worker: an episode waiting for its turn to be written (in input
	// order) need not hold them.
	aopts.ReleaseOutputs = true
	if opts.Format == "text" {
		// A steps or attempts log's headline table, tasks and first
		// firings are tallied as the firings come (report.AgentStory).
		aopts.Sink = report.NewAgentStory
		switch {
		case chart:
			// The chart's marks too, beside the story, as they come.
			aopts.Sink = report.NewChartSink(opts.Verbose, width)
		case opts.Verbose:
			// -v lists every firing: a steps or attempts log's kept
			// packed as they come, a few bytes each, and their lines
			// written with the text; a ZorkGPT log's turn-by-turn
			// trace written as they come into a spill
			// (report.NewAgentListing).
			aopts.Sink = report.NewAgentListing(width)
		}
	}
	// SIGINT/SIGTERM stop the reads (even one blocked on a quiet FIFO);
	// a JSON document begun is closed naming the interruption.
	ctx, stop := signalContext()
	defer stop()
	// Each episode is rendered on the worker that analysed it, in
	// parallel; here its bytes are only written, in order. Not the
	// verbose text, whose turn-by-turn trace grows with the episode: it
	// streams out here as before, rather than be held whole. The labels
	// table follows the episode's text, unless a timeline may come
	// between them (--chart, or one file on a terminal): then it is
	// written here, after the timeline.
	color := opts.IO.ColorEnabled(opts.Color)
	var renderBufs chan []byte // JSON formats: written episodes' buffers
	switch {
	case opts.Format == "json" || opts.Format == "jsonl":
		// An episode's JSON is written, then its buffer goes back to the
		// workers (renderBufs): tens of KB an episode are not allocated,
		// grown and faulted in afresh for each.
		renderBufs = make(chan []byte, 4*max(opts.Input.Jobs, 1))
		aopts.RenderLast = true // the bytes are all emit writes
		// Each episode's firings are kept packed as the replay produces
		// them (rules.FiringList, a few bytes each) and encoded into
		// the episode's place as it is written: an episode is still
		// written whole, in input order, and a million firings cost a
		// few MB.
		aopts.Sink = report.NewEpisodeFirings
		aopts.Render = func(o *analyze.Outcome, ep *replay.Episode) ([]byte, error) {
			e := report.NewEpisode(o, ep)
			e.Labels = report.NewEpisodeLabels(o.Labels, o.Scores)
			var b []byte
			select {
			case b = <-renderBufs:
			default:
			}
			return report.AppendEpisode(b, &e)
		}
	case opts.Format == "text" && !opts.Verbose && !summaryOnly:
		// As JSON's: a written episode's buffer goes back to the workers.
		renderBufs = make(chan []byte, 4*max(opts.Input.Jobs, 1))
		aopts.Render = func(o *analyze.Outcome, ep *replay.Episode) ([]byte, error) {
			var buf []byte
			select {
			case buf = <-renderBufs:
			default:
			}
			b := bytes.NewBuffer(buf)
			t := &report.Text{W: b, Color: color, Width: width}
			err := t.Episode(o, ep)
			if err == nil && !chart {
				err = t.EpisodeLabels(o.Labels, o.Scores)
			}
			return b.Bytes(), err
		}
	}
	analyze.Files(ctx, files, opts.IO.In, opts.Input.options(), opts.Input.Jobs, cfg, aopts, func(fr analyze.FileResult) bool {
		lastPath = fr.Path
		if fr.Err != nil {
			if analyze.FatalFileErr(opts.Input.options(), fr.Err) {
				runErr = fr.Err
				return false
			}
			errs = append(errs, analyze.FileError{Source: fr.Path, Error: fr.Err.Error()})
			if runErr = bw.Flush(); runErr != nil {
				return false
			}
			reportFileError(opts.IO, fr.Err)
		}
		for i, ep := range fr.Episodes {
			if err := analyze.StrictErr(opts.Input.options(), &ep.Diag); err != nil {
				runErr = err
				return false
			}
			o := fr.Outcomes[i]
			totals.Add(&o.Result, o.RecordedTurns, ep.Diag.Skipped)
			if fr.LabelErrs != nil && fr.LabelErrs[i] != nil {
				runErr = fr.LabelErrs[i]
				return false
			}
			if o.Labels != nil {
				totals.AddLabels(o.Labels, o.Scores)
			}
			totals.AddLive(o.Live)
			switch {
			case opts.Format == "text" && summaryOnly:
			case opts.Format == "text" && fr.Rendered == nil: // verbose
				runErr = text.Episode(o, ep)
			case opts.Format == "text":
				// The config line before the first episode; what a failed
				// rendering wrote comes out before its error.
				if runErr = text.HeaderFor(ep); runErr == nil {
					if _, runErr = out.Write(fr.Rendered[i]); runErr == nil {
						runErr = fr.RenderErrs[i]
					}
				}
				recycleRendered(renderBufs, fr.Rendered[i])
			default:
				if !begun {
					if runErr = jw.Begin(out, cfg); runErr != nil {
						return false
					}
					begun = true
				}
				if runErr = fr.RenderErrs[i]; runErr == nil {
					runErr = jw.EpisodeWith(fr.Rendered[i], o.Sink.(*report.EpisodeFirings))
				}
				report.ReleaseFirings(o)
				recycleRendered(renderBufs, fr.Rendered[i])
			}
			if opts.Format == "text" && !summaryOnly && runErr == nil && showChart(opts, len(files), len(fr.Episodes)) {
				// The chart goes straight to stdout: the buffer first.
				if runErr = bw.Flush(); runErr == nil {
					runErr = writeChart(opts, o, ep, cfg)
				}
			}
			if opts.Format == "text" && !summaryOnly && runErr == nil && (fr.Rendered == nil || chart) {
				// Not rendered with the episode (above): after its timeline.
				runErr = text.EpisodeLabels(o.Labels, o.Scores)
			}
			n++
			if opts.Format == "text" {
				rows.Add(report.NewSummaryRow(o, ep.Diag.Skipped))
				text.Detectors.Add(o, ep)
			}
			if runErr != nil {
				return false
			}
		}
		runErr = bw.Flush()
		return runErr == nil
	})
	if ctx.Err() != nil && runErr == nil {
		runErr = context.Cause(ctx)
	}
	if runErr != nil {
		if begun && !jw.Lines {
			// Close the document, naming the failure in its errors:
			// a consumer never gets half of one.
			totals.Finish()
			jw.End(&totals, append(errs, analyze.FileError{Source: lastPath, Error: runErr.Error()}))
		}
		return runErr
	}
	if n == 0 {
		return noEpisodesError(opts.Paths)
	}
	warnUnused(labels, opts.IO.ErrOut)
	totals.Finish()
	if opts.Format == "text" {
		if summaryOnly {
			text.Hint = detailHint(rows.FirstSource())
		}
		if n > 1 || len(errs) > 0 {
			if err := text.Corpus(&rows, &totals, errs); err != nil {
				return err
			}
			return text.LabelSummary(totals.Labels)
		}
		return nil
	}
	return jw.End(&totals, errs)
}

// summaryOnly says whether a text report of files logs is only the corpus
// table: several logs, and no --detail, -v or --chart asking for more.
func (opts *AnalyzeOptions) summaryOnly(files int) bool {
	return files > 1 && !opts.Detail && !opts.Verbose && !opts.Chart
}

// detailHint ends a corpus table: how to see one episode in full.
func detailHint(source string) string {
	return "One episode in full: loopbreak analyze " + shellQuote(source) + "; every episode: --detail."
}

// noEpisodesError is the exit-2 error of a run that read no episode at
// all: a report, a recommendation or a pass over nothing would mislead.
func noEpisodesError(files []string) error {
	return &check.NoEpisodesError{Files: files}
}

// reportFileError tells stderr about a file that could not be read; the
// run goes on without it.
func reportFileError(ios *IOStreams, err error) {
	ios.ErrOut.Write([]byte("loopbreak: " + err.Error() + "\n"))
}

// shellQuote quotes a path for a command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:+=,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maxRecycled bounds a buffer kept for reuse: one huge episode's JSON is
// not held to the end of the run.
const maxRecycled = 1 << 20

// recycleRendered hands a written episode's buffer back to bufs (nil:
// buffers are not reused).
func recycleRendered(bufs chan []byte, b []byte) {
	if bufs == nil || cap(b) == 0 || cap(b) > maxRecycled {
		return
	}
	select {
	case bufs <- b[:0]:
	default:
	}
}
