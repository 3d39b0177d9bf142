package report

// The SVG timeline of one episode in the HTML report: geometry, the
// shared frame and legend, and the chart itself.

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// Chart geometry (SVG user units).
const (
	svgW      = 900
	svgLeft   = 70 // labels
	svgRight  = 10
	plotW     = svgW - svgLeft - svgRight
	laneCount = 4 // most-visited rooms with a lane
	laneH     = 9 // a lane's pitch
)

// Vertical layout of a timeline, top to bottom; every chart shares it, so
// charts compare at a glance and their fixed labels are drawn once per page
// (timelineFrame).
const (
	marksY = 12  // check point triangles and labels
	scoreY = 18  // score panel
	scoreH = 70  //
	warnY  = 92  // warning band
	warnH  = 10  //
	stuckY = 106 // stuck counter panel
	stuckH = 44  //
	rulesY = 156 // one row per strip rule
	ruleH  = 11  //
)

// timelineFrame is what every timeline shares: the fixed labels and base
// lines, defined once in the page and drawn by each chart with <use>.
func timelineFrame() template.HTML {
	var b svgBuilder
	b.WriteString(`<g id="lb-frame" class="tl">`)
	label := func(y int, s string) { b.f(`<text class="e" x="%d" y="%d">%s</text>`, svgLeft-4, y, s) }
	label(scoreY+scoreH, "0")
	label(warnY+8, "warnings")
	label(stuckY+stuckH, "0")
	b.f(`<path class="ax" d="M%d %dh%dM%d %dh%d`, svgLeft, scoreY+scoreH, plotW, svgLeft, stuckY+stuckH, plotW)
	for k := range stripRules {
		b.f("M%d %dh%d", svgLeft, rulesY+ruleH*k+ruleH/2, plotW)
	}
	b.WriteString(`"/>`)
	for k, r := range stripRules {
		label(rulesY+ruleH*k+8, stripNames[r])
	}
	b.WriteString(`</g>`)
	return template.HTML(b.String())
}

// timelineLegend is the key to every timeline, drawn with the charts' own
// classes so it matches them, each sample named in words.
func timelineLegend() template.HTML {
	var b svgBuilder
	b.f(`<svg class="tl key" viewBox="0 0 900 %d" role="img" aria-labelledby="lb-key"><title id="lb-key">Key to the timelines</title>`, 66)
	items := []struct{ sample, label string }{
		{`<path class="sc" d="M0 6h24"/>`, "score"},
		{`<path class="st" d="M0 10l24 -8"/>`, "stuck counter"},
		{`<path class="th" d="M0 6h24"/>`, "max_turns_stuck"},
		{`<rect class="sp" width="24" height="12"/>`, "stuck period"},
		{`<path class="cut" d="M12 -2v16"/>`, "cut: replay stops"},
		{`<path class="live" d="M12 -2v16"/>`, "live run stopped"},
		{`<path class="ck" d="M12 12l-3 -6h6z"/>`, "later check point"},
		{`<circle class="pa" cx="12" cy="6" r="4"/>`, "progress after cut"},
		{`<path class="ld" d="M9 3l6 6m0 -6l-6 6"/>`, "live differs"},
		{`<rect class="w1" width="24" height="10"/>`, "stagnation warning"},
		{`<rect class="w2" width="24" height="10"/>`, "urgent warning"},
		{`<rect class="w3" width="24" height="10"/>`, "critical warning"},
		{`<path class="rr" d="M0 6h24"/>`, "run of firings"},
		{`<path class="rj" d="M12 2l3 8h-6z"/>`, "would reject"},
		{`<path class="ln" d="M0 6h24"/>`, "in a room"},
	}
	const perRow, colW = 7, 128
	for i, it := range items {
		x, y := (i%perRow)*colW, (i/perRow)*22+4
		b.f(`<g transform="translate(%d %d)">%s<text x="30" y="10">%s</text></g>`, x, y, it.sample, it.label)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// svgNum formats a coordinate compactly: whole units are fine on a
// 900-unit chart and keep a report of 1,000 episodes small.
func svgNum(f float64) string {
	return strconv.Itoa(int(math.Round(f)))
}

// series reduces per-turn values to the vertices a line needs: turns where
// the slope changes. Beyond limit vertices it keeps the maximum of each of
// limit buckets, and says so.
func series(vals []float64, limit int) (idx []int, v []float64, summarised bool) {
	n := len(vals)
	for i := range n {
		if i == 0 || i == n-1 || vals[i]-vals[i-1] != vals[i+1]-vals[i] {
			idx, v = append(idx, i), append(v, vals[i])
		}
	}
	if len(idx) <= limit {
		return idx, v, false
	}
	idx, v = idx[:0], v[:0]
	per := (n + limit - 1) / limit
	for b := 0; b < n; b += per {
		m, at := vals[b], b
		for i := b; i < min(b+per, n); i++ {
			if vals[i] > m {
				m, at = vals[i], i
			}
		}
		idx, v = append(idx, at), append(v, m)
	}
	return idx, v, true
}

// svgBuilder writes SVG text; every text it is given is escaped.
type svgBuilder struct{ strings.Builder }

func (b *svgBuilder) f(format string, a ...any) { fmt.Fprintf(&b.Builder, format, a...) }
func (b *svgBuilder) text(s string)             { b.WriteString(template.HTMLEscapeString(s)) }

// timelineSVG draws an episode: score and stuck counter over turns, stuck
// periods, warning bands, the cut and check points, the live stop, runs of
// firings per rule and a room strip. It returns the SVG and a caption
// sentence (also the chart's <desc>).
func timelineSVG(tl *Timeline, id string) (template.HTML, string) {
	n := len(tl.Score)
	if n == 0 {
		return "", "No turns were recorded."
	}
	// Each turn owns a slot of the plot's width: turn t spans x(t) to
	// x(t+1), so the last ends at the right edge.
	span := tl.Last - tl.First + 1
	x := func(turn float64) string { return svgNum(svgLeft + (turn-float64(tl.First))/float64(span)*plotW) }
	xi := func(turn int) string { return x(float64(turn)) }
	xr := func(turn int) int { return int(math.Round(svgLeft + float64(turn-tl.First)/float64(span)*plotW)) }

	roomsY := rulesY + ruleH*len(stripRules) + 6
	lanes, laneNames, laneTurns, lanePer := roomLanes(tl)
	axisY := roomsY + laneH*len(laneNames) + 4
	height := axisY + 14

	var notes []string
	var b svgBuilder
	descID := id + "-desc"
	b.f(`<svg class="tl" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s">`, svgW, height, id, descID)
	b.f(`<title id="%s-title">Timeline of episode `, id)
	b.text(tl.EpisodeID)
	b.WriteString(`</title>`)
	descAt := b.Len() // the description is known once drawn

	label := func(y int, s string) {
		b.f(`<text class="e" x="%d" y="%d">%s</text>`, svgLeft-4, y, template.HTMLEscapeString(s))
	}

	// Stuck periods, hatched behind both panels.
	if tl.Outcome.Story != nil {
		for _, p := range tl.Outcome.Story.StuckPeriods {
			b.f(`<rect class="sp" x="%s" y="%d" width="%s" height="%d"><title>stuck t=%d–%d (%d turns at score %s)</title></rect>`,
				xi(p.From), scoreY, svgNum(max(1, float64(p.To-p.From+1)/float64(span)*plotW)), stuckY+stuckH-scoreY, p.From, p.To, p.Turns, Num(p.Score))
		}
	}

	// Score.
	top := 0.0
	for _, s := range tl.Score {
		top = max(top, s)
	}
	b.WriteString(`<use href="#lb-frame"/>`)
	label(scoreY+8, "score "+Num(top))
	// Lines are written with relative moves between whole-unit points:
	// shorter than absolute ones, without drift.
	// A value after turn t is drawn at the middle of t's slot; the line
	// runs flat to both edges, so it spans the plot as the bands do.
	xc := func(turn int) int {
		return int(math.Round(svgLeft + (float64(turn-tl.First)+0.5)/float64(span)*plotW))
	}
	path := func(class string, vals []float64, topV float64, y0, h int) bool {
		idx, v, summ := series(vals, MaxChartPoints)
		y := func(v float64) int {
			yy := float64(y0 + h)
			if topV > 0 {
				yy -= max(0, v) / topV * float64(h)
			}
			return int(math.Round(yy))
		}
		px, py := svgLeft, y(v[0])
		b.f(`<path class="%s" d="M%d %d`, class, px, py)
		for k := range idx {
			cx, cy := xc(tl.First+idx[k]), y(v[k])
			b.f("l%d %d", cx-px, cy-py)
			px, py = cx, cy
		}
		b.f(`h%d"/>`, svgLeft+plotW-px)
		return summ
	}
	if path("sc", tl.Score, top, scoreY, scoreH) {
		notes = append(notes, fmt.Sprintf("the score line is summarised to %d points", MaxChartPoints))
	}

	// Warning bands: one path per urgency, patterned by level, its title
	// listing the ranges.
	for u := urgencyStagnation; u <= urgencyCritical; u++ {
		var d strings.Builder
		var ranges []string
		for i := 0; i < n; {
			if tl.Urgency[i] != u {
				i++
				continue
			}
			j := i
			for j < n && tl.Urgency[j] == u {
				j++
			}
			x0, x1 := xr(tl.First+i), xr(tl.First+j)
			fmt.Fprintf(&d, "M%d %dh%dv%dh%dz", x0, warnY, max(1, x1-x0), warnH, -max(1, x1-x0))
			ranges = append(ranges, span2(tl.First+i, tl.First+j-1))
			i = j
		}
		if len(ranges) > 0 {
			b.f(`<path class="w%d" d="%s"><title>%s warnings %s</title></path>`, u, d.String(), urgencyNames[u], strings.Join(ranges, ", "))
		}
	}

	// Stuck counter and its threshold.
	stuck := make([]float64, n)
	stuckTop := float64(tl.MaxStuck)
	for i, s := range tl.Stuck {
		stuck[i] = float64(s)
		stuckTop = max(stuckTop, stuck[i])
	}
	label(stuckY+8, "stuck "+strconv.Itoa(int(stuckTop)))
	if tl.MaxStuck > 0 && stuckTop > 0 {
		ty := float64(stuckY+stuckH) - float64(tl.MaxStuck)/stuckTop*stuckH
		b.f(`<path class="th" d="M%d %sh%d"><title>max_turns_stuck = %d</title></path>`, svgLeft, svgNum(ty), plotW, tl.MaxStuck)
	}
	if path("st", stuck, stuckTop, stuckY, stuckH) {
		notes = append(notes, fmt.Sprintf("the stuck counter is summarised to %d points", MaxChartPoints))
	}

	// Runs of firings, one row per rule: every run a bar, one path per
	// rule whose title names the largest runs (a title per run would
	// double the size of a large report).
	var all []analyze.Run
	if tl.Outcome.Story != nil {
		all = tl.Outcome.Story.Runs
	}
	rowOf := map[*rules.Rule]int{}
	for k, r := range stripRules {
		rowOf[r] = k
		var mine []analyze.Run
		var segs [][2]int // pixel spans, merged where runs at different places overlap
		firings := 0
		for _, run := range all {
			if run.Rule != r {
				continue
			}
			mine = append(mine, run)
			firings += run.Firings
			x0, x1 := xr(run.From), max(xr(run.To+1), xr(run.From)+2)
			segs = append(segs, [2]int{x0, x1})
		}
		sort.Slice(segs, func(i, j int) bool { return segs[i][0] < segs[j][0] })
		var d strings.Builder
		end := -1
		for i := 0; i < len(segs); {
			x0, x1 := segs[i][0], segs[i][1]
			for i++; i < len(segs) && segs[i][0] <= x1+1; i++ {
				x1 = max(x1, segs[i][1])
			}
			if end < 0 {
				fmt.Fprintf(&d, "M%d %dh%d", x0, rulesY+ruleH*k+ruleH/2, x1-x0)
			} else {
				fmt.Fprintf(&d, "m%d 0h%d", x0-end, x1-x0)
			}
			end = x1
		}
		if len(mine) == 0 {
			continue
		}
		b.f(`<path class="rr" d="%s"><title>`, d.String())
		b.text(runsTitle(r, mine, firings, tl.ep))
		b.WriteString(`</title></path>`)
	}
	// Adjustments that would reject belong to oscillation and camping runs
	// (Story attributes them); their strip shows where they fell.
	if c := tl.Fired[rules.ScoreAdjustment]; c != nil {
		k := rowOf[rules.ScoreAdjustment]
		var at []string
		b.WriteString(`<path class="rj" d="`)
		px := 0
		for i, v := range c {
			if v > 0 && len(at) < maxRejectMarks {
				at = append(at, strconv.Itoa(tl.First+i))
				if cx := xr(tl.First + i); px == 0 {
					b.f("M%d %dl3 8h-6z", cx, rulesY+ruleH*k+1)
					px = cx
				} else {
					b.f("m%d 0l3 8h-6z", cx-px) // z returns to the triangle's tip
					px = cx
				}
			}
		}
		b.f(`"><title>would reject at t=%s</title></path>`, strings.Join(at, ", "))
		if len(at) == maxRejectMarks {
			notes = append(notes, fmt.Sprintf("the first %d rejections are marked", len(at)))
		}
	}
	// Rooms: a lane per most-visited room; oscillation zigzags between two
	// lanes, camping is one long bar.
	for k, name := range laneNames {
		y := roomsY + laneH*k + laneH/2
		short := name
		if r := []rune(short); len(r) > 13 {
			short = string(r[:12]) + "…"
		}
		b.f(`<text class="e s" x="%d" y="%d">`, svgLeft-4, y+3)
		b.text(short)
		b.WriteString(`</text>`)
		b.f(`<path class="ln" d="`)
		end := 0
		for j, seg := range lanes[k] {
			x0, x1 := xr(seg[0]), xr(seg[1]+1)
			if j == 0 {
				b.f("M%d %dh%d", x0, y, x1-x0)
			} else {
				b.f("m%d 0h%d", x0-end, x1-x0)
			}
			end = x1
		}
		b.f(`"><title>`)
		b.text(fmt.Sprintf("%s: %d turns", name, laneTurns[k]))
		b.WriteString(`</title></path>`)
	}
	if lanePer > 1 {
		notes = append(notes, fmt.Sprintf("room lanes show %d turns per step", lanePer))
	}

	// Check points, the cut and the live stop, over everything.
	if len(tl.Checks) > 0 {
		// One path of triangles; beyond maxRejectMarks they would be a
		// solid row anyway, so the title counts the rest.
		var ts []string
		b.WriteString(`<path class="ck" d="`)
		px := 0
		for k, c := range tl.Checks {
			if k >= maxRejectMarks {
				ts = append(ts, fmt.Sprintf("and %d more", len(tl.Checks)-k))
				break
			}
			ts = append(ts, strconv.Itoa(c))
			if cx := xr(c); k == 0 {
				b.f("M%d %dl-3 -6h6z", cx, marksY)
				px = cx
			} else {
				b.f("m%d 0l-3 -6h6z", cx-px)
				px = cx
			}
		}
		b.f(`"><title>later check points: t=%s</title></path>`, strings.Join(ts, ", "))
	}
	if tl.Progress != 0 {
		// The first progress after the cut, on the score line.
		cy := float64(scoreY + scoreH)
		if top > 0 {
			cy -= max(0, tl.ProgressScore) / top * scoreH
		}
		b.f(`<circle class="pa" cx="%d" cy="%s" r="4"><title>the score rose to %s at t=%d, after the cut</title></circle>`, xc(tl.Progress), svgNum(cy), Num(tl.ProgressScore), tl.Progress)
	}
	if len(tl.LiveDisagree) > 0 {
		// Crosses on the top row where the live run and the replay differ.
		var ts []string
		b.WriteString(`<path class="ld" d="`)
		for k, d := range tl.LiveDisagree {
			if k >= maxRejectMarks {
				ts = append(ts, fmt.Sprintf("and %d more", len(tl.LiveDisagree)-k))
				break
			}
			ts = append(ts, strconv.Itoa(d))
			b.f("M%d %dl6 6m0 -6l-6 6", xc(d)-3, marksY-7)
		}
		b.f(`"><title>live run and replay differ at t=%s</title></path>`, strings.Join(ts, ", "))
	}
	if tl.LiveStop != 0 {
		b.f(`<path class="live" d="M%s %dV%d"><title>the live run stopped at t=%d</title></path>`, xi(tl.LiveStop), scoreY-6, axisY, tl.LiveStop)
		b.f(`<text class="e cl lv" x="%d" y="%d">live stop t=%d</text>`, xr(tl.LiveStop)-3, scoreY+22, tl.LiveStop)
	}
	if tl.Cut != 0 {
		b.f(`<path class="cut" d="M%s %dV%d"><title>the replay terminates at t=%d</title></path>`, xi(tl.Cut), scoreY-6, axisY, tl.Cut)
		// Inside the score panel, clear of the check point marks above it.
		if cx := xr(tl.Cut); cx > svgW-70 {
			b.f(`<text class="cl e" x="%d" y="%d">cut t=%d</text>`, cx-3, scoreY+10, tl.Cut) // left of a cut near the end
		} else {
			b.f(`<text class="cl" x="%d" y="%d">cut t=%d</text>`, cx+3, scoreY+10, tl.Cut)
		}
	}

	// Turn axis.
	b.f(`<path class="ax" d="M%d %dh%d"/>`, svgLeft, axisY, plotW)
	step := niceStep(n, 8)
	b.f(`<g class="m" transform="translate(0 %d)">`, axisY+11)
	for t := (tl.First + step - 1) / step * step; t <= tl.Last; t += step {
		b.f(`<text x="%s">%d</text>`, xi(t), t)
	}
	b.WriteString(`</g>`)
	label(axisY+11, "turn")
	b.WriteString(`</svg>`)

	caption := timelineCaption(tl, notes)
	out := b.String()
	desc := fmt.Sprintf(`<desc id="%s">%s</desc>`, descID, template.HTMLEscapeString(caption))
	return template.HTML(out[:descAt] + desc + out[descAt:]), caption
}
