package sweep

import (
	"fmt"
	"sort"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// Partial is what a sweep over one shard of a corpus found, before any
// row is finished: exact totals per row (baseline first, then the grid
// order), and the flips and unreadable files, each with the index of its
// file in Options.Files. Merge finishes any number of them into the
// Result one run over every shard gives.
type Partial struct {
	Rows      []analyze.Totals
	Flips     []Flip
	FlipFile  []int
	Errors    []analyze.FileError
	ErrorFile []int
}

// PartError is a partial that Merge cannot use: parts[Part].
type PartError struct {
	Part int
	Err  error
}

func (e *PartError) Error() string { return e.Err.Error() }
func (e *PartError) Unwrap() error { return e.Err }

// RunPartial is Run without finishing the rows.
func RunPartial(opts Options) (*Partial, error) {
	c, err := collect(opts)
	if err != nil {
		return nil, err
	}
	rows := make([]analyze.Totals, len(c.res.Rows))
	for i := range rows {
		rows[i] = c.res.Rows[i].Totals
	}
	return &Partial{Rows: rows, Flips: c.res.Flips, FlipFile: c.flipFile, Errors: c.res.Errors, ErrorFile: c.errFile}, nil
}

// Merge finishes partials made with the same base, axes and by-episode
// setting into one Result. FlipFile and ErrorFile must then index one
// list of files common to all (a corpus's logs, each in one shard): flips
// and errors come out in that order, as one run lists them.
func Merge(base *rules.Config, axes []Axis, byEpisode bool, maxFalseRatePct *float64, parts []*Partial) (*Result, error) {
	c, _, err := newCollected(base, axes, byEpisode)
	if err != nil {
		return nil, err
	}
	c.res.Rows = c.grid.rows(c.points)
	type flip struct {
		file int
		f    Flip
	}
	type ferr struct {
		file int
		e    analyze.FileError
	}
	var (
		flips []flip
		errs  []ferr
	)
	for k, p := range parts {
		if len(p.Rows) != len(c.res.Rows) {
			return nil, &PartError{k, fmt.Errorf("%d rows, the grid has %d", len(p.Rows), len(c.res.Rows))}
		}
		if len(p.FlipFile) != len(p.Flips) || len(p.ErrorFile) != len(p.Errors) {
			return nil, &PartError{k, fmt.Errorf("flips or errors without their file")}
		}
		for i := range p.Rows {
			c.res.Rows[i].Totals.Merge(&p.Rows[i])
		}
		for i, f := range p.Flips {
			if len(f.Outcomes) != len(c.res.Rows) {
				return nil, &PartError{k, fmt.Errorf("episode %s: %d outcomes, the grid has %d rows", f.EpisodeID, len(f.Outcomes), len(c.res.Rows))}
			}
			flips = append(flips, flip{p.FlipFile[i], f})
		}
		for i, e := range p.Errors {
			errs = append(errs, ferr{p.ErrorFile[i], e})
		}
	}
	// Stable: a file's episodes are in one part, in their order.
	sort.SliceStable(flips, func(i, j int) bool { return flips[i].file < flips[j].file })
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].file < errs[j].file })
	for _, f := range flips {
		c.res.Flips = append(c.res.Flips, f.f)
	}
	for _, e := range errs {
		c.res.Errors = append(c.res.Errors, e.e)
	}
	return c.finish(maxFalseRatePct), nil
}
