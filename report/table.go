package report

import (
	"fmt"
	"io"
	"sync"

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
