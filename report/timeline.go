package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Timeline is one episode turn by turn as the pictures draw it: the
// terminal timeline (WriteTimeline) and the HTML report's SVG both read it.
type Timeline struct {
	EpisodeID   string
	First, Last int // turn numbers of Turns[0] and the last turn

	Score   []float64 // score after each turn, by index from First
	Stuck   []int     // the stuck counter after each turn
	Urgency []int8    // countdown warning at the turn: 0 none, else urgencyLevel
	Loc     []string  // location key at the end of each turn ("" unknown)

	MaxStuck int // max_turns_stuck, the counter's threshold

	Cut      int   // the termination turn (0: none)
	Checks   []int // check points after the cut
	LiveStop int   // the live system's stuck_termination turn (0: none)

	// Progress is the first turn after the cut whose score rose (0: none,
	// the termination was not false), and the score it rose to.
	Progress      int
	ProgressScore float64
	// LiveDisagree lists the turns where the live run's logged decisions
	// and the replay's differ (RULES.md §10); Live is nil without any.
	LiveDisagree []int
	Live         *analyze.Live

	// Fired counts, per turn index, the firings of each strip rule.
	Fired map[*rules.Rule][]int

	Outcome *analyze.Outcome
	ep      *replay.Episode
}

// Urgency levels of countdown warnings, in increasing order.
const (
	urgencyNone int8 = iota
	urgencyStagnation
	urgencyUrgent
	urgencyCritical
)

func urgencyLevel(u string) int8 {
	switch u {
	case "stagnation":
		return urgencyStagnation
	case "urgent":
		return urgencyUrgent
	case "critical":
		return urgencyCritical
	}
	return urgencyNone
}

var urgencyNames = [...]string{"", "stagnation", "urgent", "critical"}

// stripRules are the rules drawn as a strip of marks, in drawing order.
var stripRules = []*rules.Rule{rules.LocationRevisit, rules.Oscillation, rules.Camping, rules.ScoreAdjustment, rules.ActionNovelty}

// stripNames label the strips: what a reader sees, in at most 11 letters.
var stripNames = map[*rules.Rule]string{
	rules.LocationRevisit: "revisits",
	rules.Oscillation:     "oscillation",
	rules.Camping:         "camping",
	rules.ScoreAdjustment: "rejections",
	rules.ActionNovelty:   "repeats",
}

// NewTimeline builds the timeline of an episode from its outcome: from
// the marks its sink tallied (NewTimelineMarks, NewChartSink), else from
// its kept firings (analyze.Options.KeepFirings); maxStuck is the
// configuration's max_turns_stuck. It is built once an outcome: the
// marks become the timeline.
func NewTimeline(o *analyze.Outcome, ep *replay.Episode, maxStuck int) *Timeline {
	switch s := o.Sink.(type) {
	case *TimelineMarks:
		return s.timeline(o, ep, maxStuck)
	case *AgentStory:
		if s.marks != nil {
			return s.marks.timeline(o, ep, maxStuck)
		}
	case *ZorkTrace:
		if s.marks != nil {
			return s.marks.timeline(o, ep, maxStuck)
		}
	}
	m := newTimelineMarks(ep)
	for i := range o.Firings {
		m.Firing(&o.Firings[i], false)
	}
	return m.timeline(o, ep, maxStuck)
}

// TimelineMarks builds what a Timeline reads off an episode's firings as
// the replay produces them (an analyze.FiringSink, made by
// NewTimelineMarks for analyze.Options.Sink), so the HTML report need not
// keep them: a few bytes a turn, not 300 a firing.
type TimelineMarks struct {
	tl     *Timeline
	n      int
	resets []int // turns of progress_velocity resets, in order
}

// NewTimelineMarks starts the marks of ep's timeline: an
// analyze.Options.Sink. Other agents' logs are drawn from their
// AgentStory, which it starts instead.
func NewTimelineMarks(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	if !isZorkGPT(ep) {
		return newAgentStory(o, ep)
	}
	return newTimelineMarks(ep)
}

func newTimelineMarks(ep *replay.Episode) *TimelineMarks {
	n := ep.NumTurns() // an attempts log keeps no turn rows: its turns are made (TurnAt)
	m := &TimelineMarks{n: n, tl: &Timeline{Urgency: make([]int8, n), Fired: map[*rules.Rule][]int{}}}
	if n > 0 {
		m.tl.First, m.tl.Last = ep.TurnAt(0).N, ep.TurnAt(n-1).N
	}
	return m
}

// Firing marks f (an analyze.FiringSink); firings outside the recorded
// turns are not drawn.
func (m *TimelineMarks) Firing(f *rules.Firing, _ bool) {
	tl := m.tl
	idx := f.Turn - tl.First
	if idx < 0 || idx >= m.n {
		return
	}
	switch f.Kind {
	case rules.Reset:
		m.resets = append(m.resets, f.Turn)
	case rules.Warning:
		tl.Urgency[idx] = max(tl.Urgency[idx], urgencyLevel(f.Urgency))
	case rules.Termination:
		tl.Cut = f.Turn
	case rules.Checkpoint:
		if tl.Cut != 0 && f.Turn > tl.Cut {
			tl.Checks = append(tl.Checks, f.Turn)
		}
	default:
		if f.Rule == rules.ScoreAdjustment && !f.Rejected {
			break // only adjustments that would reject are marks
		}
		c := tl.Fired[f.Rule]
		if c == nil {
			c = make([]int, m.n)
			tl.Fired[f.Rule] = c
		}
		c[idx]++
	}
}

// timeline completes the marks with the episode's turns and outcome.
func (m *TimelineMarks) timeline(o *analyze.Outcome, ep *replay.Episode, maxStuck int) *Timeline {
	n := m.n
	tl := m.tl
	tl.EpisodeID, tl.MaxStuck, tl.Outcome, tl.ep = o.EpisodeID, maxStuck, o, ep
	tl.Score, tl.Stuck, tl.Loc = make([]float64, n), make([]int, n), make([]string, n)
	if n == 0 {
		return tl
	}
	var spare replay.Turn
	for i := range n {
		t := ep.TurnRef(i, &spare)
		tl.Score[i], tl.Loc[i] = t.Score, ep.Str(t.LocEnd)
	}
	if ep.HasLiveStop {
		tl.LiveStop = ep.LiveStopTurn
	}
	if o.FalseTermination && o.ProgressAfter.Turn != 0 {
		tl.Progress, tl.ProgressScore = o.ProgressAfter.Turn, o.ProgressAfter.Score
	}
	if tl.Live = o.Live; o.Live != nil {
		if o.Live.Stop != nil {
			tl.LiveStop = o.Live.Stop.Turn
		}
		for _, d := range o.Live.Disagreements {
			if k := len(tl.LiveDisagree); k == 0 || tl.LiveDisagree[k-1] != d.Turn {
				tl.LiveDisagree = append(tl.LiveDisagree, d.Turn)
			}
		}
	}
	// The stuck counter is turns since the last reset; the timer starts
	// at 0 (RULES.md §1), so a turn's counter is its number minus that.
	last, ri := 0, 0
	for i := range n {
		tn := ep.TurnRef(i, &spare).N
		for ; ri < len(m.resets) && m.resets[ri] <= tn; ri++ {
			last = m.resets[ri]
		}
		tl.Stuck[i] = max(0, tn-last)
	}
	return tl
}

// TimelineOptions shape the terminal timeline.
type TimelineOptions struct {
	Width int  // columns; 0: 80
	ASCII bool // plain characters instead of Unicode blocks
}

// glyphs are the characters of one style of terminal timeline.
type glyphs struct {
	levels   []rune    // bar heights, empty to full
	urgency  [4]rune   // none, stagnation, urgent, critical
	density  [4]rune   // none, few, some, many firings in a column
	cut      rune      // the termination
	check    rune      // a later check point
	live     rune      // the live run's stop
	progress rune      // the first progress after the cut
	disagree rune      // a live decision the replay does not share
	rule     rune      // the axis
	tick     rune      // an axis tick
	corner   [2]string // the label column's edge: plain, on the axis
}

var (
	unicodeGlyphs = glyphs{
		levels:  []rune(" ▁▂▃▄▅▆▇█"),
		urgency: [4]rune{' ', '░', '▒', '▓'},
		density: [4]rune{' ', '·', '•', '●'},
		cut:     '▼', check: '▽', live: '◆', progress: '↑', disagree: '≠',
		rule: '─', tick: '┬', corner: [2]string{"│", "└"},
	}
	asciiGlyphs = glyphs{
		levels:  []rune(" .:-=+*#@"),
		urgency: [4]rune{' ', '-', '=', '#'},
		density: [4]rune{' ', '.', 'o', 'O'},
		cut:     'X', check: '^', live: 'L', progress: '+', disagree: '!',
		rule: '-', tick: '+', corner: [2]string{"|", "+"},
	}
)

// chartRows is the height of the score and stuck charts.
const chartRows = 3

// WriteTimeline draws the episode as lines of text as wide as the
// terminal: score and stuck counter as bars, countdown warnings by
// urgency, the cut and later check points, and a strip per rule that
// fired. Every column stands for the same number of turns; shapes, not
// colours, carry the meaning.
func WriteTimeline(w io.Writer, tl *Timeline, opts TimelineOptions) error {
	g := unicodeGlyphs
	if opts.ASCII {
		g = asciiGlyphs
	}
	width := opts.Width
	if width <= 0 {
		width = 80
	}
	n := len(tl.Score)
	ew := &errWriter{w: TermWriter(w, false)}
	if n == 0 {
		fmt.Fprintf(ew, "  (no turns to draw)\n")
		return ew.err
	}
	// A log of another agent is drawn as its detectors see it: a score
	// only when it has one, one lane per detector that ran, no stuck
	// counter (ZorkGPT's termination is not what they replay).
	agent := tl.ep != nil && !isZorkGPT(tl.ep)
	label := 14 // "  score     44 " then the edge
	var lanes []*rules.Rule
	if agent {
		lanes = tl.Outcome.Ran
		for _, r := range lanes {
			label = max(label, len(r.Name)+3)
		}
		// A lane's name is cut rather than leave no room for its marks.
		label = min(label, max(14, width/2))
	}
	cols := max(10, width-label-1)
	per := (n + cols - 1) / cols // turns per column
	cols = (n + per - 1) / per
	col := func(turn int) int { return (turn - tl.First) / per }

	scale := "1 column = 1 turn"
	if per > 1 {
		scale = fmt.Sprintf("1 column = %d turns", per)
	}
	unit := "turn"
	if agent {
		unit = unitWord(tl.ep)
		scale = strings.ReplaceAll(scale, "turn", unit)
		fmt.Fprintf(ew, "  Timeline (%ss %d–%d, %s)\n", unit, tl.First, tl.Last, scale)
	} else {
		fmt.Fprintf(ew, "  Timeline (t=%d–%d, %s)\n", tl.First, tl.Last, scale)
	}

	// Bars: the maximum of each column, scaled to the series' maximum.
	bars := func(name string, vals []float64, top float64, topLabel string) {
		colMax := make([]float64, cols)
		for i := range colMax {
			colMax[i] = math.Inf(-1)
		}
		for i, v := range vals {
			colMax[i/per] = max(colMax[i/per], v)
		}
		steps := len(g.levels) - 1
		for row := chartRows - 1; row >= 0; row-- {
			lab := ""
			switch row {
			case chartRows - 1:
				lab = fmt.Sprintf("%-6s%5s", name, topLabel)
			case 0:
				lab = fmt.Sprintf("%11s", "0")
			}
			var b strings.Builder
			for _, v := range colMax {
				h := 0 // eighths of the chart's height filled
				if top > 0 && v > 0 {
					h = int(math.Round(v / top * float64(chartRows*steps)))
					h = max(h, 1) // anything above zero shows
				}
				fill := min(max(h-row*steps, 0), steps)
				b.WriteRune(g.levels[fill])
			}
			fmt.Fprintf(ew, "  %-*s%s%s\n", label-2, lab, g.corner[0], strings.TrimRight(b.String(), " "))
		}
	}
	top := 0.0
	for _, s := range tl.Score {
		top = max(top, s)
	}
	if !agent || tl.ep.HasScore {
		bars("score", tl.Score, top, Num(top))
	}
	if !agent {
		stuck := make([]float64, n)
		stuckTop := float64(tl.MaxStuck)
		for i, s := range tl.Stuck {
			stuck[i] = float64(s)
			stuckTop = max(stuckTop, stuck[i])
		}
		bars("stuck", stuck, stuckTop, strconv.Itoa(int(stuckTop)))
	}

	row := func(name string, cells []rune) {
		if len(name) > label-2 {
			name = name[:label-3] + "…"
		}
		fmt.Fprintf(ew, "  %-*s%s%s\n", label-2, name, g.corner[0], strings.TrimRight(string(cells), " "))
	}
	blank := func() []rune {
		r := make([]rune, cols)
		for i := range r {
			r[i] = ' '
		}
		return r
	}
	// Warnings: the most urgent warning in each column.
	warn := blank()
	anyWarn := false
	for i, u := range tl.Urgency {
		if u > urgencyNone {
			anyWarn = true
			if c := i / per; g.urgency[u] != warn[c] && urgencyOf(g, warn[c]) < u {
				warn[c] = g.urgency[u]
			}
		}
	}
	if anyWarn {
		row("warnings", warn)
	}
	// Check points: the cut, later check points, the live stop.
	marks := blank()
	for _, c := range tl.Checks {
		marks[col(c)] = g.check
	}
	if tl.Progress != 0 {
		marks[col(tl.Progress)] = g.progress
	}
	for _, d := range tl.LiveDisagree {
		if d >= tl.First && d <= tl.Last {
			marks[col(d)] = g.disagree
		}
	}
	if tl.LiveStop >= tl.First && tl.LiveStop <= tl.Last {
		marks[col(tl.LiveStop)] = g.live
	}
	if tl.Cut != 0 {
		marks[col(tl.Cut)] = g.cut
	}
	if tl.Cut != 0 || tl.LiveStop != 0 || len(tl.LiveDisagree) > 0 {
		row("cut", marks)
	}
	// One strip per rule that fired: how dense its firings are per column;
	// for another agent's log, one per detector that ran, fired or not.
	strips := stripRules
	if agent {
		strips = lanes
	}
	for _, r := range strips {
		counts := tl.Fired[r]
		if counts == nil && !agent {
			continue
		}
		colN := make([]int, cols)
		for i, c := range counts {
			colN[i/per] += c
		}
		cells := blank()
		for c, k := range colN {
			switch {
			case k == 0:
			case k*3 <= per:
				cells[c] = g.density[1]
			case k*3 <= 2*per:
				cells[c] = g.density[2]
			default:
				cells[c] = g.density[3]
			}
		}
		name := stripNames[r]
		if agent {
			name = r.Name
		}
		row(name, cells)
	}
	// The turn axis, with a tick and label about every 10 columns.
	axis := make([]rune, cols)
	for i := range axis {
		axis[i] = g.rule
	}
	labels := blank()
	step := niceStep(n, max(1, cols/10))
	for t := (tl.First + step - 1) / step * step; t <= tl.Last; t += step {
		c := col(t)
		s := strconv.Itoa(t)
		if c+len(s) > cols {
			break
		}
		axis[c] = g.tick
		copy(labels[c:], []rune(s))
	}
	fmt.Fprintf(ew, "  %-*s%s%s\n", label-2, unit, g.corner[1], string(axis))
	fmt.Fprintf(ew, "  %-*s %s\n", label-2, "", strings.TrimRight(string(labels), " "))

	// The legend, in words, so the picture needs no colour or guessing.
	var leg []string
	if !agent {
		leg = append(leg, fmt.Sprintf("stuck: turns since the last progress (terminates at %d)", tl.MaxStuck))
	}
	if anyWarn {
		leg = append(leg, fmt.Sprintf("warnings %c stagnation %c urgent %c critical", g.urgency[1], g.urgency[2], g.urgency[3]))
	}
	var cut []string
	if tl.Cut != 0 {
		cut = append(cut, fmt.Sprintf("%c cut t=%d", g.cut, tl.Cut))
		if len(tl.Checks) > 0 {
			cut = append(cut, fmt.Sprintf("%c later check point", g.check))
		}
	}
	if tl.LiveStop != 0 {
		cut = append(cut, fmt.Sprintf("%c live run stopped t=%d", g.live, tl.LiveStop))
	}
	if len(cut) > 0 {
		leg = append(leg, strings.Join(cut, "  "))
	}
	if tl.Progress != 0 {
		leg = append(leg, fmt.Sprintf("%c the score rose to %s at t=%d, after the cut", g.progress, Num(tl.ProgressScore), tl.Progress))
	}
	if l := tl.Live; l != nil {
		if l.Agrees() {
			leg = append(leg, fmt.Sprintf("live run: its %d logged decisions agree with the replay", l.Events))
		} else {
			leg = append(leg, fmt.Sprintf("live run: %c %d of its decisions differ from the replay's", g.disagree, len(l.Disagreements)))
		}
	}
	switch {
	case agent && per == 1:
		leg = append(leg, fmt.Sprintf("a lane per detector that ran: %c where it fired", g.density[3]))
	case agent:
		leg = append(leg, fmt.Sprintf("a lane per detector that ran: firings per column %c few %c some %c most %ss", g.density[1], g.density[2], g.density[3], unit))
	case len(tl.Fired) > 0:
		leg = append(leg, fmt.Sprintf("firings per column %c few %c some %c most turns", g.density[1], g.density[2], g.density[3]))
	}
	for _, l := range leg {
		fmt.Fprintf(ew, "  %s\n", l)
	}
	return ew.err
}

func urgencyOf(g glyphs, r rune) int8 {
	for i, u := range g.urgency {
		if u == r && i > 0 {
			return int8(i)
		}
	}
	return urgencyNone
}

// niceStep is a round number of turns (1, 2 or 5 times a power of ten)
// giving at most about ticks ticks over n turns.
func niceStep(n, ticks int) int {
	raw := float64(n) / float64(ticks)
	p := math.Pow(10, math.Floor(math.Log10(max(raw, 1))))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return int(m * p)
		}
	}
	return int(10 * p)
}
