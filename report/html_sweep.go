package report

// The sweep's HTML page: turns saved against false terminations per
// configuration, the Pareto front and the recommendation marked, and the
// configurations as a sortable table.

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

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
	p.Footer = "Written by loopbreak sweep. Chart: each configuration is a point, turns saved (up) against false terminations (right); filled diamonds are Pareto-efficient and joined by the dashed front, the square is the baseline, the ringed point is the recommendation."
	return writePage(w, p)
}

// sweepSVG plots every row: false terminations across, turns saved up.
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
	maxF, maxS := 1, 1
	for _, r := range rows {
		maxF, maxS = max(maxF, r.Totals.FalseTerminations), max(maxS, r.Totals.TurnsSaved)
	}
	x := func(f int) float64 { return left + float64(f)/float64(maxF)*pw }
	y := func(v int) float64 { return top + ph - float64(v)/float64(maxS)*ph }
	var b svgBuilder
	caption := sweepCaption(s)
	b.f(`<svg class="sw" viewBox="0 0 %d %d" role="img" aria-labelledby="sw-title sw-desc" xmlns="http://www.w3.org/2000/svg">`, w, h)
	b.WriteString(`<title id="sw-title">Turns saved against false terminations, per configuration</title><desc id="sw-desc">`)
	b.text(caption)
	b.WriteString(`</desc>`)
	// Axes with ticks.
	b.f(`<path class="ax" d="M%d %dV%dH%d"/>`, left, top, top+ph, left+pw)
	for v := 0; v <= maxS; v += niceStep(maxS, 5) {
		b.f(`<text class="lab" x="%d" y="%s" text-anchor="end">%d</text>`, left-4, svgNum(y(v)+3), v)
	}
	for f := 0; f <= maxF; f += niceStep(maxF, 10) {
		b.f(`<text class="lab" x="%s" y="%d" text-anchor="middle">%d</text>`, svgNum(x(f)), top+ph+13, f)
	}
	b.f(`<text class="lab" x="%d" y="%d" text-anchor="middle">false terminations (episodes)</text>`, left+pw/2, h-6)
	b.f(`<text class="lab" transform="translate(14 %d) rotate(-90)" text-anchor="middle">turns saved</text>`, top+ph/2)

	// The Pareto front, in order of false terminations, as a dashed line.
	var front []int
	for i, r := range rows {
		if r.Pareto {
			front = append(front, i)
		}
	}
	sort.SliceStable(front, func(a, c int) bool {
		ta, tc := &rows[front[a]].Totals, &rows[front[c]].Totals
		if ta.FalseTerminations != tc.FalseTerminations {
			return ta.FalseTerminations < tc.FalseTerminations
		}
		return ta.TurnsSaved < tc.TurnsSaved
	})
	if len(front) > 1 {
		b.WriteString(`<path class="front" d="`)
		for k, i := range front {
			cmd := "L"
			if k == 0 {
				cmd = "M"
			}
			b.f("%s%s %s", cmd, svgNum(x(rows[i].Totals.FalseTerminations)), svgNum(y(rows[i].Totals.TurnsSaved)))
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
		cx, cy := x(t.FalseTerminations), y(t.TurnsSaved)
		tip := fmt.Sprintf("%s: %s saved", describeRow(rows, i), plural(t.TurnsSaved, "turn"))
		if t.RecordedTurns > 0 {
			tip += fmt.Sprintf(" (%.1f%%)", t.TurnsSavedPct)
		}
		tip += ", " + plural(t.FalseTerminations, "false termination")
		if t.Terminated > 0 {
			tip += fmt.Sprintf(" (%.1f%% of terminated)", t.FalseRatePct)
		}
		tip += ", score forfeited " + Num(t.ScoreForfeited)
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
	c := fmt.Sprintf("%d configurations (the baseline included) plotted by turns saved and false terminations; %d are Pareto-efficient.", len(s.Rows), pareto)
	if rec := s.Recommendation.Row; rec >= 0 && rec < len(s.Rows) {
		t := &s.Rows[rec].Totals
		c += fmt.Sprintf(" Recommended: %s, saving %s with %s.", describeRow(s.Rows, rec), plural(t.TurnsSaved, "turn"), plural(t.FalseTerminations, "false termination"))
	}
	return c
}
