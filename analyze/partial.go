package analyze

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// TotalsState is the exact state of a Totals, as shards write it into a
// partial file: every exported field that is a sum, as Totals marshals it
// (not the figures Finish derives: percentages, the median), and the
// turns-saved histogram the median needs. It is taken from the Totals type itself, so a field added to
// Totals is carried without touching this code.
type TotalsState struct {
	Sums json.RawMessage `json:"sums"`
	// TurnsSaved is the histogram of turns saved, [turns, episodes]
	// ascending by turns.
	TurnsSaved [][2]int `json:"turns_saved_histogram"`
}

// State returns t's exact state.
func (t *Totals) State() (TotalsState, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return TotalsState{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return TotalsState{}, err
	}
	for _, name := range derivedFields() {
		delete(fields, name)
	}
	sums, err := json.Marshal(fields) // keys sorted
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
		if kv[1] > math.MaxInt-n {
			return Totals{}, fmt.Errorf("totals: turns saved histogram: episodes overflow")
		}
		n += kv[1]
	}
	if n != t.Terminated {
		return Totals{}, fmt.Errorf("totals: turns saved histogram counts %d episodes, %d terminated", n, t.Terminated)
	}
	if err := t.checkCounts(); err != nil {
		return Totals{}, err
	}
	return t, nil
}

// Merge adds o's episodes to t, as if t had Added them itself (call
// Finish after). Every exported field is a sum (maybe optional: *int), a
// figure Finish derives or a flag that stays set once a sum overflowed,
// so each is merged field by field by reflection: numbers added (a float
// sum kept finite as Add keeps it, raising ScoreOverflow), flags or'ed. A field of another kind
// panics here (and in the tests) until Merge is told how to merge it.
func (t *Totals) Merge(o *Totals) {
	tv, ov := reflect.ValueOf(t).Elem(), reflect.ValueOf(o).Elem()
	overflow := false
	for i := range tv.NumField() {
		f := tv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int:
			tv.Field(i).SetInt(tv.Field(i).Int() + ov.Field(i).Int())
		case reflect.Float64:
			sum, ok := Finite(tv.Field(i).Float() + ov.Field(i).Float())
			overflow = overflow || !ok
			tv.Field(i).SetFloat(sum)
		case reflect.Bool:
			tv.Field(i).SetBool(tv.Field(i).Bool() || ov.Field(i).Bool())
		case reflect.Pointer:
			if f.Type == reflect.TypeFor[*LabelTotals]() {
				t.Labels = mergeLabelTotals(t.Labels, o.Labels)
				continue
			}
			// A count only some commands keep (nil: not kept): nil
			// merged with nil stays nil, else nil counts 0.
			if f.Type.Elem().Kind() != reflect.Int {
				panic("analyze: Totals.Merge does not know how to merge " + f.Name + " (" + f.Type.String() + ")")
			}
			if ov.Field(i).IsNil() {
				continue
			}
			sum := ov.Field(i).Elem().Int()
			if !tv.Field(i).IsNil() {
				sum += tv.Field(i).Elem().Int()
			}
			// A new int: t may share its pointer with a copy of itself.
			n := reflect.New(f.Type.Elem())
			n.Elem().SetInt(sum)
			tv.Field(i).Set(n)
		default:
			panic("analyze: Totals.Merge does not know how to merge " + f.Name + " (" + f.Type.String() + ")")
		}
	}
	t.ScoreOverflow = t.ScoreOverflow || overflow
	for k, n := range o.saved {
		if t.saved == nil {
			t.saved = map[int]int{}
		}
		t.saved[k] += n
	}
}

// derivedFields are the JSON names of the fields Finish computes, found by
// watching it: every exported field is set to a value Finish cannot give
// (-1; 7 for counts, with a histogram to match), and those it overwrites
// are derived. So a figure added to Finish is left out of states without
// a list to keep.
var derivedFields = sync.OnceValue(func() []string {
	var t Totals
	v := reflect.ValueOf(&t).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); {
		case !v.Type().Field(i).IsExported():
		case f.Kind() == reflect.Int:
			f.SetInt(7)
		case f.Kind() == reflect.Float64:
			f.SetFloat(-1)
		}
	}
	t.saved = map[int]int{7: 7}
	before := t
	t.Finish()
	var names []string
	bv := reflect.ValueOf(before)
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		if sf.IsExported() && !v.Field(i).Equal(bv.Field(i)) {
			names = append(names, strings.Split(sf.Tag.Get("json"), ",")[0])
		}
	}
	return names
})
