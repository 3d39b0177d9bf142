package check

import (
	"sort"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// Merge combines what the shards of one check collected into what one
// run over all their files would have: ErrorFile and WhereFile must index
// one list of files common to every part (each file in one part). failOn
// are the run's gates, freshly parsed; Finish then compares and gates as
// Run does.
func Merge(cfg *rules.Config, failOn []*FailOn, parts []*Collected) *Collected {
	col := &Collected{Current: NewBaseline(cfg), Unreadable: map[string]string{}, FailOn: failOn, WhereFile: make([][]int, len(failOn))}
	type ferr struct {
		file int
		e    analyze.FileError
	}
	type where struct {
		file int
		w    EpisodeCount
	}
	var errs []ferr
	wheres := make([][]where, len(failOn))
	for _, p := range parts {
		col.Current.Episodes = append(col.Current.Episodes, p.Current.Episodes...)
		col.Totals.Merge(&p.Totals)
		for i, e := range p.Errors {
			errs = append(errs, ferr{p.ErrorFile[i], e})
		}
		for k, v := range p.Unreadable {
			col.Unreadable[k] = v
		}
		col.Diags = append(col.Diags, p.Diags...)
		for g, f := range p.FailOn {
			failOn[g].Fired += f.Fired
			for i, w := range f.Where {
				wheres[g] = append(wheres[g], where{p.WhereFile[g][i], w})
			}
		}
	}
	col.Current.Sort()
	// Stable: a file's episodes are in one part, in their order.
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].file < errs[j].file })
	for _, e := range errs {
		col.Errors = append(col.Errors, e.e)
		col.ErrorFile = append(col.ErrorFile, e.file)
	}
	for g, ws := range wheres {
		sort.SliceStable(ws, func(i, j int) bool { return ws[i].file < ws[j].file })
		for _, w := range ws {
			failOn[g].Where = append(failOn[g].Where, w.w)
			col.WhereFile[g] = append(col.WhereFile[g], w.file)
		}
	}
	return col
}
