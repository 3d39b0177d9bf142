package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fatih/color"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Text renders the human report.
type Text struct {
	W       io.Writer
	Color   bool // caller decides (terminal, NO_COLOR, --color)
	Verbose bool // add the turn-by-turn trace
	// MaxRuns caps the runs listed per episode (0: 12); -v lists all.
	MaxRuns int
	// Width is the terminal's width: tables drop or shorten columns and
	// prose wraps to fit. 0 (not a terminal): a fixed layout, no limit.
	Width int
	// Config is the line saying what was assumed (ConfigLine), written
	// once before the first episode or summary.
	Config string
	// Hint, if set, ends the summary: how to see one episode in full.
	Hint string

	headerDone bool

	bold, red, yellow, green, dim *color.Color
}

func (r *Text) init() {
	if r.bold != nil {
		return
	}
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if r.Color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	r.bold, r.red, r.yellow, r.green, r.dim = mk(color.Bold), mk(color.FgRed, color.Bold), mk(color.FgYellow), mk(color.FgGreen), mk(color.Faint)
}

// Num formats a score: integers without decimals, others to at most 4
// decimals (a sum of 0.1s is 0.3, not 0.30000000000000004).
func Num(f float64) string {
	if math.Abs(f) >= 1e15 {
		return strconv.FormatFloat(f, 'g', -1, 64) // 1.7e+308, not 309 digits
	}
	f = Round(f, 4)
	if f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Round rounds f to n decimals: what an input of confidences (4) or a
// percentage (2) can mean, without binary float noise. Huge and
// non-finite values are returned as they are.
func Round(f float64, n int) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) >= 1e15 {
		return f
	}
	p := math.Pow10(n)
	r := math.Round(f*p) / p
	if r == 0 {
		return 0 // no -0
	}
	return r
}

// ConfigLine says what a report assumed: where the configuration came from
// and the thresholds that decide termination and warnings.
func ConfigLine(path string, cfg *rules.Config) string {
	src := "defaults (no config found)"
	if path != "" {
		src = path
		if strings.EqualFold(filepath.Base(path), rules.PyprojectFile) {
			src += " [tool.zorkgpt.loop_break]"
		} else {
			src += " [loop_break]"
		}
	}
	val := func(key string) string {
		v := rules.FormatValue(cfg.Value(key))
		if cfg.Source(key).Kind == "flag" {
			v += " (--set)"
		}
		return v
	}
	parts := []string{"config: " + src}
	if b, _ := cfg.Value("enable_velocity_detection").(bool); b {
		parts = append(parts, "max_turns_stuck "+val("max_turns_stuck"), "every "+val("stuck_check_interval")+" turns")
	} else {
		parts = append(parts, "termination off")
	}
	if b, _ := cfg.Value("enable_stuck_warnings").(bool); b {
		parts = append(parts, "warnings from "+val("stuck_warning_threshold"))
	} else {
		parts = append(parts, "warnings off")
	}
	return strings.Join(parts, " · ")
}

// Header writes the configuration line, once per report: before episodes
// a caller writes itself (a merge of partial files).
func (r *Text) Header() error {
	r.init()
	w := &errWriter{w: r.W}
	r.header(w)
	return w.err
}

// header writes the configuration line once.
func (r *Text) header(w io.Writer) {
	if r.headerDone || r.Config == "" {
		return
	}
	r.headerDone = true
	fmt.Fprintf(w, "%s\n\n", r.dim.Sprint(Wrap(r.Config, r.Width, 0, "  ")))
}

func pctOf(n, d int) string {
	if d == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", float64(n)*100/float64(d))
}

// Episode writes one episode: its outcome, then its story. o comes from
// analyze.Analyze with Options.Story; ep gives room names and diagnostics.
func (r *Text) Episode(o *analyze.Outcome, ep *replay.Episode) error {
	r.init()
	if !isZorkGPT(ep) {
		return r.agentEpisode(o, ep) // detectors.go
	}
	w := &errWriter{w: r.W}
	r.header(w)
	fmt.Fprintf(w, "%s %s\n", r.bold.Sprint("Episode"), r.bold.Sprint(o.EpisodeID))
	pad := strings.Repeat(" ", 21)
	kv := func(k, format string, a ...any) {
		fmt.Fprintf(w, "  %-18s %s\n", k, Wrap(fmt.Sprintf(format, a...), r.Width, 21, pad))
	}
	kv("source", "%s", o.Source)
	keyWord := "room ids"
	if o.LocationKey == replay.KeyRoomName {
		keyWord = "room names (no ids in log)"
	}
	kv("recorded", "%d turns, final score %s, ended by %s; locations by %s", o.RecordedTurns, Num(o.FinalScore), o.RecordedEnd, keyWord)
	switch {
	case o.Termination != nil:
		t := o.Termination
		kv("would terminate", "%s (stuck %s at score %s)", r.red.Sprintf("at t=%d", t.Turn), plural(t.TurnsStuck, "turn"), Num(t.Score))
		kv("turns saved", "%d of %d (%s)", o.TurnsSaved, o.RecordedTurns, pctOf(o.TurnsSaved, o.RecordedTurns))
		method := "counted from llm_call events"
		if o.LLMCallsMethod == analyze.CallsEstimated {
			method = "estimated: 4 per turn + 2 per rejected action"
		}
		kv("LLM calls saved", "%d (%s)", o.LLMCallsSaved, method)
		if o.ScoreForfeited != 0 {
			kv("score forfeited", "%s (score %s at the cut, %s at the end)", Num(o.ScoreForfeited), Num(t.Score), Num(o.FinalScore))
		} else {
			kv("score forfeited", "%s", Num(o.ScoreForfeited))
		}
		if o.FalseTermination {
			p := o.ProgressAfter
			kv("false termination", "%s", r.yellow.Sprintf("yes: score rose %s → %s at t=%d", Num(t.Score), Num(p.Score), p.Turn))
		} else {
			kv("false termination", "no: the score never rose above %s after t=%d", Num(t.Score), t.Turn)
		}
		if o.ObjectivesAfter > 0 {
			kv("objectives after", "%d completed after t=%d (not progress of the game's score)", o.ObjectivesAfter, t.Turn)
		}
	case o.Censored:
		kv("would terminate", "%s", r.yellow.Sprintf("unknown: censored (the live system stopped the run at t=%d first)", ep.LiveStopTurn))
	default:
		kv("would terminate", "%s", r.green.Sprint("never"))
	}
	if o.Censored && o.Termination != nil {
		kv("censored", "yes")
	}
	if o.Live != nil {
		for i, line := range liveLines(o.Live, o) {
			if i == 0 {
				if !o.Live.Agrees() {
					line = r.yellow.Sprint(line)
				}
				kv("live run", "%s", line)
			} else {
				fmt.Fprintf(w, "    %s\n", Wrap(line, r.Width, 4, "      "))
			}
		}
	}
	d := ep.Diag
	lines := fmt.Sprintf("%d read, %d skipped", d.Lines, d.Skipped)
	if d.Skipped > 0 {
		lines = r.yellow.Sprint(lines)
	}
	kv("log lines", "%s", lines)
	for _, p := range d.Problems {
		fmt.Fprintf(w, "    %s\n", r.yellow.Sprint(Wrap(p, r.Width, 4, "      ")))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "    %s\n", r.dim.Sprint(Wrap(n, r.Width, 4, "      ")))
	}

	story := o.Story
	if story == nil {
		story = &analyze.Story{}
	}
	if len(o.Checkpoints) > 0 {
		// The first check point is the cut; the others only show how long
		// the replay stayed stuck after it.
		var cps, after []string
		for _, c := range o.Checkpoints {
			item := fmt.Sprintf("t=%d, stuck %s", c.Turn, plural(c.TurnsStuck, "turn"))
			if o.Termination != nil && c.Turn > o.Termination.Turn {
				after = append(after, item)
			} else {
				cps = append(cps, item)
			}
		}
		if len(cps) > 0 {
			kv("check points", "%s", r.list(cps, 21))
		}
		if len(after) > 0 {
			// Only a replay that did not stop reaches them: counted, not
			// listed, unless -v.
			line := fmt.Sprintf("%d more check points, t=%d–%d (-v lists them)", len(after), o.Checkpoints[len(o.Checkpoints)-len(after)].Turn, o.Checkpoints[len(o.Checkpoints)-1].Turn)
			if len(after) == 1 || r.Verbose {
				line = r.list(after, 21)
			}
			fmt.Fprintf(w, "  %-18s %s\n", "after the cut", r.dim.Sprint(Wrap(line, r.Width, 21, strings.Repeat(" ", 21))))
		}
	}
	if len(story.StuckPeriods) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.title("Stuck periods"))
		g := &Grid{Indent: "  ", Cols: []Col{{Head: "from", Align: R}, {Head: "to", Align: R}, {Head: "turns", Align: R}, {Head: "score", Align: R}, {Head: "", Align: L, Wrap: true}}}
		for _, p := range story.StuckPeriods {
			var note []string
			if p.Ongoing {
				note = append(note, "until the end")
			}
			if o.Termination != nil && p.From > o.Termination.Turn {
				note = append(note, "after the cut")
			}
			g.Rows = append(g.Rows, []string{strconv.Itoa(p.From), strconv.Itoa(p.To), strconv.Itoa(p.Turns), Num(p.Score), strings.Join(note, ", ")})
		}
		if _, err := g.Render(w, r.Width); err != nil {
			return err
		}
	}
	if len(story.Warnings) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.title("Countdown warnings (would have been shown)"))
		for _, wr := range story.Warnings {
			var ph []string
			for _, p := range wr.Phases {
				ph = append(ph, fmt.Sprintf("%s %s", p.Urgency, span(p.From, p.To)))
			}
			line := strings.Join(ph, ", ")
			if o.Termination != nil && wr.To > o.Termination.Turn {
				if wr.From > o.Termination.Turn {
					line += " (after the cut)"
				} else {
					line += fmt.Sprintf(" (after the cut from t=%d)", o.Termination.Turn+1)
				}
			}
			fmt.Fprintf(w, "    %-12s %s\n", span(wr.From, wr.To), Wrap(line, r.Width, 17, strings.Repeat(" ", 17)))
		}
	}
	// What ZorkGPT would have done comes first; the design's proposals,
	// which ZorkGPT never shipped, after it with their own figures.
	deployed, proposed := splitRuns(story.Runs)
	if len(deployed) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.title("Penalties and hints ZorkGPT would have given (would have fired)"))
		fmt.Fprintf(w, "    %s\n", Wrap(r.deployedSummary(o), r.Width, 4, "    "))
		r.cutNote(w, o)
		if err := r.runs(w, o, ep, deployed, false); err != nil {
			return err
		}
	}
	if len(proposed) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.title("Proposed rules (loop-break design; not in ZorkGPT)"))
		fmt.Fprintf(w, "    %s\n", Wrap(r.proposedSummary(o), r.Width, 4, "    "))
		if len(deployed) == 0 {
			r.cutNote(w, o)
		}
		if err := r.runs(w, o, ep, proposed, true); err != nil {
			return err
		}
	}
	r.outputLoops(w, o)
	if r.Verbose {
		if err := r.trace(w, o, ep); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	return w.err
}

// splitRuns separates the runs of rules deployed in ZorkGPT from those of
// the design's proposals, keeping turn order.
func splitRuns(runs []analyze.Run) (deployed, proposed []analyze.Run) {
	for _, run := range runs {
		if run.Rule.Origin == rules.OriginZorkGPT {
			deployed = append(deployed, run)
		} else {
			proposed = append(proposed, run)
		}
	}
	return deployed, proposed
}

func (r *Text) cutNote(w io.Writer, o *analyze.Outcome) {
	if o.Termination != nil {
		fmt.Fprintf(w, "    %s\n", r.dim.Sprint(Wrap(fmt.Sprintf("after cut: firings after t=%d, which the terminated run would never have seen", o.Termination.Turn), r.Width, 4, "    ")))
	}
}

// upToCut prefixes counts that stop at the termination turn.
func upToCut(o *analyze.Outcome) string {
	if o.Termination == nil {
		return ""
	}
	return fmt.Sprintf("up to t=%d: ", o.Termination.Turn)
}

func (r *Text) deployedSummary(o *analyze.Outcome) string {
	return fmt.Sprintf("%s%s, %d low confidence (below 0.3: could let a rejected action through ZorkGPT's rejection override; a penalty never rejects an action)",
		upToCut(o), sweepPlural(cutCount(o, rules.Penalty), "revisit penalty", "revisit penalties"), o.LowConfidence)
}

func (r *Text) proposedSummary(o *analyze.Outcome) string {
	return fmt.Sprintf("%s%d oscillation and %d camping detections, %s, %d would reject the action",
		upToCut(o), cutCount(o, rules.OscillationDetection), cutCount(o, rules.CampingDetection), plural(cutCount(o, rules.Adjustment), "score adjustment"), o.WouldReject)
}

// cutCount counts the outcome's firings of kind k at or before the cut.
func cutCount(o *analyze.Outcome, k *rules.Kind) int {
	if o.Story != nil && o.Story.UpToCut != nil {
		return o.Story.UpToCut[k] // counted as the firings came: they need not be kept
	}
	n := 0
	for i := range o.Firings {
		if o.Firings[i].Kind == k && !o.AfterCut(&o.Firings[i]) {
			n++
		}
	}
	return n
}

// runs writes a table of runs of firings, the largest MaxRuns unless
// Verbose.
func (r *Text) runs(w io.Writer, o *analyze.Outcome, ep *replay.Episode, runs []analyze.Run, proposed bool) error {
	limit := r.MaxRuns
	if limit <= 0 {
		limit = 12
	}
	if r.Verbose {
		limit = len(runs)
	}
	if all := len(runs); all > limit {
		// Keep the longest runs (most firings), shown in turn order.
		runs = append([]analyze.Run(nil), runs...)
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].Firings > runs[j].Firings })
		runs = runs[:limit]
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].From < runs[j].From })
		fmt.Fprintf(w, "  %s\n", Wrap(fmt.Sprintf("(the %d largest of %d runs; -v lists all)", limit, all), r.Width, 2, "  "))
	}
	// Hidden first to fit a terminal: the counts least read.
	g := &Grid{Indent: "  ", Cols: []Col{{Head: "rule", Align: L}, {Head: "where", Align: L, Cut: true}, {Head: "turns", Align: R}, {Head: "firings", Align: R, Short: "fired"}}}
	if proposed {
		g.Cols = append(g.Cols, Col{Head: "adjustments", Align: R, Drop: 1}, Col{Head: "would reject", Align: R, Drop: 2})
	} else {
		g.Cols = append(g.Cols, Col{Head: "low confidence", Align: R, Drop: 1})
	}
	// Firings after the cut only exist when the episode is cut.
	cutCol := o.Termination != nil
	if cutCol {
		g.Cols = append(g.Cols, Col{Head: "after cut", Align: R, Short: "after"})
	}
	for _, run := range runs {
		where := ep.RoomName(run.Key)
		switch run.Rule {
		case rules.Oscillation:
			a, b, _ := strings.Cut(run.Key, "\x00")
			where = ep.RoomName(a) + " ↔ " + ep.RoomName(b)
		case rules.ActionNovelty:
			where = "repeated actions"
		}
		cut := ""
		if run.AfterCut > 0 {
			cut = strconv.Itoa(run.AfterCut)
		}
		row := []string{run.Rule.Name, where, span(run.From, run.To), strconv.Itoa(run.Firings)}
		if proposed {
			row = append(row, strconv.Itoa(run.Adjustments), strconv.Itoa(run.WouldReject))
		} else {
			low := ""
			if run.Rule == rules.LocationRevisit {
				low = strconv.Itoa(run.LowConfidence)
			}
			row = append(row, low)
		}
		if cutCol {
			row = append(row, cut)
		}
		g.Rows = append(g.Rows, row)
	}
	hidden, err := g.Render(w, r.Width)
	r.hiddenNote(w, hidden)
	return err
}

// title is a section heading, bold, wrapped under a two-space indent.
func (r *Text) title(s string) string { return r.bold.Sprint(Wrap(s, r.Width, 2, "  ")) }

// hiddenNote says which columns were hidden to fit the terminal.
func (r *Text) hiddenNote(w io.Writer, hidden []string) {
	if len(hidden) > 0 {
		fmt.Fprintf(w, "  %s\n", r.dim.Sprint(Wrap(fmt.Sprintf("(hidden to fit %d columns: %s; a wider terminal or --format json shows them)", r.Width, strings.Join(hidden, ", ")), r.Width, 2, "  ")))
	}
}

// list joins items with semicolons, wrapped to the width (or 4 to a line
// without one) under a first line starting at column first.
func (r *Text) list(items []string, first int) string {
	if r.Width <= 0 {
		return wrapList(items, 4, strings.Repeat(" ", first))
	}
	return Wrap(strings.Join(items, "; "), r.Width, first, strings.Repeat(" ", first))
}

// trace writes every turn with what fired at it.
func (r *Text) trace(w io.Writer, o *analyze.Outcome, ep *replay.Episode) error {
	fmt.Fprintf(w, "\n  %s\n", r.title("Turn by turn"))
	cols := []Col{{Head: "turn", Align: R}, {Head: "score", Align: R}, {Head: "location", Align: L, Cut: true}, {Head: "action", Align: L, Cut: true}, {Head: "fired", Align: L, Wrap: true}}
	g := &Grid{Indent: "  ", Cols: cols}
	// Turns after the cut get their own table: the terminated run never
	// played them.
	cut := len(ep.Turns)
	if o.Termination != nil {
		for i := range ep.Turns {
			if ep.Turns[i].N > o.Termination.Turn {
				cut = i
				break
			}
		}
	}
	fi := 0
	for i := range ep.Turns {
		if i == cut {
			if _, err := g.Render(w, r.Width); err != nil {
				return err
			}
			fmt.Fprintf(w, "\n  %s\n", r.title(fmt.Sprintf("After the cut (t=%d–%d: the terminated run never played these turns)", ep.Turns[i].N, ep.Turns[len(ep.Turns)-1].N)))
			g = &Grid{Indent: "  ", Cols: cols}
		}
		t := &ep.Turns[i]
		var fired []string
		for ; fi < len(o.Firings) && o.Firings[fi].Turn == t.N; fi++ {
			fired = append(fired, describeFiring(&o.Firings[fi], ep))
		}
		action := t.Action
		if t.Filled {
			action = "(gap)"
		}
		loc := ep.RoomName(t.LocEnd)
		if t.Moved {
			loc = ep.RoomName(t.LocStart) + " → " + loc
		}
		g.Rows = append(g.Rows, []string{strconv.Itoa(t.N), Num(t.Score), loc, action, strings.Join(fired, "; ")})
	}
	_, err := g.Render(w, r.Width)
	return err
}

func describeFiring(f *rules.Firing, ep *replay.Episode) string {
	switch f.Kind {
	case rules.Termination:
		return fmt.Sprintf("TERMINATE (stuck %s)", plural(f.TurnsStuck, "turn"))
	case rules.Checkpoint:
		return fmt.Sprintf("check point (stuck %s)", plural(f.TurnsStuck, "turn"))
	case rules.Reset:
		// "objective_progress_reset" as words, so a narrow trace wraps it.
		cause := strings.ReplaceAll(strings.TrimSuffix(f.Cause, "_reset"), "_", " ")
		return fmt.Sprintf("reset: %s after %s", cause, plural(f.TurnsStuck, "turn"))
	case rules.Warning:
		if f.TurnsUntilDeath < 0 {
			// Past the limit: only a replay that did not stop gets here.
			return fmt.Sprintf("warning %s (limit passed %s ago)", f.Urgency, plural(-f.TurnsUntilDeath, "turn"))
		}
		return fmt.Sprintf("warning %s (%s left)", f.Urgency, plural(f.TurnsUntilDeath, "turn"))
	case rules.Penalty:
		if f.HasBase {
			s := fmt.Sprintf("revisit ×%d %s→%s", f.Visits, Num2(f.Base), Num2(f.Adjusted))
			if f.LowConfidence {
				s += " low confidence"
			}
			return s
		}
		return fmt.Sprintf("revisit ×%d", f.Visits)
	case rules.OscillationDetection:
		return fmt.Sprintf("oscillation %s ↔ %s", ep.RoomName(f.Pattern[0]), ep.RoomName(f.Pattern[1]))
	case rules.CampingDetection:
		return fmt.Sprintf("camping %s ×%d", ep.RoomName(f.Location), f.Visits)
	case rules.Adjustment:
		s := fmt.Sprintf("adjust %s→%s", Num2(f.Base), Num2(f.Adjusted))
		if f.Rejected {
			s += " REJECT"
		}
		return s
	case rules.Hint:
		if f.Proposal == rules.ProposalRejected {
			return "repeated action (rejected proposal " + strconv.Quote(f.Action) + ")"
		}
		return "repeated action"
	}
	if s := describeAgentFiring(f); s != "" {
		return s
	}
	return f.KindKey()
}

// Num2 formats a confidence with two decimals.
func Num2(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func span(a, b int) string {
	if a == b {
		return fmt.Sprintf("t=%d", a)
	}
	return fmt.Sprintf("t=%d–%d", a, b)
}

func wrapList(items []string, perLine int, pad string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			if i%perLine == 0 {
				b.WriteString(";\n" + pad)
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(it)
	}
	return b.String()
}

// SummaryRow is one episode of the corpus table.
type SummaryRow struct {
	analyze.Row
	Source  string // its log, for the hint
	Skipped int    // unreadable lines in its log
	// LiveWord is "agrees" or "differs" for a row without Outcome.Live
	// (read back from JSON); "" means no live run.
	LiveWord string
}

// live is the row's live-run column: "", "agrees" or "differs".
func (o SummaryRow) live() string { return o.LiveWord }

// NewSummaryRow keeps what the corpus table shows of an episode.
func NewSummaryRow(o *analyze.Outcome, skipped int) SummaryRow {
	var rs analyze.Rows
	rs.Add(o)
	r := SummaryRow{Row: rs.List[0], Source: o.Source, Skipped: skipped}
	if o.Live != nil {
		r.LiveWord = "differs"
		if o.Live.Agrees() {
			r.LiveWord = "agrees"
		}
	}
	return r
}

// Summary writes the corpus table and totals, then footnotes naming the
// episodes they are about.
func (r *Text) Summary(rows []SummaryRow, t *analyze.Totals, errs []analyze.FileError) error {
	r.init()
	w := &errWriter{w: r.W}
	r.header(w)
	fmt.Fprintf(w, "%s\n", r.bold.Sprintf("Corpus: %s", sweepPlural(t.Episodes, "episode", "episodes")))
	g := &Grid{Cols: []Col{
		{Head: "episode", Align: L, Cut: true},
		{Head: "turns", Align: R, Drop: 3},
		{Head: "final", Align: R, Drop: 4},
		{Head: "ended", Align: L, Drop: 2, Cut: true},
		{Head: "cut", Align: R},
		{Head: "saved", Align: R},
		{Head: "calls saved", Align: R, Drop: 1},
		{Head: "forfeited", Align: R},
		{Head: "false", Align: L},
		{Head: "live", Align: L, Drop: 5},
	}}
	for _, o := range rows {
		term, saved, calls, forf, fals, live := "-", "-", "-", "-", "", ""
		if o.Terminated {
			term = "t=" + strconv.Itoa(o.TerminationTurn)
			saved, calls, forf = strconv.Itoa(o.TurnsSaved), strconv.Itoa(o.LLMCallsSaved), Num(o.ScoreForfeited)
			if o.FalseTermination {
				fals = "yes"
			}
		} else if o.Censored {
			term = "censored"
		}
		live = o.live()
		g.Rows = append(g.Rows, []string{o.EpisodeID, strconv.Itoa(o.RecordedTurns), Num(o.FinalScore), o.RecordedEnd, term, saved, calls, forf, fals, live})
	}
	g.Footer = []string{"total", strconv.Itoa(t.RecordedTurns), "", "", strconv.Itoa(t.Terminated), strconv.Itoa(t.TurnsSaved), strconv.Itoa(t.LLMCallsSaved), Num(t.ScoreForfeited), strconv.Itoa(t.FalseTerminations), ""}
	hidden, err := g.Render(w, r.Width)
	if err != nil {
		return err
	}
	if len(hidden) > 0 {
		fmt.Fprintf(w, "%s\n", r.dim.Sprint(Wrap(fmt.Sprintf("(hidden to fit %d columns: %s; a wider terminal or --format json shows them)", r.Width, strings.Join(hidden, ", ")), r.Width, 0, "")))
	}
	para := func(c *color.Color, s string) {
		fmt.Fprintf(w, "%s\n", c.Sprint(Wrap(s, r.Width, 0, "")))
	}
	plain := color.New()
	plain.DisableColor()
	fmt.Fprintln(w)
	para(plain, fmt.Sprintf("%d of %s would have been terminated (%d censored); %d of %s saved (%s), %s; %s (%s of terminated); score forfeited %s.",
		t.Terminated, sweepPlural(t.Episodes, "episode", "episodes"), t.Censored, t.TurnsSaved, plural(t.RecordedTurns, "turn"), fmtPct(t.TurnsSavedPct), plural(t.LLMCallsSaved, "LLM call"),
		plural(t.FalseTerminations, "false termination"), fmtPct(t.FalseRatePct), Num(t.ScoreForfeited)))
	para(plain, fmt.Sprintf("Up to each termination: %s; %s (could let a rejected action through ZorkGPT's rejection override); the proposed score adjustments would reject %s.",
		plural(t.Warnings, "countdown warning"), sweepPlural(t.LowConfidence, "low-confidence revisit penalty", "low-confidence revisit penalties"), plural(t.WouldReject, "action")))
	var loops bytes.Buffer
	loopsLine(&loops, t) // detectors.go
	for _, l := range strings.Split(strings.TrimRight(loops.String(), "\n"), "\n") {
		if l != "" {
			para(plain, l)
		}
	}
	var differ, skipped []string
	for _, o := range rows {
		if o.live() == "differs" {
			differ = append(differ, o.EpisodeID)
		}
		if o.Skipped > 0 {
			skipped = append(skipped, fmt.Sprintf("%s (%d)", o.EpisodeID, o.Skipped))
		}
	}
	if len(differ) > 0 {
		para(r.yellow, fmt.Sprintf("%s under this configuration: %s.", sweepPlural(len(differ), "live run disagrees with the replay", "live runs disagree with the replay"), strings.Join(differ, ", ")))
	}
	if t.LinesSkipped > 0 {
		para(r.yellow, fmt.Sprintf("%s skipped: %s.", sweepPlural(t.LinesSkipped, "unreadable line", "unreadable lines"), strings.Join(skipped, ", ")))
	}
	for _, e := range errs {
		para(r.red, fmt.Sprintf("unreadable: %s: %s", e.Source, e.Error))
	}
	if r.Hint != "" {
		para(r.dim, r.Hint)
	}
	return w.err
}

// errWriter keeps the first write error so rendering code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
