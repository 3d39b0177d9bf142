package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

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

	// Prune lets an update drop the entries of logs that could not be
	// read. Without it those entries are kept as they were and Run
	// reports them in Result.Kept: an update never forgets an episode
	// because one read failed.
	Prune bool

	// Skipped are paths the caller's directory walk could not read (an
	// unreadable directory, a log-named FIFO), already reported: the
	// baseline's episodes at or below them count as unreadable, not
	// missing, so an update keeps them.
	Skipped []analyze.FileError

	// Scope are the paths the check was given (files, directories, "-"):
	// a baseline entry whose log is not at or below one of them is out of
	// scope, neither compared nor missing (Result.OutOfScope counts
	// them), and an update keeps it unchanged, --prune or not. Empty:
	// every entry is in scope.
	Scope []string

	// Context, if set, stops the check (nothing is written) when done.
	Context context.Context

	// Every keeps every episode in the result (a report that lists them
	// all: JSON, JUnit); without it only the episodes a report names are
	// kept (drift, unreadable lines), so a check of a million episodes
	// holds the baseline and its drift, not a row per episode. Either way
	// rows past a bound are held in a temporary file (Result.EachEpisode).
	Every bool
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
	// Episodes are the episodes of the comparison that drifted or had
	// unreadable lines (every episode with Options.Every), in canonical
	// order. Baseline and Current are set on an episode that drifted.
	// A result of more episodes than a check holds in memory has them in
	// a temporary file instead: EachEpisode reads either.
	Episodes []Episode
	// Statuses counts every episode of the comparison by status; nil
	// means Episodes lists them all (a result made by hand).
	Statuses map[string]int
	Config   []ConfigChange // configuration keys that differ from the baseline's
	Gates    []GateResult
	Totals   *analyze.Totals
	Errors   []analyze.FileError // files that could not be read at all
	// Kept (update without Prune) lists the unreadable logs whose
	// baseline entries were kept unchanged; a non-empty Kept is an error
	// for the caller to report (cmd exits 2).
	Kept []analyze.FileError
	// OutOfScope is the number of baseline entries whose logs lie outside
	// the paths checked (Options.Scope): not compared, and kept by an
	// update.
	OutOfScope int

	// rows, when set, hold the episodes instead of Episodes: more than a
	// check holds in memory, read back by EachEpisode until Close.
	rows        *rowFile
	keptEntries int // missing episodes of unreadable logs, when counted
	counted     bool
}

// EachEpisode calls f with each episode of the result, in order (those
// of Episodes, or of the temporary file a large result holds them in);
// the episode is f's only for the call. It stops at f's first error.
func (r *Result) EachEpisode(f func(*Episode) error) error {
	if r.rows != nil {
		return r.rows.each(f)
	}
	for i := range r.Episodes {
		if err := f(&r.Episodes[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close removes the temporary file a large result holds its episodes in;
// EachEpisode lists none after it.
func (r *Result) Close() {
	r.rows.close()
	r.rows = nil
}

// NoEpisodesError is returned by Run when the inputs hold no episode at
// all: a check over nothing would pass vacuously.
type NoEpisodesError struct{ Files []string }

func (e *NoEpisodesError) Error() string {
	names := e.Files
	if len(names) > 3 {
		names = append(names[:3:3], fmt.Sprintf("… (%d files)", len(e.Files)))
	}
	return "no episodes in " + strings.Join(names, ", ")
}

// Count returns the number of episodes with a status.
func (r *Result) Count(status string) int {
	if r.Statuses != nil {
		return r.Statuses[status]
	}
	n := 0
	for i := range r.Episodes {
		if r.Episodes[i].Status == status {
			n++
		}
	}
	return n
}

// Total is the number of episodes in the comparison: the corpus's and
// the baseline's missing ones.
func (r *Result) Total() int {
	if r.Statuses == nil {
		return len(r.Episodes)
	}
	n := 0
	for _, c := range r.Statuses {
		n += c
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

// Failed says whether the check fails: drift (when comparing), a failed
// policy gate, or (updating) entries kept for unreadable logs.
func (r *Result) Failed() bool {
	return (r.Mode == ModeCompare && r.Drifted() > 0) || r.GatesFailed() > 0 || len(r.Kept) > 0
}

// KeptEntries is the number of missing episodes whose entries an update
// kept because their log could not be read (missing episodes are always
// in Episodes).
func (r *Result) KeptEntries() int {
	if len(r.Kept) == 0 {
		return 0
	}
	if r.counted {
		return r.keptEntries
	}
	n := 0
	for i := range r.Episodes {
		if e := &r.Episodes[i]; e.Status == StatusMissing && e.Unreadable != "" {
			n++
		}
	}
	return n
}

// runState is what Run and Finish hold while they compare: the baseline
// (read, and locked to update it), the tally comparing episodes with it
// and, in ModeUpdate, the new baseline's sorter.
type runState struct {
	base   *baseStore
	out    int // baseline entries out of scope
	unlock func()
	t      *tally
	sorter *entrySorter
}

// startRun reads (and locks) the baseline first, so a missing one fails
// before any replay.
func startRun(opts Options) (*runState, error) {
	base, out, unlock, err := openBaseline(opts)
	if err != nil {
		return nil, err
	}
	st := &runState{base: base, out: out, unlock: unlock, t: newTally(base, opts.Mode == ModeGatesOnly, opts.Every)}
	st.t.track = out > 0
	if opts.Mode == ModeUpdate {
		st.sorter = newEntrySorter()
	}
	return st, nil
}

// end releases what startRun took; err is the run's: a failed run's
// tally is closed too (a finished one's result owns it).
func (st *runState) end(err error) {
	if st.sorter != nil {
		st.sorter.close()
	}
	if err != nil {
		st.t.close()
	}
	st.unlock()
}

// Run replays the rules over the files as analyze does, compares each
// episode's entry with the baseline (ModeCompare), or rewrites the
// baseline (ModeUpdate), and applies the policy gates.
func Run(opts Options) (res *Result, err error) {
	// The baseline is read (and locked, to update it) before the replay:
	// a missing one fails first.
	st, err := startRun(opts)
	if err != nil {
		return nil, err
	}
	defer func() { st.end(err) }()
	// Each episode is compared as its log is read, and in an update its
	// entry goes to the new baseline's sorter: nothing per episode is
	// kept but what the report names.
	col, err := replayFiles(opts, &streamSink{t: st.t, sorter: st.sorter}, false)
	if err != nil {
		return nil, err
	}
	return col.finish(opts, st)
}

// streamSink compares each entry as it comes and, in an update, keeps it
// for the new baseline.
type streamSink struct {
	t      *tally
	sorter *entrySorter
}

func (s *streamSink) add(e *Entry, skipped int, problems []string) error {
	s.t.add(e, false, skipped, problems)
	if s.sorter != nil {
		return s.sorter.add(*e, true)
	}
	return nil
}

func (s *streamSink) endFile(hash string) {
	s.t.endFile(hash)
	if s.sorter != nil {
		s.sorter.endFile(hash)
	}
}

func (s *streamSink) dropFile() {
	s.t.dropFile()
	if s.sorter != nil {
		s.sorter.dropFile()
	}
}

// collectSink keeps every entry (a shard's partial file lists them).
type collectSink struct {
	cur   *Baseline
	start int // the current log's first entry
}

func (s *collectSink) add(e *Entry, _ int, _ []string) error {
	s.cur.Episodes = append(s.cur.Episodes, *e)
	return nil
}

func (s *collectSink) endFile(hash string) {
	for i := s.start; i < len(s.cur.Episodes); i++ {
		s.cur.Episodes[i].LogHash = hash
	}
	s.start = len(s.cur.Episodes)
}

func (s *collectSink) dropFile() {
	s.cur.Episodes = s.cur.Episodes[:s.start]
}

// entrySink takes a replay's entries a log at a time: the log's hash
// comes when it ends, or the log could not be read to its end and its
// entries are dropped.
type entrySink interface {
	add(e *Entry, skipped int, problems []string) error
	endFile(hash string)
	dropFile()
}

// openBaseline reads the baseline of opts.Mode (nil in ModeGatesOnly, and
// in ModeUpdate when there is none yet): its entries in opts.Scope, the
// others counted in out; in ModeUpdate it is locked until unlock is
// called.
func openBaseline(opts Options) (base *baseStore, out int, unlock func(), err error) {
	unlock = func() {}
	if opts.Mode == ModeUpdate {
		// Held until the check returns: a second update of the same
		// directory fails instead of racing this one to the rename.
		if unlock, err = lockBaseline(opts.Baseline); err != nil {
			return nil, 0, nil, err
		}
	}
	if opts.Mode == ModeGatesOnly {
		return nil, 0, unlock, nil
	}
	base, out, err = readStore(opts.Baseline, newScope(opts.Baseline, opts.Scope))
	switch {
	case errors.Is(err, fs.ErrNotExist) && opts.Mode == ModeUpdate:
		return nil, 0, unlock, nil
	case errors.Is(err, fs.ErrNotExist):
		unlock()
		return nil, 0, nil, &NoBaselineError{opts.Baseline}
	case err != nil:
		unlock()
		return nil, 0, nil, fmt.Errorf("baseline %w", err)
	}
	return base, out, unlock, nil
}

// keepOutOfScope hands the baseline's entries out of scope to the new
// baseline's sorter, unchanged: read again (they were not held), under
// the update's lock. Those of logs that moved into scope are not kept:
// the moved log's entry replaces them.
func keepOutOfScope(opts Options, sorter *entrySorter, moved map[[2]string]bool) error {
	sc := newScope(opts.Baseline, opts.Scope)
	var addErr error
	want := func(id, src []byte) bool {
		return !sc.inBytes(src) && !moved[[2]string{string(id), string(src)}]
	}
	_, _, err := readBaseline(opts.Baseline, want, func() func(*Entry) {
		return func(e *Entry) {
			if addErr == nil {
				addErr = sorter.add(*e, false)
			}
		}
	})
	if err != nil {
		return fmt.Errorf("baseline %w", err)
	}
	return addErr
}

// pullMoved brings back the baseline's entries out of scope whose
// episode ids are those of new episodes: a log moved into the paths
// checked is paired with its entry, as without scoping (finish drops
// those left unpaired). Read again, and only when some episode is new.
func pullMoved(opts Options, st *runState) error {
	t := st.t
	if st.out == 0 || len(t.newIDs) == 0 || st.base == nil {
		return nil
	}
	sc := newScope(opts.Baseline, opts.Scope)
	want := func(id, src []byte) bool { return !sc.inBytes(src) && t.newIDs[string(id)] }
	var pulled []Entry
	_, _, err := readBaseline(opts.Baseline, want, func() func(*Entry) {
		pulled = nil
		return func(e *Entry) { pulled = append(pulled, *e) }
	})
	if err != nil {
		return fmt.Errorf("baseline %w", err)
	}
	if len(pulled) == 0 {
		return nil
	}
	t.outside = map[int32]bool{}
	for i := range pulled {
		t.outside[int32(st.base.n())] = true
		st.base.add(&pulled[i])
		t.used = append(t.used, false)
	}
	st.base.done()
	return nil
}
