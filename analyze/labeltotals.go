package analyze

// Label scores summed over a corpus: LabelTotals and its JSON.

import "encoding/json"

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
