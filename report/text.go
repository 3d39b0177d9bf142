package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter/tw"

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

// Num formats a score: integers without decimals.
func Num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	if math.Abs(f) >= 1e15 {
		return strconv.FormatFloat(f, 'g', -1, 64) // 1.7e+308, not 309 digits
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
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
	w := &errWriter{w: r.W}
	fmt.Fprintf(w, "%s %s\n", r.bold.Sprint("Episode"), r.bold.Sprint(o.EpisodeID))
	kv := func(k, format string, a ...any) {
		fmt.Fprintf(w, "  %-18s %s\n", k, fmt.Sprintf(format, a...))
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
		kv("would terminate", "%s (stuck %d turns at score %s)", r.red.Sprintf("at t=%d", t.Turn), t.TurnsStuck, Num(t.Score))
		kv("turns saved", "%d of %d (%s)", o.TurnsSaved, o.RecordedTurns, pctOf(o.TurnsSaved, o.RecordedTurns))
		method := "counted from llm_call events"
		if o.LLMCallsMethod == analyze.CallsEstimated {
			method = "estimated: 4 per turn + 2 per rejected action"
		}
		kv("LLM calls saved", "%d (%s)", o.LLMCallsSaved, method)
		kv("score forfeited", "%s", Num(o.ScoreForfeited))
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
				fmt.Fprintf(w, "    %s\n", line)
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
		fmt.Fprintf(w, "    %s\n", r.yellow.Sprint(p))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "    %s\n", r.dim.Sprint(n))
	}

	story := o.Story
	if story == nil {
		story = &analyze.Story{}
	}
	if len(o.Checkpoints) > 0 {
		var cps []string
		for _, c := range o.Checkpoints {
			cps = append(cps, fmt.Sprintf("t=%d (%d)", c.Turn, c.TurnsStuck))
		}
		kv("check points", "%s", wrapList(cps, 6, strings.Repeat(" ", 21)))
	}
	if len(story.StuckPeriods) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Stuck periods"))
		tb := NewTable(indent(w), R, R, R, R, L)
		tb.Header("from", "to", "turns", "score", "")
		for _, p := range story.StuckPeriods {
			note := ""
			if p.Ongoing {
				note = "until the end"
			}
			if err := tb.Append([]string{strconv.Itoa(p.From), strconv.Itoa(p.To), strconv.Itoa(p.Turns), Num(p.Score), note}); err != nil {
				return err
			}
		}
		if err := tb.Render(); err != nil {
			return err
		}
	}
	if len(story.Warnings) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Countdown warnings (would have been shown)"))
		for _, wr := range story.Warnings {
			var ph []string
			for _, p := range wr.Phases {
				ph = append(ph, fmt.Sprintf("%s %s", p.Urgency, span(p.From, p.To)))
			}
			fmt.Fprintf(w, "    %-12s %s\n", span(wr.From, wr.To), strings.Join(ph, ", "))
		}
	}
	// What ZorkGPT would have done comes first; the design's proposals,
	// which ZorkGPT never shipped, after it with their own figures.
	deployed, proposed := splitRuns(story.Runs)
	if len(deployed) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Penalties and hints ZorkGPT would have given (would have fired)"))
		fmt.Fprintf(w, "    %s\n", r.deployedSummary(o))
		r.cutNote(w, o)
		if err := r.runs(w, o, ep, deployed, false); err != nil {
			return err
		}
	}
	if len(proposed) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Proposed rules (loop-break design; not in ZorkGPT)"))
		fmt.Fprintf(w, "    %s\n", r.proposedSummary(o))
		if len(deployed) == 0 {
			r.cutNote(w, o)
		}
		if err := r.runs(w, o, ep, proposed, true); err != nil {
			return err
		}
	}
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
		fmt.Fprintf(w, "    %s\n", r.dim.Sprintf("after cut: firings after t=%d, which the terminated run would never have seen", o.Termination.Turn))
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
	return fmt.Sprintf("%s%d revisit penalties, %d low confidence (below 0.3: could let a rejected action\n    through ZorkGPT's rejection override; a penalty never rejects an action)",
		upToCut(o), cutCount(o, rules.Penalty), o.LowConfidence)
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
		fmt.Fprintf(w, "  (the %d largest of %d runs; -v lists all)\n", limit, all)
	}
	head := []string{"rule", "where", "turns", "firings", "low confidence"}
	if proposed {
		head = []string{"rule", "where", "turns", "firings", "adjustments", "would reject"}
	}
	// Firings after the cut only exist when the episode is cut.
	cutCol := o.Termination != nil
	if cutCol {
		head = append(head, "after cut")
	}
	align := []tw.Align{L, L}
	for range head[2:] {
		align = append(align, R)
	}
	tb := NewTable(indent(w), align...)
	tb.Header(head)
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
		if err := tb.Append(row); err != nil {
			return err
		}
	}
	return tb.Render()
}

// trace writes every turn with what fired at it.
func (r *Text) trace(w io.Writer, o *analyze.Outcome, ep *replay.Episode) error {
	fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Turn by turn"))
	if o.Termination != nil && o.Termination.Turn < o.RecordedTurns {
		fmt.Fprintf(w, "  %s\n", r.dim.Sprintf("(turns after t=%d are after the cut: the terminated run never played them)", o.Termination.Turn))
	}
	tb := NewTable(indent(w), R, R, L, L, L)
	tb.Header("turn", "score", "location", "action", "fired")
	fi := 0
	for i := range ep.Turns {
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
		if err := tb.Append([]string{strconv.Itoa(t.N), Num(t.Score), loc, action, strings.Join(fired, "; ")}); err != nil {
			return err
		}
	}
	return tb.Render()
}

func describeFiring(f *rules.Firing, ep *replay.Episode) string {
	switch f.Kind {
	case rules.Termination:
		return fmt.Sprintf("TERMINATE (stuck %d)", f.TurnsStuck)
	case rules.Checkpoint:
		return fmt.Sprintf("check point (stuck %d)", f.TurnsStuck)
	case rules.Reset:
		return fmt.Sprintf("reset: %s after %d", f.Cause, f.TurnsStuck)
	case rules.Warning:
		return fmt.Sprintf("warning %s (%d left)", f.Urgency, f.TurnsUntilDeath)
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
				b.WriteString(",\n" + pad)
			} else {
				b.WriteString(", ")
			}
		}
		b.WriteString(it)
	}
	return b.String()
}

// Summary writes the corpus table and totals.
func (r *Text) Summary(rows []analyze.Row, t *analyze.Totals, errs []analyze.FileError) error {
	r.init()
	w := &errWriter{w: r.W}
	fmt.Fprintf(w, "%s\n", r.bold.Sprintf("Corpus: %d episodes", t.Episodes))
	tb := NewTable(w, L, R, R, L, R, R, R, R, L)
	tb.Header("episode", "turns", "final", "ended", "terminate", "saved", "calls saved", "forfeited", "false")
	for i := range rows {
		o := &rows[i]
		term, saved, calls, forf, fals := "-", "-", "-", "-", ""
		if o.Terminated {
			term = "t=" + strconv.Itoa(o.TerminationTurn)
			saved, calls, forf = strconv.Itoa(o.TurnsSaved), strconv.Itoa(o.LLMCallsSaved), Num(o.ScoreForfeited)
			if o.FalseTermination {
				fals = "yes"
			}
		} else if o.Censored {
			term = "censored"
		}
		if err := tb.Append([]string{o.EpisodeID, strconv.Itoa(o.RecordedTurns), Num(o.FinalScore), o.RecordedEnd, term, saved, calls, forf, fals}); err != nil {
			return err
		}
	}
	tb.Footer("total", strconv.Itoa(t.RecordedTurns), "", "", fmt.Sprintf("%d", t.Terminated), strconv.Itoa(t.TurnsSaved), strconv.Itoa(t.LLMCallsSaved), Num(t.ScoreForfeited), strconv.Itoa(t.FalseTerminations))
	if err := tb.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d of %d episodes would have been terminated (%d censored); %d of %d turns saved (%.1f%%), %d LLM calls; %d false terminations (%.1f%% of terminated); score forfeited %s.\n",
		t.Terminated, t.Episodes, t.Censored, t.TurnsSaved, t.RecordedTurns, t.TurnsSavedPct, t.LLMCallsSaved, t.FalseTerminations, t.FalseRatePct, Num(t.ScoreForfeited))
	fmt.Fprintf(w, "Up to each termination: %d countdown warnings; %d low-confidence revisit penalties (could let a rejected action through ZorkGPT's rejection override); the proposed score adjustments would reject %d actions.\n",
		t.Warnings, t.LowConfidence, t.WouldReject)
	if n := t.LiveDisagreements; n != nil && *n > 0 {
		fmt.Fprintf(w, "%s\n", r.yellow.Sprintf("%d live runs disagree with the replay under this configuration (see each episode's live run)", *n))
	}
	if t.LinesSkipped > 0 {
		fmt.Fprintf(w, "%s\n", r.yellow.Sprintf("%d unreadable lines skipped (see each episode's log lines)", t.LinesSkipped))
	}
	for _, e := range errs {
		fmt.Fprintf(w, "%s\n", r.red.Sprintf("unreadable: %s: %s", e.Source, e.Error))
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

// indent prefixes every line with two spaces (tables inside an episode).
func indent(w io.Writer) io.Writer { return &prefixWriter{w: w, prefix: "  ", bol: true} }

type prefixWriter struct {
	w      io.Writer
	prefix string
	bol    bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if p.bol {
			out = append(out, p.prefix...)
			p.bol = false
		}
		out = append(out, c)
		if c == '\n' {
			p.bol = true
		}
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
