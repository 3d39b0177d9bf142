package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/analyze"
)

// corpusOutcome is episode i of a generated corpus: some terminated,
// some censored, ids of varying length.
func corpusOutcome(i int) *analyze.Outcome {
	o := &analyze.Outcome{EpisodeID: fmt.Sprintf("ep-%0*d", 1+i%9, i), Source: "logs/x.jsonl", RecordedTurns: 3 + i%500, FinalScore: float64(i%7) / 4, RecordedEnd: "max_turns"}
	switch i % 3 {
	case 0:
		o.Termination = &analyze.Termination{Turn: 40 + i%60}
		o.Result = analyze.Result{Terminated: true, TurnsSaved: i % 90, LLMCallsSaved: i % 300, ScoreForfeited: float64(i % 5), FalseTermination: i%2 == 0}
	case 1:
		o.Result.Censored = true
	}
	return o
}

// Rows kept compactly give back every cell as it was, in order, and a
// grid of them renders as the grid holding those cells does, at any
// width.
func TestCorpusRowsSameTable(t *testing.T) {
	var c CorpusRows
	var cells [][]string
	for i := range 40000 {
		r := NewSummaryRow(corpusOutcome(i), i%50/49)
		if i%40 == 0 {
			r.LiveWord = []string{"agrees", "differs"}[i/40%2]
		}
		if i == 7 {
			r.EpisodeID = "épisode \x00 ünïcode " + strings.Repeat("long", 80)
		}
		c.Add(r)
		r.EpisodeID = CappedID(r.EpisodeID) // as Add keeps it
		cells = append(cells, summaryCells(r, nil))
	}
	i := 0
	c.each(func(got []string) {
		if fmt.Sprint(got) != fmt.Sprint(cells[i]) {
			t.Errorf("row %d: got %q, want %q", i, got, cells[i])
		}
		i++
	})
	if i != len(cells) || len(c.blocks) < 2 {
		t.Fatalf("%d rows back of %d, in %d blocks", i, len(cells), len(c.blocks))
	}
	cols := []Col{{Head: "episode", Align: L, Cut: true}, {Head: "turns", Align: R, Drop: 3}, {Head: "final", Align: R, Drop: 4}, {Head: "ended", Align: L, Drop: 2, Cut: true},
		{Head: "cut", Align: R}, {Head: "saved", Align: R}, {Head: "calls saved", Align: R, Drop: 1}, {Head: "forfeited", Align: R}, {Head: "false", Align: L}, {Head: "live", Align: L, Drop: 5}}
	for _, width := range []int{0, 120, 80, 40} {
		var got, want bytes.Buffer
		held := &Grid{Cols: cols, Rows: cells, Footer: []string{"total", "1"}}
		lazy := &Grid{Cols: cols, Rows: cells[:2], Each: func(yield func([]string)) {
			for _, r := range cells[2:] {
				yield(r)
			}
		}, Footer: []string{"total", "1"}}
		hw, err1 := held.Render(&want, width)
		lw, err2 := lazy.Render(&got, width)
		if err1 != nil || err2 != nil || fmt.Sprint(hw) != fmt.Sprint(lw) || got.String() != want.String() {
			t.Errorf("width %d: hidden %v and %v (%v, %v); same table: %v", width, lw, hw, err2, err1, got.String() == want.String())
		}
	}
}

// A million rows are not held as cells: the rows cost their cells'
// bytes and a few more each, and the table is written out as it is
// rendered, never held whole.
func TestCorpusRowsCompact(t *testing.T) {
	const n = 100000
	var c CorpusRows
	cellBytes := 0
	for i := range n {
		r := NewSummaryRow(corpusOutcome(i), 0)
		for _, s := range summaryCells(r, nil) {
			cellBytes += len(s)
		}
		c.Add(r)
	}
	held := 0
	for _, b := range c.blocks {
		held += len(b)
	}
	// A length byte per cell, and the last block's slack.
	if limit := cellBytes + n*summaryCols + corpusBlock; held > limit {
		t.Errorf("%d rows hold %d bytes, want at most %d (their cells' %d and a length each)", n, held, limit, cellBytes)
	}
	var tot analyze.Totals
	w := &largestWrite{}
	if err := (&Text{W: w, Width: 100}).Corpus(&c, &tot, nil); err != nil {
		t.Fatal(err)
	}
	if w.total < n*40 {
		t.Fatalf("wrote %d bytes for %d rows", w.total, n)
	}
	if w.largest > 128<<10 {
		t.Errorf("largest write %d bytes: the table was held whole (%d bytes)", w.largest, w.total)
	}
}

type largestWrite struct{ largest, total int }

func (w *largestWrite) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	w.total += len(p)
	return len(p), nil
}

// The footnotes name the episodes they are about, however the rows were
// kept.
func TestCorpusRowsFootnotes(t *testing.T) {
	var c CorpusRows
	a := NewSummaryRow(&analyze.Outcome{EpisodeID: "A", Source: "a.jsonl"}, 2)
	a.LiveWord = "differs"
	c.Add(a)
	c.Add(NewSummaryRow(&analyze.Outcome{EpisodeID: "B", Source: "b.jsonl"}, 0))
	if c.Len() != 2 || c.FirstSource() != "a.jsonl" {
		t.Errorf("Len %d, FirstSource %q", c.Len(), c.FirstSource())
	}
	var b bytes.Buffer
	tot := analyze.Totals{Episodes: 2, LinesSkipped: 2}
	if err := (&Text{W: &b}).Corpus(&c, &tot, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 live run disagrees with the replay under this configuration: A.", "2 unreadable lines skipped: A (2)."} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// An id of any size is held capped: 200 episodes with 500 KB ids (the
// table and footnotes) hold about 1 KB each, not 500 KB, and ids that
// differ only past the cap stay distinct (issue 23).
func TestCorpusRowsCapLongIDs(t *testing.T) {
	base := strings.Repeat("é", 250_000) // 500 KB
	var c CorpusRows
	for i := range 200 {
		r := NewSummaryRow(corpusOutcome(i), 1)
		r.EpisodeID = base + fmt.Sprint(i)
		r.LiveWord = "differs"
		c.Add(r)
	}
	held := 0
	for _, b := range c.blocks {
		held += len(b)
	}
	if len(c.blocks) != 1 {
		t.Errorf("%d blocks of a MiB for 200 rows", len(c.blocks))
	}
	seen := map[string]bool{}
	c.each(func(cells []string) {
		id := cells[0]
		if len(id) > capIDKeep+capIDSlack || !strings.HasPrefix(id, base[:capIDKeep]) || !utf8.ValidString(id) || seen[id] {
			t.Errorf("row id held as %d bytes %q…, seen before %v", len(id), id[max(0, len(id)-40):], seen[id])
		}
		seen[id] = true
	})
	for _, s := range append(c.differ, c.skipped...) {
		if len(s) > capIDKeep+capIDSlack+8 {
			t.Errorf("footnote episode held as %d bytes", len(s))
		}
	}
	if len(seen) != 200 {
		t.Errorf("%d distinct ids of 200", len(seen))
	}
	if held > 200*(capIDKeep+capIDSlack+64) {
		t.Errorf("the rows of 200 episodes hold %d bytes", held)
	}
}

func TestCappedID(t *testing.T) {
	for _, id := range []string{"", "ep-1", strings.Repeat("x", capIDKeep+capIDSlack)} {
		if got := CappedID(id); got != id {
			t.Errorf("CappedID(%d bytes) = %d bytes, want it unchanged", len(id), len(got))
		}
	}
	long := strings.Repeat("x", capIDKeep-1) + "日本" + strings.Repeat("y", 1000)
	got := CappedID(long)
	if !strings.HasPrefix(got, strings.Repeat("x", capIDKeep-1)+"…") || !utf8.ValidString(got) || len(got) >= len(long) {
		t.Errorf("CappedID cut inside a character or kept too much: %q", got)
	}
	if CappedID(long) != got || CappedID(long+"z") == got {
		t.Errorf("CappedID not a function of the whole id")
	}
}
