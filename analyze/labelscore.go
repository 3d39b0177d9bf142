package analyze

// Scoring firings against labelled spans: Score, Scores, Scorer and their JSON.

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/loopbreak/loopbreak/rules"
)

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
