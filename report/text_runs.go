package report

// The parts of one episode's text report: runs of firings by rule, the
// turn-by-turn trace, and their small formatting helpers.

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// splitRuns separates the runs of rules deployed in ZorkGPT from those of
// the design's proposals, keeping turn order: indices into runs, which an
// episode of millions of turns may have hundreds of thousands of.
func splitRuns(runs []analyze.Run) (deployed, proposed []int32) {
	for i := range runs {
		if runs[i].Rule.Origin == rules.OriginZorkGPT {
			deployed = append(deployed, int32(i))
		} else {
			proposed = append(proposed, int32(i))
		}
	}
	return deployed, proposed
}

// largestRuns returns the limit runs of which (indices into runs, in
// turn order) with the most firings, the earlier of equal ones, in turn
// order; equal starts keep the order of firings. It keeps the limit only,
// rather than sorting a copy of every run.
func largestRuns(runs []analyze.Run, which []int32, limit int) []int32 {
	top := make([]int32, 0, limit+1)
	for _, i := range which {
		k := len(top)
		for k > 0 && runs[top[k-1]].Firings < runs[i].Firings {
			k--
		}
		if k < limit {
			top = slices.Insert(top, k, i)
			top = top[:min(len(top), limit)]
		}
	}
	sort.SliceStable(top, func(a, b int) bool { return runs[top[a]].From < runs[top[b]].From })
	return top
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
func (r *Text) runs(w io.Writer, o *analyze.Outcome, ep *replay.Episode, all []analyze.Run, which []int32, proposed bool) error {
	limit := r.MaxRuns
	if limit <= 0 {
		limit = 12
	}
	if r.Verbose {
		limit = len(which)
	}
	if n := len(which); n > limit {
		// Keep the longest runs (most firings), shown in turn order.
		which = largestRuns(all, which, limit)
		fmt.Fprintf(w, "  %s\n", Wrap(fmt.Sprintf("(the %d largest of %d runs; -v lists all)", limit, n), r.Width, 2, "  "))
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
	for _, i := range which {
		run := &all[i]
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

// trace writes every turn with what fired at it: from the firings kept,
// or those a ZorkTrace wrote as they came, read twice per table (its
// widths, then its rows: Grid.Each), never held.
func (r *Text) trace(w io.Writer, o *analyze.Outcome, ep *replay.Episode) error {
	fmt.Fprintf(w, "\n  %s\n", r.title("Turn by turn"))
	cols := []Col{{Head: "turn", Align: R}, {Head: "score", Align: R}, {Head: "location", Align: L, Cut: true}, {Head: "action", Align: L, Cut: true}, {Head: "fired", Align: L, Wrap: true, Long: 20}}
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
	fired := traceOf(o, ep)
	start := 0 // the firings before the table's turns
	table := func(from, to int) error {
		g := &Grid{Indent: "  ", Cols: cols}
		var words []string
		g.Each = func(yield func([]string)) {
			fired.seek(start)
			for i := from; i < to; i++ {
				t := &ep.Turns[i]
				words = fired.at(t.N, words[:0])
				action := ep.Str(t.Action)
				if t.Filled {
					action = "(gap)"
				}
				loc := ep.RoomName(ep.Str(t.LocEnd))
				if t.Moved {
					loc = ep.RoomName(ep.Str(t.LocStart)) + " → " + loc
				}
				yield([]string{strconv.Itoa(t.N), Num(t.Score), loc, action, strings.Join(words, "; ")})
			}
		}
		_, err := g.Render(w, r.Width)
		start = fired.consumed()
		if err == nil {
			err = fired.err
		}
		return err
	}
	if err := table(0, cut); err != nil {
		return err
	}
	if cut < len(ep.Turns) {
		fmt.Fprintf(w, "\n  %s\n", r.title(fmt.Sprintf("After the cut (t=%d–%d: the terminated run never played these turns)", ep.Turns[cut].N, ep.Turns[len(ep.Turns)-1].N)))
		return table(cut, len(ep.Turns))
	}
	return nil
}

func describeFiring(f *rules.Firing, ep *replay.Episode) string {
	if b, ok := appendFiringWords(nil, f); ok {
		return string(b)
	}
	switch f.Kind {
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
	return f.KindKey() // a peer detector's, and any other
}

// appendFiringWords appends describeFiring's words for progress_velocity's
// and stuck_warnings' firings and the generic rules' (appendAgentFiring),
// which steps and attempts logs fire, false for others:
// appended, not formatted, as -v words each of millions of them.
func appendFiringWords(b []byte, f *rules.Firing) ([]byte, bool) {
	switch f.Kind {
	case rules.Termination:
		b = append(b, "TERMINATE (stuck "...)
		return append(appendPlural(b, f.TurnsStuck, "turn"), ')'), true
	case rules.Checkpoint:
		b = append(b, "check point (stuck "...)
		return append(appendPlural(b, f.TurnsStuck, "turn"), ')'), true
	case rules.Reset:
		// "objective_progress_reset" as words, so a narrow trace wraps it.
		b = append(b, "reset: "...)
		for _, c := range []byte(strings.TrimSuffix(f.Cause, "_reset")) {
			if c == '_' {
				c = ' '
			}
			b = append(b, c)
		}
		b = append(b, " after "...)
		return appendPlural(b, f.TurnsStuck, "turn"), true
	case rules.Warning:
		b = append(append(append(b, "warning "...), f.Urgency...), " ("...)
		if f.TurnsUntilDeath < 0 {
			// Past the limit: only a replay that did not stop gets here.
			b = append(b, "limit passed "...)
			return append(appendPlural(b, -f.TurnsUntilDeath, "turn"), " ago)"...), true
		}
		return append(appendPlural(b, f.TurnsUntilDeath, "turn"), " left)"...), true
	}
	return appendAgentFiring(b, f)
}

// appendPlural appends plural(n, word).
func appendPlural(b []byte, n int, word string) []byte {
	switch {
	case n == 1:
		return append(append(b, "1 "...), word...)
	case n <= -1000 || n >= 1000:
		b = append(b, Count(n)...) // thousands separated
	default:
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(append(append(b, ' '), word...), 's')
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
