package analyze

// Labelled episodes (issue 11): spans of turns a person judged stuck, and
// how each rule's firings score against them. false_termination judges a
// rule against the recording's own future; labels judge it against people.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/loopbreak/loopbreak/rules"
)

// LabelsSidecar is the file name read next to each log.
const LabelsSidecar = "labels.json"

// LabelsSchemaVersion is the only schema_version a labels file may state.
const LabelsSchemaVersion = 1

// Span is an inclusive range of turn (or step, or attempt) numbers a
// person judged stuck: the unit is whatever the log numbers its firings by.
type Span struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Note string `json:"note,omitempty"`
}

// EpisodeLabels are one episode's spans, sorted and disjoint. No spans
// means the episode was labelled "never stuck": every firing is a false
// positive there.
type EpisodeLabels struct {
	Source string // the labels file they come from
	Stuck  []Span
}

// LabelsFile is a parsed labels file: either keyed by episode id (the
// "episodes" form) or one episode's spans (the sidecar's "stuck" form).
type LabelsFile struct {
	Path     string
	Episodes map[string]*EpisodeLabels // the "episodes" form
	Single   *EpisodeLabels            // the "stuck" form: the log's one episode
}

// LabelsError is a labels file that breaks the format: File, the JSON
// path of the offending value ($ is the document) and why.
type LabelsError struct {
	File, Path, Reason string
}

func (e *LabelsError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Path, e.Reason)
}

// maxLabelsBytes bounds a labels file: people write them, so anything
// larger is not one.
const maxLabelsBytes = 64 << 20

// ReadLabelsFile reads and validates a labels file.
func ReadLabelsFile(path string) (*LabelsFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLabelsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxLabelsBytes {
		return nil, &LabelsError{File: path, Reason: fmt.Sprintf("larger than %d MiB", maxLabelsBytes>>20)}
	}
	return ParseLabels(path, data)
}

// ParseLabels validates data as a labels file named name (for errors).
// Validation is strict: unknown keys, wrong types, non-integral or
// negative turns, from > to and overlapping spans are errors, each naming
// the JSON path.
func ParseLabels(name string, data []byte) (*LabelsFile, error) {
	fail := func(path, format string, a ...any) error {
		return &LabelsError{File: name, Path: path, Reason: fmt.Sprintf(format, a...)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fail("", "not JSON: %s", jsonErr(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("", "not JSON: more than one value")
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fail("$", "must be an object, got %s", jsonType(doc))
	}
	lf := &LabelsFile{Path: name}
	if v, ok := top["schema_version"]; ok {
		n, ok := v.(json.Number)
		if !ok || n.String() != strconv.Itoa(LabelsSchemaVersion) {
			return nil, fail("$.schema_version", "must be %d, got %s", LabelsSchemaVersion, jsonText(v))
		}
	}
	_, hasEps := top["episodes"]
	_, hasStuck := top["stuck"]
	switch {
	case hasEps && hasStuck:
		return nil, fail("$", `has both "episodes" and "stuck": use one form`)
	case !hasEps && !hasStuck:
		return nil, fail("$", `needs "episodes" (spans by episode id) or "stuck" (this log's spans)`)
	}
	for _, k := range sortedKeys(top) {
		if k != "schema_version" && k != "episodes" && k != "stuck" {
			return nil, fail("$."+k, "unknown key (want schema_version, episodes or stuck)")
		}
	}
	if hasStuck {
		spans, err := parseSpans(top["stuck"], "$.stuck", fail)
		if err != nil {
			return nil, err
		}
		lf.Single = &EpisodeLabels{Source: name, Stuck: spans}
		return lf, nil
	}
	eps, ok := top["episodes"].(map[string]any)
	if !ok {
		return nil, fail("$.episodes", "must be an object keyed by episode id, got %s", jsonType(top["episodes"]))
	}
	lf.Episodes = make(map[string]*EpisodeLabels, len(eps))
	for _, id := range sortedKeys(eps) {
		path := "$.episodes[" + strconv.Quote(id) + "]"
		if id == "" {
			return nil, fail(path, "an episode id must not be empty")
		}
		ep, ok := eps[id].(map[string]any)
		if !ok {
			return nil, fail(path, `must be an object such as {"stuck": [...]}, got %s`, jsonType(eps[id]))
		}
		for _, k := range sortedKeys(ep) {
			if k != "stuck" {
				return nil, fail(path+"."+k, "unknown key (want stuck)")
			}
		}
		var spans []Span
		if v, ok := ep["stuck"]; ok {
			var err error
			if spans, err = parseSpans(v, path+".stuck", fail); err != nil {
				return nil, err
			}
		}
		lf.Episodes[id] = &EpisodeLabels{Source: name, Stuck: spans}
	}
	return lf, nil
}

// parseSpans validates a list of spans and returns them sorted by From.
func parseSpans(v any, path string, fail func(path, format string, a ...any) error) ([]Span, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fail(path, "must be a list of spans, got %s", jsonType(v))
	}
	spans := make([]Span, 0, len(list))
	idx := make([]int, 0, len(list)) // position as written, for errors after sorting
	for i, item := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, fail(p, `must be an object {"from": N, "to": N}, got %s`, jsonType(item))
		}
		var s Span
		for _, k := range sortedKeys(obj) {
			switch k {
			case "from", "to":
			case "note":
				note, ok := obj[k].(string)
				if !ok {
					return nil, fail(p+".note", "must be a string, got %s", jsonType(obj[k]))
				}
				s.Note = note
			default:
				return nil, fail(p+"."+k, "unknown key (want from, to or note)")
			}
		}
		for _, f := range []struct {
			key string
			dst *int
		}{{"from", &s.From}, {"to", &s.To}} {
			raw, ok := obj[f.key]
			if !ok {
				return nil, fail(p, "missing %q", f.key)
			}
			n, err := turnNumber(raw)
			if err != nil {
				return nil, fail(p+"."+f.key, "%v", err)
			}
			*f.dst = n
		}
		if s.From > s.To {
			return nil, fail(p, "from (%d) is after to (%d)", s.From, s.To)
		}
		spans = append(spans, s)
		idx = append(idx, i)
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return spans[order[a]].From < spans[order[b]].From })
	sorted := make([]Span, len(spans))
	for k, i := range order {
		sorted[k] = spans[i]
		if k > 0 {
			prev := sorted[k-1]
			if prev.To >= spans[i].From { // inclusive spans: sharing a turn is overlapping
				return nil, fail(fmt.Sprintf("%s[%d]", path, idx[i]), "overlaps %s[%d] (%d–%d)", path, idx[order[k-1]], prev.From, prev.To)
			}
		}
	}
	return sorted, nil
}

// maxLabelTurn matches the reader's bound on turn numbers.
const maxLabelTurn = 100_000_000

func turnNumber(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("must be an integer, got %s", jsonType(v))
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(n.String(), 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) <= maxLabelTurn {
			i = int64(f) // 21.0 is 21; 21.5 is not a turn
		} else {
			return 0, fmt.Errorf("must be an integer, got %s", n)
		}
	}
	if i < 0 {
		return 0, fmt.Errorf("must not be negative, got %d", i)
	}
	if i > maxLabelTurn {
		return 0, fmt.Errorf("must be at most %d, got %d", maxLabelTurn, i)
	}
	return int(i), nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 40 {
		return jsonType(v)
	}
	return string(b)
}

// jsonErr words a decoding error with its line and column.
func jsonErr(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset <= int64(len(data)) {
		before := data[:se.Offset]
		line := bytes.Count(before, []byte{'\n'}) + 1
		col := int(se.Offset) - bytes.LastIndexByte(before, '\n') - 1
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	}
	if err == io.EOF {
		return "empty file"
	}
	return err.Error()
}

// Labels finds each episode's labels: --labels first, then the sidecar
// labels.json next to its log. It is built before the run (every file
// validated up front, so a bad file stops the run before any output) and
// is safe for concurrent use.
type Labels struct {
	explicit *LabelsFile
	sidecars map[string]*LabelsFile // log directory → its labels.json; nil: none

	mu     sync.Mutex
	singly map[string]string       // log path → episode the "stuck" form labelled
	used   map[*EpisodeLabels]bool // labels handed to an episode
}

// LoadLabels reads explicit (the --labels file; "" for none) and the
// sidecar of every log in logs. It returns nil, nil when there are no
// labels at all.
func LoadLabels(explicit string, logs []string) (*Labels, error) {
	l := &Labels{sidecars: map[string]*LabelsFile{}, singly: map[string]string{}, used: map[*EpisodeLabels]bool{}}
	found := false
	if explicit != "" {
		lf, err := ReadLabelsFile(explicit)
		if err != nil {
			return nil, err
		}
		if lf.Single != nil {
			return nil, &LabelsError{File: explicit, Path: "$", Reason: `--labels needs the "episodes" form (spans by episode id); {"stuck": [...]} belongs in a labels.json next to one log`}
		}
		l.explicit, found = lf, true
	}
	for _, log := range logs {
		if log == "-" {
			continue
		}
		dir := filepath.Dir(log)
		if _, seen := l.sidecars[dir]; seen {
			continue
		}
		path := filepath.Join(dir, LabelsSidecar)
		lf, err := ReadLabelsFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			l.sidecars[dir] = nil
			continue
		case err != nil:
			return nil, err
		}
		l.sidecars[dir], found = lf, true
	}
	if !found {
		return nil, nil
	}
	return l, nil
}

// For returns the labels of episode id read from log, nil when it is
// unlabelled (it then counts nowhere). The --labels file wins over a
// sidecar for the episodes it lists. A sidecar's "stuck" form labels its
// log's one episode: a second episode of that log is an error, since the
// spans cannot say which episode they mean.
func (l *Labels) For(log, id string) (*EpisodeLabels, error) {
	if l == nil {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var lf *LabelsFile
	if log != "-" {
		lf = l.sidecars[filepath.Dir(log)]
	}
	if l.explicit != nil {
		if e := l.explicit.Episodes[id]; e != nil {
			l.used[e] = true
			if lf != nil { // shadowed, not forgotten: no warning for it
				if lf.Single != nil {
					l.used[lf.Single] = true
				} else if se := lf.Episodes[id]; se != nil {
					l.used[se] = true
				}
			}
			return e, nil
		}
	}
	if lf == nil {
		return nil, nil
	}
	if lf.Single == nil {
		e := lf.Episodes[id]
		if e != nil {
			l.used[e] = true
		}
		return e, nil
	}
	if prev, ok := l.singly[log]; ok && prev != id {
		return nil, &LabelsError{File: lf.Path, Path: "$.stuck", Reason: fmt.Sprintf("labels one episode, but %s holds several (%s, %s): key the spans by episode id under \"episodes\"", log, prev, id)}
	}
	l.singly[log] = id
	l.used[lf.Single] = true
	return lf.Single, nil
}

// Unused words the labels no episode read so far took: most often a
// mistyped episode id, which would otherwise silently score nothing.
func (l *Labels) Unused() []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	check := func(lf *LabelsFile) {
		if lf == nil {
			return
		}
		if lf.Single != nil && !l.used[lf.Single] {
			out = append(out, fmt.Sprintf("%s: no episode was read from this directory", lf.Path))
		}
		for _, id := range sortedKeys(anyMap(lf.Episodes)) {
			if !l.used[lf.Episodes[id]] {
				out = append(out, fmt.Sprintf("%s: $.episodes[%s]: no episode with this id was read", lf.Path, strconv.Quote(id)))
			}
		}
	}
	check(l.explicit)
	dirs := make([]string, 0, len(l.sidecars))
	for d := range l.sidecars {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		check(l.sidecars[d])
	}
	return out
}

func anyMap[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Scored says whether firings of kind k are scored against labels: every
// kind is a claim that the agent is stuck, except progress_velocity's
// reset, which says it just made progress.
func Scored(k *rules.Kind) bool { return k != rules.Reset }

// ScoredKinds lists the "rule/kind" keys of set (nil: the registry)
// enabled under cfg that are scored, in registry order.
func ScoredKinds(set []*rules.Rule, cfg *rules.Config) []string {
	if set == nil {
		set = rules.Registry
	}
	var keys []string
	for _, r := range set {
		if !r.Enabled(cfg) {
			continue
		}
		for _, k := range r.Kinds {
			if Scored(k) {
				keys = append(keys, r.Name+"/"+k.Name)
			}
		}
	}
	return keys
}

// Score is how one rule/kind's firings fare against labelled spans, as
// exact counts, so scores of episodes, sweep rows and shards add up
// exactly (Merge); ratios are derived.
type Score struct {
	Firings int // firings on labelled episodes
	Inside  int // of which inside a labelled span
	Spans   int // labelled spans
	Caught  int // spans with at least one firing inside
	// Leads counts caught spans by lead time: the first firing's turn
	// inside the span minus the span's first turn.
	Leads map[int]int
}

// Merge adds o's counts to s.
func (s *Score) Merge(o *Score) {
	s.Firings += o.Firings
	s.Inside += o.Inside
	s.Spans += o.Spans
	s.Caught += o.Caught
	for lead, n := range o.Leads {
		if s.Leads == nil {
			s.Leads = map[int]int{}
		}
		s.Leads[lead] += n
	}
}

// Precision is Inside/Firings; ok is false without firings.
func (s *Score) Precision() (p float64, ok bool) {
	if s.Firings == 0 {
		return 0, false
	}
	return float64(s.Inside) / float64(s.Firings), true
}

// Recall is Caught/Spans; ok is false without spans.
func (s *Score) Recall() (r float64, ok bool) {
	if s.Spans == 0 {
		return 0, false
	}
	return float64(s.Caught) / float64(s.Spans), true
}

// F1 is the harmonic mean of precision and recall. An undefined side
// counts as 0 (a rule that never fires caught nothing; firings on
// never-stuck episodes are all false), so F1 is undefined only when there
// are neither firings nor spans.
func (s *Score) F1() (f float64, ok bool) {
	p, pok := s.Precision()
	r, rok := s.Recall()
	if !pok && !rok {
		return 0, false
	}
	if p+r == 0 {
		return 0, true
	}
	return 2 * p * r / (p + r), true
}

// LeadMedian and LeadMax are over caught spans; ok is false when none.
func (s *Score) LeadMedian() (float64, bool) {
	if s.Caught == 0 {
		return 0, false
	}
	return histMedian(s.Leads, s.Caught), true
}

// LeadMax is the longest lead time over caught spans.
func (s *Score) LeadMax() (int, bool) {
	if s.Caught == 0 {
		return 0, false
	}
	m := 0
	for lead := range s.Leads {
		m = max(m, lead)
	}
	return m, true
}

// LeadList is every caught span's lead time, ascending.
func (s *Score) LeadList() []int {
	out := make([]int, 0, s.Caught)
	keys := make([]int, 0, len(s.Leads))
	for k := range s.Leads {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		for range s.Leads[k] {
			out = append(out, k)
		}
	}
	return out
}

// Scores are one episode's (or one corpus') scores by "rule/kind".
type Scores map[string]*Score

// Merge adds o into s.
func (s Scores) Merge(o Scores) {
	for k, v := range o {
		if s[k] == nil {
			s[k] = &Score{}
		}
		s[k].Merge(v)
	}
}

// Scorer scores one episode's firings against its labels as they are
// reported, so nothing needs to keep the firings.
type Scorer struct {
	spans []Span
	kinds map[string]*kindState
	order []string
}

type kindState struct {
	score Score
	first []int // per span, the first firing's turn inside it; -1: none
}

// NewScorer scores against lab the kinds listed (so a kind that never
// fires still scores); kinds firing outside the list are added as seen.
func NewScorer(lab *EpisodeLabels, kinds []string) *Scorer {
	s := &Scorer{spans: lab.Stuck, kinds: map[string]*kindState{}}
	for _, k := range kinds {
		s.state(k)
	}
	return s
}

func (s *Scorer) state(key string) *kindState {
	st := s.kinds[key]
	if st == nil {
		st = &kindState{first: make([]int, len(s.spans))}
		for i := range st.first {
			st.first[i] = -1
		}
		s.kinds[key] = st
		s.order = append(s.order, key)
	}
	return st
}

// Add scores one firing.
func (s *Scorer) Add(f *rules.Firing) {
	if !Scored(f.Kind) {
		return
	}
	st := s.state(f.KindKey())
	st.score.Firings++
	// Spans are sorted and disjoint: the first ending at or after the
	// turn is the only one that can hold it.
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].To >= f.Turn })
	if i < len(s.spans) && s.spans[i].From <= f.Turn {
		st.score.Inside++
		if st.first[i] < 0 || f.Turn < st.first[i] {
			st.first[i] = f.Turn
		}
	}
}

// Scores returns the episode's scores.
func (s *Scorer) Scores() Scores {
	out := make(Scores, len(s.kinds))
	for _, k := range s.order {
		st := s.kinds[k]
		sc := st.score
		sc.Spans = len(s.spans)
		for i, t := range st.first {
			if t >= 0 {
				sc.Caught++
				if sc.Leads == nil {
					sc.Leads = map[int]int{}
				}
				sc.Leads[t-s.spans[i].From]++
			}
		}
		out[k] = &sc
	}
	return out
}

// ScoreFirings scores firings (in any order) against lab.
func ScoreFirings(lab *EpisodeLabels, kinds []string, firings []rules.Firing) Scores {
	s := NewScorer(lab, kinds)
	for i := range firings {
		s.Add(&firings[i])
	}
	return s.Scores()
}

// LabelTotals sums scores over the labelled episodes of a corpus (one
// configuration's). Episodes without labels count nowhere.
type LabelTotals struct {
	Episodes   int    // labelled episodes
	NeverStuck int    // of which labelled without spans
	Spans      int    // spans over all labelled episodes
	Scores     Scores // by rule/kind
}

// Add counts one labelled episode and its scores.
func (t *LabelTotals) Add(lab *EpisodeLabels, s Scores) {
	t.Episodes++
	if len(lab.Stuck) == 0 {
		t.NeverStuck++
	}
	t.Spans += len(lab.Stuck)
	if t.Scores == nil {
		t.Scores = Scores{}
	}
	t.Scores.Merge(s)
}

// Merge adds o's episodes and scores (shards of one corpus).
func (t *LabelTotals) Merge(o *LabelTotals) {
	if o == nil {
		return
	}
	t.Episodes += o.Episodes
	t.NeverStuck += o.NeverStuck
	t.Spans += o.Spans
	if t.Scores == nil {
		t.Scores = Scores{}
	}
	t.Scores.Merge(o.Scores)
}

// mergeLabelTotals is a's and b's labelled episodes together, nil when
// neither has any; a new value, since a Totals may share its pointer with
// a copy of itself (Totals.Merge).
func mergeLabelTotals(a, b *LabelTotals) *LabelTotals {
	if a == nil && b == nil {
		return nil
	}
	n := &LabelTotals{Scores: Scores{}}
	n.Merge(a)
	n.Merge(b)
	return n
}

// AddLabels counts a labelled episode's scores into t.Labels.
func (t *Totals) AddLabels(lab *EpisodeLabels, s Scores) {
	if lab == nil {
		return
	}
	if t.Labels == nil {
		t.Labels = &LabelTotals{}
	}
	t.Labels.Add(lab, s)
}

// SortKinds orders rule/kind keys as the registry lists them; keys
// outside it go last, alphabetically.
func SortKinds(keys []string) {
	pos := map[string]int{}
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			pos[r.Name+"/"+k.Name] = len(pos)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		pi, iok := pos[keys[i]]
		pj, jok := pos[keys[j]]
		switch {
		case iok && jok:
			return pi < pj
		case iok != jok:
			return iok
		}
		return keys[i] < keys[j]
	})
}

// Keys returns s's keys in registry order.
func (s Scores) Keys() []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	SortKinds(keys)
	return keys
}

// scoreJSON is Score's JSON form: the exact counts and lead times, which
// add up across shards, and the ratios derived from them, rounded for
// reading (percentages to 2 decimals; null when undefined).
type scoreJSON struct {
	Firings      int      `json:"firings"`
	Inside       int      `json:"inside"`
	Spans        int      `json:"spans"`
	Caught       int      `json:"caught"`
	PrecisionPct *float64 `json:"precision_pct"`
	RecallPct    *float64 `json:"recall_pct"`
	F1Pct        *float64 `json:"f1_pct"`
	LeadMedian   *float64 `json:"lead_median"`
	LeadMax      *int     `json:"lead_max"`
	LeadTimes    []int    `json:"lead_times"`
}

// Round2 rounds a percentage for output.
func Round2(f float64) float64 { return math.Round(f*100) / 100 }

func pctPtr(f float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	v := Round2(f * 100)
	return &v
}

// MarshalJSON writes the counts, the lead times and the derived ratios.
func (s *Score) MarshalJSON() ([]byte, error) {
	j := scoreJSON{Firings: s.Firings, Inside: s.Inside, Spans: s.Spans, Caught: s.Caught, LeadTimes: s.LeadList()}
	j.PrecisionPct = pctPtr(s.Precision())
	j.RecallPct = pctPtr(s.Recall())
	j.F1Pct = pctPtr(s.F1())
	if m, ok := s.LeadMedian(); ok {
		j.LeadMedian = &m
	}
	if m, ok := s.LeadMax(); ok {
		j.LeadMax = &m
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the counts and lead times back (the ratios are
// derived), so partial results can be merged.
func (s *Score) UnmarshalJSON(data []byte) error {
	var j scoreJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	// Counts that no scoring could give are refused, not merged.
	switch {
	case j.Firings < 0 || j.Inside < 0 || j.Spans < 0 || j.Caught < 0:
		return fmt.Errorf("score: negative count")
	case j.Inside > j.Firings || j.Caught > j.Spans:
		return fmt.Errorf("score: %d of %d firings inside, %d of %d spans caught", j.Inside, j.Firings, j.Caught, j.Spans)
	case len(j.LeadTimes) != j.Caught:
		return fmt.Errorf("score: %d lead times for %d caught spans", len(j.LeadTimes), j.Caught)
	}
	*s = Score{Firings: j.Firings, Inside: j.Inside, Spans: j.Spans, Caught: j.Caught}
	for _, lead := range j.LeadTimes {
		if lead < 0 {
			return fmt.Errorf("score: negative lead time %d", lead)
		}
		if s.Leads == nil {
			s.Leads = map[int]int{}
		}
		s.Leads[lead]++
	}
	return nil
}

// labelTotalsJSON is LabelTotals' JSON form.
type labelTotalsJSON struct {
	Episodes   int    `json:"episodes"`
	NeverStuck int    `json:"never_stuck"`
	Spans      int    `json:"spans"`
	Scores     Scores `json:"scores"`
}

// MarshalJSON writes the totals with scores keyed by rule/kind.
func (t *LabelTotals) MarshalJSON() ([]byte, error) {
	j := labelTotalsJSON(*t)
	if j.Scores == nil {
		j.Scores = Scores{}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads totals back, for merging.
func (t *LabelTotals) UnmarshalJSON(data []byte) error {
	var j labelTotalsJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*t = LabelTotals(j)
	return nil
}
