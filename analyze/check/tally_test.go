package check

// The streaming comparison (tally), the compact baseline (baseStore) and
// the spilling sorter against what they replaced: every entry held and
// compared in one pass (referenceCompare, the old Compare), and a
// baseline sorted and encoded whole.

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// referenceCompare is Compare as it was: every entry held, matched in
// one pass.
func referenceCompare(base, cur *Baseline, unreadable map[string]string) *Comparison {
	c := &Comparison{}
	if base == nil {
		for i := range cur.Episodes {
			e := &cur.Episodes[i]
			c.Episodes = append(c.Episodes, Episode{EpisodeID: e.EpisodeID, Source: e.Source, Status: StatusUnchecked, Current: e})
		}
		referenceLabels(c.Episodes)
		return c
	}
	c.Config = CompareConfig(base.Config, cur.Config)

	type key struct{ id, source string }
	baseAt := map[key]int{}
	for i := range base.Episodes {
		baseAt[key{base.Episodes[i].EpisodeID, base.Episodes[i].Source}] = i
	}
	usedBase := make([]bool, len(base.Episodes))
	pairOf := make([]int, len(cur.Episodes)) // index into base, -1 when none
	for i := range cur.Episodes {
		pairOf[i] = -1
		if j, ok := baseAt[key{cur.Episodes[i].EpisodeID, cur.Episodes[i].Source}]; ok && !usedBase[j] {
			pairOf[i] = j
			usedBase[j] = true
		}
	}
	// Moved logs: one unmatched episode with the id on each side.
	leftBase, leftCur := map[string][]int{}, map[string][]int{}
	for j := range base.Episodes {
		if !usedBase[j] {
			leftBase[base.Episodes[j].EpisodeID] = append(leftBase[base.Episodes[j].EpisodeID], j)
		}
	}
	for i := range cur.Episodes {
		if pairOf[i] < 0 {
			leftCur[cur.Episodes[i].EpisodeID] = append(leftCur[cur.Episodes[i].EpisodeID], i)
		}
	}
	for id, is := range leftCur {
		if js := leftBase[id]; len(is) == 1 && len(js) == 1 {
			pairOf[is[0]] = js[0]
			usedBase[js[0]] = true
		}
	}

	for i := range cur.Episodes {
		e := &cur.Episodes[i]
		ec := Episode{EpisodeID: e.EpisodeID, Source: e.Source, Current: e}
		if j := pairOf[i]; j >= 0 {
			ec.Baseline = &base.Episodes[j]
			ec.Drift = diffEpisode(ec.Baseline, e)
			ec.Status = StatusUnchanged
			if len(ec.Drift) > 0 {
				ec.Status = StatusChanged
			}
		} else {
			ec.Status = StatusNew
			ec.Drift = []Drift{{Field: "episode", Current: e.Source}}
		}
		c.Episodes = append(c.Episodes, ec)
	}
	for j := range base.Episodes {
		if usedBase[j] {
			continue
		}
		b := &base.Episodes[j]
		c.Episodes = append(c.Episodes, Episode{
			EpisodeID: b.EpisodeID, Source: b.Source, Status: StatusMissing, Baseline: b,
			Drift:      []Drift{{Field: "episode", Baseline: b.Source}},
			Unreadable: unreadable[b.Source],
		})
	}
	sort.SliceStable(c.Episodes, func(i, j int) bool {
		a, b := &c.Episodes[i], &c.Episodes[j]
		if a.EpisodeID != b.EpisodeID {
			return a.EpisodeID < b.EpisodeID
		}
		return a.Source < b.Source
	})
	referenceLabels(c.Episodes)
	return c
}

// labelEpisodes names each episode by its id, adding the source where an
// id is shared (two files holding the same episode id).
func referenceLabels(eps []Episode) {
	// Sorted by id (Compare's order), a shared id has an equal neighbour:
	// no map of a million ids.
	sorted := sort.SliceIsSorted(eps, func(i, j int) bool { return eps[i].EpisodeID < eps[j].EpisodeID })
	var n map[string]int
	if !sorted {
		n = map[string]int{}
		for i := range eps {
			n[eps[i].EpisodeID]++
		}
	}
	for i := range eps {
		id := eps[i].EpisodeID
		eps[i].Label = id
		shared := n[id] > 1
		if sorted {
			shared = (i > 0 && eps[i-1].EpisodeID == id) || (i+1 < len(eps) && eps[i+1].EpisodeID == id)
		}
		if shared {
			eps[i].Label += " (" + eps[i].Source + ")"
		}
	}
}

// randomEntry is an entry of a small world: few ids and sources, so ids
// repeat, logs move and duplicates happen.
func randomEntry(r *rand.Rand) Entry {
	e := Entry{
		EpisodeID: fmt.Sprintf("ep-%d", r.Intn(8)), Source: fmt.Sprintf("logs/s%d.jsonl", r.Intn(5)),
		RecordedTurns: 10 + r.Intn(3), FinalScore: float64(r.Intn(3)) / 2, TurnsSaved: r.Intn(2), LLMCallsSaved: r.Intn(2),
		LLMCallsMethod: []string{"estimated", "counted"}[r.Intn(2)], ScoreForfeited: float64(r.Intn(2)),
		FalseTermination: r.Intn(4) == 0, Censored: r.Intn(5) == 0, WouldReject: r.Intn(2), LowConfidence: r.Intn(2),
		FiringCounts: map[string]int{"camping/detection": r.Intn(2), "monologue/stop": 0},
	}
	if r.Intn(3) == 0 {
		t := 40 + r.Intn(2)
		e.TerminationTurn = &t
	}
	for range r.Intn(3) {
		e.Checkpoints = append(e.Checkpoints, 10*(1+r.Intn(4)))
	}
	if r.Intn(4) == 0 {
		delete(e.FiringCounts, "monologue/stop") // absent is 0: no drift
	}
	return e
}

// corpusFile is one log of a random corpus: its episodes, their
// unreadable lines, its hash, and whether it fails before its end.
type corpusFile struct {
	source  string
	entries []Entry
	skipped []int
	hash    string
	fails   bool
}

func randomCase(r *rand.Rand) (base *Baseline, files []corpusFile) {
	base = NewBaseline(rules.Default())
	for range r.Intn(14) {
		e := randomEntry(r)
		e.LogHash = fmt.Sprintf("sha256:%d", r.Intn(2))
		base.Episodes = append(base.Episodes, e)
	}
	if r.Intn(3) > 0 {
		base.Sort() // as loopbreak writes it; else as edited by hand
	}
	for s := range 5 {
		if r.Intn(4) == 0 {
			continue // not among the inputs
		}
		f := corpusFile{source: fmt.Sprintf("logs/s%d.jsonl", s), hash: fmt.Sprintf("sha256:%d", r.Intn(2)), fails: r.Intn(6) == 0}
		for range r.Intn(5) {
			e := randomEntry(r)
			e.Source = f.source
			f.entries = append(f.entries, e)
			f.skipped = append(f.skipped, max(0, r.Intn(6)-4))
		}
		files = append(files, f)
	}
	return base, files
}

// streamed compares files as Run does: a log at a time, its hash at its
// end.
func streamed(base *Baseline, files []corpusFile, gatesOnly, every bool) (*tally, map[string]string) {
	var store *baseStore
	if base != nil {
		store = storeOf(base)
	}
	t := newTally(store, gatesOnly, every)
	unreadable := map[string]string{}
	for _, f := range files {
		for i := range f.entries {
			e := f.entries[i]
			e.LogHash = ""
			var problems []string
			if f.skipped[i] > 0 {
				problems = []string{fmt.Sprintf("%s:%d: not JSON", f.source, i)}
			}
			t.add(&e, false, f.skipped[i], problems)
		}
		if f.fails {
			t.dropFile()
			unreadable[f.source] = "gzip: invalid header"
		} else {
			t.endFile(f.hash)
		}
	}
	if err := t.finish(unreadable); err != nil {
		panic(err)
	}
	return t, unreadable
}

// held is the corpus as Collect held it: every entry of the logs read to
// their end, sorted, with each one's unreadable lines.
func held(files []corpusFile) (*Baseline, map[*Entry]int) {
	type item struct {
		e       Entry
		skipped int
	}
	var items []item
	for _, f := range files {
		if f.fails {
			continue
		}
		for i, e := range f.entries {
			e.LogHash = f.hash
			items = append(items, item{e, f.skipped[i]})
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return lessEpisode(&items[i].e, &items[j].e) })
	cur := NewBaseline(rules.Default())
	for _, it := range items {
		cur.Episodes = append(cur.Episodes, it.e)
	}
	skipped := map[*Entry]int{}
	for i := range cur.Episodes {
		skipped[&cur.Episodes[i]] = items[i].skipped
	}
	return cur, skipped
}

func describeRow(e *Episode) string {
	s := fmt.Sprintf("%s|%s|%s|%s|%v|%q", e.Label, e.EpisodeID, e.Source, e.Status, e.Drift, e.Unreadable)
	if len(e.Drift) > 0 {
		// What drift messages quote.
		for _, x := range []*Entry{e.Baseline, e.Current} {
			if x == nil {
				s += "|nil"
				continue
			}
			term := "-"
			if x.TerminationTurn != nil {
				term = fmt.Sprint(*x.TerminationTurn)
			}
			s += fmt.Sprintf("|%s %s %s %v %v %d %v %v", x.Source, x.LogHash, term, x.Checkpoints, x.FinalScore, x.TurnsSaved, x.ScoreForfeited, x.Censored)
		}
	}
	return s
}

// Random corpora compared as they stream give the rows, labels and
// counts of the comparison that held them all: every row with every
// episode kept, and the named ones (drift, unreadable lines) without.
func TestTallyMatchesHeldComparison(t *testing.T) {
	tallyMatchesHeld(t, 3000, nil)
}

// Rows spilled past a small bound: no more than the bound are ever held,
// and the rows read back are those held in memory, field for field.
func TestTallySpillsRowsPastBound(t *testing.T) {
	defer func(n int) { rowRun = n }(rowRun)
	for _, bound := range []int{1, 2, 3, 7} {
		rowRun = 1 << 14
		var held [][]Episode
		tallyMatchesHeld(t, 600, func(tl *tally, rows []Episode) { held = append(held, rows) })
		rowRun = bound
		i, spilled := 0, 0
		tallyMatchesHeld(t, 600, func(tl *tally, rows []Episode) {
			if tl.maxHeld > bound {
				t.Fatalf("bound %d: %d rows held at once", bound, tl.maxHeld)
			}
			if tl.spill != nil {
				t.Fatalf("bound %d: spill file left open", bound)
			}
			if len(rows) > bound {
				spilled++
			}
			if !reflect.DeepEqual(rows, held[i]) {
				t.Fatalf("bound %d, comparison %d: rows read back\n%+v\nwant\n%+v", bound, i, rows, held[i])
			}
			i++
		})
		if spilled == 0 {
			t.Fatalf("bound %d: nothing spilled", bound)
		}
	}
}

// tallyMatchesHeld compares cases random corpora as they stream with the
// comparison that held them all; each (with every row and without) is
// handed to seen if set.
func tallyMatchesHeld(t *testing.T, cases int, seen func(*tally, []Episode)) {
	t.Helper()
	r := rand.New(rand.NewSource(9))
	for n := range cases {
		base, files := randomCase(r)
		mode := []string{ModeCompare, ModeUpdate, ModeGatesOnly}[n%3]
		if mode == ModeUpdate && n%2 == 0 {
			base = nil // a first update
		}
		cur, skipped := held(files)
		unreadable := map[string]string{}
		for _, f := range files {
			if f.fails {
				unreadable[f.source] = "gzip: invalid header"
			}
		}
		var want *Comparison
		switch {
		case mode == ModeGatesOnly:
			want = referenceCompare(nil, cur, nil)
		case base == nil:
			want = referenceCompare(&Baseline{Config: cur.Config}, cur, unreadable)
		default:
			want = referenceCompare(base, cur, unreadable)
		}
		wantStatus := map[string]int{}
		var wantAll, wantNamed []string
		for i := range want.Episodes {
			e := &want.Episodes[i]
			if e.Current != nil {
				e.Skipped = skipped[e.Current]
			}
			wantStatus[e.Status]++
			wantAll = append(wantAll, describeRow(e)+fmt.Sprint("|", e.Skipped))
			if len(e.Drift) > 0 || e.Skipped > 0 {
				wantNamed = append(wantNamed, describeRow(e)+fmt.Sprint("|", e.Skipped))
			}
		}
		if mode == ModeGatesOnly {
			base = nil
		}
		for _, every := range []bool{true, false} {
			tl, _ := streamed(base, files, mode == ModeGatesOnly, every)
			var got []string
			rows, err := tl.episodes()
			if err != nil {
				t.Fatal(err)
			}
			if seen != nil {
				seen(tl, rows)
			}
			tl.close()
			for i := range rows {
				got = append(got, describeRow(&rows[i])+fmt.Sprint("|", rows[i].Skipped))
			}
			w := wantNamed
			if every {
				w = wantAll
			}
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Fatalf("case %d (%s, every %v):\ngot\n%s\nwant\n%s", n, mode, every, strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
			if st := tl.statuses(); !reflect.DeepEqual(st, wantStatus) && !(len(st) == 0 && len(wantStatus) == 0) {
				t.Fatalf("case %d (%s, every %v): statuses %v, want %v", n, mode, every, st, wantStatus)
			}
			if tl.current != len(cur.Episodes) {
				t.Fatalf("case %d: %d current episodes, want %d", n, tl.current, len(cur.Episodes))
			}
		}
	}
}

// A comparison with nothing drifting keeps no row, and nothing per
// episode once its log ended: matched episodes wait for their log's hash
// as two numbers, then are only counted.
func TestTallyKeepsNoRowPerEpisode(t *testing.T) {
	const n = 50000
	base := NewBaseline(rules.Default())
	for i := range n {
		e := entry(fmt.Sprintf("ep-%06d", i), "big.jsonl", 0, 0)
		e.LogHash = "sha256:big"
		base.Episodes = append(base.Episodes, e)
	}
	for _, gatesOnly := range []bool{false, true} {
		var store *baseStore
		if !gatesOnly {
			store = storeOf(base)
		}
		tl := newTally(store, gatesOnly, false)
		for i := range base.Episodes {
			e := base.Episodes[i]
			e.LogHash = ""
			tl.add(&e, false, 0, nil)
		}
		if len(tl.rows) != 0 {
			t.Fatalf("gates only %v: %d rows kept before the log ended", gatesOnly, len(tl.rows))
		}
		tl.endFile("sha256:big")
		tl.finish(nil)
		if len(tl.out) != 0 || len(tl.pending) != 0 || tl.quiet != n || tl.current != n {
			t.Errorf("gates only %v: %d rows, %d pending, %d counted of %d", gatesOnly, len(tl.out), len(tl.pending), tl.quiet, n)
		}
	}
	// The log changed: every episode drifted, and is named.
	tl := newTally(storeOf(base), false, false)
	for i := range base.Episodes {
		e := base.Episodes[i]
		tl.add(&e, false, 0, nil)
	}
	tl.endFile("sha256:other")
	tl.finish(nil)
	rows, err := tl.episodes()
	tl.close()
	if err != nil || len(rows) != n || rows[0].Drift[0].Field != "log_hash" || rows[0].Status != StatusChanged {
		t.Fatalf("%d rows for %d changed episodes (%v)", len(rows), n, err)
	}
}

// The compact store gives back every entry as it was, and finds them
// as a map from (id, source) filled in order did: the last of
// duplicates.
func TestBaseStore(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for range 200 {
		base, _ := randomCase(r)
		s := storeOf(base)
		for j := range base.Episodes {
			e := base.Episodes[j]
			if e.FiringCounts == nil {
				e.FiringCounts = map[string]int{}
			}
			if e.Checkpoints == nil {
				e.Checkpoints = []int{}
			}
			if got := s.entry(j); !reflect.DeepEqual(*got, e) {
				t.Fatalf("entry %d: got %+v, want %+v", j, *got, e)
			}
		}
		last := map[[2]string]int{}
		for j, e := range base.Episodes {
			last[[2]string{e.EpisodeID, e.Source}] = j
		}
		for i := range 8 {
			for src := range 5 {
				id, source := fmt.Sprintf("ep-%d", i), fmt.Sprintf("logs/s%d.jsonl", src)
				want, ok := last[[2]string{id, source}]
				if !ok {
					want = -1
				}
				if got := s.find(id, source); got != want {
					t.Fatalf("find(%s, %s) = %d, want %d", id, source, got, want)
				}
			}
		}
	}
}

// The sorter writes what sorting and encoding every entry wrote, byte
// for byte, in memory or spilled in many runs, the entries of logs that
// failed left out.
func TestSorterMatchesEncode(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	defer func(n int) { sortRun = n }(sortRun)
	for n := range 300 {
		sortRun = []int{1 << 15, 1, 2, 3, 7}[n%5]
		_, files := randomCase(r)
		kept := NewBaseline(rules.Default()) // entries an update keeps, hash final
		for range r.Intn(3) {
			e := randomEntry(r)
			e.LogHash = "sha256:kept"
			kept.Episodes = append(kept.Episodes, e)
		}
		s := newEntrySorter()
		for _, f := range files {
			for _, e := range f.entries {
				if err := s.add(e, true); err != nil {
					t.Fatal(err)
				}
			}
			if f.fails {
				s.dropFile()
			} else {
				s.endFile(f.hash)
			}
		}
		for _, e := range kept.Episodes {
			if err := s.add(e, false); err != nil {
				t.Fatal(err)
			}
		}
		cur, _ := held(files)
		cur.Episodes = append(cur.Episodes, kept.Episodes...)
		cur.Sort()
		want := cur.Encode()
		for range 2 { // as often as a write needs it
			var b bytes.Buffer
			head := NewBaseline(rules.Default())
			head.encodeHead(&b)
			if err := s.writeEntries(&b); err != nil {
				t.Fatal(err)
			}
			b.WriteString(encodeTail)
			if b.String() != string(want) {
				t.Fatalf("case %d (runs of %d): got\n%s\nwant\n%s", n, sortRun, b.String(), want)
			}
		}
		if sortRun < 4 && len(cur.Episodes) > 4 && len(s.runs) == 0 {
			t.Fatalf("case %d: %d entries in runs of %d, none spilled", n, len(cur.Episodes), sortRun)
		}
		s.close()
	}
}

// Reading a baseline file an entry at a time gives what reading it whole
// did: the same baseline, or the same error.
func TestReadBaselineAsParse(t *testing.T) {
	ok := `{"schema_version": 1, "config": {"max_turns_stuck": 40}, "episodes": [{"episode_id": "E", "source": "x", "log_hash": "sha256:00", "checkpoints": [10, 20], "firing_counts": {"a/b": 2}}, {"episode_id": "F", "source": "x", "log_hash": "sha256:00", "termination_turn": 7}]}`
	docs := []string{
		ok,
		`{"schema_version": 1,`,
		"{\n\"schema_version\": 1,\n\"episodes\": [}\n",
		`{"episodes": []}`,
		`{"schema_version": 2}`,
		`{"schema_version": 1, "episodes": [{"source": "x", "log_hash": "sha256:00"}]}`,
		`{"schema_version": 1, "episodes": [{"episode_id": "E", "log_hash": "sha256:00"}]}`,
		`{"schema_version": 1, "episodes": [{"episode_id": "E", "source": "x", "log_hash": "md5:00"}]}`,
		`{"schema_version": 2, "episodes": [{"episode_id": "E", "source": "x", "log_hash": "md5:00"}]}`,
		`{"schema_version": 1} {}`,
		`{"schema_version": 1}  ` + "\n",
		`{"schema_version": "one"}`,
		`{"schema_version": 1, "episodes": [{"episode_id": "E", "source": "x", "log_hash": "sha256:00", "recorded_turns": "3"}]}`,
		`{"schema_version": 1, "episodes": null}`,
		`{"schema_version": 1, "episodes": 5}`,
		`{"Schema_Version": 1, "EPISODES": [{"Episode_ID": "E", "source": "x", "log_hash": "sha256:00"}], "extra": [1, 2]}`,
		`{"schema_version": 1, "config": {"a": 1}, "config": {"b": true}, "episodes": []}`,
		`{"schema_version": 1, "episodes": [], "episodes": [{"episode_id": "E", "source": "x", "log_hash": "sha256:00"}]}`,
		`[]`,
		``,
		`{"schema_version": 1, "episodes": [{"episode_id": "E\u00e9\ud800", "source": "x", "log_hash": "sha256:00"}]}`,
	}
	dir := t.TempDir()
	for i, doc := range docs {
		file := fmt.Sprintf("%s/b%d.json", dir, i)
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := ParseBaseline([]byte(doc))
		if werr != nil {
			werr = fmt.Errorf("%s: %w", file, werr)
		}
		got, gerr := ReadBaseline(file)
		store, _, serr := readStore(file, nil)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || fmt.Sprint(serr) != fmt.Sprint(werr) {
			t.Errorf("%s:\nReadBaseline: %v\nreadStore: %v\nwant %v", doc, gerr, serr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if len(want.Episodes) == 0 {
			want.Episodes = []Entry{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", doc, got, want)
		}
		if !reflect.DeepEqual(store.Config, want.Config) || store.n() != len(want.Episodes) {
			t.Errorf("%s: store of %d entries, config %v", doc, store.n(), store.Config)
		}
		for j := range want.Episodes {
			w := want.Episodes[j]
			if w.Checkpoints == nil {
				w.Checkpoints = []int{}
			}
			if e := store.entry(j); !reflect.DeepEqual(*e, w) {
				t.Errorf("%s: entry %d\ngot  %+v\nwant %+v", doc, j, *e, w)
			}
		}
	}
}

// referenceEncode is Entry.encode as it was, through fmt and
// encoding/json.
func referenceEncode(e *Entry, w *bytes.Buffer, ind string) {
	term := "null"
	if e.TerminationTurn != nil {
		term = strconv.Itoa(*e.TerminationTurn)
	}
	cps := make([]string, len(e.Checkpoints))
	for i, c := range e.Checkpoints {
		cps[i] = strconv.Itoa(c)
	}
	fields := [][2]string{
		{"episode_id", lit(e.EpisodeID)},
		{"source", lit(e.Source)},
		{"log_hash", lit(e.LogHash)},
		{"recorded_turns", strconv.Itoa(e.RecordedTurns)},
		{"final_score", lit(e.FinalScore)},
		{"termination_turn", term},
		{"checkpoints", "[" + strings.Join(cps, ", ") + "]"},
		{"turns_saved", strconv.Itoa(e.TurnsSaved)},
		{"llm_calls_saved", strconv.Itoa(e.LLMCallsSaved)},
		{"llm_calls_method", lit(e.LLMCallsMethod)},
		{"score_forfeited", lit(e.ScoreForfeited)},
		{"false_termination", strconv.FormatBool(e.FalseTermination)},
		{"censored", strconv.FormatBool(e.Censored)},
		{"would_reject", strconv.Itoa(e.WouldReject)},
		{"low_confidence", strconv.Itoa(e.LowConfidence)},
	}
	w.WriteString("{\n")
	for _, f := range fields {
		fmt.Fprintf(w, "%s  %q: %s,\n", ind, f[0], f[1])
	}
	fmt.Fprintf(w, "%s  \"firing_counts\": ", ind)
	writeObject(w, ind+"  ", slices.Sorted(maps.Keys(e.FiringCounts)), func(k string) string { return strconv.Itoa(e.FiringCounts[k]) })
	fmt.Fprintf(w, "\n%s}", ind)
}

// Entries are encoded byte for byte as fmt and encoding/json wrote them,
// whatever their strings and numbers.
func TestEntryEncodeAsBefore(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	strs := []string{"", "ep-1", "a\"b", `back\slash`, "tab\there", "nl\n", "<html>&", "é", "\u2028", "\xff\xfe", "\x00", "~ ", "sha256:00ff"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1 + 0.2, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1e22, -1e21, 123456.789, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	pick := func(xs []string) string { return xs[r.Intn(len(xs))] }
	for range 5000 {
		e := randomEntry(r)
		e.EpisodeID, e.Source, e.LogHash, e.LLMCallsMethod = pick(strs), pick(strs), pick(strs), pick(strs)
		e.FinalScore, e.ScoreForfeited = floats[r.Intn(len(floats))], floats[r.Intn(len(floats))]
		e.RecordedTurns, e.WouldReject = r.Intn(3)-1, -r.Intn(1<<40)
		e.FiringCounts[pick(strs)] = r.Intn(5) - 2
		if r.Intn(5) == 0 {
			e.FiringCounts = nil
		}
		var got, want bytes.Buffer
		got.WriteString("x")
		want.WriteString("x")
		e.encode(&got, "    ")
		referenceEncode(&e, &want, "    ")
		if got.String() != want.String() {
			t.Fatalf("got\n%s\nwant\n%s", got.String(), want.String())
		}
	}
}
