package report

// The HTML report: one self-contained file (inline CSS, a small inline
// script, inline SVG; nothing fetched), so it works attached to a CI run.

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

//go:embed assets/page.html.tmpl assets/report.css assets/report.js
var assets embed.FS

var pageTemplate = template.Must(template.New("page.html.tmpl").ParseFS(assets, "assets/page.html.tmpl"))

func asset(name string) string {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}

// Limits that keep a report of a large corpus small: a chart draws at most
// MaxChartPoints vertices per series and MaxChartRuns runs of firings
// (the largest); the caption says when it summarises.
const (
	MaxChartPoints = 600
	MaxChartRuns   = 24
)

// htmlCell is one table cell: its text, an optional sort key (numbers)
// and link.
type htmlCell struct {
	Text, Sort, Href string
}

type htmlHead struct {
	Text string
	Num  bool
}

type htmlEpisode struct {
	ID, Anchor, Summary, Caption string
	Cells                        []htmlCell
	SVG                          template.HTML
}

type htmlRow struct {
	Cells []htmlCell
	Rec   bool
}

type htmlSweep struct {
	Chart   template.HTML
	Caption string
	Head    []htmlHead
	Rows    []htmlRow
}

type htmlPage struct {
	Title    string
	Intro    []string
	Head     []htmlHead
	Episodes []htmlEpisode
	Foot     []htmlCell
	Errors   []analyze.FileError
	Sweep    *htmlSweep
	Footer   string
	CSS      template.CSS
	JS       template.JS
}

// HTMLReport collects analysed episodes and writes them as one page: a
// sortable table, the totals, and a timeline chart per episode. Add keeps
// only the rendered chart of each episode, so memory grows with the
// report's size, not the logs'.
type HTMLReport struct {
	Title    string
	MaxStuck int // max_turns_stuck, drawn on the stuck counter
	eps      []htmlEpisode
}

// Add renders one episode; o must keep its firings and story
// (analyze.Options{KeepFirings: true, Story: true}).
func (h *HTMLReport) Add(o *analyze.Outcome, ep *replay.Episode) {
	tl := NewTimeline(o, ep, h.MaxStuck)
	anchor := "ep-" + strconv.Itoa(len(h.eps)+1)
	term, termSort, saved, calls, forf, fals := "-", "", "-", "-", "-", ""
	switch {
	case o.Termination != nil:
		term, termSort = "t="+strconv.Itoa(o.Termination.Turn), strconv.Itoa(o.Termination.Turn)
		saved, calls, forf = strconv.Itoa(o.TurnsSaved), strconv.Itoa(o.LLMCallsSaved), Num(o.ScoreForfeited)
		fals = "no"
		if o.FalseTermination {
			fals = "yes"
		}
	case o.Censored:
		term = "censored"
	}
	live := "-"
	if ep.HasLiveStop {
		live = "t=" + strconv.Itoa(ep.LiveStopTurn)
	}
	num := func(s string) htmlCell { return htmlCell{Text: s, Sort: strings.TrimPrefix(s, "t=")} }
	svg, caption := timelineSVG(tl, anchor)
	h.eps = append(h.eps, htmlEpisode{
		ID: o.EpisodeID, Anchor: anchor, Summary: episodeSummary(o, ep), Caption: caption, SVG: svg,
		Cells: []htmlCell{
			{Text: o.EpisodeID, Href: "#" + anchor},
			num(strconv.Itoa(o.RecordedTurns)), num(Num(o.FinalScore)), {Text: o.RecordedEnd},
			{Text: term, Sort: termSort}, num(saved), num(calls), num(forf), {Text: fals}, {Text: live, Sort: strings.TrimPrefix(live, "t=")},
		},
	})
}

var episodeHead = []htmlHead{{"episode", false}, {"turns", true}, {"final score", true}, {"ended by", false},
	{"would terminate", true}, {"turns saved", true}, {"LLM calls saved", true}, {"score forfeited", true}, {"false termination", false}, {"live stop", true}}

// Write writes the page with the corpus totals and unreadable files.
func (h *HTMLReport) Write(w io.Writer, t *analyze.Totals, errs []analyze.FileError) error {
	title := h.Title
	if title == "" {
		title = "loopbreak report"
	}
	p := &htmlPage{
		Title: title, Head: episodeHead, Episodes: h.eps, Errors: errs,
		Intro: []string{fmt.Sprintf("%d of %d episodes would have been terminated (%d censored); %d of %d turns saved (%.1f%%), %d LLM calls; %d false terminations (%.1f%% of terminated); score forfeited %s.",
			t.Terminated, t.Episodes, t.Censored, t.TurnsSaved, t.RecordedTurns, t.TurnsSavedPct, t.LLMCallsSaved, t.FalseTerminations, t.FalseRatePct, Num(t.ScoreForfeited))},
		Foot: []htmlCell{{Text: "total"}, {Text: strconv.Itoa(t.RecordedTurns)}, {}, {}, {Text: strconv.Itoa(t.Terminated)},
			{Text: strconv.Itoa(t.TurnsSaved)}, {Text: strconv.Itoa(t.LLMCallsSaved)}, {Text: Num(t.ScoreForfeited)}, {Text: strconv.Itoa(t.FalseTerminations)}, {}},
	}
	if t.LinesSkipped > 0 {
		p.Intro = append(p.Intro, fmt.Sprintf("%d unreadable lines skipped.", t.LinesSkipped))
	}
	return writePage(w, p)
}

func writePage(w io.Writer, p *htmlPage) error {
	p.CSS, p.JS = template.CSS(asset("report.css")), template.JS(asset("report.js"))
	if p.Footer == "" {
		p.Footer = "Written by loopbreak. Charts: score (solid line), stuck counter (lower line, dashed threshold), hatched stuck periods, warning bands by pattern (dots stagnation, stripes urgent, crosses critical), the cut (dashed red line), later check points (triangles), the live run's stop (dotted green line), runs of firings per rule, and a lane per most-visited room."
	}
	return pageTemplate.Execute(w, p)
}

// episodeSummary is the episode's outcome in one sentence.
func episodeSummary(o *analyze.Outcome, ep *replay.Episode) string {
	s := fmt.Sprintf("%d turns, final score %s, ended by %s. ", o.RecordedTurns, Num(o.FinalScore), o.RecordedEnd)
	switch {
	case o.Termination != nil:
		s += fmt.Sprintf("Would terminate at t=%d (stuck %d turns at score %s), saving %d turns and %d LLM calls", o.Termination.Turn, o.Termination.TurnsStuck, Num(o.Termination.Score), o.TurnsSaved, o.LLMCallsSaved)
		if o.FalseTermination {
			s += fmt.Sprintf("; a false termination: the recording made progress after t=%d (score %s forfeited).", o.Termination.Turn, Num(o.ScoreForfeited))
		} else {
			s += "; no progress after the cut."
		}
	case o.Censored:
		s += fmt.Sprintf("Censored: the live system stopped the run at t=%d first.", ep.LiveStopTurn)
	default:
		s += "Would never terminate."
	}
	if live := liveAgreement(o, ep); live != "" {
		s += " " + live
	}
	return s
}

// liveAgreement compares the replay's cut with the live run's stop.
func liveAgreement(o *analyze.Outcome, ep *replay.Episode) string {
	if !ep.HasLiveStop {
		return ""
	}
	switch {
	case o.Termination == nil:
		return fmt.Sprintf("The live run stopped at t=%d; the replay would not have.", ep.LiveStopTurn)
	case o.Termination.Turn == ep.LiveStopTurn:
		return fmt.Sprintf("The live run stopped at t=%d too: replay and live run agree.", ep.LiveStopTurn)
	}
	return fmt.Sprintf("The live run stopped at t=%d; the replay cuts at t=%d: they disagree.", ep.LiveStopTurn, o.Termination.Turn)
}

// Chart geometry (SVG user units).
const (
	svgW      = 900
	svgLeft   = 70 // labels
	svgRight  = 10
	plotW     = svgW - svgLeft - svgRight
	laneCount = 6 // most-visited rooms with a lane; the rest share one
)

// svgNum formats a coordinate compactly: one decimal at most.
func svgNum(f float64) string {
	return strconv.FormatFloat(float64(int64(f*10+0.5))/10, 'f', -1, 64)
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
	span := max(1, tl.Last-tl.First)
	x := func(turn float64) string { return svgNum(svgLeft + (turn-float64(tl.First))/float64(span)*plotW) }
	xi := func(turn int) string { return x(float64(turn)) }

	// Vertical layout, top to bottom.
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
	var strips []*rules.Rule
	for _, r := range stripRules {
		if tl.Fired[r] != nil {
			strips = append(strips, r)
		}
	}
	roomsY := rulesY + ruleH*len(strips) + 6
	lanes, laneNames, laneTurns, lanePer := roomLanes(tl)
	axisY := roomsY + 5*len(laneNames) + 4
	height := axisY + 14

	var notes []string
	var b svgBuilder
	descID := id + "-desc"
	b.f(`<svg class="tl" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s" xmlns="http://www.w3.org/2000/svg">`, svgW, height, id, descID)
	b.f(`<title id="%s-title">Timeline of episode `, id)
	b.text(tl.EpisodeID)
	b.WriteString(`</title>`)
	descAt := b.Len() // the description is known once drawn

	label := func(y int, s string) {
		b.f(`<text class="lab" x="%d" y="%d" text-anchor="end">%s</text>`, svgLeft-4, y, template.HTMLEscapeString(s))
	}

	// Stuck periods, hatched behind both panels.
	if tl.Outcome.Story != nil {
		for _, p := range tl.Outcome.Story.StuckPeriods {
			b.f(`<rect class="sp" x="%s" y="%d" width="%s" height="%d"><title>stuck t=%d–%d (%d turns at score %s)</title></rect>`,
				xi(p.From), scoreY, svgNum(max(1, float64(p.To-p.From)/float64(span)*plotW)), stuckY+stuckH-scoreY, p.From, p.To, p.Turns, Num(p.Score))
		}
	}

	// Score.
	top := 0.0
	for _, s := range tl.Score {
		top = max(top, s)
	}
	label(scoreY+8, "score "+Num(top))
	label(scoreY+scoreH, "0")
	b.f(`<path class="ax" d="M%d %dh%d"/>`, svgLeft, scoreY+scoreH, plotW)
	path := func(class string, vals []float64, topV float64, y0, h int) bool {
		idx, v, summ := series(vals, MaxChartPoints)
		b.f(`<path class="%s" d="`, class)
		for k := range idx {
			yy := float64(y0 + h)
			if topV > 0 {
				yy -= max(0, v[k]) / topV * float64(h)
			}
			if k == 0 {
				b.f("M%s %s", xi(tl.First+idx[k]), svgNum(yy))
			} else {
				b.f("L%s %s", xi(tl.First+idx[k]), svgNum(yy))
			}
		}
		b.WriteString(`"/>`)
		return summ
	}
	if path("sc", tl.Score, top, scoreY, scoreH) {
		notes = append(notes, fmt.Sprintf("the score line is summarised to %d points", MaxChartPoints))
	}

	// Warning bands: one rect per run of equal urgency, patterned by level.
	label(warnY+8, "warnings")
	for i := 0; i < n; {
		u := tl.Urgency[i]
		j := i
		for j < n && tl.Urgency[j] == u {
			j++
		}
		if u != urgencyNone {
			b.f(`<rect class="w%d" x="%s" y="%d" width="%s" height="%d"><title>%s warnings t=%d–%d</title></rect>`,
				u, xi(tl.First+i), warnY, svgNum(max(1, float64(j-i)/float64(span+1)*plotW)), warnH, urgencyNames[u], tl.First+i, tl.First+j-1)
		}
		i = j
	}

	// Stuck counter and its threshold.
	stuck := make([]float64, n)
	stuckTop := float64(tl.MaxStuck)
	for i, s := range tl.Stuck {
		stuck[i] = float64(s)
		stuckTop = max(stuckTop, stuck[i])
	}
	label(stuckY+8, "stuck "+strconv.Itoa(int(stuckTop)))
	label(stuckY+stuckH, "0")
	b.f(`<path class="ax" d="M%d %dh%d"/>`, svgLeft, stuckY+stuckH, plotW)
	if tl.MaxStuck > 0 && stuckTop > 0 {
		ty := float64(stuckY+stuckH) - float64(tl.MaxStuck)/stuckTop*stuckH
		b.f(`<path class="th" d="M%d %sh%d"><title>max_turns_stuck = %d</title></path>`, svgLeft, svgNum(ty), plotW, tl.MaxStuck)
	}
	if path("st", stuck, stuckTop, stuckY, stuckH) {
		notes = append(notes, fmt.Sprintf("the stuck counter is summarised to %d points", MaxChartPoints))
	}

	// Runs of firings, one row per rule: the largest MaxChartRuns.
	var runs []analyze.Run
	if tl.Outcome.Story != nil {
		runs = tl.Outcome.Story.Runs
	}
	if len(runs) > MaxChartRuns {
		notes = append(notes, fmt.Sprintf("the %d largest of %d runs of firings are marked", MaxChartRuns, len(runs)))
		runs = append([]analyze.Run(nil), runs...)
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].Firings > runs[j].Firings })
		runs = runs[:MaxChartRuns]
	}
	rowOf := map[*rules.Rule]int{}
	for k, r := range strips {
		rowOf[r] = k
		label(rulesY+ruleH*k+8, stripNames[r])
		b.f(`<path class="ax" d="M%d %dh%d"/>`, svgLeft, rulesY+ruleH*k+ruleH/2, plotW)
	}
	// Adjustments that would reject belong to oscillation and camping runs
	// (Story attributes them); their strip shows where they fell.
	if c := tl.Fired[rules.ScoreAdjustment]; c != nil {
		k := rowOf[rules.ScoreAdjustment]
		var at []string
		b.f(`<g class="run rj"><title>would reject (score_adjustment below rejection_threshold)</title>`)
		for i, v := range c {
			if v > 0 && len(at) < MaxChartRuns*4 {
				at = append(at, strconv.Itoa(tl.First+i))
				b.f(`<path d="M%s %dl3 8h-6z"/>`, xi(tl.First+i), rulesY+ruleH*k+1)
			}
		}
		b.WriteString(`</g>`)
	}
	for _, r := range runs {
		k, ok := rowOf[r.Rule]
		if !ok {
			continue
		}
		class := "run"
		if r.WouldReject > 0 {
			class = "run rj"
		}
		b.f(`<rect class="%s" x="%s" y="%d" width="%s" height="%d"><title>`, class, xi(r.From), rulesY+ruleH*k+1,
			svgNum(max(2, float64(r.To-r.From)/float64(span)*plotW)), ruleH-2)
		b.text(fmt.Sprintf("%s %s %s: %d firings", r.Rule.Name, runPlace(r, tl.ep), span2(r.From, r.To), r.Firings))
		if r.WouldReject > 0 {
			b.text(fmt.Sprintf(", %d would reject", r.WouldReject))
		}
		b.WriteString(`</title></rect>`)
	}

	// Rooms: a lane per most-visited room; oscillation zigzags between two
	// lanes, camping is one long bar.
	if len(laneNames) > 0 {
		label(roomsY+7, "rooms")
	}
	for k, name := range laneNames {
		y := roomsY + 5*k + 2
		b.f(`<path class="ln" d="`)
		for _, seg := range lanes[k] {
			b.f("M%s %dH%s", xi(seg[0]), y, x(float64(seg[1])+0.999))
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
		var ts []string
		for _, c := range tl.Checks {
			ts = append(ts, strconv.Itoa(c))
		}
		b.f(`<g class="ck"><title>later check points: t=%s</title>`, strings.Join(ts, ", "))
		for k, c := range tl.Checks {
			if k >= MaxChartRuns*4 {
				break
			}
			b.f(`<path d="M%s %dl-3 -6h6z"/>`, xi(c), marksY)
		}
		b.WriteString(`</g>`)
	}
	if tl.LiveStop != 0 {
		b.f(`<path class="live" d="M%s %dV%d"><title>the live run stopped at t=%d</title></path>`, xi(tl.LiveStop), scoreY-6, axisY, tl.LiveStop)
		b.f(`<text class="lab" x="%s" y="%d" text-anchor="end">live stop t=%d </text>`, xi(tl.LiveStop), marksY-3, tl.LiveStop)
	}
	if tl.Cut != 0 {
		b.f(`<path class="cut" d="M%s %dV%d"><title>the replay terminates at t=%d</title></path>`, xi(tl.Cut), scoreY-6, axisY, tl.Cut)
		b.f(`<text class="lab" x="%s" y="%d"> cut t=%d</text>`, xi(tl.Cut), marksY-3, tl.Cut)
	}

	// Turn axis.
	b.f(`<path class="ax" d="M%d %dh%d"/>`, svgLeft, axisY, plotW)
	step := niceStep(n, 10)
	for t := (tl.First + step - 1) / step * step; t <= tl.Last; t += step {
		b.f(`<text class="lab" x="%s" y="%d" text-anchor="middle">%d</text>`, xi(t), axisY+11, t)
	}
	label(axisY+11, "turn")
	b.WriteString(`</svg>`)

	caption := timelineCaption(tl, notes)
	out := b.String()
	desc := fmt.Sprintf(`<desc id="%s">%s</desc>`, descID, template.HTMLEscapeString(caption))
	return template.HTML(out[:descAt] + desc + out[descAt:]), caption
}

// timelineCaption says in words what the chart shows.
func timelineCaption(tl *Timeline, notes []string) string {
	o := tl.Outcome
	s := fmt.Sprintf("Turns %d to %d: the score ends at %s", tl.First, tl.Last, Num(o.FinalScore))
	if o.Story != nil && len(o.Story.StuckPeriods) > 0 {
		s += fmt.Sprintf(" after %d stuck periods", len(o.Story.StuckPeriods))
	}
	if tl.Cut != 0 {
		s += fmt.Sprintf("; the replay cuts at t=%d", tl.Cut)
		if o.FalseTermination {
			s += " and the score still rises after the cut"
		}
	} else {
		s += "; the replay never cuts"
	}
	if tl.LiveStop != 0 {
		s += fmt.Sprintf("; the live run stopped at t=%d", tl.LiveStop)
	}
	s += "."
	if len(notes) > 0 {
		s += " Summarised: " + strings.Join(notes, "; ") + "."
	}
	return s
}

// runPlace names where a run fired.
func runPlace(r analyze.Run, ep *replay.Episode) string {
	switch r.Rule {
	case rules.Oscillation:
		a, b, _ := strings.Cut(r.Key, "\x00")
		return "between " + ep.RoomName(a) + " and " + ep.RoomName(b)
	case rules.ActionNovelty:
		return "(repeated actions)"
	}
	return "at " + ep.RoomName(r.Key)
}

func span2(a, b int) string {
	if a == b {
		return fmt.Sprintf("t=%d", a)
	}
	return fmt.Sprintf("t=%d–%d", a, b)
}

// roomLanes groups turns by room: the laneCount most visited rooms get a
// lane of [from, to] turn segments, the others share one ("other rooms").
// Beyond MaxChartPoints segments in a lane, turns are bucketed.
func roomLanes(tl *Timeline) (lanes [][][2]int, names []string, turns []int, per int) {
	count := map[string]int{}
	for _, l := range tl.Loc {
		if l != "" {
			count[l]++
		}
	}
	if len(count) == 0 {
		return nil, nil, nil, 1
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if count[keys[i]] != count[keys[j]] {
			return count[keys[i]] > count[keys[j]]
		}
		return keys[i] < keys[j]
	})
	laneOf := map[string]int{}
	for k, key := range keys {
		if k < laneCount {
			laneOf[key] = k
			names = append(names, tl.ep.RoomName(key))
			turns = append(turns, count[key])
		} else {
			laneOf[key] = laneCount
		}
	}
	if len(keys) > laneCount {
		names = append(names, fmt.Sprintf("%d other rooms", len(keys)-laneCount))
		turns = append(turns, 0)
		for _, k := range keys[laneCount:] {
			turns[laneCount] += count[k]
		}
	}
	n := len(tl.Loc)
	per = 1
	for {
		lanes = make([][][2]int, len(names))
		most := 0
		for b := 0; b < n; b += per {
			seen := map[int]bool{}
			for i := b; i < min(b+per, n); i++ {
				if l := tl.Loc[i]; l != "" {
					seen[laneOf[l]] = true
				}
			}
			for k := range seen {
				segs := lanes[k]
				from, to := tl.First+b, tl.First+min(b+per, n)-1
				if m := len(segs); m > 0 && segs[m-1][1] == from-1 {
					segs[m-1][1] = to
				} else {
					segs = append(segs, [2]int{from, to})
				}
				lanes[k] = segs
				most = max(most, len(segs))
			}
		}
		if most <= MaxChartPoints {
			return lanes, names, turns, per
		}
		per *= 2
	}
}
