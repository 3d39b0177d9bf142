package check

// Comparing a corpus with its baseline one episode at a time, as the
// episodes are replayed: a finished episode is compared and released, so
// a check holds the baseline, the episodes its report names and counters,
// never a row per episode of the corpus.

import (
	"hash/maphash"
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
}

// pendingMatch is an episode matched with its baseline entry and so far
// unchanged, waiting for its log's hash.
type pendingMatch struct {
	base int32
	seq  int64
}

func newTally(base *baseStore, gatesOnly, every bool) *tally {
	return &tally{base: base, gatesOnly: gatesOnly, every: every, used: make([]bool, base.n()), seed: maphash.MakeSeed()}
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
		return
	}
	j := t.base.find(e.EpisodeID, e.Source)
	if j < 0 || t.used[j] {
		// New, or a moved log (paired in finish): either way named.
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
}

// endFile ends the current log, whose hash is now known: its episodes'
// log_hash is compared, and they are counted.
func (t *tally) endFile(hash string) {
	for i := t.fileRows; i < len(t.rows); i++ {
		r := &t.rows[i]
		if !r.hashPending {
			if r.Current != nil && hash != "" {
				r.Current.LogHash = hash
			}
			continue
		}
		r.hashPending = false
		if r.Current != nil {
			r.Current.LogHash = hash
		}
		if t.base.hash(int(r.base)) != hash {
			t.hashDrift(r, hash)
		}
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
	clear(t.rows[t.fileRows:]) // no pointers kept past the length
	t.rows = t.rows[:t.fileRows]
	t.pending = t.pending[:0]
	t.ids = t.ids[:t.fileIDs]
	t.fileQ, t.fileCur = 0, 0
}

// finish pairs moved logs, lists the missing episodes (unreadable says
// why a source could not be read), and orders and names the rows.
func (t *tally) finish(unreadable map[string]string) {
	if t.base != nil {
		t.pairMoved()
		for j := range t.base.n() {
			if t.used[j] {
				continue
			}
			b := t.base.entry(j)
			t.rows = append(t.rows, Episode{
				EpisodeID: b.EpisodeID, Source: b.Source, Status: StatusMissing, Baseline: b,
				Drift:      []Drift{{Field: "episode", Baseline: b.Source}},
				Unreadable: unreadable[b.Source], seq: t.seq + int64(j), base: int32(j),
			})
		}
	}
	sort.Slice(t.rows, func(i, j int) bool {
		a, b := &t.rows[i], &t.rows[j]
		if a.EpisodeID != b.EpisodeID {
			return a.EpisodeID < b.EpisodeID
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.seq < b.seq
	})
	t.label()
}

// pairMoved matches the episodes left over on both sides: an id left
// exactly once on each is the same episode, its log moved.
func (t *tally) pairMoved() {
	leftCur := map[string][]int{}
	for i := range t.rows {
		if r := &t.rows[i]; r.base < 0 {
			leftCur[r.EpisodeID] = append(leftCur[r.EpisodeID], i)
		}
	}
	if len(leftCur) == 0 {
		return
	}
	leftBase := map[string][]int{}
	for j := range t.base.n() {
		if t.used[j] {
			continue
		}
		if _, ok := leftCur[string(t.base.idBytes(j))]; ok {
			id := t.base.id(j)
			if len(leftBase[id]) < 2 {
				leftBase[id] = append(leftBase[id], j)
			}
		}
	}
	dropped := false
	for id, is := range leftCur {
		js := leftBase[id]
		if len(is) != 1 || len(js) != 1 {
			continue
		}
		r, b := &t.rows[is[0]], t.base.entry(js[0])
		t.used[js[0]] = true
		r.base, r.Baseline = int32(js[0]), b
		r.Drift = diffEpisode(b, r.Current)
		r.Status = StatusUnchanged
		if len(r.Drift) > 0 {
			r.Status = StatusChanged
		} else {
			// Only a duplicate baseline entry pairs without drift.
			r.Baseline, r.Current = nil, nil
			if !t.every && r.Skipped == 0 {
				r.Status = "" // no row: dropped below
				t.quiet++
				dropped = true
			}
		}
	}
	if dropped {
		t.rows = slices.DeleteFunc(t.rows, func(r Episode) bool { return r.Status == "" })
	}
}

// label names each row by its id, adding the source where an id is
// shared by two episodes of the comparison.
func (t *tally) label() {
	shared := func(i int) bool {
		id := t.rows[i].EpisodeID
		return (i > 0 && t.rows[i-1].EpisodeID == id) || (i+1 < len(t.rows) && t.rows[i+1].EpisodeID == id)
	}
	if !t.every {
		// Rows are kept for a few episodes: count each kept id over the
		// whole comparison, which is every baseline entry (matched or
		// missing) and every new episode; without a baseline, every
		// episode (by hash: two ids sharing one by chance, 1 in 2^64,
		// would name their sources needlessly).
		n := map[string]int{}
		for i := range t.rows {
			n[t.rows[i].EpisodeID] = 0
		}
		switch {
		case t.gatesOnly:
			hashes := map[uint64]string{}
			for id := range n {
				hashes[maphash.String(t.seed, id)] = id
			}
			for _, h := range t.ids {
				if id, ok := hashes[h]; ok {
					n[id]++
				}
			}
			for i := range t.rows {
				n[t.rows[i].EpisodeID]++ // kept rows have no hash in ids
			}
		default:
			for j := range t.base.n() {
				if _, ok := n[string(t.base.idBytes(j))]; ok {
					n[string(t.base.idBytes(j))]++
				}
			}
			for i := range t.rows {
				if t.rows[i].base < 0 {
					n[t.rows[i].EpisodeID]++
				}
			}
		}
		shared = func(i int) bool { return n[t.rows[i].EpisodeID] > 1 }
	}
	for i := range t.rows {
		r := &t.rows[i]
		r.Label = r.EpisodeID
		if shared(i) {
			r.Label += " (" + r.Source + ")"
		}
	}
}

// statuses counts the comparison's episodes by status.
func (t *tally) statuses() map[string]int {
	s := map[string]int{}
	for i := range t.rows {
		s[t.rows[i].Status]++
	}
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
func (t *tally) episodes() []Episode { return t.rows }
