package check

// Comparing a corpus with its baseline one episode at a time, as the
// episodes are replayed: a finished episode is compared and released, so
// a check holds the baseline, the episodes its report names (up to rowRun
// of them, the rest spilled: rows.go) and counters, never a row per
// episode of the corpus.

import (
	"hash/maphash"
	"maps"
	"slices"
	"sort"
)

// tally is a comparison being made. Episodes come in with add, in the
// order Compare would take them; a log's episodes learn its hash (and so
// their log_hash drift) when the log ends (endFile), or are taken back if
// it could not be read to its end (dropFile). finish then pairs moved
// logs, lists the missing episodes and names every row.
type tally struct {
	base      *baseStore // nil: nothing to compare with
	gatesOnly bool       // no baseline: every episode unchecked
	every     bool       // keep a row for every episode, not only those a report names
	used      []bool     // base entries matched
	scratch   Entry      // a base entry being compared

	rows     []Episode
	fileRows int            // rows[fileRows:] are the current log's
	pending  []pendingMatch // the current log's matched episodes, no row kept (yet)
	quiet    int            // episodes with no row: unchanged, or unchecked (gates only)
	fileQ    int            // the current log's, until it ends
	current  int            // episodes of the corpus compared
	fileCur  int            // the current log's, until it ends
	seq      int64

	// Without a baseline or every row, a label needs to know whether an
	// id is shared by episodes no row was kept for: their ids' hashes.
	ids     []uint64
	fileIDs int
	seed    maphash.Seed

	// Past limit (rowRun) rows go to spill in sorted runs; a run may
	// hold rows of the log still being read (open), which learn its hash,
	// or are dropped with it, when read back: spillLogs[openLog].
	limit     int
	spill     *rowFile
	spillLogs []spillLog
	openLog   int32
	openBases []int32 // the base entries of the open log's spilled rows
	err       error   // of spilling

	// As finish names the rows: the first limit in out, the rest (with
	// them) in final.
	out         []Episode
	final       *rowFile
	counts      map[string]int // rows by status
	keptEntries int            // missing rows of unreadable logs
	// With entries out of scope: the ids of new episodes (a log moved
	// into scope is paired with its entry: pullMoved), the entries
	// brought back so, and those paired, by id and source.
	track   bool
	newIDs  map[string]bool
	outside map[int32]bool
	movedIn map[[2]string]bool

	pathOf  func(source string) string
	paths   map[string]string
	maxHeld int // the most rows held at once in rows or out (tests)
}

// spillLog is a log some rows of which were spilled before it ended.
type spillLog struct {
	hash    string
	dropped bool
}

// pendingMatch is an episode matched with its baseline entry and so far
// unchanged, waiting for its log's hash.
type pendingMatch struct {
	base int32
	seq  int64
}

func newTally(base *baseStore, gatesOnly, every bool) *tally {
	return &tally{base: base, gatesOnly: gatesOnly, every: every, used: make([]bool, base.n()), seed: maphash.MakeSeed(), limit: rowRun, openLog: -1, counts: map[string]int{}}
}

// add compares one episode's entry. known says e.LogHash is final; else
// the hash comes with endFile (the episodes of one log at a time, then).
// skipped and problems are its unreadable lines.
func (t *tally) add(e *Entry, known bool, skipped int, problems []string) {
	seq := t.seq
	t.seq++
	t.fileCur++
	keep := t.every || skipped > 0
	if t.gatesOnly {
		if keep {
			t.rows = append(t.rows, Episode{EpisodeID: e.EpisodeID, Source: e.Source, Status: StatusUnchecked, Skipped: skipped, Problems: problems, seq: seq, base: -1})
		} else {
			t.fileQ++
			t.ids = append(t.ids, maphash.String(t.seed, e.EpisodeID))
		}
		if known {
			t.endFile("")
		}
		t.bound()
		return
	}
	j := t.base.find(e.EpisodeID, e.Source)
	if j < 0 || t.used[j] {
		// New, or a moved log (paired in finish): either way named.
		if t.track {
			if t.newIDs == nil {
				t.newIDs = map[string]bool{}
			}
			t.newIDs[e.EpisodeID] = true
		}
		c := *e
		t.rows = append(t.rows, Episode{
			EpisodeID: e.EpisodeID, Source: e.Source, Status: StatusNew, Current: &c, Skipped: skipped, Problems: problems,
			Drift: []Drift{{Field: "episode", Current: e.Source}}, seq: seq, base: -1,
		})
	} else {
		t.used[j] = true
		b := &t.scratch
		b.EpisodeID = e.EpisodeID
		t.base.decode(j, b)
		c := e
		if !known {
			// Its log's hash is compared when the log ends.
			c2 := *e
			c2.LogHash = b.LogHash
			c = &c2
		}
		drift := diffEpisode(b, c)
		switch {
		case len(drift) > 0:
			cur, was := *e, *b
			t.rows = append(t.rows, Episode{EpisodeID: e.EpisodeID, Source: e.Source, Status: StatusChanged, Drift: drift, Baseline: &was, Current: &cur, Skipped: skipped, Problems: problems, seq: seq, base: int32(j), hashPending: !known})
		case keep:
			t.rows = append(t.rows, Episode{EpisodeID: e.EpisodeID, Source: e.Source, Status: StatusUnchanged, Skipped: skipped, Problems: problems, seq: seq, base: int32(j), hashPending: !known})
		case known:
			t.fileQ++
		default:
			t.pending = append(t.pending, pendingMatch{int32(j), seq})
		}
	}
	if known {
		t.endFile("")
	}
	t.bound()
}

// bound spills the rows once limit are held.
func (t *tally) bound() {
	t.maxHeld = max(t.maxHeld, len(t.rows))
	if len(t.rows) >= t.limit && t.err == nil {
		t.err = t.spillRows()
	}
}

// spillRows writes the rows, sorted, as one run of the spill.
func (t *tally) spillRows() error {
	if t.spill == nil {
		rf, err := newRowFile()
		if err != nil {
			return err
		}
		t.spill = rf
	}
	if t.fileRows < len(t.rows) && t.openLog < 0 {
		t.openLog = int32(len(t.spillLogs))
		t.spillLogs = append(t.spillLogs, spillLog{})
	}
	for i := t.fileRows; i < len(t.rows); i++ {
		r := &t.rows[i]
		r.open = true
		if r.base >= 0 {
			t.openBases = append(t.openBases, r.base)
		}
	}
	sortRows(t.rows)
	start := t.spill.startRun()
	for i := range t.rows {
		r := &t.rows[i]
		log := int32(-1)
		if r.open {
			log = t.openLog
		}
		if err := t.spill.write(r, log); err != nil {
			return err
		}
	}
	t.spill.endRun(start)
	clear(t.rows)
	t.rows, t.fileRows = t.rows[:0], 0
	return nil
}

// settle gives a spilled row of a log that ended with hash what endFile
// gives the rows it holds.
func (t *tally) settle(r *Episode, hash string) {
	if !r.hashPending {
		if r.Current != nil && hash != "" {
			r.Current.LogHash = hash
		}
		return
	}
	r.hashPending = false
	if r.Current != nil {
		r.Current.LogHash = hash
	}
	if t.base.hash(int(r.base)) != hash {
		t.hashDrift(r, hash)
	}
}

// endFile ends the current log, whose hash is now known: its episodes'
// log_hash is compared, and they are counted.
func (t *tally) endFile(hash string) {
	for i := t.fileRows; i < len(t.rows); i++ {
		t.settle(&t.rows[i], hash)
	}
	if t.openLog >= 0 {
		t.spillLogs[t.openLog].hash = hash
		t.openLog, t.openBases = -1, t.openBases[:0]
	}
	for _, p := range t.pending {
		if t.base.hash(int(p.base)) == hash {
			t.fileQ++
			continue
		}
		t.rows = append(t.rows, Episode{EpisodeID: t.base.id(int(p.base)), Source: t.base.source(int(p.base)), Status: StatusUnchanged, seq: p.seq, base: p.base})
		t.hashDrift(&t.rows[len(t.rows)-1], hash)
	}
	t.pending = t.pending[:0]
	t.quiet += t.fileQ
	t.current += t.fileCur
	t.fileQ, t.fileCur = 0, 0
	t.fileRows, t.fileIDs = len(t.rows), len(t.ids)
	t.bound()
}

// hashDrift adds the log_hash drift, the first of an entry's fields.
func (t *tally) hashDrift(r *Episode, hash string) {
	if r.Baseline == nil {
		r.Baseline = t.base.entry(int(r.base))
	}
	b := r.Baseline
	r.Drift = slices.Insert(r.Drift, 0, Drift{Field: "log_hash", Baseline: b.LogHash, Current: hash})
	r.Status = StatusChanged
	if r.Current == nil {
		// Nothing else drifted: the baseline's outcome, from a new log.
		c := *b
		c.LogHash = hash
		r.Current = &c
	}
}

// dropFile takes back the current log's episodes: it could not be read to
// its end, so none of it counts (its baseline entries are missing).
func (t *tally) dropFile() {
	for _, r := range t.rows[t.fileRows:] {
		if r.base >= 0 {
			t.used[r.base] = false
		}
	}
	for _, p := range t.pending {
		t.used[p.base] = false
	}
	if t.openLog >= 0 {
		t.spillLogs[t.openLog].dropped = true
		for _, b := range t.openBases {
			t.used[b] = false
		}
		t.openLog, t.openBases = -1, t.openBases[:0]
	}
	clear(t.rows[t.fileRows:]) // no pointers kept past the length
	t.rows = t.rows[:t.fileRows]
	t.pending = t.pending[:0]
	t.ids = t.ids[:t.fileIDs]
	t.fileQ, t.fileCur = 0, 0
}

// finish pairs moved logs, lists the missing episodes (unreadable says
// why a source could not be read), and orders and names the rows: the
// rows held and spilled are merged in order with the missing ones, one
// episode id at a time.
func (t *tally) finish(unreadable map[string]string) error {
	defer t.closeSpill()
	if t.err != nil {
		return t.err
	}
	sortRows(t.rows)
	cs := []*rowCursor{memCursor(t.rows)}
	if t.spill != nil {
		if err := t.spill.flush(); err != nil {
			return err
		}
		for i := range t.spill.runs {
			cs = append(cs, t.spill.cursor(i))
		}
	}
	if t.base != nil {
		cs = append(cs, t.missingCursor(unreadable))
	}
	if t.gatesOnly && !t.every {
		slices.Sort(t.ids)
	}
	var group []Episode
	err := mergeRows(cs, func(r *Episode, log int32) error {
		if log >= 0 {
			l := &t.spillLogs[log]
			if l.dropped {
				return nil
			}
			t.settle(r, l.hash)
		}
		if len(group) > 0 && group[0].EpisodeID != r.EpisodeID {
			if err := t.finishGroup(group); err != nil {
				return err
			}
			clear(group)
			group = group[:0]
		}
		group = append(group, *r)
		return nil
	})
	if err == nil && len(group) > 0 {
		err = t.finishGroup(group)
	}
	clear(t.rows)
	t.rows = nil
	if err == nil && t.final != nil {
		t.final.endRun(0)
		err = t.final.flush()
	}
	return err
}

// missingCursor lists the baseline entries no episode matched, in order.
func (t *tally) missingCursor(unreadable map[string]string) *rowCursor {
	var js []int32
	for j := range t.base.n() {
		if !t.used[j] {
			js = append(js, int32(j))
		}
	}
	if t.base.order == nil {
		// The records are in canonical order (a baseline loopbreak
		// wrote): so are js, ties in record order.
		return t.missingRows(js, unreadable)
	}
	sort.Slice(js, func(a, b int) bool {
		x, y := int(js[a]), int(js[b])
		if c := compareBytes(t.base.idBytes(x), t.base.idBytes(y)); c != 0 {
			return c < 0
		}
		if sx, sy := t.base.source(x), t.base.source(y); sx != sy {
			return sx < sy
		}
		return x < y
	})
	return t.missingRows(js, unreadable)
}

// missingRows lists the baseline entries js, as missing rows.
func (t *tally) missingRows(js []int32, unreadable map[string]string) *rowCursor {
	c := &rowCursor{log: -1}
	c.next = func() (bool, error) {
		if len(js) == 0 {
			return false, nil
		}
		j := int(js[0])
		js = js[1:]
		b := t.base.entry(j)
		c.row = Episode{
			EpisodeID: b.EpisodeID, Source: b.Source, Status: StatusMissing, Baseline: b,
			Drift:      []Drift{{Field: "episode", Baseline: b.Source}},
			Unreadable: unreadable[b.Source], seq: t.seq + int64(j), base: int32(j),
		}
		return true, nil
	}
	return c
}

// finishGroup pairs a moved log among the rows of one episode id, names
// them and hands them on.
func (t *tally) finishGroup(group []Episode) error {
	if t.base != nil {
		group = t.pairMoved(group)
	}
	// An id is shared by two episodes of the comparison: with every row
	// kept, two rows; else count the episodes no row was kept for, which
	// without a baseline are known by their ids' hashes (two ids sharing
	// one by chance, 1 in 2^64, would name their sources needlessly).
	n := len(group)
	if !t.every && n > 0 {
		id := group[0].EpisodeID
		if t.gatesOnly {
			h := maphash.String(t.seed, id)
			lo, _ := slices.BinarySearch(t.ids, h)
			for k := lo; k < len(t.ids) && t.ids[k] == h; k++ {
				n++
			}
		} else {
			n, at := 0, -1
			for i := range group {
				if group[i].base < 0 {
					n++
				} else {
					at = int(group[i].base)
				}
			}
			if at >= 0 {
				n += t.base.countIDAt(at)
			} else {
				n += t.base.countID(id)
			}
		}
	}
	for i := range group {
		r := &group[i]
		if r.base >= 0 && t.outside[r.base] {
			if r.Status == StatusMissing {
				continue // out of scope after all: no log moved from it
			}
			if t.movedIn == nil {
				t.movedIn = map[[2]string]bool{}
			}
			t.movedIn[[2]string{r.EpisodeID, t.base.source(int(r.base))}] = true
		}
		r.Label = r.EpisodeID
		if n > 1 {
			r.Label += " (" + r.Source + ")"
		}
		if err := t.emit(r); err != nil {
			return err
		}
	}
	return nil
}

// pairMoved matches the rows of one id left over on both sides: an id
// left exactly once on each is the same episode, its log moved.
func (t *tally) pairMoved(group []Episode) []Episode {
	cur, miss := -1, -1
	nCur, nMiss := 0, 0
	for i := range group {
		switch r := &group[i]; {
		case r.base < 0:
			cur, nCur = i, nCur+1
		case r.Status == StatusMissing:
			miss, nMiss = i, nMiss+1
		}
	}
	if nCur != 1 || nMiss != 1 {
		return group
	}
	r, b := &group[cur], group[miss].Baseline
	r.base, r.Baseline = group[miss].base, b
	r.Drift = diffEpisode(b, r.Current)
	r.Status = StatusUnchanged
	drop := false
	if len(r.Drift) > 0 {
		r.Status = StatusChanged
	} else {
		// Only a duplicate baseline entry pairs without drift.
		r.Baseline, r.Current = nil, nil
		if !t.every && r.Skipped == 0 {
			t.quiet++
			drop = true
		}
	}
	out := group[:0]
	for i := range group {
		if i != miss && (i != cur || !drop) {
			out = append(out, group[i])
		}
	}
	clear(group[len(out):])
	return out
}

// emit hands on a finished row: to out, or past limit rows to final.
func (t *tally) emit(r *Episode) error {
	if t.pathOf != nil {
		if t.paths == nil {
			t.paths = map[string]string{}
		}
		p, ok := t.paths[r.Source]
		if !ok {
			if len(t.paths) >= 1<<12 {
				clear(t.paths) // one per source, but not a million
			}
			p = t.pathOf(r.Source)
			t.paths[r.Source] = p
		}
		r.Path = p
	}
	t.counts[r.Status]++
	if r.Status == StatusMissing && r.Unreadable != "" {
		t.keptEntries++
	}
	if t.final == nil && len(t.out) < t.limit {
		t.out = append(t.out, *r)
		t.maxHeld = max(t.maxHeld, len(t.out))
		return nil
	}
	if t.final == nil {
		rf, err := newRowFile()
		if err != nil {
			return err
		}
		t.final = rf
		for i := range t.out {
			if err := rf.write(&t.out[i], -1); err != nil {
				return err
			}
		}
		clear(t.out)
		t.out = nil
	}
	return t.final.write(r, -1)
}

// closeSpill removes the spilled runs.
func (t *tally) closeSpill() {
	t.spill.close()
	t.spill = nil
}

// close removes the tally's temporary files: on an error, or once its
// rows are no longer read.
func (t *tally) close() {
	t.closeSpill()
	t.final.close()
	t.final = nil
}

// statuses counts the comparison's episodes by status.
func (t *tally) statuses() map[string]int {
	s := maps.Clone(t.counts)
	if t.quiet > 0 {
		if t.gatesOnly {
			s[StatusUnchecked] += t.quiet
		} else {
			s[StatusUnchanged] += t.quiet
		}
	}
	return s
}

// episodes are the rows, in order.
func (t *tally) episodes() ([]Episode, error) {
	if t.final == nil {
		return t.out, nil
	}
	var out []Episode
	err := t.final.each(func(r *Episode) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}
