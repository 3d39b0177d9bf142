package report

// The corpus view of agents' logs (steps and attempts): a corpus of them
// leads with its detectors (how many logs each fired on, its firings,
// where it fired first, its false alarms), then a row per log; ZorkGPT's
// termination table and totals, all zero for such logs, are left out.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// DetectorTotals sums the detector tables of a corpus's logs. Add each
// episode; the text corpus view reads it (Text.Detectors).
type DetectorTotals struct {
	zorkgpt, agents int
	names           []string // the agents, in the order first seen
	rows            []corpusDetector
	index           map[*rules.Rule]int
	logs            []corpusLog
}

// corpusDetector is one detector over the corpus.
type corpusDetector struct {
	rule               *rules.Rule
	logs, firings      int // logs it fired on, its firings in all
	falseAlarms        int
	judged             bool // some log could tell a false alarm
	first              int  // the earliest first firing (step or attempt), 0: never
	firstLog, firstKnd string
	firstUnit          string
}

// corpusLog is one log's row.
type corpusLog struct {
	id, input, recorded string
	firings, detectors  int
	first               string
}

// Add counts one episode: a ZorkGPT episode only as such (the ZorkGPT
// table reports it), another agent's log by its detectors.
func (d *DetectorTotals) Add(o *analyze.Outcome, ep *replay.Episode) {
	if isZorkGPT(ep) {
		d.zorkgpt++
		return
	}
	d.agents++
	if d.index == nil {
		d.index = map[*rules.Rule]int{}
	}
	name := AgentName(ep)
	if name == "" {
		name = ep.Format
	}
	seen := false
	for _, n := range d.names {
		seen = seen || n == name
	}
	if !seen {
		d.names = append(d.names, name)
	}
	unit := unitWord(ep)
	id := CappedID(o.EpisodeID) // kept to the end of the run
	lr := corpusLog{id: id, input: name, recorded: recordedWords(ep), first: "never"}
	firstAt := 0
	// Detectors' rows are o.Ran's rules, in its order.
	for i, row := range Detectors(o, ep) {
		r := o.Ran[i]
		k, ok := d.index[r]
		if !ok {
			k = len(d.rows)
			d.index[r] = k
			d.rows = append(d.rows, corpusDetector{rule: r})
		}
		c := &d.rows[k]
		c.firings += row.Firings
		if row.FalseAlarms != nil {
			c.judged = true
			c.falseAlarms += *row.FalseAlarms
		}
		if row.First == nil {
			continue
		}
		c.logs++
		lr.detectors++
		lr.firings += row.Firings
		if c.first == 0 || *row.First < c.first {
			c.first, c.firstLog, c.firstKnd, c.firstUnit = *row.First, id, row.FirstKind, unit
		}
		if firstAt == 0 || *row.First < firstAt {
			firstAt = *row.First
			lr.first = fmt.Sprintf("%s %d: %s", unit, firstAt, row.Rule)
		}
	}
	d.logs = append(d.logs, lr)
}

// AgentsOnly says the corpus holds logs of other agents and no ZorkGPT
// episode: its view leads with the detectors.
func (d *DetectorTotals) AgentsOnly() bool {
	return d != nil && d.agents > 0 && d.zorkgpt == 0
}

// whose names whose detectors they are: "OpenHands' detectors" for the
// logs of one named agent, else "Detectors on the logs of steps and
// Gemini CLI".
func (d *DetectorTotals) whose() string {
	if len(d.names) == 1 {
		switch n := d.names[0]; {
		case n == replay.FormatSteps || n == replay.FormatAttempts:
		case strings.HasSuffix(n, "s"):
			return n + "' detectors"
		default:
			return n + "'s detectors"
		}
	}
	return "Detectors on the logs of " + joinAnd(d.names)
}

// joinAnd joins words as prose: "a", "a and b", "a, b and c".
func joinAnd(ws []string) string {
	if len(ws) <= 1 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// agentCorpus writes the corpus view of agents' logs.
func (r *Text) agentCorpus(d *DetectorTotals, t *analyze.Totals, errs []analyze.FileError) error {
	w := &errWriter{w: r.out()}
	r.headerOf(w, false)
	fmt.Fprintf(w, "%s\n", r.bold.Sprint(Wrap(Term(fmt.Sprintf("Corpus: %s of %s (%s)",
		plural(d.agents, "log"), joinAnd(d.names), "detectors that would have fired")), r.Width, 0, "  ")))
	g := &Grid{Cols: []Col{
		{Head: "detector", Align: L},
		{Head: "origin", Align: L, Drop: 2},
		{Head: "logs", Align: R},
		{Head: "firings", Align: R},
		{Head: "first firing", Align: L, Cut: true, Short: "first"},
		{Head: "false alarms", Align: R, Drop: 1, Short: "false"},
	}}
	judged := false
	for _, c := range d.rows {
		first := "never"
		if c.first != 0 {
			first = fmt.Sprintf("%s %d in %s (%s)", c.firstUnit, c.first, Term(c.firstLog), c.firstKnd)
		}
		fa := "—"
		if c.judged {
			fa, judged = strconv.Itoa(c.falseAlarms), true
		}
		g.Rows = append(g.Rows, []string{c.rule.Name, c.rule.Origin, strconv.Itoa(c.logs), strconv.Itoa(c.firings), first, fa})
	}
	if _, err := g.Render(w, r.Width); err != nil {
		return err
	}
	fmt.Fprintln(w)
	lg := &Grid{Cols: []Col{
		{Head: "log", Align: L, Cut: true},
		{Head: "agent", Align: L, Drop: 2},
		{Head: "recorded", Align: L, Drop: 1, Wrap: true},
		{Head: "firings", Align: R},
		{Head: "detectors", Align: R, Drop: 3},
		{Head: "first firing", Align: L, Cut: true},
	}}
	for _, l := range d.logs {
		lg.Rows = append(lg.Rows, []string{Term(l.id), l.input, l.recorded, strconv.Itoa(l.firings), strconv.Itoa(l.detectors), l.first})
	}
	hidden, err := lg.Render(w, r.Width)
	if err != nil {
		return err
	}
	para := func(s string) { fmt.Fprintf(w, "%s\n", Wrap(Term(s), r.Width, 0, "")) }
	if len(hidden) > 0 {
		fmt.Fprintf(w, "%s\n", r.dim.Sprint(Wrap(fmt.Sprintf("(hidden to fit %d columns: %s; a wider terminal or --format json shows them)", r.Width, strings.Join(hidden, ", ")), r.Width, 0, "")))
	}
	fmt.Fprintln(w)
	fired := 0
	for _, c := range d.rows {
		if c.logs > 0 {
			fired++
		}
	}
	line := fmt.Sprintf("%s: %d of %d would have fired on %s, %s", d.whose(), fired, len(d.rows),
		sweepPlural(t.Episodes, "log", "logs"), plural(t.Loops, "loop"))
	if judged {
		line += fmt.Sprintf(", %s (progress after the firing)", plural(t.FalseAlarms, "false alarm"))
	} else {
		line += "; false alarms unknown (no log has a score)"
	}
	para(line + ".")
	if t.LinesSkipped > 0 {
		fmt.Fprintf(w, "%s\n", r.yellow.Sprint(Wrap(Term(fmt.Sprintf("%s skipped.", sweepPlural(t.LinesSkipped, "unreadable line", "unreadable lines"))), r.Width, 0, "")))
	}
	for _, e := range errs {
		fmt.Fprintf(w, "%s\n", r.red.Sprint(Wrap(Term(fmt.Sprintf("unreadable: %s: %s", e.Source, e.Error)), r.Width, 0, "")))
	}
	if r.Hint != "" {
		fmt.Fprintf(w, "%s\n", r.dim.Sprint(Wrap(Term(strings.ReplaceAll(r.Hint, "episode", "log")), r.Width, 0, "")))
	}
	return w.err
}
