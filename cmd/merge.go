package cmd

import (
	"bufio"
	"io"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
	"github.com/loopbreak/loopbreak/analyze/partial"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/report"
)

// MergeOptions are merge's inputs.
type MergeOptions struct {
	IO    *IOStreams
	Paths []string
	// Format is the output format of the partials' command ("": its
	// default); Color as that command's --color.
	Format string
	Color  string
	// Update and Baseline are check's: the merge writes a baseline only
	// with --update, only at the path --baseline names (never one a part
	// names), and that must be the one the shards were given.
	Update   bool
	Baseline string
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
(analyze: text if the partials keep text, else json).

Partials of check --update are merged with --update, which writes the baseline
at --baseline (default ` + check.DefaultBaseline + `): the path the shards were
given, as their entries' log paths are relative to its directory. The merge
writes nowhere else, and never where a part says.`,
		Example: `  loopbreak sweep --shard 1/4 --partial -o part-1.json --max-stuck 30,40,50 eps/
  loopbreak merge part-*.json
  loopbreak merge --format csv part-*.json > sweep.csv
  loopbreak merge --update --baseline ci/loopbreak.baseline.json check-*.json`,
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
	addJSONFlag(fl, &opts.Format)
	fl.BoolVar(&opts.Update, "update", false, "check partials made with --update: write the baseline (at --baseline)")
	fl.StringVar(&opts.Baseline, "baseline", "", "check partials: the baseline `file`, the one the shards were given (with --update, default "+check.DefaultBaseline+"; without, the shards')")
	fl.StringVar(&opts.Color, "color", "auto", "colour the text report or table: auto, always or never (auto honours NO_COLOR)")
	return c
}

func mergeRun(opts *MergeOptions) error {
	parts := make([]*partial.File, len(opts.Paths))
	for i, name := range opts.Paths {
		p, err := partial.Open(name)
		if err != nil {
			return err
		}
		defer p.Close()
		parts[i] = p
	}
	return mergeParts(opts, parts)
}

// mergeParts merges parsed partials; opts.Paths names them.
func mergeParts(opts *MergeOptions, parts []*partial.File) error {
	m, err := partial.Merge(parts, opts.Paths)
	if err != nil {
		return err
	}
	if m.Command != "check" && (opts.Update || opts.Baseline != "") {
		return usageErrorf("--update and --baseline: only for the partials of check, not of %s", m.Command)
	}
	switch m.Command {
	case "analyze":
		return mergeAnalyze(opts, m)
	case "sweep":
		return mergeSweep(opts, m)
	}
	return mergeCheck(opts, m)
}

// mergeAnalyze prints what analyze over every shard's logs prints,
// holding one episode per part at a time (and, for the text summary, one
// row per episode).
func mergeAnalyze(opts *MergeOptions, m *partial.Merger) error {
	var settings partial.AnalyzeSettings
	if err := m.Settings(&settings); err != nil {
		return err
	}
	format := opts.Format
	if format == "" {
		format = "json"
		if settings.Text {
			format = "text"
		}
	}
	if err := checkFormat(format, "text", "json", "jsonl"); err != nil {
		return err
	}
	if format == "text" && !settings.Text {
		return usageErrorf("--format text: the partials keep no text report (their shards ran with --format json or jsonl); merge with --format json or jsonl, or run the shards with --format text")
	}
	var rows *mergeRows
	var addRow func(int, *partial.EpisodeRow)
	if format == "text" {
		rows = &mergeRows{}
		addRow = rows.add
	}
	a, err := m.Analyze(addRow)
	if err != nil {
		return err
	}
	if a.Episodes == 0 {
		return noEpisodesError(m.Args)
	}
	fileErrs := a.Errors
	out := opts.IO.Out
	if format != "text" {
		// Buffered: an episode is written in a few pieces (JSONWriter).
		bw := bufio.NewWriterSize(out, 64<<10)
		jw := &report.JSONWriter{Lines: format == "jsonl"}
		if err := jw.Begin(bw, a.Config); err != nil {
			return err
		}
		if err := a.Each(true, false, func(js []byte, _ string) error { return jw.EpisodeJSON(js) }); err != nil {
			bw.Flush() // what was merged before the failure, as unbuffered
			return err
		}
		if len(fileErrs) == 0 {
			fileErrs = nil
		}
		if err := jw.End(&a.Totals, fileErrs); err != nil {
			return err
		}
		return bw.Flush()
	}
	text := &report.Text{W: out, Color: opts.IO.ColorEnabled(opts.Color), Width: opts.IO.ReportWidth(), Config: settings.ConfigLine}
	if err := text.Header(); err != nil {
		return err
	}
	if a.Texts { // else (the corpus table alone) there is nothing to read again
		// A part's rendered text is read back from a file anyone could
		// have written: it leaves through the same terminal boundary as
		// every text report.
		tw := report.TermWriter(out, text.Color)
		if err := a.Each(false, true, func(_ []byte, t string) error {
			_, err := io.WriteString(tw, t)
			return err
		}); err != nil {
			return err
		}
	}
	if a.Episodes > 1 || len(fileErrs) > 0 {
		summary := rows.sorted()
		if settings.SummaryOnly {
			text.Hint = detailHint(summary[0].Source)
		}
		if err := text.Summary(summary, &a.Totals, fileErrs); err != nil {
			return err
		}
		return text.LabelSummary(a.Totals.Labels)
	}
	return nil
}

// mergeRows are the text summary's rows, part after part, with their
// logs; sorted stably by log they are in the order of one run.
type mergeRows struct {
	rows []report.SummaryRow
	logs []int
}

func (r *mergeRows) add(log int, s *partial.EpisodeRow) {
	row := report.NewSummaryRow(&analyze.Outcome{EpisodeID: s.EpisodeID, Source: s.Source, RecordedTurns: s.RecordedTurns, FinalScore: s.FinalScore, RecordedEnd: s.RecordedEnd, Termination: s.Termination,
		Result: analyze.Result{TurnsSaved: s.TurnsSaved, LLMCallsSaved: s.LLMCallsSaved, ScoreForfeited: s.ScoreForfeited, FalseTermination: s.FalseTermination, Censored: s.Censored}},
		s.Diagnostics.Skipped)
	if s.Live != nil {
		row.LiveWord = "differs"
		if s.Live.Agrees {
			row.LiveWord = "agrees"
		}
	}
	r.rows = append(r.rows, row)
	r.logs = append(r.logs, log)
}

// sorted sorts in place (no second copy of the rows) and returns them.
func (r *mergeRows) sorted() []report.SummaryRow {
	sort.Stable(r)
	return r.rows
}

func (r *mergeRows) Len() int           { return len(r.rows) }
func (r *mergeRows) Less(i, j int) bool { return r.logs[i] < r.logs[j] }
func (r *mergeRows) Swap(i, j int) {
	r.rows[i], r.rows[j] = r.rows[j], r.rows[i]
	r.logs[i], r.logs[j] = r.logs[j], r.logs[i]
}

// mergeSweep prints what sweep over every shard's logs prints.
func mergeSweep(opts *MergeOptions, m *partial.Merger) error {
	format := opts.Format
	if format == "" {
		format = "table"
	}
	if err := checkFormat(format, "text", "table", "json", "csv"); err != nil {
		return err
	}
	if format == "text" {
		format = "table"
	}
	var settings partial.SweepSettings
	if err := m.Settings(&settings); err != nil {
		return err
	}
	res, err := m.Sweep(&settings, func(grid []partial.GridArg) ([]sweep.Axis, error) {
		args := make([]GridArg, len(grid))
		for i, g := range grid {
			args[i] = GridArg(g)
		}
		return parseGridArgs(args)
	})
	if err != nil {
		return err
	}
	if len(res.Rows) > 0 && res.Rows[0].Totals.Episodes == 0 {
		return noEpisodesError(m.Args)
	}
	return writeSweep(opts.IO, res, format, opts.Color, settings.ConfigLine, false)
}

// mergeCheck compares the union of the shards with the baseline and
// gates it, as check over every shard's logs does.
func mergeCheck(opts *MergeOptions, m *partial.Merger) error {
	format := opts.Format
	if format == "" {
		format = "text"
	}
	if err := checkFormat(format, "text", "json", "junit", "github", "markdown"); err != nil {
		return err
	}
	var settings partial.CheckSettings
	if err := m.Settings(&settings); err != nil {
		return err
	}
	if err := mergeBaseline(opts, &settings); err != nil {
		return err
	}
	res, err := m.Check(&settings, listsEvery(format))
	if err != nil {
		return checkError(err, m.Args)
	}
	return writeCheck(opts.IO, res, format, opts.Color, settings.ConfigLine)
}

// mergeBaseline decides the baseline a check merge reads and writes from
// merge's own flags: a part's baseline path is only compared with them,
// so a part cannot make the merge write anywhere.
func mergeBaseline(opts *MergeOptions, settings *partial.CheckSettings) error {
	switch {
	case settings.Mode == check.ModeUpdate && !opts.Update:
		return usageErrorf("the partials were made by check --update: merge them with --update (and --baseline FILE) to write the baseline, or run the shards without --update to compare")
	case settings.Mode != check.ModeUpdate && opts.Update:
		return usageErrorf("--update: the partials were made by check without --update; run the shards with --update")
	case settings.Mode == check.ModeGatesOnly && opts.Baseline != "":
		return usageErrorf("--baseline: the partials were made by check --no-baseline")
	}
	file := opts.Baseline
	switch {
	case file == "" && opts.Update:
		file = check.DefaultBaseline
	case file == "":
		return nil // compare: read the shards' baseline, write nothing
	}
	if filepath.Clean(file) != filepath.Clean(settings.Baseline) {
		return usageErrorf("--baseline %s: the shards were given --baseline %s, and their entries name logs relative to its directory; merge with --baseline %s", file, settings.Baseline, settings.Baseline)
	}
	settings.Baseline = file
	return nil
}
