package report

// Rendering of `loopbreak sweep`: one result model (Sweep) written as a
// table for people, JSON (schema version 1, README: "sweep JSON") or CSV.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/rules"
)

// orderedObject marshals as a JSON object with its keys in order.
type orderedObject struct {
	keys []string
	vals []any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, k)
		b.WriteByte(':')
		v, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func settingsObject(ps []sweep.Setting) orderedObject {
	o := orderedObject{keys: []string{}, vals: []any{}}
	for _, p := range ps {
		o.keys = append(o.keys, p.Key)
		o.vals = append(o.vals, p.Value)
	}
	return o
}

type sweepSkippedJSON struct {
	Params orderedObject `json:"params"`
	Reason string        `json:"reason"`
}

type sweepResultJSON struct {
	Row      int           `json:"row"`
	Baseline bool          `json:"baseline"`
	Params   orderedObject `json:"params"`
	analyze.Totals
	Pareto      bool `json:"pareto"`
	Recommended bool `json:"recommended"`
}

type sweepRecommendedJSON struct {
	Row             *int           `json:"row"`
	Params          *orderedObject `json:"params"`
	Set             []string       `json:"set"`
	Criterion       string         `json:"criterion"`
	MaxFalseRatePct float64        `json:"max_false_rate_pct"`
	Reason          string         `json:"reason"`
}

type sweepOutcomeJSON struct {
	Row             int    `json:"row"`
	Outcome         string `json:"outcome"`
	TerminationTurn *int   `json:"termination_turn"`
	TurnsSaved      int    `json:"turns_saved"`
}

type sweepEpisodeJSON struct {
	EpisodeID string             `json:"episode_id"`
	Source    string             `json:"source"`
	Outcomes  []sweepOutcomeJSON `json:"outcomes"`
}

type sweepJSON struct {
	SchemaVersion int                  `json:"schema_version"`
	Base          orderedObject        `json:"base"`
	Grid          orderedObject        `json:"grid"`
	Skipped       []sweepSkippedJSON   `json:"skipped"`
	Results       []sweepResultJSON    `json:"results"`
	Recommended   sweepRecommendedJSON `json:"recommended"`
	Errors        []analyze.FileError  `json:"errors"`
	ByEpisode     *[]sweepEpisodeJSON  `json:"by_episode,omitempty"`
}

// WriteSweepJSON writes the sweep as one indented JSON document.
func WriteSweepJSON(w io.Writer, s *sweep.Result) error {
	doc := sweepJSON{
		SchemaVersion: SchemaVersion,
		Base:          orderedObject{keys: rules.Keys()},
		Grid:          orderedObject{keys: []string{}, vals: []any{}},
		Skipped:       []sweepSkippedJSON{},
		Results:       []sweepResultJSON{},
		Errors:        s.Errors,
	}
	for _, k := range doc.Base.keys {
		doc.Base.vals = append(doc.Base.vals, s.Base.Value(k))
	}
	for _, ax := range s.Axes {
		doc.Grid.keys = append(doc.Grid.keys, ax.Key)
		doc.Grid.vals = append(doc.Grid.vals, ax.Values)
	}
	for _, sk := range s.Skipped {
		doc.Skipped = append(doc.Skipped, sweepSkippedJSON{settingsObject(sk.Params), sk.Reason})
	}
	for i, r := range s.Rows {
		doc.Results = append(doc.Results, sweepResultJSON{Row: i, Baseline: r.Baseline, Params: settingsObject(r.Params),
			Totals: r.Totals, Pareto: r.Pareto, Recommended: r.Recommended})
	}
	rec := s.Recommendation
	doc.Recommended = sweepRecommendedJSON{Set: []string{}, Criterion: rec.Criterion, MaxFalseRatePct: rec.MaxFalseRatePct, Reason: rec.Reason}
	if rec.Row >= 0 && rec.Row < len(s.Rows) {
		row := rec.Row
		p := settingsObject(s.Rows[row].Params)
		doc.Recommended.Row, doc.Recommended.Params = &row, &p
		doc.Recommended.Set = setArgs(s, row)
	}
	if doc.Errors == nil {
		doc.Errors = []analyze.FileError{}
	}
	if s.ByEpisode {
		eps := []sweepEpisodeJSON{}
		for _, f := range s.Flips {
			e := sweepEpisodeJSON{EpisodeID: f.EpisodeID, Source: f.Source, Outcomes: []sweepOutcomeJSON{}}
			for i := range f.Outcomes {
				r := &f.Outcomes[i]
				o := sweepOutcomeJSON{Row: i, Outcome: r.Class(), TurnsSaved: r.TurnsSaved}
				if r.Terminated {
					t := r.TerminationTurn
					o.TerminationTurn = &t
				}
				e.Outcomes = append(e.Outcomes, o)
			}
			eps = append(eps, e)
		}
		doc.ByEpisode = &eps
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // reasons say "<" and ">"
	return enc.Encode(doc)
}

// setArgs is the row's swept settings as key=value, for --set.
func setArgs(s *sweep.Result, row int) []string {
	out := []string{}
	for _, p := range s.Rows[row].Params {
		out = append(out, p.String())
	}
	return out
}

// sweepCSVMetrics are the CSV columns after the parameters.
var sweepCSVMetrics = []string{"episodes", "terminated", "censored", "recorded_turns", "turns_saved", "turns_saved_pct",
	"llm_calls_saved", "false_terminations", "false_termination_pct", "score_forfeited", "median_turns_saved",
	"warnings", "would_reject", "lines_skipped", "pareto", "recommended"}

func csvNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// WriteSweepCSV writes one line per row (header first): row, baseline, the swept
// keys, then the totals. With ByEpisode it writes the per-episode table
// instead: one line per flipping episode and row.
func WriteSweepCSV(w io.Writer, s *sweep.Result) error {
	cw := csv.NewWriter(w)
	head := []string{"row", "baseline"}
	for _, ax := range s.Axes {
		head = append(head, ax.Key)
	}
	params := func(r *sweep.Row) []string {
		var out []string
		for _, p := range r.Params {
			out = append(out, rules.FormatValue(p.Value))
		}
		return out
	}
	if s.ByEpisode {
		cw.Write(append(append([]string{"episode_id", "source"}, head...), "outcome", "termination_turn", "turns_saved"))
		for _, f := range s.Flips {
			for i := range f.Outcomes {
				r := &f.Outcomes[i]
				turn := ""
				if r.Terminated {
					turn = strconv.Itoa(r.TerminationTurn)
				}
				line := []string{f.EpisodeID, f.Source, strconv.Itoa(i), strconv.FormatBool(s.Rows[i].Baseline)}
				line = append(line, params(&s.Rows[i])...)
				cw.Write(append(line, r.Class(), turn, strconv.Itoa(r.TurnsSaved)))
			}
		}
		cw.Flush()
		return cw.Error()
	}
	cw.Write(append(head, sweepCSVMetrics...))
	for i := range s.Rows {
		r := &s.Rows[i]
		t := &r.Totals
		line := append([]string{strconv.Itoa(i), strconv.FormatBool(r.Baseline)}, params(r)...)
		line = append(line,
			strconv.Itoa(t.Episodes), strconv.Itoa(t.Terminated), strconv.Itoa(t.Censored), strconv.Itoa(t.RecordedTurns),
			strconv.Itoa(t.TurnsSaved), csvNum(t.TurnsSavedPct), strconv.Itoa(t.LLMCallsSaved),
			strconv.Itoa(t.FalseTerminations), csvNum(t.FalseRatePct), csvNum(t.ScoreForfeited), csvNum(t.MedianTurnsSaved),
			strconv.Itoa(t.Warnings), strconv.Itoa(t.WouldReject), strconv.Itoa(t.LinesSkipped),
			strconv.FormatBool(r.Pareto), strconv.FormatBool(r.Recommended))
		cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// SweepTableOptions control the table.
type SweepTableOptions struct {
	Color bool
	// Width is the terminal's width; columns are hidden, least useful
	// first, until the table fits. 0: no limit (every column).
	Width int
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

// RowName is the table's name for a row: "base" or its number.
func RowName(rows []sweep.Row, i int) string {
	if rows[i].Baseline {
		return "base"
	}
	return strconv.Itoa(i)
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
		{"#", L, 0, func(i int) string { return RowName(rows, i) }},
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
		sweepColumn{"pareto", L, 0, func(i int) string {
			if rows[i].Pareto {
				return "*"
			}
			return ""
		}},
	)
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
		fmt.Fprintf(w, "%s %s\n", green.Sprintf("Recommended: %s", sweep.RowLabel(s.Rows, rec.Row)), "("+how+")")
	} else {
		fmt.Fprintln(w, yellow.Sprint("No recommendation."))
	}
	fmt.Fprintln(w, rec.Reason)

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
			parts = append(parts, RowName(s.Rows, idx[i]))
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
