package report

// The sweep table for people.

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/rules"
)

// SweepTableOptions control the table.
type SweepTableOptions struct {
	Color bool
	// Width is the terminal's width; columns are hidden, least useful
	// first, until the table fits. 0: no limit (every column).
	Width int
	// ByRule adds every rule's scores against labels per row (labels.go).
	ByRule bool
	// Config is the line saying what was assumed (ConfigLine), first.
	Config string
}

// shortKeys label the common swept keys in the table.
var shortKeys = map[string]string{
	"max_turns_stuck":         "max stuck",
	"stuck_check_interval":    "interval",
	"stuck_warning_threshold": "warn at",
}

// narrowKeys label them when even the short labels do not fit.
var narrowKeys = map[string]string{
	"max_turns_stuck":         "stuck",
	"stuck_check_interval":    "every",
	"stuck_warning_threshold": "warn",
}

type sweepColumn struct {
	head  string
	align tw.Align
	drop  int // order in which columns are hidden to fit (1 first); 0: always shown
	cell  func(i int) string
	short string // head when hiding is not enough
	cut   bool   // cells and head may be shortened with "…" (swept values)
}

func sweepColumns(s *sweep.Result) []sweepColumn {
	rows := s.Rows
	tot := func(i int) *analyze.Totals { return &rows[i].Totals }
	cols := []sweepColumn{
		{"", L, 0, func(i int) string {
			if rows[i].Recommended {
				return ">"
			}
			return ""
		}, "", false},
		{"#", L, 0, func(i int) string { return rowLabel(rows, i, false) }, "", false},
	}
	for k, ax := range s.Axes {
		head := ax.Key
		if sh, ok := shortKeys[ax.Key]; ok {
			head = sh
		}
		// A varied key is never cut: other columns are hidden first.
		narrow := narrowKeys[ax.Key]
		cols = append(cols, sweepColumn{head, R, 0, func(i int) string { return rules.FormatValue(rows[i].Params[k].Value) }, narrow, false})
	}
	keys := len(cols)
	cols = append(cols,
		sweepColumn{"terminated", R, 0, func(i int) string { return strconv.Itoa(tot(i).Terminated) }, "cut", false},
		sweepColumn{"censored", R, 5, func(i int) string { return strconv.Itoa(tot(i).Censored) }, "", false},
		sweepColumn{"turns saved", R, 0, func(i int) string {
			return fmt.Sprintf("%d (%.1f%%)", tot(i).TurnsSaved, tot(i).TurnsSavedPct)
		}, "saved", false},
		sweepColumn{"LLM calls saved", R, 4, func(i int) string { return strconv.Itoa(tot(i).LLMCallsSaved) }, "", false},
		sweepColumn{"false terminations", R, 0, func(i int) string {
			return fmt.Sprintf("%d (%.1f%%)", tot(i).FalseTerminations, tot(i).FalseRatePct)
		}, "false", false},
		sweepColumn{"forfeited", R, 0, func(i int) string { return Num(tot(i).ScoreForfeited) }, "forf.", false},
		sweepColumn{"median saved", R, 3, func(i int) string { return Num(tot(i).MedianTurnsSaved) }, "", false},
		sweepColumn{"warnings", R, 2, func(i int) string { return strconv.Itoa(tot(i).Warnings) }, "", false},
		sweepColumn{"would reject", R, 1, func(i int) string { return strconv.Itoa(tot(i).WouldReject) }, "", false},
	)
	// The other agents' detectors: their loops and false alarms, when any
	// fired (detectors.go defines a false alarm).
	// They are hidden early to fit (with warnings), unless the grid sweeps
	// their keys.
	drop := 2
	for _, ax := range s.Axes {
		for _, r := range rules.Registry {
			if r.Origin != rules.OriginZorkGPT && r.Origin != rules.OriginDesign && slices.ContainsFunc(r.Params, func(p *rules.Param) bool { return p.Key == ax.Key }) {
				drop = 0
			}
		}
	}
	for i := range rows {
		if tot(i).Loops > 0 {
			cols = append(cols,
				sweepColumn{"loops", R, drop, func(i int) string { return strconv.Itoa(tot(i).Loops) }, "", false},
				sweepColumn{"false alarms", R, drop, func(i int) string { return strconv.Itoa(tot(i).FalseAlarms) }, "", false},
			)
			break
		}
	}
	cols = append(cols,
		sweepColumn{"pareto", L, 6, func(i int) string {
			if rows[i].Pareto {
				return "*"
			}
			return ""
		}, "*", false},
	)
	// F1 against labels, when labelled, before the Pareto mark.
	cols = append(cols[:len(cols)-1], append(labelColumns(s), cols[len(cols)-1])...)
	switch s.Recommendation.Criterion {
	case sweep.CriterionDetectors, sweep.CriterionNone:
		// No row terminates differently: the detectors' figures follow
		// the keys, and the termination columns, the same on every row,
		// are the first hidden to fit.
		term := cols[keys : keys+9]
		rest := cols[keys+9:]
		out := append(append([]sweepColumn(nil), cols[:keys]...), rest...)
		for i := range out {
			if out[i].drop > 0 {
				out[i].drop += 20
			}
		}
		for i, c := range term {
			c.drop = 1 + i
			out = append(out, c)
		}
		// The Pareto mark stays last.
		p := len(out) - 1 - len(term)
		out = append(append(out[:p:p], out[p+1:]...), out[p])
		for i := range out {
			if out[i].head == "loops" || out[i].head == "false alarms" {
				out[i].drop = 0
			}
		}
		return out
	}
	return cols
}

// renderColumns lays the rows out within width (0: every column as is),
// returning the lines and the heads of the columns hidden to fit. A
// table that cannot fit is left too wide, or with stack written a record
// per row.
func renderColumns(s *sweep.Result, cols []sweepColumn, width int, stack bool) ([]string, []string, error) {
	g := &Grid{NoStack: !stack}
	for _, c := range cols {
		g.Cols = append(g.Cols, Col{Head: c.head, Align: c.align, Drop: c.drop, Short: c.short, Cut: c.cut})
	}
	// One allocation for every row's cells: a grid of 10,000 rows is
	// 150,000 of them.
	all := make([]string, len(s.Rows)*len(cols))
	g.Rows = make([][]string, len(s.Rows))
	for i := range s.Rows {
		cells := all[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		for k, c := range cols {
			cells[k] = c.cell(i)
		}
		g.Rows[i] = cells
	}
	var buf bytes.Buffer
	hidden, err := g.Render(&buf, width)
	if err != nil {
		return nil, nil, err
	}
	return strings.Split(strings.TrimRight(buf.String(), "\n"), "\n"), hidden, nil
}

// WriteSweepTable writes the human report: a headline, the table (recommended row
// marked ">" and highlighted with colour, Pareto-efficient rows "*"), the
// recommendation and why, then what was skipped or unreadable and, with
// ByEpisode, the episodes whose outcome flips.
func WriteSweepTable(out io.Writer, s *sweep.Result, o SweepTableOptions) error {
	mk := colorMaker(o.Color)
	bold, green, yellow, red, dim := mk(color.Bold), mk(color.FgGreen, color.Bold), mk(color.FgYellow), mk(color.FgRed, color.Bold), mk(color.Faint)
	w := &errWriter{w: TermWriter(out, o.Color)}
	if len(s.Rows) == 0 {
		return nil
	}
	base := &s.Rows[0].Totals
	if o.Config != "" {
		fmt.Fprintf(w, "%s\n\n", dim.Sprint(Wrap(Term(o.Config), o.Width, 0, "  ")))
	}
	fmt.Fprintf(w, "%s\n", bold.Sprint(Wrap(fmt.Sprintf("Sweep over %s (%d recorded turns): %s and the baseline",
		sweepPlural(base.Episodes, "episode", "episodes"), base.RecordedTurns, sweepPlural(len(s.Rows)-1, "configuration", "configurations")), o.Width, 0, "")))

	cols := sweepColumns(s)
	lines, hidden, err := renderColumns(s, cols, o.Width, false)
	if err != nil {
		return err
	}
	// A varied key too long for the width is never cut: its column is
	// headed [1], [2]… and the keys are named in full under the table.
	var keyNotes []string
	for k := 1; o.Width > 0 && widest(lines) > o.Width; k++ {
		// The longest key left first, until the table fits.
		long := -1
		for i := range cols {
			if isAxis(s, cols[i].head) && (long < 0 || len(cols[i].head) > len(cols[long].head)) {
				long = i
			}
		}
		if long < 0 || len(cols[long].head) <= 3 {
			break
		}
		keyNotes = append(keyNotes, fmt.Sprintf("[%d] %s", k, axisKey(s, cols[long].head)))
		cols[long].head, cols[long].short = fmt.Sprintf("[%d]", k), ""
		if lines, hidden, err = renderColumns(s, cols, o.Width, false); err != nil {
			return err
		}
	}
	stacked := false // a record per row: no line is a row to colour
	if o.Width > 0 && widest(lines) > o.Width {
		if lines, hidden, err = renderColumns(s, cols, o.Width, true); err != nil {
			return err
		}
		stacked = true
	}
	// Prose wraps at word boundaries on a terminal; off one, lines stay
	// whole (a fixed layout for scripts).
	para := func(c *color.Color, text string) {
		fmt.Fprintln(w, c.Sprint(Wrap(text, o.Width, 0, "")))
	}
	for i, l := range lines {
		switch {
		case stacked:
		case i == 0:
			l = bold.Sprint(l)
		case i >= 2 && i-2 < len(s.Rows) && s.Rows[i-2].Recommended:
			l = green.Sprint(l)
		}
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	for _, n := range keyNotes {
		para(dim, n)
	}
	para(dim, ParetoNote(s.Recommendation))
	if len(hidden) > 0 {
		para(dim, fmt.Sprintf("Hidden to fit %d columns: %s (--format csv or json has every column).", o.Width, strings.Join(hidden, ", ")))
	}
	rec := s.Recommendation
	if rec.Row >= 0 && rec.Row < len(s.Rows) {
		how := "keeps the base configuration"
		if args := setArgs(s, rec.Row); len(args) > 0 && !s.Rows[rec.Row].Baseline {
			how = "--set " + strings.Join(args, " --set ")
		}
		head := "Recommended: " + rowLabel(s.Rows, rec.Row, true)
		fmt.Fprintf(w, "%s %s\n", green.Sprint(head), Wrap("("+how+")", o.Width, utf8.RuneCountInString(head)+1, ""))
	} else {
		fmt.Fprintln(w, yellow.Sprint("No recommendation."))
	}
	para(color.New(), RecommendationReason(s.Rows, rec))

	if base.LinesSkipped > 0 {
		para(yellow, fmt.Sprintf("%s skipped in the logs read (loopbreak analyze shows where).", sweepPlural(base.LinesSkipped, "unreadable line", "unreadable lines")))
	}
	if len(s.Skipped) > 0 {
		what := sweepPlural(len(s.Skipped), "combination that violates", "combinations that violate")
		fmt.Fprintf(w, "\n%s\n", bold.Sprintf("Skipped %s a constraint:", what))
		for _, sk := range s.Skipped {
			var ps []string
			for _, p := range sk.Params {
				ps = append(ps, p.String())
			}
			fmt.Fprintf(w, "  %s\n", Wrap(Term(strings.Join(ps, " ")+": "+sk.Reason), o.Width, 2, "    "))
		}
	}
	if len(s.Errors) > 0 {
		fmt.Fprintf(w, "\n%s\n", red.Sprint("Unreadable files, excluded from every row:"))
		for _, e := range s.Errors {
			fmt.Fprintf(w, "  %s\n", Wrap(Term(e.Source+": "+e.Error), o.Width, 2, "    "))
		}
	}
	if s.ByEpisode {
		fmt.Fprintln(w)
		if len(s.Flips) == 0 {
			fmt.Fprintln(w, bold.Sprint("No episode changes outcome between rows."))
		} else {
			fmt.Fprintf(w, "%s\n", bold.Sprint(Wrap(fmt.Sprintf("Episodes whose outcome flips (%d of %d; the others have the same outcome in every row):", len(s.Flips), base.Episodes), o.Width, 0, "")))
			idW := 0
			for _, f := range s.Flips {
				idW = max(idW, utf8.RuneCountInString(Term(f.EpisodeID)))
			}
			for _, f := range s.Flips {
				fmt.Fprintf(w, "  %-*s  %s\n", idW, Term(f.EpisodeID), Wrap(flipLine(s, &f), o.Width, idW+4, strings.Repeat(" ", idW+4)))
			}
			para(dim, "Rows as numbered in the table; see --format json or csv for termination turns.")
		}
	}
	if o.ByRule {
		if err := writeSweepByRule(w, s, o.Width, bold.Sprintf); err != nil {
			return err
		}
	}
	return w.err
}

var classWords = map[string]string{
	analyze.ClassNever:      "never terminated",
	analyze.ClassTerminated: "terminated",
	analyze.ClassFalse:      "false termination",
	analyze.ClassCensored:   "censored",
}

// flipLine groups an episode's rows by outcome class, classes in order of
// first appearance: "false termination: base, 1–3 · never terminated: 4–9".
func flipLine(s *sweep.Result, f *sweep.Flip) string {
	var order []string
	byClass := map[string][]int{}
	for i := range f.Outcomes {
		c := f.Outcomes[i].Class()
		if _, ok := byClass[c]; !ok {
			order = append(order, c)
		}
		byClass[c] = append(byClass[c], i)
	}
	var parts []string
	for _, c := range order {
		parts = append(parts, classWords[c]+": "+rowRanges(s, byClass[c]))
	}
	return strings.Join(parts, " · ")
}

// rowRanges writes row indices as "base, 1–3, 7".
func rowRanges(s *sweep.Result, idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		if s.Rows[idx[i]].Baseline {
			parts = append(parts, rowLabel(s.Rows, idx[i], false))
			i++
			continue
		}
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 && !s.Rows[idx[j+1]].Baseline {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(idx[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(idx[i]), strconv.Itoa(idx[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", idx[i], idx[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func sweepPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + many
}

// widest is the widest line's width in runes.
func widest(lines []string) int {
	n := 0
	for _, l := range lines {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// isAxis says whether a column head is one of the swept keys (as headed).
func isAxis(s *sweep.Result, head string) bool { return axisKey(s, head) != "" }

// axisKey is the swept key a column is headed by ("" for none).
func axisKey(s *sweep.Result, head string) string {
	for _, ax := range s.Axes {
		h := ax.Key
		if sh, ok := shortKeys[ax.Key]; ok {
			h = sh
		}
		if h == head {
			return ax.Key
		}
	}
	return ""
}
