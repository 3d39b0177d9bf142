package report

// Scores against labelled episodes (README: "Labelled episodes"): the
// per-episode JSON field and the text tables "rule · precision · recall ·
// F1 · lead time".

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
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
// time", with the counts behind each ratio.
func writeScores(w io.Writer, s analyze.Scores) error {
	tb := NewTable(w, L, R, R, R, R)
	tb.Header("rule", "precision", "recall", "F1", "lead time")
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
		if err := tb.Append([]string{k, p, r, ScorePct(sc.F1()), leadCell(sc)}); err != nil {
			return err
		}
	}
	return tb.Render()
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
	w := &errWriter{w: r.W}
	fmt.Fprintf(w, "  %s\n", r.bold.Sprintf("Against labels (%s)", lab.Source))
	fmt.Fprintf(w, "  %-18s %s\n", "labelled stuck", spansWord(lab.Stuck))
	if err := writeScores(indent(w), s); err != nil {
		return err
	}
	fmt.Fprintf(w, "  %s\n\n", r.dim.Sprint(scoresNote))
	return w.err
}

// LabelSummary writes the corpus' scores against its labelled episodes;
// nothing when none is labelled.
func (r *Text) LabelSummary(t *analyze.LabelTotals) error {
	if t == nil {
		return nil
	}
	r.init()
	w := &errWriter{w: r.W}
	fmt.Fprintf(w, "\n%s\n", r.bold.Sprintf("Against labels: %d labelled episodes (%d never stuck), %d stuck spans", t.Episodes, t.NeverStuck, t.Spans))
	if err := writeScores(w, t.Scores); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", r.dim.Sprint(scoresNote+"; unlabelled episodes do not count."))
	return w.err
}
