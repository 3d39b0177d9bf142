package report

// The sweep's HTML page: per configuration, turns saved against false
// terminations (a detector grid: loops caught against false alarms), the
// Pareto front and the recommendation marked, and the configurations as
// a sortable table.

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
)

// WriteSweepHTML writes a sweep as one self-contained HTML page.
func WriteSweepHTML(w io.Writer, s *sweep.Result, title, configLine string) error {
	if title == "" {
		title = "loopbreak sweep"
	}
	hs := &htmlSweep{}
	hs.Chart, hs.Caption = sweepSVG(s)
	cols := sweepColumns(s)
	// The recommended and Pareto marks first, where a narrow screen sees
	// them: the text table keeps the Pareto mark last.
	if n := len(cols); n > 2 && cols[n-1].head == "pareto" {
		cols = append([]sweepColumn{cols[0], cols[n-1]}, cols[1:n-1]...)
	}
	for _, c := range cols {
		head := c.head
		if head == "" {
			head = "rec." // the marker column: a sort button needs a name
		}
		hs.Head = append(hs.Head, htmlHead{Text: head, Num: c.align == R})
	}
	for i, r := range s.Rows {
		row := htmlRow{Rec: r.Recommended}
		for _, c := range cols {
			row.Cells = append(row.Cells, htmlCell{Text: c.cell(i)})
		}
		hs.Rows = append(hs.Rows, row)
	}
	p := &htmlPage{Title: title, Sweep: hs, Intro: []string{RecommendationReason(s.Rows, s.Recommendation)}}
	if len(s.Rows) > 0 {
		t := &s.Rows[0].Totals
		p.Intro = append([]string{fmt.Sprintf("%d configurations and the baseline over %d episodes (%d recorded turns).", len(s.Rows)-1, t.Episodes, t.RecordedTurns)}, p.Intro...)
	}
	if configLine != "" {
		p.Intro = append([]string{configLine}, p.Intro...)
	}
	for _, sk := range s.Skipped {
		var ps []string
		for _, x := range sk.Params {
			ps = append(ps, x.String())
		}
		p.Intro = append(p.Intro, fmt.Sprintf("Skipped %s: %s.", strings.Join(ps, " "), sk.Reason))
	}
	p.Errors = s.Errors
	ax := axesOf(s)
	p.Footer = "Written by loopbreak sweep. Chart: each configuration is a point, " + ax.yLabel + " (up) against " + ax.xLabel + " (right); filled diamonds are Pareto-efficient and joined by the dashed front, the square is the baseline, the ringed point is the recommendation."
	return writePage(w, p)
}

// sweepAxes are what the sweep's chart plots: what its ranking uses. A
// grid that changes terminations is ranked by turns saved and false
// terminations; a detector grid (only detectors' keys varied, or logs
// without a score: every row terminates alike) by the loops its
// detectors catch and their false alarms, which its turns saved, the same
// on every row, would hide.
type sweepAxes struct {
	x, y           func(t *analyze.Totals) int
	xLabel, yLabel string
	fromLeast      bool // the scales start under the least value, not at 0
	// tip says a row's figures, its caption part what the recommendation
	// does ("saving 3 turns with 1 false termination").
	tip, does func(t *analyze.Totals) string
}

func axesOf(s *sweep.Result) sweepAxes {
	switch s.Recommendation.Criterion {
	case sweep.CriterionDetectors, sweep.CriterionNone:
		caught := func(t *analyze.Totals) int { return sweep.Figures(t).Caught() }
		return sweepAxes{
			x: func(t *analyze.Totals) int { return t.FalseAlarms }, y: caught,
			xLabel: "false alarms", yLabel: "loops caught", fromLeast: true,
			tip: func(t *analyze.Totals) string {
				tip := fmt.Sprintf("%s caught (of %s), %s", plural(caught(t), "loop"), plural(t.Loops, "firing"), plural(t.FalseAlarms, "false alarm"))
				if f := sweep.Figures(t); f.Labelled {
					tip += fmt.Sprintf(", F1 %.1f%%", f.F1*100)
				}
				return tip
			},
			does: func(t *analyze.Totals) string {
				return fmt.Sprintf("catching %s with %s", plural(caught(t), "loop"), plural(t.FalseAlarms, "false alarm"))
			},
		}
	}
	return sweepAxes{
		x: func(t *analyze.Totals) int { return t.FalseTerminations }, y: func(t *analyze.Totals) int { return t.TurnsSaved },
		xLabel: "false terminations", yLabel: "turns saved",
		tip: func(t *analyze.Totals) string {
			tip := plural(t.TurnsSaved, "turn") + " saved"
			if t.RecordedTurns > 0 {
				tip += fmt.Sprintf(" (%.1f%%)", t.TurnsSavedPct)
			}
			tip += ", " + plural(t.FalseTerminations, "false termination")
			if t.Terminated > 0 {
				tip += fmt.Sprintf(" (%.1f%% of terminated)", t.FalseRatePct)
			}
			return tip + ", score forfeited " + Num(t.ScoreForfeited)
		},
		does: func(t *analyze.Totals) string {
			return fmt.Sprintf("saving %s with %s", plural(t.TurnsSaved, "turn"), plural(t.FalseTerminations, "false termination"))
		},
	}
}

// sweepSVG plots every row by what the ranking uses (axesOf): false
// terminations across and turns saved up, or a detector grid's false
// alarms across and loops caught up.
func sweepSVG(s *sweep.Result) (template.HTML, string) {
	const (
		w, h                  = 900, 360
		left, right, top, bot = 70, 20, 20, 40
		pw, ph                = w - left - right, h - top - bot
	)
	rows := s.Rows
	if len(rows) == 0 {
		return "", "No configurations."
	}
	ax := axesOf(s)
	// Turns saved and false terminations from 0; a detector grid's
	// figures from just under the least (its rows differ by a few loops
	// out of hundreds, which a scale from 0 would draw as one point).
	loF, loS, maxF, maxS := 0, 0, 1, 1
	for i := range rows {
		maxF, maxS = max(maxF, ax.x(&rows[i].Totals)), max(maxS, ax.y(&rows[i].Totals))
	}
	if ax.fromLeast {
		loF, loS = maxF, maxS
		for i := range rows {
			loF, loS = min(loF, ax.x(&rows[i].Totals)), min(loS, ax.y(&rows[i].Totals))
		}
		stepF, stepS := niceStep(max(1, maxF-loF), 10), niceStep(max(1, maxS-loS), 5)
		loF, loS = max(0, (loF-1)/stepF*stepF), max(0, (loS-1)/stepS*stepS)
	}
	spanF, spanS := max(1, maxF-loF), max(1, maxS-loS)
	x := func(f int) float64 { return left + float64(f-loF)/float64(spanF)*pw }
	y := func(v int) float64 { return top + ph - float64(v-loS)/float64(spanS)*ph }
	var b svgBuilder
	caption := sweepCaption(s)
	b.f(`<svg class="sw" viewBox="0 0 %d %d" role="img" aria-labelledby="sw-title sw-desc" xmlns="http://www.w3.org/2000/svg">`, w, h)
	b.f(`<title id="sw-title">%s against %s, per configuration</title><desc id="sw-desc">`, strings.ToUpper(ax.yLabel[:1])+ax.yLabel[1:], ax.xLabel)
	b.text(caption)
	b.WriteString(`</desc>`)
	// Axes with ticks.
	b.f(`<path class="ax" d="M%d %dV%dH%d"/>`, left, top, top+ph, left+pw)
	for v := loS; v <= maxS; v += niceStep(spanS, 5) {
		b.f(`<text class="lab" x="%d" y="%s" text-anchor="end">%d</text>`, left-4, svgNum(y(v)+3), v)
	}
	for f := loF; f <= maxF; f += niceStep(spanF, 10) {
		b.f(`<text class="lab" x="%s" y="%d" text-anchor="middle">%d</text>`, svgNum(x(f)), top+ph+13, f)
	}
	xUnit := " (episodes)"
	if ax.xLabel == "false alarms" {
		xUnit = " (firings)"
	}
	b.f(`<text class="lab" x="%d" y="%d" text-anchor="middle">%s%s</text>`, left+pw/2, h-6, ax.xLabel, xUnit)
	b.f(`<text class="lab" transform="translate(14 %d) rotate(-90)" text-anchor="middle">%s</text>`, top+ph/2, ax.yLabel)

	// The Pareto front, in order of false terminations, as a dashed line.
	var front []int
	for i, r := range rows {
		if r.Pareto {
			front = append(front, i)
		}
	}
	sort.SliceStable(front, func(a, c int) bool {
		ta, tc := &rows[front[a]].Totals, &rows[front[c]].Totals
		if ax.x(ta) != ax.x(tc) {
			return ax.x(ta) < ax.x(tc)
		}
		return ax.y(ta) < ax.y(tc)
	})
	if len(front) > 1 {
		b.WriteString(`<path class="front" d="`)
		for k, i := range front {
			cmd := "L"
			if k == 0 {
				cmd = "M"
			}
			b.f("%s%s %s", cmd, svgNum(x(ax.x(&rows[i].Totals))), svgNum(y(ax.y(&rows[i].Totals))))
		}
		b.WriteString(`"><title>Pareto front</title></path>`)
	}
	// Points: circle, filled diamond when efficient, square for the
	// baseline; drawn plain first so the marked ones stay on top.
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	rank := func(r *sweep.Row) int {
		switch {
		case r.Recommended:
			return 3
		case r.Baseline:
			return 2
		case r.Pareto:
			return 1
		}
		return 0
	}
	sort.SliceStable(order, func(a, c int) bool { return rank(&rows[order[a]]) < rank(&rows[order[c]]) })
	for _, i := range order {
		r := rows[i]
		t := &r.Totals
		cx, cy := x(ax.x(t)), y(ax.y(t))
		tip := describeRow(rows, i) + ": " + ax.tip(t)
		if r.Pareto {
			tip += "; Pareto-efficient"
		}
		if r.Recommended {
			tip += "; recommended"
		}
		b.f(`<g><title>`)
		b.text(tip)
		b.WriteString(`</title>`)
		switch {
		case r.Baseline:
			b.f(`<rect class="base" x="%s" y="%s" width="8" height="8"/>`, svgNum(cx-4), svgNum(cy-4))
		case r.Pareto:
			b.f(`<path class="pf" d="M%s %sl5 5l-5 5l-5 -5z"/>`, svgNum(cx), svgNum(cy-5))
		default:
			b.f(`<circle class="pt" cx="%s" cy="%s" r="3.5"/>`, svgNum(cx), svgNum(cy))
		}
		if r.Recommended {
			// The label reads away from the nearer edge, below the
			// point when it is at the top: never clipped by the frame.
			lx, ly, anchor := cx+12, cy-8, "start"
			if cx > left+pw/2 {
				lx, anchor = cx-12, "end"
			}
			if ly < top+4 {
				ly = cy + 20
			}
			b.f(`<circle class="rec" cx="%s" cy="%s" r="9"/><text class="reclab" x="%s" y="%s" text-anchor="%s">recommended: %s</text>`,
				svgNum(cx), svgNum(cy), svgNum(lx), svgNum(ly), anchor, template.HTMLEscapeString(describeRow(rows, i)))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()), caption
}

// sweepCaption says what the chart shows in one or two sentences.
func sweepCaption(s *sweep.Result) string {
	pareto := 0
	for _, r := range s.Rows {
		if r.Pareto {
			pareto++
		}
	}
	ax := axesOf(s)
	c := fmt.Sprintf("%d configurations (the baseline included) plotted by %s and %s; %d are Pareto-efficient.", len(s.Rows), ax.yLabel, ax.xLabel, pareto)
	if rec := s.Recommendation.Row; rec >= 0 && rec < len(s.Rows) {
		c += fmt.Sprintf(" Recommended: %s, %s.", describeRow(s.Rows, rec), ax.does(&s.Rows[rec].Totals))
	}
	return c
}
