package analyze

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// checkCounts refuses a state that no run could have produced: a
// negative count anywhere (sums, live disagreements, label scores), or
// counts that contradict each other (more terminated than episodes, a
// turns-saved histogram whose turns do not add up to the turns saved).
// A merge reads states from files; a forged or damaged one must not
// reach its figures.
func (t *Totals) checkCounts() error {
	if err := nonNegative(reflect.ValueOf(t).Elem(), ""); err != nil {
		return fmt.Errorf("totals: %v", err)
	}
	live := 0
	if t.LiveDisagreements != nil {
		live = *t.LiveDisagreements
	}
	for _, c := range []struct {
		part, whole         int
		partName, wholeName string
	}{
		{t.Terminated, t.Episodes, "terminated", "episodes"},
		{t.Censored, t.Episodes, "censored", "episodes"},
		{live, t.Episodes, "live_disagreements", "episodes"},
		{t.FalseTerminations, t.Terminated, "false_terminations", "terminated"},
		{t.FalseAlarms, t.Loops, "false_alarms", "loops"},
	} {
		if c.part > c.whole {
			return fmt.Errorf("totals: %s %d of %d %s", c.partName, c.part, c.whole, c.wholeName)
		}
	}
	if l := t.Labels; l != nil && (l.Episodes > t.Episodes || l.NeverStuck > l.Episodes) {
		return fmt.Errorf("totals: labels: %d labelled episodes (%d never stuck) of %d episodes", l.Episodes, l.NeverStuck, t.Episodes)
	}
	saved := 0
	for k, n := range t.saved {
		if k < 0 {
			return fmt.Errorf("totals: turns saved histogram: %d episodes saving %d turns", n, k)
		}
		if k > 0 && n > (math.MaxInt-saved)/k {
			return fmt.Errorf("totals: turns saved histogram: overflows")
		}
		saved += k * n
	}
	if saved != t.TurnsSaved {
		return fmt.Errorf("totals: turns saved histogram adds up to %d turns, turns_saved is %d", saved, t.TurnsSaved)
	}
	return nil
}

// MergeChecked is Merge, refusing (and merging nothing) when a count
// would overflow.
func (t *Totals) MergeChecked(o *Totals) error {
	if err := addOverflows(reflect.ValueOf(t).Elem(), reflect.ValueOf(o).Elem(), ""); err != nil {
		return fmt.Errorf("totals: %v", err)
	}
	t.Merge(o)
	return nil
}

// fieldName is a struct field's name in messages: its JSON name.
func fieldName(path string, f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// nonNegative finds a negative integer in v: a field, a map's key or
// value, a pointer's target.
func nonNegative(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			return fmt.Errorf("%s is negative (%d)", path, v.Int())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return nonNegative(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				if err := nonNegative(v.Field(i), fieldName(path, f)); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			p := fmt.Sprintf("%s[%v]", path, it.Key())
			if err := nonNegative(it.Key(), p); err != nil {
				return err
			}
			if err := nonNegative(it.Value(), p); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := nonNegative(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// addOverflows says where adding b's non-negative counts to a's, as
// Merge does, would overflow.
func addOverflows(a, b reflect.Value, path string) error {
	switch a.Kind() {
	case reflect.Int:
		if x, y := a.Int(), b.Int(); y > 0 && x > math.MaxInt-y || y < 0 && x < math.MinInt-y {
			return fmt.Errorf("%s overflows (%d + %d)", path, x, y)
		}
	case reflect.Pointer:
		if !a.IsNil() && !b.IsNil() {
			return addOverflows(a.Elem(), b.Elem(), path)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if f := a.Type().Field(i); f.IsExported() {
				if err := addOverflows(a.Field(i), b.Field(i), fieldName(path, f)); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		for it := b.MapRange(); it.Next(); {
			if x := a.MapIndex(it.Key()); x.IsValid() {
				if err := addOverflows(x, it.Value(), fmt.Sprintf("%s[%v]", path, it.Key())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// NonNegative finds a negative integer anywhere in v (a struct, map,
// slice or pointer of them), naming it by its JSON path: counts read from
// a file that no run could have written.
func NonNegative(v any) error {
	return nonNegative(reflect.ValueOf(v), "")
}
