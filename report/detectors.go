package report

// Reporting the logs of other agents (steps and attempts logs): the
// headline table "detector × first firing × false alarms", the grouping
// of task_attempts firings by task, and the words for the firings of the
// generic and peer rules.

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// InputJSON says how a log was read.
type InputJSON struct {
	Format   string `json:"format"`           // zorkgpt, steps or attempts
	Preset   string `json:"preset,omitempty"` // openhands, gemini-cli
	Detected bool   `json:"detected"`         // chosen by --input-format auto
}

func newInput(ep *replay.Episode) *InputJSON {
	f := ep.Format
	if f == "" {
		f = replay.FormatZorkGPT
	}
	return &InputJSON{Format: f, Preset: ep.Preset, Detected: ep.Detected}
}

func isZorkGPT(ep *replay.Episode) bool {
	return ep.Format == "" || ep.Format == replay.FormatZorkGPT
}

// What a false alarm is measured against (DetectorRow.Basis).
const (
	BasisScore        = analyze.BasisScore
	BasisTaskProgress = analyze.BasisTaskProgress
	BasisLabels       = analyze.BasisLabels
)

// DetectorRow is one rule of the headline table of a steps or attempts
// log: how often it fired, where first, and how many of its firings were
// false alarms.
//
// A false alarm is a firing after which the agent was not stuck after all:
// in a steps log with scores, a later step has a higher score than the
// step that fired (RULES.md's false termination, per firing); in an
// attempts log, a later attempt at the same task records completed work
// the firing attempt did not have, or is done when it was not. A steps log
// without scores cannot tell: false_alarms is null.
type DetectorRow struct {
	Rule        string `json:"rule"`
	Origin      string `json:"origin"`
	Firings     int    `json:"firings"`
	First       *int   `json:"first"`                // step (attempt) of the first firing; null: never fired
	FirstKind   string `json:"first_kind,omitempty"` // its kind
	FalseAlarms *int   `json:"false_alarms"`
	Basis       string `json:"false_alarm_basis,omitempty"`
}

// Detectors builds the headline table: one row per rule that ran, in
// registry order, false alarms judged by analyze.AlarmJudge.
func Detectors(o *analyze.Outcome, ep *replay.Episode) []DetectorRow {
	judge, basis := o.AlarmJudge(ep)
	return DetectorsJudged(o, ep, judge, basis)
}

// DetectorsJudged is Detectors with another test of a false alarm (labels
// judge a firing by people's spans); a nil judge leaves false alarms
// unknown.
func DetectorsJudged(o *analyze.Outcome, ep *replay.Episode, judge func(n int) bool, basis string) []DetectorRow {
	if o.Firings == nil {
		// Tallied as they came (AgentStory), judged by analyze.AlarmJudge.
		if s, ok := o.Sink.(*AgentStory); ok && s.det != nil {
			return slices.Clone(s.det.rows)
		}
	}
	d := newDetectorTally(o, judge, basis)
	for i := range o.Firings {
		d.add(&o.Firings[i])
	}
	return d.rows
}

// detectorTally builds the headline table a firing at a time, so a
// renderer given the firings as they come (analyze.Options.Sink) need
// not keep them.
type detectorTally struct {
	rows  []DetectorRow
	index map[*rules.Rule]int
	// at is index's registered rules by Rule.Index, where a map lookup
	// hashed the rule at each firing (a map of more than eight).
	at    [maxRuleSlots]ruleRow
	judge func(n int) bool
}

// ruleRow is a registered rule's row (detectorTally.at).
type ruleRow struct {
	rule *rules.Rule
	k    int
}

// maxRuleSlots bounds the registered rules found by their index (the
// registry has 25; one past it is found in the map).
const maxRuleSlots = 32

// row returns r's row, false when r did not run.
func (d *detectorTally) row(r *rules.Rule) (int, bool) {
	if i := r.Index(); uint(i) < uint(len(d.at)) && d.at[i].rule == r {
		return d.at[i].k, true
	}
	k, ok := d.index[r]
	return k, ok
}

func newDetectorTally(o *analyze.Outcome, judge func(n int) bool, basis string) *detectorTally {
	d := &detectorTally{rows: make([]DetectorRow, 0, len(o.Ran)), index: map[*rules.Rule]int{}, judge: judge}
	for _, r := range o.Ran {
		if i := r.Index(); uint(i) < uint(len(d.at)) && d.at[i].rule == nil {
			d.at[i] = ruleRow{r, len(d.rows)}
		}
		d.index[r] = len(d.rows)
		row := DetectorRow{Rule: r.Name, Origin: r.Origin, Basis: basis}
		if judge != nil {
			row.FalseAlarms = new(int)
		}
		d.rows = append(d.rows, row)
	}
	return d
}

func (d *detectorTally) add(f *rules.Firing) {
	k, ok := d.row(f.Rule)
	if !ok {
		return
	}
	if f.Kind == rules.Reset {
		return // a reset of the stuck timer is progress, not an alarm
	}
	row := &d.rows[k]
	row.Firings++
	if row.First == nil {
		n := f.Turn
		row.First, row.FirstKind = &n, f.Kind.Name
	}
	if d.judge != nil && d.judge(f.Turn) {
		*row.FalseAlarms++
	}
}

// AgentName names the agent that wrote a log, for the reports' words:
// ZorkGPT, OpenHands or Gemini CLI, else "" (a steps or attempts log of
// an agent loopbreak has no preset for).
func AgentName(ep *replay.Episode) string {
	switch {
	case isZorkGPT(ep):
		return "ZorkGPT"
	case ep.Preset == replay.PresetOpenHands:
		return "OpenHands"
	case ep.Preset == replay.PresetGeminiCLI:
		return "Gemini CLI"
	}
	return ""
}

// AgentPossessive is "OpenHands'", "Gemini CLI's", or "the agent's".
func AgentPossessive(ep *replay.Episode) string {
	n := AgentName(ep)
	switch {
	case n == "":
		return "the agent's"
	case strings.HasSuffix(n, "s"):
		return n + "'"
	}
	return n + "'s"
}

// unitWord is what an episode's turn numbers count, in words.
func unitWord(ep *replay.Episode) string { return rules.UnitOf(ep) }

// agentEpisode writes the report of a steps or attempts log.
func (r *Text) agentEpisode(o *analyze.Outcome, ep *replay.Episode) error {
	judge, basis := o.AlarmJudge(ep)
	return r.AgentEpisode(o, ep, judge, basis)
}

// AgentEpisode writes the report of a steps or attempts log, false alarms
// judged by judge (see DetectorsJudged): what was read, the headline
// table, tasks (attempts logs), then the firings.
func (r *Text) AgentEpisode(o *analyze.Outcome, ep *replay.Episode, judge func(n int) bool, basis string) error {
	r.init()
	w := &errWriter{w: r.out()}
	r.headerOf(w, false)
	r.heading(w, "Log", o.EpisodeID)
	kv := func(k, format string, a ...any) {
		field(w, r.Width, k, fmt.Sprintf(format, a...))
	}
	kv("source", "%s", Term(o.Source))
	in := newInput(ep)
	how := in.Format
	if in.Preset != "" {
		how += ", preset " + in.Preset
	}
	if in.Detected {
		how += " (detected)"
	}
	kv("input", "%s", how)
	kv("recorded", "%s", recordedWords(ep))
	if o.Live != nil { // the agent's own detector's recorded verdicts, once
		// Where the log says which check fired at each detection (Gemini
		// CLI's recovery prompts, Cline's warning, Roo's refusal) the line
		// names them; OpenHands records only its stop (the error state,
		// V1's stuck status), worded as a live run's stop.
		lines := agentLiveLines(o.Live, ep)
		if slices.ContainsFunc(ep.Live, func(e replay.LiveEvent) bool { return e.Rule == "" }) {
			lines = liveLines(o.Live, o)
		}
		r.liveRun(w, kv, lines, o.Live.Agrees())
	}
	r.logLines(w, kv, ep.Diag)

	unit := unitWord(ep)
	rows := DetectorsJudged(o, ep, judge, basis)
	fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Detectors on "+AgentPossessive(ep)+" log (would have fired)"))
	// Fitted to a terminal: origin goes first, then false alarms.
	g := &Grid{Indent: "  ", Cols: []Col{{Head: "rule", Align: L}, {Head: "origin", Align: L, Drop: 1}, {Head: "firings", Align: R},
		{Head: "first " + unit, Align: L, Short: "first"}, {Head: "false alarms", Align: R, Short: "false", Drop: 2}}}
	shown := ""
	for _, row := range rows {
		first, fa := "never", "—"
		if row.First != nil {
			first = fmt.Sprintf("%d (%s)", *row.First, row.FirstKind)
		}
		if row.FalseAlarms != nil {
			fa = strconv.Itoa(*row.FalseAlarms)
			shown = row.Basis
		}
		g.Rows = append(g.Rows, []string{row.Rule, row.Origin, strconv.Itoa(row.Firings), first, fa})
	}
	hidden, err := g.Render(w, r.Width)
	if err != nil {
		return err
	}
	if len(hidden) > 0 {
		fmt.Fprintf(w, "  %s\n", r.dim.Sprint(Wrap(fmt.Sprintf("(hidden to fit %d columns: %s; --format json shows them)", r.Width, strings.Join(hidden, ", ")), r.Width, 2, "  ")))
	}
	note := "false alarms: unknown (the log has no score)"
	switch shown {
	case BasisScore:
		note = "false alarm: a firing after which the score still rose"
	case BasisTaskProgress:
		note = "false alarm: a firing after which the task still progressed (new completed work, or done)"
	case BasisLabels:
		note = "false alarm: a firing outside every span the labels judge stuck"
	}
	fmt.Fprintf(w, "  %s\n", r.dim.Sprint(Wrap(note, r.Width, 2, "  ")))

	if tasks := Tasks(o, ep); len(tasks) > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Tasks (task_attempts would have fired)"))
		// Fitted to a terminal: the recommendation wraps at words.
		g := &Grid{Indent: "  ", Cols: []Col{{Head: "task", Align: L, Cut: true}, {Head: "attempts", Align: R, Short: "tries"},
			{Head: "loop type", Align: L, Wrap: true}, {Head: "recommendation", Align: L, Wrap: true, Short: "then"},
			{Head: "first attempt", Align: R, Short: "first"}, {Head: "attempts saved", Align: R, Short: "saved"}}}
		for _, t := range tasks {
			rec := t.Recommendation
			if t.LastRecommendation != "" {
				rec += " → " + t.LastRecommendation
			}
			g.Rows = append(g.Rows, []string{Term(t.TaskID), strconv.Itoa(t.Attempts), t.LoopType, rec,
				strconv.Itoa(t.FirstFired), strconv.Itoa(t.AttemptsSaved)})
		}
		if _, err := g.Render(w, r.Width); err != nil {
			return err
		}
	}

	// The first maxFiringsListed firings; all of them with -v, kept or
	// packed as they came (NewAgentListing).
	listed, total := o.Firings, len(o.Firings)
	s, _ := o.Sink.(*AgentStory)
	if s != nil && o.Firings == nil {
		listed, total = s.first, s.n
	}
	if total > 0 {
		fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Firings"))
		limit := total
		if !r.Verbose && limit > maxFiringsListed {
			limit = maxFiringsListed
		}
		all := false // every line written
		if s != nil && s.listing != nil && o.Firings == nil && r.Verbose {
			// Every line, each firing read back in turn.
			var f rules.Firing
			var line, desc []byte
			for it := s.listing.Iter(); it.Next(&f) && w.err == nil; {
				line, desc = appendFiringLine(line[:0], desc[:0], &f, s.ep, s.width)
				w.Write(line)
			}
			listed, all = nil, true
		}
		limit = min(limit, len(listed))
		for _, f := range listed[:limit] {
			fmt.Fprint(w, firingLine(&f, ep, r.Width))
		}
		if limit < total && !all {
			fmt.Fprintf(w, "    %s\n", r.dim.Sprintf("(the first %d of %d; -v lists all)", limit, total))
		}
	}
	fmt.Fprintln(w)
	return w.err
}

// recordedWords describes what a steps or attempts log holds.
func recordedWords(ep *replay.Episode) string {
	if ep.Format == replay.FormatAttempts {
		return fmt.Sprintf("%d attempts at %d tasks", ep.NumAttempts(), ep.AttemptTasks())
	}
	// The steps not filled in, by kind: a StepKind indexes 256 counts
	// with no bounds test, and the turns are sliced to the steps once
	// (a gap-filled steps log has a turn for each step, tens of
	// thousands; each was tested against both lengths).
	// Each step adds its turn's not-filled (0 or 1) to its kind's count,
	// with no branch, the kind read alone, and the steps are the counts'
	// sum: ranging over StepInfo by value copied each 16 bytes through
	// the stack, and the branch, were ~16 instructions a step (12 now;
	// 87,000 steps in a 20 MB steps log).
	var n [256]int
	steps := ep.Steps
	turns := ep.Turns[:len(steps)]
	for i := range steps {
		one := 1
		if turns[i].Filled {
			one = 0
		}
		n[steps[i].Kind] += one
	}
	total := 0
	for k := range n {
		total += n[k]
	}
	return recordedText(ep, total, n[:replay.StepCondensation+1])
}

// recordedText words a steps log's steps not filled in, steps of them,
// n[k] of kind k, and its final score if it has one.
func recordedText(ep *replay.Episode, steps int, n []int) string {
	var parts []string
	for k, c := range n {
		if c > 0 {
			parts = append(parts, plural(c, replay.StepKind(k).String()))
		}
	}
	s := fmt.Sprintf("%s (%s)", plural(steps, "step"), strings.Join(parts, ", "))
	if ep.HasScore {
		s += ", final score " + Num(ep.FinalScore())
	}
	return s
}

// describeAgentFiring words the firings of the generic and peer rules;
// "" for others.
func describeAgentFiring(f *rules.Firing) string {
	if b, ok := appendAgentFiring(nil, f); ok {
		return string(b)
	}
	if f.Rule.Origin == rules.OriginOpenHands || f.Rule.Origin == rules.OriginOpenHandsV1 || f.Rule.Origin == rules.OriginGeminiCLI {
		return f.KindKey()
	}
	return ""
}

// appendAgentFiring appends the words of a firing of the generic rules
// that say more than their kind (describeAgentFiring), false for others:
// appended, not formatted, as -v words each of millions of them.
func appendAgentFiring(b []byte, f *rules.Firing) ([]byte, bool) {
	switch f.Rule {
	case rules.SignatureRepeat:
		b = append(b, "signature_repeat: "...)
		b = strconv.AppendQuote(b, f.Signature) // %q
	case rules.FuzzyRepeat:
		b = append(b, "fuzzy_repeat: similarity "...)
		b = strconv.AppendFloat(b, f.Similarity, 'f', 4, 64) // %.4f, NaN and ±Inf too
		b = append(b, " to "...)
		b = append(b, f.Unit...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(f.MatchedStep), 10)
	case rules.TaskAttempts:
		b = append(b, "task_attempts: "...)
		b = append(b, f.TaskID...)
		b = append(b, ' ')
		b = append(b, f.LoopType...)
		b = append(b, " ("...)
		b = strconv.AppendInt(b, int64(f.AttemptCount), 10)
		b = append(b, " attempts) → "...)
		b = append(b, f.Recommendation...)
	case rules.ToolCycle:
		b = append(b, "tool_cycle/"...)
		b = append(b, f.Kind.Name...)
		b = append(b, ": cycle of "...)
		b = strconv.AppendInt(b, int64(f.CycleLength), 10)
	default:
		return b, false
	}
	return b, true
}

// outputLoops writes, for a ZorkGPT episode, the firings of the generic
// output rules (RULES.md §8 on the game's replies), which the story of the
// ZorkGPT rules does not cover.
func (r *Text) outputLoops(w io.Writer, o *analyze.Outcome) error {
	if z, ok := o.Sink.(*ZorkTrace); ok && o.Firings == nil {
		return r.outputLoopsWritten(w, z)
	}
	// Each line a turn column ("t=23    ") and what fired.
	type line struct{ head, desc string }
	var lines []line
	total := 0
	if o.Firings != nil {
		for i := range o.Firings {
			f := &o.Firings[i]
			if f.Rule.Origin == rules.OriginGeneric {
				lines = append(lines, line{fmt.Sprintf("t=%-5d ", f.Turn), Term(describeAgentFiring(f))})
			}
		}
		total = len(lines)
	} else if o.Story != nil {
		// Without -v the story kept the first few (analyze.MaxOutputLoops).
		for i := range o.Story.OutputLoops {
			f := &o.Story.OutputLoops[i]
			lines = append(lines, line{fmt.Sprintf("t=%-5d ", f.Turn), Term(describeAgentFiring(f))})
		}
		total = o.Story.OutputLoopCount
	}
	if len(lines) == 0 {
		return nil
	}
	r.outputLoopsHead(w)
	limit := r.outputLoopsLimit(len(lines))
	for _, l := range lines[:limit] {
		r.outputLoop(w, l.head, l.desc)
	}
	r.outputLoopsFoot(w, limit, total)
	return nil
}

// outputLoopsWritten is outputLoops from the lines a ZorkTrace wrote as
// the firings came, read back in order.
func (r *Text) outputLoopsWritten(w io.Writer, z *ZorkTrace) error {
	if z.nLoops == 0 {
		return nil
	}
	r.outputLoopsHead(w)
	limit := r.outputLoopsLimit(z.nLoops)
	lines := &traceReader{spill: &z.loops}
	lines.seek(0)
	for range limit {
		l := lines.next()
		if l == nil {
			break
		}
		lines.peek = nil
		r.outputLoop(w, fmt.Sprintf("t=%-5d ", l.turn), l.words)
	}
	r.outputLoopsFoot(w, limit, z.nLoops)
	return lines.err
}

func (r *Text) outputLoopsHead(w io.Writer) {
	fmt.Fprintf(w, "\n  %s\n", r.bold.Sprint("Output loops (generic rules, would have fired)"))
}

// outputLoopsLimit is how many of n lines are listed: all with -v.
func (r *Text) outputLoopsLimit(n int) int {
	if !r.Verbose && n > analyze.MaxOutputLoops {
		return analyze.MaxOutputLoops
	}
	return n
}

// outputLoop writes one line: a turn column ("t=23    ") and what fired.
func (r *Text) outputLoop(w io.Writer, head, desc string) {
	// Fitted to a terminal: a long signature wraps under its turn, the
	// turn's column kept ("t=23    ").
	fmt.Fprintln(w, "    "+head+Wrap(desc, r.Width, 4+len(head), strings.Repeat(" ", 12)))
}

func (r *Text) outputLoopsFoot(w io.Writer, limit, total int) {
	if limit < total {
		fmt.Fprintf(w, "    %s\n", r.dim.Sprintf("(the first %d of %d; -v lists all)", limit, total))
	}
}

// loopsLine writes the corpus's loops and false alarms of the generic and
// peer rules, when any fired.
func loopsLine(w io.Writer, t *analyze.Totals) {
	if t.Loops == 0 {
		return
	}
	fmt.Fprintf(w, "%s of the generic and coding-agent detectors (generic, openhands, gemini-cli) would have fired; %s (progress after the firing).\n",
		plural(t.Loops, "loop"), plural(t.FalseAlarms, "false alarm"))
}
