// Package sweep is `loopbreak sweep`: one corpus, many configurations. A
// grid of values (Axis) expands into configurations (ExpandGrid); a Plan
// replays all of them over each parsed episode (Replayer), so a file is
// read once however many configurations there are, on analyze's ordered
// pool; the results are totalled per configuration exactly as analyze
// totals outcomes; MarkPareto and Recommend read the rows. Run is the one
// entry point; report words the result.
//
// A Plan does not replay every rule for every configuration. Rules that
// require one another form components ({progress_velocity, stuck_warnings},
// {location_revisit}, {oscillation, camping, score_adjustment},
// {action_novelty}); a component's firings depend only on its own keys and
// on which of its rules are enabled, so it is replayed once per distinct
// projection of the configurations onto those, not once per configuration.
// A grid over max_turns_stuck replays the loop-detection rules once per
// episode. The tests hold sweep results equal to analyze.Analyze, key by
// key.
package sweep

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Options are the inputs of one sweep.
type Options struct {
	Files   []string // episode logs ("-": Stdin)
	Stdin   io.Reader
	Read    replay.Options
	Workers int // files read in parallel; 0: GOMAXPROCS

	Base *rules.Config // the baseline row's configuration; the grid's base
	Axes []Axis        // the first varies slowest

	// MaxFalseRatePct, when set, is the recommendation's limit (see
	// Recommend).
	MaxFalseRatePct *float64
	// ByEpisode: collect the episodes whose outcome flips between rows.
	ByEpisode bool
	// Labels, when set, scores each row's rules against labelled
	// episodes (Row.Totals.Labels).
	Labels *analyze.Labels

	// OnFile, if set, hears of each file as it is done, in input order.
	OnFile func(Progress)
}

// Progress is one file done.
type Progress struct {
	Path     string
	Err      error // the file could not be read; the sweep goes on without it
	Files    int   // files done so far
	Episodes int   // episodes replayed so far
}

// Result is what one sweep found. Rows[0] is the baseline (the base
// configuration); the others follow the grid order.
type Result struct {
	Base           *rules.Config
	Axes           []Axis
	Skipped        []SkippedPoint
	Rows           []Row
	Recommendation Recommendation
	// ByEpisode: Flips holds the episodes whose outcome changes between
	// rows.
	ByEpisode bool
	Flips     []Flip
	// VariedKinds are the scored rule/kinds whose firings can differ
	// between rows (their rules read a swept key), in registry order.
	VariedKinds []string
	Errors      []analyze.FileError // files that could not be read, excluded from every row
}

// Flip is an episode whose outcome class differs between rows.
type Flip struct {
	EpisodeID, Source string
	Outcomes          []analyze.Result // one per row
}

// GridError is a grid that yields no configuration to replay.
type GridError struct{ Err error }

func (e *GridError) Error() string { return e.Err.Error() }
func (e *GridError) Unwrap() error { return e.Err }

// CheckGrid returns the *GridError Run would return for this grid, before
// any file is read.
func CheckGrid(base *rules.Config, axes []Axis) error {
	_, _, err := expand(base, axes)
	return err
}

// expand is ExpandGrid, refusing a grid without a valid configuration.
func expand(base *rules.Config, axes []Axis) ([]Point, []SkippedPoint, error) {
	points, skipped, err := ExpandGrid(base, axes)
	if err != nil {
		return nil, nil, &GridError{err}
	}
	if len(points) == 0 {
		var ps []string
		for _, p := range skipped[0].Params {
			ps = append(ps, p.String())
		}
		return nil, nil, &GridError{fmt.Errorf("every combination of the grid violates a constraint, e.g. %s: %s", strings.Join(ps, " "), skipped[0].Reason)}
	}
	return points, skipped, nil
}

// Run expands the grid over opts.Base, replays every configuration and the
// base over every episode, and totals, marks and recommends the rows. A
// file that cannot be read is left out of every row (with Read.Strict, Run
// returns its error instead).
func Run(opts Options) (*Result, error) {
	c, err := collect(opts)
	if err != nil {
		return nil, err
	}
	return c.finish(opts.MaxFalseRatePct), nil
}

// collected is a sweep before its rows are finished: what a shard
// writes into a partial file (partial.go).
type collected struct {
	res    *Result // Rows without Totals, Recommendation unset
	totals []analyze.Totals
	// flipFile[i] and errFile[i] are the index in Options.Files of
	// res.Flips[i]'s and res.Errors[i]'s file.
	flipFile, errFile []int
}

// newCollected lays out the rows of a grid over base: the baseline row,
// then one per valid point.
func newCollected(base *rules.Config, axes []Axis, byEpisode bool) (*collected, []*rules.Config, error) {
	points, skipped, err := expand(base, axes)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Base: base, Axes: axes, Skipped: skipped, ByEpisode: byEpisode}
	rows := make([]Row, 1, len(points)+1)
	configs := make([]*rules.Config, 1, len(points)+1)
	rows[0].Baseline, configs[0] = true, base
	for _, ax := range axes {
		rows[0].Params = append(rows[0].Params, Setting{Key: ax.Key, Value: base.Value(ax.Key)})
	}
	for _, p := range points {
		rows = append(rows, Row{Params: p.Params})
		configs = append(configs, p.Config)
	}
	res.Rows = rows
	// Merged partials have no plan of their own: the rows' layout says
	// which kinds the grid varies.
	res.VariedKinds = NewPlan(configs).VariedKinds()
	return &collected{res: res, totals: make([]analyze.Totals, len(configs))}, configs, nil
}

// collect replays every configuration over every episode and totals the
// rows.
func collect(opts Options) (*collected, error) {
	c, configs, err := newCollected(opts.Base, opts.Axes, opts.ByEpisode)
	if err != nil {
		return nil, err
	}
	res, totals := c.res, c.totals
	plan := NewPlan(configs)
	plan.Labels = opts.Labels
	var (
		runErr error
		done   int
		eps    int
	)
	replayFiles(opts.Files, opts.Stdin, opts.Read, opts.Workers, plan, func(sf file) bool {
		done++
		if sf.LabelErr != nil {
			runErr = sf.LabelErr
			return false
		}
		if sf.Err != nil {
			if opts.Read.Strict {
				runErr = sf.Err
				return false
			}
			res.Errors = append(res.Errors, analyze.FileError{Source: sf.Path, Error: sf.Err.Error()})
			c.errFile = append(c.errFile, done-1)
		}
		for i := range sf.Episodes {
			se := &sf.Episodes[i]
			if err := analyze.StrictErr(opts.Read, &se.Diag); err != nil {
				runErr = err
				return false
			}
			for c := range totals {
				totals[c].Add(&se.Results[c], se.RecordedTurns, se.Diag.Skipped)
				if se.Labels != nil {
					totals[c].AddLabels(se.Labels, se.Scores[c])
				}
			}
			eps++
			if opts.ByEpisode && flips(se.Results) {
				res.Flips = append(res.Flips, Flip{EpisodeID: se.ID, Source: se.Source, Outcomes: se.Results})
				c.flipFile = append(c.flipFile, done-1)
			}
		}
		if opts.OnFile != nil {
			opts.OnFile(Progress{Path: sf.Path, Err: sf.Err, Files: done, Episodes: eps})
		}
		return true
	})
	if runErr != nil {
		return nil, runErr
	}
	return c, nil
}

// finish computes the rows' figures, marks the Pareto frontier and
// recommends a row.
func (c *collected) finish(maxFalseRatePct *float64) *Result {
	res := c.res
	for i := range res.Rows {
		c.totals[i].Finish()
		res.Rows[i].Totals = c.totals[i]
	}
	MarkPareto(res.Rows)
	res.Recommendation = Recommend(res.Rows, maxFalseRatePct)
	return res
}

// flips says whether the results of one episode change class across rows.
func flips(results []analyze.Result) bool {
	for i := 1; i < len(results); i++ {
		if results[i].Class() != results[0].Class() {
			return true
		}
	}
	return false
}
