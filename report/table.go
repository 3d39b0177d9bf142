package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// NewTable returns the compact table style every report uses: no outer
// border, a rule under the header and above the footer, headers as
// written. align gives each column's alignment.
//
// Making a tablewriter.Table allocates a 10,240-entry cache (an eighth of
// a text report's CPU, one table per episode and section): a table is
// taken back when it has rendered and handed out, reset, for the next
// table of the same alignments. One not rendered is simply dropped.
func NewTable(w io.Writer, align ...tw.Align) *Table {
	key := fmt.Sprint(align)
	tablesMu.Lock()
	free := tables[key]
	var t *Table
	if n := len(free); n > 0 {
		t, tables[key] = free[n-1], free[:n-1]
	}
	tablesMu.Unlock()
	if t != nil {
		t.out.w = w
		t.Table.Reset()
		return t
	}
	t = &Table{key: key, out: &retarget{w: w}}
	t.Table = newTable(t.out, align)
	return t
}

// Table is a tablewriter.Table that goes back to NewTable's free list
// once rendered.
type Table struct {
	*tablewriter.Table
	key string
	out *retarget
}

// Append adds a row, each cell escaped for the terminal (Term): a cell
// holds one line, and tablewriter measures what is printed.
func (t *Table) Append(cells []string) error { return t.Table.Append(termCells(cells)) }

// Render renders the table, then frees it for reuse: t must not be used
// after.
func (t *Table) Render() error {
	err := t.Table.Render()
	t.out.w = nil // drop the writer
	tablesMu.Lock()
	if len(tables[t.key]) < maxFreeTables {
		tables[t.key] = append(tables[t.key], t)
	}
	tablesMu.Unlock()
	return err
}

// retarget lets a kept table write to the next caller's writer.
type retarget struct{ w io.Writer }

func (r *retarget) Write(p []byte) (int, error) { return r.w.Write(p) }

const maxFreeTables = 8 // per alignment set: as many as render at once

var (
	tablesMu sync.Mutex
	tables   = map[string][]*Table{}
)

func newTable(w io.Writer, align []tw.Align) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleLight),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off, ShowHeader: tw.On, ShowFooter: tw.On},
				Lines:      tw.Lines{ShowHeaderLine: tw.On, ShowFooterLine: tw.On},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithFooterAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithFooterAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
}

// L and R are column alignments for newTable.
const (
	L = tw.AlignLeft
	R = tw.AlignRight
)

// Col is a column of a Grid.
type Col struct {
	Head  string
	Align tw.Align
	// Drop is the order in which the column is hidden to fit a width (1
	// first); 0: always shown.
	Drop int
	// Wrap lets the column's cells break at spaces onto more lines, and
	// Cut lets them be shortened with "…", when hiding is not enough.
	Wrap, Cut bool
	// Short is the head used when hiding columns is not enough.
	Short string
}

// Grid is a table laid out by hand in NewTable's style, so it can be fitted
// to a terminal: columns hidden by priority, then a prose column wrapped or
// cut. Trailing blanks are trimmed, so a long last cell pads nothing.
type Grid struct {
	Cols []Col
	Rows [][]string
	// Each, if set, yields further rows after Rows, as often as Render
	// needs them (twice): a table of a million rows is then never held
	// as cells.
	Each   func(yield func(cells []string))
	Footer []string
	Indent string

	cellWidths []int // the widest cell of each column, heads aside
}

// Render writes the grid within width columns (0: no limit, every column
// as is) and returns the heads of the columns it hid.
func (g *Grid) Render(w io.Writer, width int) (hidden []string, err error) {
	g.cellWidths = nil // measured afresh: Rows may have changed since a last Render
	keep := make([]int, len(g.Cols))
	for i := range keep {
		keep[i] = i
	}
	// Hide columns by priority until the table fits with its heads as
	// written or abbreviated (abbreviating keeps more than hiding).
	short := false
	fits := func() bool {
		if g.total(g.widths(keep))+len(g.Indent) <= width {
			return true
		}
		short = g.total(g.widthsShort(keep, true))+len(g.Indent) <= width
		return short
	}
	for drop := 1; width > 0 && !fits(); drop++ {
		var next []int
		found, more := false, false
		for _, c := range keep {
			if g.Cols[c].Drop == drop {
				hidden, found = append(hidden, g.Cols[c].Head), true
				continue
			}
			if g.Cols[c].Drop > drop {
				more = true
			}
			next = append(next, c)
		}
		keep = next
		if !found && !more {
			short = true // nothing left to hide: abbreviate, then narrow
			break
		}
	}
	widths := g.widthsShort(keep, short)
	// Still too wide: narrow the columns that may wrap (to 24) or be cut
	// (to 8), wrapping prose first, then cutting names, then wrapping
	// further, then cutting names and their heads to 5.
	over := g.total(widths) + len(g.Indent) - width
	narrow := func(ok func(Col) bool, floor int, keepHead bool) {
		// One rune at a time from the widest, so columns share the loss.
		for over > 0 {
			best := -1
			for k, c := range keep {
				col := g.Cols[c]
				head := col.Head
				if short && col.Short != "" {
					head = col.Short
				}
				lo := floor
				if keepHead {
					lo = max(floor, utf8.RuneCountInString(head))
				}
				if ok(col) && widths[k] > lo && (best < 0 || widths[k] > widths[best]) {
					best = k
				}
			}
			if best < 0 {
				return
			}
			widths[best]--
			over--
		}
	}
	if width > 0 {
		narrow(func(c Col) bool { return c.Wrap }, 24, true)
		narrow(func(c Col) bool { return c.Cut }, 8, true)
		narrow(func(c Col) bool { return c.Wrap }, 8, true)
		narrow(func(c Col) bool { return c.Cut }, 5, false) // heads cut too
	}
	var b strings.Builder
	line := func(cells []string, header bool) {
		// Split wrapped cells into lines, then print them side by side.
		parts := make([][]string, len(keep))
		n := 1
		for k, c := range keep {
			s := ""
			if c < len(cells) {
				s = cells[c]
			}
			switch col := g.Cols[c]; {
			case utf8.RuneCountInString(s) <= widths[k]:
				parts[k] = []string{s}
			case col.Wrap:
				parts[k] = WrapWords(s, widths[k])
			default:
				parts[k] = []string{cutTo(s, widths[k])}
			}
			n = max(n, len(parts[k]))
		}
		for i := 0; i < n; i++ {
			var l strings.Builder
			l.WriteString(g.Indent)
			for k, c := range keep {
				s := ""
				if i < len(parts[k]) {
					s = parts[k][i]
				}
				pad := strings.Repeat(" ", widths[k]-utf8.RuneCountInString(s))
				if g.Cols[c].Align == tw.AlignRight && !header { // headers left, as NewTable
					s = pad + s
				} else {
					s += pad
				}
				l.WriteString(" " + s + " ")
			}
			b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
		}
	}
	rule := g.Indent + strings.Repeat("─", g.total(widths)) + "\n"
	var head []string
	for _, c := range g.Cols {
		if short && c.Short != "" {
			head = append(head, c.Short)
		} else {
			head = append(head, c.Head)
		}
	}
	// Written out every 64 KiB, not held whole: a table of a million
	// rows is tens of MB of text.
	flush := func(limit int) {
		if err == nil && b.Len() >= limit {
			_, err = io.WriteString(w, b.String())
			b.Reset()
		}
	}
	line(termCells(head), true)
	b.WriteString(rule)
	g.eachRow(func(r []string) {
		line(r, false)
		flush(64 << 10)
	})
	if g.Footer != nil {
		b.WriteString(rule)
		line(termCells(g.Footer), false)
	}
	flush(0)
	return hidden, err
}

// eachRow calls f with Rows, then what Each yields, each cell escaped
// for the terminal (Term): a cell is one line, and measured as printed.
func (g *Grid) eachRow(f func([]string)) {
	for _, r := range g.Rows {
		f(termCells(r))
	}
	if g.Each != nil {
		g.Each(func(r []string) { f(termCells(r)) })
	}
}

// termCells returns cells with each escaped by Term: cells itself when
// none needs it (the usual case: no copy).
func termCells(cells []string) []string {
	for i, c := range cells {
		if needsEscape(c) || ciCommand(c, true) {
			out := make([]string, len(cells))
			for j, c := range cells {
				if j < i {
					out[j] = c
				} else {
					out[j] = Term(c)
				}
			}
			return out
		}
	}
	return cells
}

func (g *Grid) widths(keep []int) []int { return g.widthsShort(keep, false) }

func (g *Grid) widthsShort(keep []int, short bool) []int {
	if g.cellWidths == nil {
		// Once per grid: the fitting asks for widths many times.
		g.cellWidths = make([]int, len(g.Cols))
		measure := func(r []string) {
			for c := range g.cellWidths {
				if c < len(r) {
					g.cellWidths[c] = max(g.cellWidths[c], utf8.RuneCountInString(r[c]))
				}
			}
		}
		g.eachRow(measure)
		measure(termCells(g.Footer))
	}
	ws := make([]int, len(keep))
	for k, c := range keep {
		head := g.Cols[c].Head
		if short && g.Cols[c].Short != "" {
			head = g.Cols[c].Short
		}
		ws[k] = max(utf8.RuneCountInString(head), g.cellWidths[c])
	}
	return ws
}

func (g *Grid) total(widths []int) int {
	n := 0
	for _, w := range widths {
		n += w + 2
	}
	return n
}

// cutTo shortens s to n runes, ending in "…".
func cutTo(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return string(r[:n-1]) + "…"
}

// WrapWords breaks s at spaces into lines of at most n runes; a word
// longer than n is broken.
func WrapWords(s string, n int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) <= n:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
		for utf8.RuneCountInString(cur) > n {
			// A path breaks after its last "/" that fits, an identifier
			// after "_" or "-", anything else at the width.
			r := []rune(cur)
			at := n
		seps:
			for _, sep := range "/_-" {
				for i := n - 1; i > n/3; i-- {
					if r[i] == sep {
						at = i + 1
						break seps
					}
				}
			}
			lines = append(lines, string(r[:at]))
			cur = string(r[at:])
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

// Wrap wraps prose to width (0: as is), the first line after a prefix of
// first runes and the others indented by pad.
func Wrap(s string, width, first int, pad string) string {
	if width <= 0 || first+utf8.RuneCountInString(s) <= width {
		return s
	}
	n := width - max(first, utf8.RuneCountInString(pad))
	if n < 10 {
		return s
	}
	return strings.Join(WrapWords(s, n), "\n"+pad)
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
