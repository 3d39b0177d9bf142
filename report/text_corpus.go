package report

// The corpus table of several episodes: one row each, totals, footnotes.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"

	"github.com/loopbreak/loopbreak/analyze"
)

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

// CorpusRows are the corpus table's rows as they come, kept compactly:
// each row's cells as bytes in blocks of a MiB (tens of bytes a row,
// where a million SummaryRows and their cells held 1.5 GB), and the
// episodes the footnotes name (live runs that differ, unreadable lines),
// as many as those footnotes print.
type CorpusRows struct {
	n       int
	blocks  [][]byte
	differ  []string
	skipped []string
	first   string // the first row's source, for the detail hint
	cells   []string
}

const corpusBlock = 1 << 20

// CappedID is how a table kept for the end of a run holds an episode id:
// whole up to capIDKeep+capIDSlack bytes, else its first capIDKeep bytes
// (cut at a character), "…" and a hash of the whole, so distinct ids stay
// distinct. Logs are written by agents and an id can be any size: 2,000
// episodes with 500 KB ids took 2.2 GB (issue 23), where the table shows
// a column cut to the terminal; JSON outputs write each id in full as
// they stream the episode.
func CappedID(id string) string {
	if len(id) <= capIDKeep+capIDSlack {
		return id
	}
	n := capIDKeep
	for n > 0 && !utf8.RuneStart(id[n]) {
		n--
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return fmt.Sprintf("%s…%012x", id[:n], h.Sum64()>>16)
}

const (
	capIDKeep  = 200
	capIDSlack = 24 // more than "…" and the hash: a capped id is shorter
)

// Add keeps o's row, its id capped (CappedID).
func (c *CorpusRows) Add(o SummaryRow) {
	if c.n == 0 {
		c.first = o.Source
	}
	c.n++
	o.EpisodeID = CappedID(o.EpisodeID)
	if o.live() == "differs" {
		c.differ = append(c.differ, o.EpisodeID)
	}
	if o.Skipped > 0 {
		c.skipped = append(c.skipped, fmt.Sprintf("%s (%d)", o.EpisodeID, o.Skipped))
	}
	c.cells = summaryCells(o, c.cells[:0])
	size := 0
	for _, s := range c.cells {
		size += binary.MaxVarintLen64 + len(s)
	}
	if len(c.blocks) == 0 || cap(c.blocks[len(c.blocks)-1])-len(c.blocks[len(c.blocks)-1]) < size {
		c.blocks = append(c.blocks, make([]byte, 0, max(corpusBlock, size)))
	}
	b := c.blocks[len(c.blocks)-1]
	for _, s := range c.cells {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	c.blocks[len(c.blocks)-1] = b
}

// Len is the number of rows.
func (c *CorpusRows) Len() int { return c.n }

// FirstSource is the first row's log ("" without rows).
func (c *CorpusRows) FirstSource() string { return c.first }

// each yields every row's cells in order; the slice is reused.
func (c *CorpusRows) each(yield func([]string)) {
	cells := make([]string, summaryCols)
	for _, b := range c.blocks {
		for len(b) > 0 {
			// One string per row, its cells sliced from it.
			var at [summaryCols][2]int
			off := 0
			for i := range at {
				n, k := binary.Uvarint(b[off:])
				at[i] = [2]int{off + k, off + k + int(n)}
				off = at[i][1]
			}
			row := string(b[:off])
			b = b[off:]
			for i := range at {
				cells[i] = row[at[i][0]:at[i][1]]
			}
			yield(cells)
		}
	}
}

// summaryCols is the number of the corpus table's columns.
const summaryCols = 10

// summaryCells are o's cells in the corpus table, appended to cells.
func summaryCells(o SummaryRow, cells []string) []string {
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
	return append(cells, o.EpisodeID, strconv.Itoa(o.RecordedTurns), Num(o.FinalScore), o.RecordedEnd, term, saved, calls, forf, fals, o.live())
}

// Summary writes the corpus table and totals, then footnotes naming the
// episodes they are about.
func (r *Text) Summary(rows []SummaryRow, t *analyze.Totals, errs []analyze.FileError) error {
	var c CorpusRows
	for _, o := range rows {
		c.Add(o)
	}
	return r.Corpus(&c, t, errs)
}

// Corpus is Summary of rows collected as they came.
func (r *Text) Corpus(rows *CorpusRows, t *analyze.Totals, errs []analyze.FileError) error {
	r.init()
	if r.Detectors.AgentsOnly() {
		return r.agentCorpus(r.Detectors, t, errs) // detectors_corpus.go
	}
	w := &errWriter{w: r.out()}
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
	g.Each = rows.each
	g.Footer = []string{"total", strconv.Itoa(t.RecordedTurns), "", "", strconv.Itoa(t.Terminated), strconv.Itoa(t.TurnsSaved), strconv.Itoa(t.LLMCallsSaved), Num(t.ScoreForfeited), strconv.Itoa(t.FalseTerminations), ""}
	hidden, err := g.Render(w, r.Width)
	if err != nil {
		return err
	}
	if len(hidden) > 0 {
		fmt.Fprintf(w, "%s\n", r.dim.Sprint(Wrap(fmt.Sprintf("(hidden to fit %d columns: %s; a wider terminal or --format json shows them)", r.Width, strings.Join(hidden, ", ")), r.Width, 0, "")))
	}
	para := func(c *color.Color, s string) {
		// s holds episode ids and file names: one line each, escaped.
		fmt.Fprintf(w, "%s\n", c.Sprint(Wrap(Term(s), r.Width, 0, "")))
	}
	plain := color.New()
	plain.DisableColor()
	fmt.Fprintln(w)
	para(plain, fmt.Sprintf("%s of %s would have been terminated (%s censored); %s of %s saved (%s), %s; %s (%s of terminated); score forfeited %s.",
		Count(t.Terminated), sweepPlural(t.Episodes, "episode", "episodes"), Count(t.Censored), Count(t.TurnsSaved), plural(t.RecordedTurns, "turn"), fmtPct(t.TurnsSavedPct), plural(t.LLMCallsSaved, "LLM call"),
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
	differ, skipped := rows.differ, rows.skipped
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
