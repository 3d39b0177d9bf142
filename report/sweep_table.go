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
}

// shortKeys label the common swept keys in the table.
var shortKeys = map[string]string{
	"max_turns_stuck":         "max stuck",
	"stuck_check_interval":    "interval",
	"stuck_warning_threshold": "warn at",
}

type sweepColumn struct {
	head  string
	align tw.Align
	drop  int // order in which columns are hidden to fit (1 first); 0: always shown
	cell  func(i int) string
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
		}},
		{"#", L, 0, func(i int) string { return rowLabel(rows, i, false) }},
	}
	for k, ax := range s.Axes {
		head := ax.Key
		if sh, ok := shortKeys[ax.Key]; ok {
			head = sh
		}
		cols = append(cols, sweepColumn{head, R, 0, func(i int) string { return rules.FormatValue(rows[i].Params[k].Value) }})
	}
	cols = append(cols,
		sweepColumn{"terminated", R, 0, func(i int) string { return strconv.Itoa(tot(i).Terminated) }},
		sweepColumn{"censored", R, 5, func(i int) string { return strconv.Itoa(tot(i).Censored) }},
		sweepColumn{"turns saved", R, 0, func(i int) string {
			return fmt.Sprintf("%d (%.1f%%)", tot(i).TurnsSaved, tot(i).TurnsSavedPct)
		}},
		sweepColumn{"LLM calls saved", R, 4, func(i int) string { return strconv.Itoa(tot(i).LLMCallsSaved) }},
		sweepColumn{"false terminations", R, 0, func(i int) string {
			return fmt.Sprintf("%d (%.1f%%)", tot(i).FalseTerminations, tot(i).FalseRatePct)
		}},
		sweepColumn{"forfeited", R, 0, func(i int) string { return Num(tot(i).ScoreForfeited) }},
		sweepColumn{"median saved", R, 3, func(i int) string { return Num(tot(i).MedianTurnsSaved) }},
		sweepColumn{"warnings", R, 2, func(i int) string { return strconv.Itoa(tot(i).Warnings) }},
		sweepColumn{"would reject", R, 1, func(i int) string { return strconv.Itoa(tot(i).WouldReject) }},
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
				sweepColumn{"loops", R, drop, func(i int) string { return strconv.Itoa(tot(i).Loops) }},
				sweepColumn{"false alarms", R, drop, func(i int) string { return strconv.Itoa(tot(i).FalseAlarms) }},
			)
			break
		}
	}
	cols = append(cols,
		sweepColumn{"pareto", L, 0, func(i int) string {
			if rows[i].Pareto {
				return "*"
			}
			return ""
		}},
	)
	// F1 against labels, when labelled, before the Pareto mark.
	cols = append(cols[:len(cols)-1], append(labelColumns(s), cols[len(cols)-1])...)
	return cols
}

// renderColumns renders the rows with the columns shown.
func renderColumns(s *sweep.Result, cols []sweepColumn) ([]string, error) {
	var buf bytes.Buffer
	var align []tw.Align
	var head []string
	for _, c := range cols {
		align = append(align, c.align)
		head = append(head, c.head)
	}
	tb := NewTable(&buf, align...)
	tb.Header(head)
	for i := range s.Rows {
		var cells []string
		for _, c := range cols {
			cells = append(cells, c.cell(i))
		}
		if err := tb.Append(cells); err != nil {
			return nil, err
		}
	}
	if err := tb.Render(); err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines, nil
}

func maxWidth(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// WriteSweepTable writes the human report: a headline, the table (recommended row
// marked ">" and highlighted with colour, Pareto-efficient rows "*"), the
// recommendation and why, then what was skipped or unreadable and, with
// ByEpisode, the episodes whose outcome flips.
func WriteSweepTable(out io.Writer, s *sweep.Result, o SweepTableOptions) error {
	mk := colorMaker(o.Color)
	bold, green, yellow, red, dim := mk(color.Bold), mk(color.FgGreen, color.Bold), mk(color.FgYellow), mk(color.FgRed, color.Bold), mk(color.Faint)
	w := &errWriter{w: out}
	if len(s.Rows) == 0 {
		return nil
	}
	base := &s.Rows[0].Totals
	fmt.Fprintf(w, "%s\n", bold.Sprintf("Sweep over %s (%d recorded turns): %s and the baseline",
		sweepPlural(base.Episodes, "episode", "episodes"), base.RecordedTurns, sweepPlural(len(s.Rows)-1, "configuration", "configurations")))

	cols := sweepColumns(s)
	lines, err := renderColumns(s, cols)
	if err != nil {
		return err
	}
	var hidden []string
	for drop := 1; o.Width > 0 && maxWidth(lines) > o.Width; drop++ {
		var keep []sweepColumn
		found := false
		for _, c := range cols {
			if c.drop == drop {
				hidden, found = append(hidden, c.head), true
				continue
			}
			keep = append(keep, c)
		}
		if !found {
			break // nothing left to hide
		}
		cols = keep
		if lines, err = renderColumns(s, cols); err != nil {
			return err
		}
	}
	for i, l := range lines {
		switch {
		case i == 0:
			l = bold.Sprint(l)
		case i >= 2 && i-2 < len(s.Rows) && s.Rows[i-2].Recommended:
			l = green.Sprint(l)
		}
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, dim.Sprint("* Pareto-efficient: no other row saves as many turns or more with no more false terminations and no more score forfeited."))
	if len(hidden) > 0 {
		fmt.Fprintln(w, dim.Sprintf("Hidden to fit %d columns: %s (--format csv or json has every column).", o.Width, strings.Join(hidden, ", ")))
	}
	rec := s.Recommendation
	if rec.Row >= 0 && rec.Row < len(s.Rows) {
		how := "keeps the base configuration"
		if args := setArgs(s, rec.Row); len(args) > 0 && !s.Rows[rec.Row].Baseline {
			how = "--set " + strings.Join(args, " --set ")
		}
		fmt.Fprintf(w, "%s %s\n", green.Sprintf("Recommended: %s", rowLabel(s.Rows, rec.Row, true)), "("+how+")")
	} else {
		fmt.Fprintln(w, yellow.Sprint("No recommendation."))
	}
	fmt.Fprintln(w, RecommendationReason(s.Rows, rec))

	if base.LinesSkipped > 0 {
		fmt.Fprintln(w, yellow.Sprintf("%s skipped in the logs read (loopbreak analyze shows where).", sweepPlural(base.LinesSkipped, "unreadable line", "unreadable lines")))
	}
	if len(s.Skipped) > 0 {
		what := sweepPlural(len(s.Skipped), "combination that violates", "combinations that violate")
		fmt.Fprintf(w, "\n%s\n", bold.Sprintf("Skipped %s a constraint:", what))
		for _, sk := range s.Skipped {
			var ps []string
			for _, p := range sk.Params {
				ps = append(ps, p.String())
			}
			fmt.Fprintf(w, "  %s: %s\n", strings.Join(ps, " "), sk.Reason)
		}
	}
	if len(s.Errors) > 0 {
		fmt.Fprintf(w, "\n%s\n", red.Sprint("Unreadable files, excluded from every row:"))
		for _, e := range s.Errors {
			fmt.Fprintf(w, "  %s: %s\n", e.Source, e.Error)
		}
	}
	if s.ByEpisode {
		fmt.Fprintln(w)
		if len(s.Flips) == 0 {
			fmt.Fprintln(w, bold.Sprint("No episode changes outcome between rows."))
		} else {
			fmt.Fprintf(w, "%s\n", bold.Sprintf("Episodes whose outcome flips (%d of %d; the others have the same outcome in every row):", len(s.Flips), base.Episodes))
			idW := 0
			for _, f := range s.Flips {
				idW = max(idW, utf8.RuneCountInString(f.EpisodeID))
			}
			for _, f := range s.Flips {
				fmt.Fprintf(w, "  %-*s  %s\n", idW, f.EpisodeID, flipLine(s, &f))
			}
			fmt.Fprintln(w, dim.Sprint("Rows as numbered in the table; see --format json or csv for termination turns."))
		}
	}
	if o.ByRule {
		if err := writeSweepByRule(w, s, bold.Sprintf); err != nil {
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
	return strconv.Itoa(n) + " " + many
}
