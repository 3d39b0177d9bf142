package check

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Modes of a check.
const (
	ModeCompare   = "compare"    // compare with the baseline
	ModeUpdate    = "update"     // rewrite the baseline; drift is not a failure
	ModeGatesOnly = "gates-only" // no baseline: policy gates only
)

// Options are the inputs of one check.
type Options struct {
	Files   []string // episode logs ("-": Stdin); a file named twice is read once
	Stdin   io.Reader
	Read    replay.Options
	Workers int // files read in parallel; 0: GOMAXPROCS
	Config  *rules.Config

	Mode     string
	Baseline string // the baseline file (unused in ModeGatesOnly)

	// Policy gates, each applied when non-nil.
	MaxFalseRatePct *float64
	MinSavedPct     *float64
	MaxForfeit      *float64
	FailOn          []*FailOn // observed as the episodes are replayed: one Run each

	// OnFileError, if set, hears of each file that cannot be read, in
	// input order as it happens; the check goes on without the file
	// (unless Read.Strict, when Run returns the error instead).
	OnFileError func(path string, err error)
}

// NoBaselineError is returned by Run when the baseline file to compare
// with does not exist.
type NoBaselineError struct{ File string }

func (e *NoBaselineError) Error() string { return "baseline " + e.File + " does not exist" }
func (e *NoBaselineError) Unwrap() error { return fs.ErrNotExist }

// Result is what one check found.
type Result struct {
	Mode     string
	Baseline string // the baseline file as given
	Wrote    bool   // update: the file was (re)written; false when already up to date
	Episodes []Episode
	Config   []ConfigChange // configuration keys that differ from the baseline's
	Gates    []GateResult
	Totals   *analyze.Totals
	Errors   []analyze.FileError // files that could not be read at all
}

// Count returns the number of episodes with a status.
func (r *Result) Count(status string) int {
	n := 0
	for i := range r.Episodes {
		if r.Episodes[i].Status == status {
			n++
		}
	}
	return n
}

// Drifted is the number of changed, new and missing episodes.
func (r *Result) Drifted() int {
	return r.Count(StatusChanged) + r.Count(StatusNew) + r.Count(StatusMissing)
}

// GatesFailed is the number of policy gates that failed.
func (r *Result) GatesFailed() int {
	n := 0
	for _, g := range r.Gates {
		if !g.Passed {
			n++
		}
	}
	return n
}

// Failed says whether the check fails: drift (when comparing) or a failed
// policy gate.
func (r *Result) Failed() bool {
	return (r.Mode == ModeCompare && r.Drifted() > 0) || r.GatesFailed() > 0
}

// Run replays the rules over the files as analyze does, compares each
// episode's entry with the baseline (ModeCompare), or rewrites the
// baseline (ModeUpdate), and applies the policy gates.
func Run(opts Options) (*Result, error) {
	// The baseline is read first: a missing one fails before the replay.
	base, err := readBaseline(opts)
	if err != nil {
		return nil, err
	}
	c, err := Collect(opts)
	if err != nil {
		return nil, err
	}
	return c.finish(opts, base)
}

// readBaseline reads the baseline of opts.Mode: nil in ModeGatesOnly, and
// in ModeUpdate when there is none yet.
func readBaseline(opts Options) (*Baseline, error) {
	if opts.Mode == ModeGatesOnly {
		return nil, nil
	}
	base, err := ReadBaseline(opts.Baseline)
	switch {
	case errors.Is(err, fs.ErrNotExist) && opts.Mode == ModeUpdate:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &NoBaselineError{opts.Baseline}
	case err != nil:
		return nil, fmt.Errorf("baseline %w", err)
	}
	return base, nil
}

// Collected is a check's replay before the comparison: what a shard
// writes into a partial file, and what Finish compares and gates. Its
// order-dependent lists carry the index of their file in Options.Files.
type Collected struct {
	Current    *Baseline // the corpus's entries, sorted
	Totals     analyze.Totals
	Errors     []analyze.FileError
	ErrorFile  []int
	Unreadable map[string]string // source → error, for files not read at all
	Diags      []Diag
	// FailOn[g] is what Options.FailOn[g] observed; WhereFile[g][i] the
	// file of FailOn[g].Where[i].
	FailOn    []*FailOn
	WhereFile [][]int
}

// Diag is what the reader skipped in an episode with unreadable lines.
type Diag struct {
	EpisodeID string   `json:"episode_id"`
	Source    string   `json:"source"`
	Skipped   int      `json:"skipped"`
	Problems  []string `json:"problems"`
}

// Collect replays the files as Run does, without reading the baseline.
func Collect(opts Options) (*Collected, error) {
	files := uniqueFiles(opts.Files)
	col := &Collected{Unreadable: map[string]string{}, FailOn: opts.FailOn, WhereFile: make([][]int, len(opts.FailOn))}

	cfg := opts.Config
	cur := NewBaseline(cfg)
	threshold := rules.RejectionThreshold.Get(cfg)
	keep := false
	for _, f := range opts.FailOn {
		keep = keep || f.NeedsFirings()
	}
	fileIndex := map[string]int{} // uniqueFiles dropped repeats: index in opts.Files
	for i := len(opts.Files) - 1; i >= 0; i-- {
		fileIndex[opts.Files[i]] = i
	}
	var (
		totals     analyze.Totals
		errs       []analyze.FileError
		unreadable = col.Unreadable
		runErr     error
	)
	// The reader hashes each file as it reads it (once: a pipe or standard
	// input cannot be read twice); the hash comes with a file's last part,
	// so the file's entries get it then.
	read := opts.Read
	read.Hash = true
	fileStart, newFile := 0, true
	analyze.Files(files, opts.Stdin, read, opts.Workers, cfg, analyze.Options{KeepFirings: keep}, func(fr analyze.FileResult) bool {
		fi := fileIndex[fr.Path]
		if newFile {
			fileStart, newFile = len(cur.Episodes), false
		}
		if fr.Last {
			defer func() {
				newFile = true
				for i := fileStart; i < len(cur.Episodes); i++ {
					cur.Episodes[i].LogHash = fr.Hash
				}
			}()
		}
		source := SourceOf(opts.Baseline, fr.Path)
		if fr.Err != nil {
			if opts.Read.Strict {
				runErr = fr.Err
				return false
			}
			// A file that cannot be read at all: its episodes, if in the
			// baseline, are missing.
			errs = append(errs, analyze.FileError{Source: fr.Path, Error: fr.Err.Error()})
			col.ErrorFile = append(col.ErrorFile, fi)
			unreadable[source] = fr.Err.Error()
			if opts.OnFileError != nil {
				opts.OnFileError(fr.Path, fr.Err)
			}
			return true
		}
		for i, ep := range fr.Episodes {
			if err := analyze.StrictErr(opts.Read, &ep.Diag); err != nil {
				runErr = err
				return false
			}
			o := fr.Outcomes[i]
			totals.Add(&o.Result, o.RecordedTurns, ep.Diag.Skipped)
			for g, f := range opts.FailOn {
				f.Observe(o, threshold)
				for len(col.WhereFile[g]) < len(f.Where) {
					col.WhereFile[g] = append(col.WhereFile[g], fi)
				}
			}
			cur.Episodes = append(cur.Episodes, NewEntry(o, source, "")) // hashed on the file's last part
			if ep.Diag.Skipped > 0 {
				col.Diags = append(col.Diags, Diag{ep.ID, source, ep.Diag.Skipped, ep.Diag.Problems})
			}
		}
		return true
	})
	if runErr != nil {
		return nil, runErr
	}
	cur.Sort()
	col.Current, col.Totals, col.Errors = cur, totals, errs
	return col, nil
}

// Finish compares what was collected (by one run, or merged from the
// shards of one) with the baseline of opts.Mode, applies the gates and,
// in ModeUpdate, writes the baseline: the rest of Run.
func (col *Collected) Finish(opts Options) (*Result, error) {
	base, err := readBaseline(opts)
	if err != nil {
		return nil, err
	}
	return col.finish(opts, base)
}

func (col *Collected) finish(opts Options, base *Baseline) (*Result, error) {
	cur, unreadable, errs := col.Current, col.Unreadable, col.Errors
	totals := col.Totals
	totals.Finish()
	type diagKey struct{ id, source string }
	diags := map[diagKey]Diag{}
	for _, d := range col.Diags {
		diags[diagKey{d.EpisodeID, d.Source}] = d
	}

	var cmp *Comparison
	switch {
	case opts.Mode == ModeGatesOnly:
		cmp = Compare(nil, cur, nil)
	case base == nil: // first update: every episode is added
		cmp = Compare(&Baseline{Config: cur.Config}, cur, unreadable)
	default:
		cmp = Compare(base, cur, unreadable)
	}

	res := &Result{Mode: opts.Mode, Baseline: opts.Baseline, Config: cmp.Config, Totals: &totals, Errors: errs, Episodes: cmp.Episodes}
	for i := range res.Episodes {
		e := &res.Episodes[i]
		e.Path = SourcePath(opts.Baseline, e.Source)
		if d, ok := diags[diagKey{e.EpisodeID, e.Source}]; ok && e.Current != nil {
			e.Skipped, e.Problems = d.Skipped, d.Problems
		}
	}
	if opts.MaxFalseRatePct != nil {
		res.Gates = append(res.Gates, MaxFalseRateGate(&totals, *opts.MaxFalseRatePct))
	}
	if opts.MinSavedPct != nil {
		res.Gates = append(res.Gates, MinSavedGate(&totals, *opts.MinSavedPct))
	}
	if opts.MaxForfeit != nil {
		res.Gates = append(res.Gates, MaxForfeitGate(&totals, *opts.MaxForfeit))
	}
	for _, f := range col.FailOn {
		res.Gates = append(res.Gates, f.Result())
	}

	if opts.Mode == ModeUpdate {
		wrote, err := WriteBaseline(opts.Baseline, cur)
		if err != nil {
			return nil, fmt.Errorf("writing baseline: %w", err)
		}
		res.Wrote = wrote
	}
	return res, nil
}

// uniqueFiles drops a file named twice (a directory and a file inside
// it): its episodes would otherwise be compared twice.
func uniqueFiles(files []string) []string {
	seen := map[string]bool{}
	out := files[:0:0]
	for _, f := range files {
		key := f
		if f != "-" {
			if abs, err := filepath.Abs(f); err == nil {
				key = abs
			}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	return out
}
