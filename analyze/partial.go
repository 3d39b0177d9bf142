package analyze

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// TotalsState is the exact state of a Totals, as shards write it into a
// partial file: every exported field as Totals marshals it (the derived
// ones are recomputed by Finish) and the turns-saved histogram the median
// needs. It is taken from the Totals type itself, so a field added to
// Totals is carried without touching this code.
type TotalsState struct {
	Sums json.RawMessage `json:"sums"`
	// TurnsSaved is the histogram of turns saved, [turns, episodes]
	// ascending by turns.
	TurnsSaved [][2]int `json:"turns_saved_histogram"`
}

// State returns t's exact state.
func (t *Totals) State() (TotalsState, error) {
	sums, err := json.Marshal(t)
	if err != nil {
		return TotalsState{}, err
	}
	s := TotalsState{Sums: sums, TurnsSaved: [][2]int{}}
	for k, n := range t.saved {
		s.TurnsSaved = append(s.TurnsSaved, [2]int{k, n})
	}
	sort.Slice(s.TurnsSaved, func(i, j int) bool { return s.TurnsSaved[i][0] < s.TurnsSaved[j][0] })
	return s, nil
}

// Totals rebuilds the Totals a state was taken from (Finish is still to be
// called). A state that could not have come from State is an error: an
// unknown field (a newer loopbreak), a negative count, or a histogram that
// does not add up to the terminated episodes.
func (s TotalsState) Totals() (Totals, error) {
	var t Totals
	dec := json.NewDecoder(bytes.NewReader(s.Sums))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return Totals{}, fmt.Errorf("totals: %w", err)
	}
	n := 0
	for _, kv := range s.TurnsSaved {
		if kv[1] <= 0 {
			return Totals{}, fmt.Errorf("totals: turns saved histogram: %d episodes saving %d turns", kv[1], kv[0])
		}
		if t.saved == nil {
			t.saved = map[int]int{}
		}
		if _, dup := t.saved[kv[0]]; dup {
			return Totals{}, fmt.Errorf("totals: turns saved histogram: %d turns listed twice", kv[0])
		}
		t.saved[kv[0]] = kv[1]
		n += kv[1]
	}
	if n != t.Terminated {
		return Totals{}, fmt.Errorf("totals: turns saved histogram counts %d episodes, %d terminated", n, t.Terminated)
	}
	return t, nil
}

// Merge adds o's episodes to t, as if t had Added them itself (call
// Finish after). Every exported field is a sum or a figure Finish
// derives, so each is added field by field by reflection: a field of
// another kind panics here (and in the tests) until Merge is told how to
// merge it.
func (t *Totals) Merge(o *Totals) {
	tv, ov := reflect.ValueOf(t).Elem(), reflect.ValueOf(o).Elem()
	for i := range tv.NumField() {
		f := tv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int:
			tv.Field(i).SetInt(tv.Field(i).Int() + ov.Field(i).Int())
		case reflect.Float64:
			tv.Field(i).SetFloat(tv.Field(i).Float() + ov.Field(i).Float())
		default:
			panic("analyze: Totals.Merge does not know how to merge " + f.Name + " (" + f.Type.String() + ")")
		}
	}
	for k, n := range o.saved {
		if t.saved == nil {
			t.saved = map[int]int{}
		}
		t.saved[k] += n
	}
}
