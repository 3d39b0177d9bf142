package report

// Scores against labelled episodes (docs/labels.md): the
// per-episode JSON field and the text tables "rule · precision · recall ·
// F1 · lead time".

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/rules"
)

// EpisodeLabels is the JSON form of an episode's labels and how every
// rule/kind scored against them (null for an unlabelled episode).
type EpisodeLabels struct {
	Source string         `json:"source"`
	Stuck  []analyze.Span `json:"stuck"`
	Scores analyze.Scores `json:"scores"`
}

// NewEpisodeLabels builds the JSON form; nil when lab is nil.
func NewEpisodeLabels(lab *analyze.EpisodeLabels, s analyze.Scores) *EpisodeLabels {
	if lab == nil {
		return nil
	}
	e := &EpisodeLabels{Source: lab.Source, Stuck: lab.Stuck, Scores: s}
	if e.Stuck == nil {
		e.Stuck = []analyze.Span{}
	}
	if e.Scores == nil {
		e.Scores = analyze.Scores{}
	}
	return e
}

// ScorePct formats a ratio as a percentage with two decimals, "-" when
// undefined.
func ScorePct(f float64, ok bool) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(analyze.Round2(f*100), 'f', 2, 64) + "%"
}

// leadCell is "median (max N)" in turns, "-" without a caught span.
func leadCell(s *analyze.Score) string {
	m, ok := s.LeadMedian()
	if !ok {
		return "-"
	}
	mx, _ := s.LeadMax()
	return fmt.Sprintf("%s (max %d)", Num(m), mx)
}

// writeScores writes the table "rule · precision · recall · F1 · lead
// time", with the counts behind each ratio, fitted to width (0: as is):
// the lead time hidden first, then the counts wrapped under their ratios.
// It writes the note on hidden columns itself.
func writeScores(w io.Writer, s analyze.Scores, width int, indent string) error {
	g := &Grid{Indent: indent, Cols: []Col{{Head: "rule", Align: L}, {Head: "precision", Align: R, Wrap: true}, {Head: "recall", Align: R, Wrap: true},
		{Head: "F1", Align: R}, {Head: "lead (turns)", Align: R, Drop: 1, Wrap: true}}}
	for _, k := range s.Keys() {
		sc := s[k]
		p := ScorePct(sc.Precision())
		if sc.Firings > 0 {
			p += fmt.Sprintf(" (%d/%d)", sc.Inside, sc.Firings)
		}
		r := ScorePct(sc.Recall())
		if sc.Spans > 0 {
			r += fmt.Sprintf(" (%d/%d)", sc.Caught, sc.Spans)
		}
		g.Rows = append(g.Rows, []string{k, p, r, ScorePct(sc.F1()), leadCell(sc)})
	}
	hidden, err := g.Render(w, width)
	if err == nil && len(hidden) > 0 {
		_, err = fmt.Fprintf(w, "%s%s\n", indent, Wrap(fmt.Sprintf("(hidden to fit %d columns: %s; --format json shows them)", width, strings.Join(hidden, ", ")), width, len(indent), indent))
	}
	return err
}

// spansWord lists spans: "t=21–89 (note), t=100–120", or "never stuck".
func spansWord(spans []analyze.Span) string {
	if len(spans) == 0 {
		return "never stuck"
	}
	var parts []string
	for _, s := range spans {
		p := span(s.From, s.To)
		if s.Note != "" {
			p += " (" + s.Note + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

const scoresNote = "precision: firings inside a labelled span (of all firings); recall: spans with a firing (of all spans); lead time: turns from a span's start to the first firing inside it, median over caught spans"

// EpisodeLabels writes an episode's labels and its scores table.
func (r *Text) EpisodeLabels(lab *analyze.EpisodeLabels, s analyze.Scores) error {
	if lab == nil {
		return nil
	}
	r.init()
	w := &errWriter{w: r.out()}
	fmt.Fprintf(w, "  %s\n", r.bold.Sprintf("Against labels (%s)", Term(lab.Source)))
	field(w, r.Width, "labelled stuck", Term(spansWord(lab.Stuck)))
	if err := writeScores(w, s, r.Width, "  "); err != nil {
		return err
	}
	fmt.Fprintf(w, "  %s\n\n", r.dim.Sprint(Wrap(scoresNote, r.Width, 2, "  ")))
	return w.err
}

// LabelSummary writes the corpus' scores against its labelled episodes;
// nothing when none is labelled.
func (r *Text) LabelSummary(t *analyze.LabelTotals) error {
	if t == nil {
		return nil
	}
	r.init()
	w := &errWriter{w: r.out()}
	fmt.Fprintf(w, "\n%s\n", r.bold.Sprint(Wrap(fmt.Sprintf("Against labels: %d labelled episodes (%d never stuck), %d stuck spans", t.Episodes, t.NeverStuck, t.Spans), r.Width, 0, "")))
	if err := writeScores(w, t.Scores, r.Width, ""); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", r.dim.Sprint(Wrap(scoresNote+"; unlabelled episodes do not count.", r.Width, 0, "")))
	return w.err
}

// shortKind labels a rule/kind in narrow places: the rule's name when it
// has one scored kind, else the kind's ("termination", "checkpoint").
func shortKind(key string) string {
	r, k := rules.LookupKind(key)
	if r == nil {
		return key
	}
	n := 0
	for _, rk := range r.Kinds {
		if analyze.Scored(rk) {
			n++
		}
	}
	if n == 1 {
		return r.Name
	}
	return k.Name
}

// sweepLabelled says whether any row was scored against labels.
func sweepLabelled(s *sweep.Result) bool {
	return len(s.Rows) > 0 && s.Rows[0].Totals.Labels != nil
}

// labelColumns are the table's F1 columns for the kinds the grid varies,
// hidden last when the table must fit.
func labelColumns(s *sweep.Result) []sweepColumn {
	if !sweepLabelled(s) {
		return nil
	}
	var cols []sweepColumn
	for _, k := range s.VariedKinds {
		cols = append(cols, sweepColumn{"F1 " + shortKind(k), R, 6, func(i int) string {
			sc := s.Rows[i].Totals.Labels.Scores[k]
			if sc == nil {
				return "-" // the rule is disabled in this row
			}
			return ScorePct(sc.F1())
		}, "", false})
	}
	return cols
}

// sweepLabelKinds is every scored kind of any row, in registry order.
func sweepLabelKinds(s *sweep.Result) []string {
	seen := map[string]bool{}
	var keys []string
	for i := range s.Rows {
		if l := s.Rows[i].Totals.Labels; l != nil {
			for k := range l.Scores {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	analyze.SortKinds(keys)
	return keys
}

func csvRatio(f float64, ok bool) string {
	if !ok {
		return ""
	}
	return csvNum(analyze.Round2(f * 100))
}

func csvLead(s *analyze.Score) string {
	m, ok := s.LeadMedian()
	if !ok {
		return ""
	}
	return csvNum(m)
}

// labelCSVHead and labelCSVCells are the CSV columns after the totals
// when episodes are labelled: the labelled episodes and spans, then per
// rule/kind (kinds, sweepLabelKinds) precision, recall, F1 (percent) and
// median lead time. A rule disabled in a row, or an undefined ratio, is an
// empty cell.
func labelCSVHead(s *sweep.Result, kinds []string) []string {
	if !sweepLabelled(s) {
		return nil
	}
	head := []string{"labelled_episodes", "labelled_spans"}
	for _, k := range kinds {
		head = append(head, k+":precision_pct", k+":recall_pct", k+":f1_pct", k+":lead_median")
	}
	return head
}

func labelCSVCells(s *sweep.Result, row int, kinds []string) []string {
	if !sweepLabelled(s) {
		return nil
	}
	l := s.Rows[row].Totals.Labels
	cells := []string{strconv.Itoa(l.Episodes), strconv.Itoa(l.Spans)}
	for _, k := range kinds {
		sc := l.Scores[k]
		if sc == nil {
			cells = append(cells, "", "", "", "")
			continue
		}
		cells = append(cells, csvRatio(sc.Precision()), csvRatio(sc.Recall()), csvRatio(sc.F1()), csvLead(sc))
	}
	return cells
}

// WriteSweepByRuleCSV writes --by-rule as CSV: one line per row and
// rule/kind, with the exact counts behind each ratio.
func WriteSweepByRuleCSV(w io.Writer, s *sweep.Result) error {
	cw := csv.NewWriter(w)
	head := []string{"row", "baseline"}
	for _, ax := range s.Axes {
		head = append(head, ax.Key)
	}
	cw.Write(append(head, "rule", "firings", "inside", "spans", "caught", "precision_pct", "recall_pct", "f1_pct", "lead_median", "lead_max"))
	for i := range s.Rows {
		r := &s.Rows[i]
		if r.Totals.Labels == nil {
			continue
		}
		for _, k := range r.Totals.Labels.Scores.Keys() {
			sc := r.Totals.Labels.Scores[k]
			line := []string{strconv.Itoa(i), strconv.FormatBool(r.Baseline)}
			for _, p := range r.Params {
				line = append(line, rules.FormatValue(p.Value))
			}
			mx := ""
			if m, ok := sc.LeadMax(); ok {
				mx = strconv.Itoa(m)
			}
			cw.Write(append(line, k, strconv.Itoa(sc.Firings), strconv.Itoa(sc.Inside), strconv.Itoa(sc.Spans), strconv.Itoa(sc.Caught),
				csvRatio(sc.Precision()), csvRatio(sc.Recall()), csvRatio(sc.F1()), csvLead(sc), mx))
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeSweepByRule writes --by-rule in the table: per configuration row,
// every rule/kind's precision, recall, F1 and lead time.
func writeSweepByRule(w io.Writer, s *sweep.Result, width int, bold func(format string, a ...any) string) error {
	if !sweepLabelled(s) {
		return nil
	}
	l := s.Rows[0].Totals.Labels
	fmt.Fprintf(w, "\n%s\n", bold("%s", Wrap(fmt.Sprintf("Against labels, by rule: %d labelled episodes (%d never stuck), %d stuck spans", l.Episodes, l.NeverStuck, l.Spans), width, 0, "")))
	for i := range s.Rows {
		r := &s.Rows[i]
		var ps []string
		for _, p := range r.Params {
			ps = append(ps, p.String())
		}
		fmt.Fprintf(w, "\n%s\n", Wrap(rowLabel(s.Rows, i, false)+" "+strings.Join(ps, " "), width, 0, "    "))
		if err := writeScores(w, r.Totals.Labels.Scores, width, "  "); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, Wrap(scoresNote+"; unlabelled episodes do not count.", width, 0, ""))
	return nil
}
