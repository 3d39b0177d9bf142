package report

// The HTML report of other agents' logs (steps and attempts): a table of
// the detectors over the logs first, a row per log, and per log its
// detector table and a timeline with one lane per detector that ran,
// marked where it fired. ZorkGPT's termination columns, score panel and
// stuck counter are for ZorkGPT's episodes only.

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
)

// htmlTable is a table of the page other than the episodes'.
type htmlTable struct {
	ID, Caption string
	Head        []htmlHead
	Rows        []htmlRow
}

// Geometry of an agent's timeline: room at the left for a detector's
// name, a score panel when the log has scores, then a lane per detector.
const (
	agentLeft   = 170
	agentPlotW  = svgW - agentLeft - svgRight
	agentLaneH  = 14
	agentScoreH = 50
	maxListed   = 20 // firings a lane's title and the caption list
)

var agentLogHead = []htmlHead{{"log", false}, {"agent", false}, {"recorded", false}, {"firings", true}, {"detectors fired", true}, {"first firing", false}}

var detectorHead = []htmlHead{{"detector", false}, {"origin", false}, {"first firing", false}, {"firings", true}, {"false alarms", true}}

// addAgent renders one log of another agent.
func (h *HTMLReport) addAgent(o *analyze.Outcome, ep *replay.Episode) {
	if h.detectors == nil {
		h.detectors = &DetectorTotals{}
	}
	h.detectors.Add(o, ep)
	lr := h.detectors.logs[len(h.detectors.logs)-1]
	anchor := "ep-" + strconv.Itoa(len(h.eps)+1)
	unit := unitWord(ep)
	rows := Detectors(o, ep)
	falseAlarm := false
	tbl := &htmlTable{ID: anchor + "-detectors", Caption: "Detectors on " + AgentPossessive(ep) + " log (would have fired)", Head: detectorHead}
	for _, r := range rows {
		first, sort, fa := "never", "", "unknown"
		if r.First != nil {
			first, sort = fmt.Sprintf("%s %d (%s)", unit, *r.First, r.FirstKind), strconv.Itoa(*r.First)
		}
		if r.FalseAlarms != nil {
			fa = strconv.Itoa(*r.FalseAlarms)
			falseAlarm = falseAlarm || *r.FalseAlarms > 0
		}
		tbl.Rows = append(tbl.Rows, htmlRow{Cells: []htmlCell{{Text: r.Rule}, {Text: r.Origin}, {Text: first, Sort: sort}, {Text: strconv.Itoa(r.Firings)}, {Text: fa}}, Rec: r.Firings > 0})
	}
	svg, caption := agentTimelineSVG(o, ep, anchor)
	h.eps = append(h.eps, htmlEpisode{
		ID: CappedID(o.EpisodeID), Anchor: anchor, Summary: agentSummary(o, ep, rows), Caption: caption, SVG: svg, Detectors: tbl, agent: true,
		Search: searchWords(CappedID(o.EpisodeID), ep.Source), Fired: lr.firings > 0, False: falseAlarm,
		Cells: []htmlCell{{Text: CappedID(o.EpisodeID), Href: "#" + anchor}, {Text: lr.input}, {Text: lr.recorded},
			{Text: strconv.Itoa(lr.firings)}, {Text: strconv.Itoa(lr.detectors)}, {Text: lr.first}},
	})
}

// agentSummary is a log's outcome in one sentence.
func agentSummary(o *analyze.Outcome, ep *replay.Episode, rows []DetectorRow) string {
	var fired []string
	for _, r := range rows {
		if r.First != nil {
			fired = append(fired, fmt.Sprintf("%s (%s, first at %s %d)", r.Rule, plural(r.Firings, "firing"), unitWord(ep), *r.First))
		}
	}
	s := "Read as " + newInputWords(ep) + ": " + recordedWords(ep) + ". "
	if len(fired) == 0 {
		return s + fmt.Sprintf("None of the %d detectors that ran would have fired.", len(rows))
	}
	return s + fmt.Sprintf("%d of the %d detectors that ran would have fired: %s.", len(fired), len(rows), joinAnd(fired))
}

// newInputWords says how a log was read: "steps, preset openhands".
func newInputWords(ep *replay.Episode) string {
	in := newInput(ep)
	how := in.Format + " log"
	if in.Preset != "" {
		how = in.Preset + " " + how
	}
	if in.Detected {
		how += " (detected)"
	}
	return how
}

// agentLead are the tables that lead a page of agents' logs: the
// detectors over every log, then a row per log.
func (h *HTMLReport) agentLead() []htmlTable {
	d := h.detectors
	if d == nil {
		return nil
	}
	det := htmlTable{ID: "detectors", Caption: d.whose() + " (would have fired)", Head: []htmlHead{
		{"detector", false}, {"origin", false}, {"first firing", false}, {"logs fired on", true}, {"firings", true}, {"false alarms", true}}}
	for _, c := range d.rows {
		first, fa := "never", "unknown"
		if c.first != 0 {
			first = fmt.Sprintf("%s %d in %s (%s)", c.firstUnit, c.first, c.firstLog, c.firstKnd)
		}
		if c.judged {
			fa = strconv.Itoa(c.falseAlarms)
		}
		det.Rows = append(det.Rows, htmlRow{Cells: []htmlCell{{Text: c.rule.Name}, {Text: c.rule.Origin}, {Text: first},
			{Text: strconv.Itoa(c.logs)}, {Text: strconv.Itoa(c.firings)}, {Text: fa}}, Rec: c.logs > 0})
	}
	logs := htmlTable{ID: "logs", Caption: fmt.Sprintf("Logs (%d); click a heading to sort", d.agents), Head: agentLogHead}
	for _, e := range h.eps {
		if e.agent {
			logs.Rows = append(logs.Rows, htmlRow{Cells: e.Cells})
		}
	}
	return []htmlTable{det, logs}
}

// agentIntro sums a corpus of agents' logs in a sentence.
func (h *HTMLReport) agentIntro(t *analyze.Totals) string {
	d := h.detectors
	fired, judged := 0, false
	for _, c := range d.rows {
		if c.logs > 0 {
			fired++
		}
		judged = judged || c.judged
	}
	s := fmt.Sprintf("%s: %d of %d would have fired on %s, %s", d.whose(), fired, len(d.rows), plural(d.agents, "log"), plural(t.Loops, "loop"))
	if judged {
		return s + fmt.Sprintf(", %s (progress after the firing).", plural(t.FalseAlarms, "false alarm"))
	}
	return s + "; false alarms unknown (no log has a score)."
}

// agentTimelineSVG draws a log: its score when it has one, then a lane
// per detector that ran with a mark at each step (attempt) it fired.
func agentTimelineSVG(o *analyze.Outcome, ep *replay.Episode, id string) (template.HTML, string) {
	n := ep.NumTurns()
	unit := unitWord(ep)
	if n == 0 {
		return "", "No " + unit + "s were recorded."
	}
	first, last := ep.TurnAt(0).N, ep.TurnAt(n-1).N
	span := last - first + 1
	xr := agentX(ep)
	y0 := 10
	scoreTop := 0.0
	if ep.HasScore {
		for i := range ep.Turns {
			scoreTop = max(scoreTop, ep.Turns[i].Score)
		}
		y0 += agentScoreH + 8
	}
	lanesY := y0
	axisY := lanesY + agentLaneH*len(o.Ran) + 4
	height := axisY + 16

	binned := false // more steps or firings than the chart has pixel columns
	var b svgBuilder
	descID := id + "-desc"
	b.f(`<svg class="tl ag" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s">`, svgW, height, id, descID)
	b.f(`<title id="%s-title">Detectors over %s `, id, unit+"s of")
	b.text(CappedID(o.EpisodeID)) // as the page's other mentions (HTMLReport.Add)
	b.WriteString(`</title>`)
	descAt := b.Len()
	label := func(y int, s string) {
		b.f(`<text class="e" x="%d" y="%d">`, agentLeft-6, y)
		b.text(s)
		b.WriteString(`</text>`)
	}
	if ep.HasScore {
		// The score as a step line, a value per step at its slot.
		base := 10 + agentScoreH
		y := func(v float64) int {
			if scoreTop <= 0 {
				return base
			}
			return base - int(math.Round(max(0, v)/scoreTop*agentScoreH))
		}
		b.f(`<path class="ax" d="M%d %dh%d"/>`, agentLeft, base, agentPlotW)
		b.f(`<path class="sc" d="M%d %d`, agentLeft, y(ep.Turns[0].Score))
		if n <= agentPlotW {
			for i := range ep.Turns {
				b.f("L%d %dH%d", xr(ep.Turns[i].N), y(ep.Turns[i].Score), xr(ep.Turns[i].N+1))
			}
		} else {
			// More steps than pixels: a step per pixel column, at the
			// highest score of the steps it stands for.
			binned = true
			for i := 0; i < n; {
				x, top := xr(ep.Turns[i].N), ep.Turns[i].Score
				for i++; i < n && xr(ep.Turns[i].N) == x; i++ {
					top = max(top, ep.Turns[i].Score)
				}
				b.f("L%d %dH%d", x, y(top), xr(ep.Turns[i-1].N+1))
			}
		}
		b.WriteString(`"/>`)
		label(18, "score "+Num(scoreTop))
		label(base, "0")
	}
	story := agentStoryOf(o, ep)
	var lanesFired []string
	slot := max(2, int(math.Round(float64(agentPlotW)/float64(span)))-1)
	for k, r := range o.Ran {
		y := lanesY + agentLaneH*k
		var at []string
		count := 0
		var d strings.Builder
		// A lane of more firings than pixel columns draws one mark per
		// column it fired in (the same picture, a bounded path); its
		// count and the steps listed stay exact.
		if l := story.lanes[r]; l != nil {
			count = l.count
			for _, f := range l.at {
				at = append(at, fmt.Sprintf("%d (%s)", f.turn, f.kind))
			}
			if count > maxListed {
				at = append(at, "…")
			}
			cols := l.cols
			if bin := count > agentPlotW; bin {
				binned = true
			} else {
				cols = cols[:0:0]
				for _, t := range l.turns {
					cols = append(cols, xr(t))
				}
			}
			for _, x := range cols {
				fmt.Fprintf(&d, "M%d %dh%dv%dh%dz", x, y+2, slot, agentLaneH-4, -slot)
			}
		}
		b.f(`<g class="dl" data-rule="%s" data-firings="%d">`, template.HTMLEscapeString(r.Name), count)
		label(y+agentLaneH-4, r.Name)
		b.f(`<path class="ax" d="M%d %dh%d"/>`, agentLeft, y+agentLaneH/2, agentPlotW)
		if len(at) > 0 {
			lanesFired = append(lanesFired, fmt.Sprintf("%s at %s %s", r.Name, unit, strings.Join(at, ", ")))
			b.f(`<path class="fm" d="%s"><title>`, d.String())
			b.text(fmt.Sprintf("%s (%s): %s at %s %s", r.Name, r.Origin, plural(count, "firing"), unit, strings.Join(at, ", ")))
			b.WriteString(`</title></path>`)
		}
		b.WriteString(`</g>`)
	}
	b.f(`<path class="ax" d="M%d %dh%d"/>`, agentLeft, axisY, agentPlotW)
	step := niceStep(n, 8)
	b.f(`<g class="m" transform="translate(0 %d)">`, axisY+11)
	for t := (first + step - 1) / step * step; t <= last; t += step {
		b.f(`<text x="%d">%d</text>`, xr(t)+max(1, agentPlotW/span)/2, t)
	}
	b.WriteString(`</g>`)
	label(axisY+11, unit)
	b.WriteString(`</svg>`)

	caption := fmt.Sprintf("%ss %d to %d, a lane per detector that ran (%d); ", strings.ToUpper(unit[:1])+unit[1:], first, last, len(o.Ran))
	if len(lanesFired) == 0 {
		caption += "none fired."
	} else {
		caption += "marks where one fired: " + strings.Join(lanesFired, "; ") + "."
	}
	if ep.HasScore {
		caption += " Above them, the score (ends at " + Num(ep.FinalScore()) + ")."
	}
	if binned {
		caption += fmt.Sprintf(" Summarised: more %ss or firings than the chart's %d pixel columns, so each column draws one mark per lane (and the highest score); the counts are exact.", unit, agentPlotW)
	}
	out := b.String()
	desc := fmt.Sprintf(`<desc id="%s">%s</desc>`, descID, template.HTMLEscapeString(caption))
	return template.HTML(out[:descAt] + desc + out[descAt:]), caption
}
