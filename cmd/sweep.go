package cmd

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// GridArg is one grid flag as given, in command-line order: Flag is
// "--max-stuck", "--check-interval", "--warning-threshold" (Key set) or
// "--grid" (Spec is key=values).
type GridArg struct {
	Flag string
	Key  string
	Spec string
}

// SweepOptions are sweep's inputs.
type SweepOptions struct {
	IO     *IOStreams
	Paths  []string
	Config configFlags
	Input  inputFlags
	Labels labelFlags

	GridArgs []GridArg    // as given
	Axes     []sweep.Axis // parsed from GridArgs, in order (the first varies slowest)

	MaxFalseRate percentFlag // --max-false-rate, in percent

	ByEpisode bool
	ByRule    bool   // every rule's scores against labels per row
	Format    string // table, json, csv
	Color     string // auto, always, never
	Quiet     bool   // no progress bar
	Partial   partialFlags
	HTML      string // --html: also write the sweep as an HTML page to this file ("-": stdout)
}

// shortGridFlags are the keys with their own flag.
var shortGridFlags = []struct{ flag, key, usage string }{
	{"max-stuck", "max_turns_stuck", "max_turns_stuck `values`: a list 30,40,50 or a range start:stop:step (inclusive), or both"},
	{"check-interval", "stuck_check_interval", "stuck_check_interval `values` (list or range)"},
	{"warning-threshold", "stuck_warning_threshold", "stuck_warning_threshold `values` (list or range)"},
}

// gridValue records a grid flag in command-line order; parsing waits for
// RunE so errors name the flag plainly.
type gridValue struct {
	opts *SweepOptions
	flag string
	key  string // "" for --grid
}

func (g *gridValue) String() string { return "" }
func (g *gridValue) Type() string   { return "values" }
func (g *gridValue) Set(s string) error {
	g.opts.GridArgs = append(g.opts.GridArgs, GridArg{Flag: "--" + g.flag, Key: g.key, Spec: s})
	return nil
}

// NewCmdSweep builds `loopbreak sweep`; runF replaces the run in tests.
func NewCmdSweep(ios *IOStreams, runF func(*SweepOptions) error) *cobra.Command {
	opts := &SweepOptions{IO: ios}
	c := &cobra.Command{
		Use:   "sweep [flags] <episode_log.jsonl | dir>...",
		Short: "Replay a grid of configurations over a corpus and recommend one",
		Long: `Replay the loop-break rules over every episode once per configuration of a
grid (the cartesian product of the values given, over the base configuration
of --config and --set) and compare, configuration by configuration: turns and
LLM calls saved, false terminations, score forfeited, censored episodes,
warnings and rejections. Each file is read once whatever the number of
configurations.

Values are lists (30,40,50) or inclusive ranges (start:stop:step), mixed
freely; booleans take true,false. The first grid flag varies slowest.
Combinations that violate a constraint are skipped and listed. Rows that no
other row beats on turns saved, false terminations and score forfeited at once
are Pareto-efficient (*). With --max-false-rate P, sweep recommends the row
saving the most turns whose false terminations are at most P of terminated
episodes; without it, the efficient row saving the most turns under ZorkGPT's
5% target.`,
		Example: `  loopbreak sweep --max-stuck 30,40,50 game_files/episodes/
  loopbreak sweep --max-stuck 20:80:5 --check-interval 5,10 --warning-threshold 15,20 eps/
  loopbreak sweep --grid max_turns_stuck=30,40,50 --grid camping_threshold=4,5,6 eps/
  loopbreak sweep --max-stuck 30:60:10 --max-false-rate 5% --format json eps/ > sweep.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := checkFormat(opts.Format, "text", "table", "json", "csv"); err != nil {
				return err
			}
			if opts.Format == "text" {
				opts.Format = "table" // one name for the human format across commands; table stays an alias
			}
			if err := opts.Partial.check(); err != nil {
				return err
			}
			if err := checkColor(opts.Color); err != nil {
				return err
			}
			if opts.ByRule && opts.ByEpisode && opts.Format == "csv" {
				return usageErrorf("--by-rule and --by-episode each give CSV its own table: choose one")
			}
			axes, err := parseGridArgs(opts.GridArgs)
			if err != nil {
				return err
			}
			opts.Axes = axes
			if runF != nil {
				return runF(opts)
			}
			if !opts.Partial.Partial {
				return toFile(opts.IO, opts.Partial.Output, func() error { return sweepRun(opts) })
			}
			return sweepRun(opts)
		},
	}
	fl := c.Flags()
	for _, s := range shortGridFlags {
		fl.Var(&gridValue{opts: opts, flag: s.flag, key: s.key}, s.flag, s.usage)
	}
	fl.Var(&gridValue{opts: opts, flag: "grid"}, "grid", "sweep any key: `key=values` (list, range, or true,false); repeatable")
	opts.Config.register(fl)
	opts.Input.register(fl)
	opts.Partial.register(fl)
	fl.Var(&opts.MaxFalseRate, "max-false-rate", "recommend the row saving the most turns with false terminations at most `P` of terminated episodes (5% or 0.05)")
	fl.BoolVar(&opts.ByEpisode, "by-episode", false, "list the episodes whose outcome flips between rows")
	opts.Labels.register(fl)
	fl.BoolVar(&opts.ByRule, "by-rule", false, "with labelled episodes: every rule's precision, recall, F1 and lead time per row (CSV: one line per row and rule)")
	fl.StringVar(&opts.Format, "format", "text", "output `format`: text (also table), json or csv")
	addJSONFlag(fl, &opts.Format)
	fl.StringVar(&opts.Color, "color", "auto", "colour the table: auto, always or never (auto honours NO_COLOR)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar on stderr")
	fl.StringVar(&opts.HTML, "html", "", "also write a self-contained HTML page (chart and table) to `file`; - writes it to stdout instead of the table")
	return c
}

// parseGridArgs turns grid flags into axes; every error is a usage error
// naming the flag and the values as given: --max-stuck "30,abc": ...
func parseGridArgs(args []GridArg) ([]sweep.Axis, error) {
	if len(args) == 0 {
		return nil, usageErrorf("nothing to sweep: give --max-stuck, --check-interval, --warning-threshold or --grid key=values")
	}
	var axes []sweep.Axis
	from := map[string]string{}
	for _, a := range args {
		key, values := a.Key, a.Spec
		if a.Key == "" {
			k, v, ok := strings.Cut(a.Spec, "=")
			key, values = strings.TrimSpace(k), v
			if !ok || key == "" {
				return nil, usageErrorf("--grid %q: want key=values, e.g. max_turns_stuck=30,40,50", a.Spec)
			}
		}
		label := fmt.Sprintf("%s %q", a.Flag, a.Spec)
		if prev, dup := from[key]; dup {
			return nil, usageErrorf("%s: %s is already swept by %s", label, key, prev)
		}
		from[key] = a.Flag
		ax, err := sweep.ParseAxis(key, values)
		if err != nil {
			return nil, usageErrorf("%s: %v", label, err)
		}
		axes = append(axes, ax)
	}
	return axes, nil
}

func sweepRun(opts *SweepOptions) error {
	ios := opts.IO
	cfg, cfgPath, err := opts.Config.load(ios.ErrOut)
	if err != nil {
		return err
	}
	// The replies are read when the base or any swept key of an output
	// rule may need them.
	opts.Input.Outputs = rules.NeedsOutputs(cfg)
	for _, ax := range opts.Axes {
		opts.Input.Outputs = opts.Input.Outputs || rules.ReadsOutputs(ax.Key)
	}
	// A grid without a valid configuration is refused before any file is
	// looked for.
	if err := sweep.CheckGrid(cfg, opts.Axes); err != nil {
		return &usageError{err}
	}
	if opts.Partial.Partial {
		return sweepPartialRun(opts, cfg, cfgPath)
	}
	files, walkErrs, err := opts.Input.findLogs(opts.Paths, ios.ErrOut)
	if err != nil {
		return err
	}
	labels, err := opts.Labels.load(files, nil)
	if err != nil {
		return err
	}
	if opts.ByRule && labels == nil {
		return usageErrorf("--by-rule: no labelled episodes (give --labels FILE or put a labels.json next to the logs)")
	}
	bar := newProgressBar(ios, len(files), opts.Quiet)
	res, err := sweep.Run(sweep.Options{
		Files: files, Stdin: ios.In, Read: opts.Input.options(), Workers: opts.Input.Jobs,
		Base: cfg, Axes: opts.Axes, MaxFalseRatePct: opts.MaxFalseRate.Ptr(), ByEpisode: opts.ByEpisode,
		Labels: labels,
		OnFile: func(p sweep.Progress) {
			if p.Err != nil {
				bar.clear()
				fmt.Fprintf(ios.ErrOut, "loopbreak: %v\n", p.Err)
			}
			bar.update(p.Files, p.Episodes)
		},
	})
	bar.clear()
	if err != nil {
		return err
	}
	warnUnused(labels, ios.ErrOut)
	res.Errors = append(walkErrs, res.Errors...) // what the walk skipped, first
	if len(res.Rows) > 0 && res.Rows[0].Totals.Episodes == 0 {
		// A recommendation from no data would look like one from data.
		return noEpisodesError(opts.Paths)
	}
	if opts.HTML != "" {
		if err := writeSweepHTML(ios, opts.HTML, res, report.ConfigLine(cfgPath, cfg)); err != nil || opts.HTML == "-" {
			return err
		}
	}
	return writeSweep(ios, res, opts.Format, opts.Color, report.ConfigLine(cfgPath, cfg), opts.ByRule)
}

// writeSweep renders a sweep's result (a run's or a merge's); config is
// the table's first line, what was assumed; byRule is --by-rule.
func writeSweep(ios *IOStreams, res *sweep.Result, format, colorMode, config string, byRule bool) error {
	switch format {
	case "json":
		return report.WriteSweepJSON(ios.Out, res)
	case "csv":
		// CSV has no room for them: the skipped combinations go to stderr.
		for _, sk := range res.Skipped {
			var ps []string
			for _, p := range sk.Params {
				ps = append(ps, p.String())
			}
			fmt.Fprintf(ios.ErrOut, "loopbreak: skipped %s: %s\n", strings.Join(ps, " "), sk.Reason)
		}
		if byRule {
			return report.WriteSweepByRuleCSV(ios.Out, res)
		}
		return report.WriteSweepCSV(ios.Out, res)
	}
	return report.WriteSweepTable(ios.Out, res, report.SweepTableOptions{Color: ios.ColorEnabled(colorMode), Width: ios.ReportWidth(), Config: config, ByRule: byRule})
}

// terminalWidth is the width of w when it is a terminal, else $COLUMNS,
// else 80.
func terminalWidth(w io.Writer, getenv func(string) string) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if getenv != nil {
		if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
			return n
		}
	}
	return 80
}

// Progress bar timing: nothing for runs shorter than progressDelay, then
// a redraw at most every progressEvery. Tests shorten the delay.
var (
	progressDelay = 500 * time.Millisecond
	progressEvery = 100 * time.Millisecond
)

// progressBar draws "files done, episodes, rate, ETA" on one stderr line,
// only when stderr is a terminal and not --quiet.
type progressBar struct {
	w          io.Writer
	on         bool
	total      int
	width      int
	start      time.Time
	last       time.Time
	shown      bool
	now        func() time.Time
	files, eps int
}

func newProgressBar(ios *IOStreams, total int, quiet bool) *progressBar {
	p := &progressBar{w: report.Unwrap(ios.ErrOut), total: total, now: time.Now} // its own \r and erase sequence
	p.on = ios.StderrTTY && !quiet
	if p.on {
		p.width = terminalWidth(report.Unwrap(ios.ErrOut), ios.Getenv)
	}
	p.start = p.now()
	return p
}

// update records progress and redraws when due.
func (p *progressBar) update(files, episodes int) {
	if !p.on {
		return
	}
	p.files, p.eps = files, episodes
	now := p.now()
	if now.Sub(p.start) < progressDelay || (p.shown && now.Sub(p.last) < progressEvery && files < p.total) {
		return
	}
	p.last, p.shown = now, true
	io.WriteString(p.w, "\r"+p.line(now.Sub(p.start))+"\x1b[K")
}

// line renders the bar for the elapsed time.
func (p *progressBar) line(elapsed time.Duration) string {
	secs := elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(p.eps) / secs
	}
	eta := "?"
	if p.files > 0 && p.files <= p.total {
		eta = fmtETA(time.Duration(float64(elapsed) * float64(p.total-p.files) / float64(p.files)))
	}
	text := fmt.Sprintf(" %d/%d files · %d episodes · %.0f episodes/s · ETA %s", p.files, p.total, p.eps, rate, eta)
	barW := min(40, p.width-len("sweep [] ")-len([]rune(text))-1)
	if barW < 10 {
		return strings.TrimSpace(text)
	}
	fill := 0
	if p.total > 0 {
		fill = barW * p.files / p.total
	}
	return "sweep [" + strings.Repeat("=", fill) + strings.Repeat(" ", barW-fill) + "]" + text
}

// clear erases the bar (before other stderr output, and at the end).
func (p *progressBar) clear() {
	if p.shown {
		io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func fmtETA(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}
