package analyze

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// setEveryField gives each exported field of a Totals a distinct value
// from seed, by reflection, so fields added later are covered too.
func setEveryField(t *testing.T, tot *Totals, seed int) {
	v := reflect.ValueOf(tot).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int:
			v.Field(i).SetInt(int64(seed*100 + i))
		case reflect.Float64:
			v.Field(i).SetFloat(float64(seed*100+i) + 0.5)
		case reflect.Bool:
			v.Field(i).SetBool(seed == 1)
		case reflect.Pointer:
			if f.Type == reflect.TypeFor[*LabelTotals]() {
				lt := &LabelTotals{Episodes: seed, NeverStuck: 1, Spans: 2 * seed, Scores: Scores{
					"stuck_warnings/warning": {Firings: seed * 10, Inside: seed, Spans: 2 * seed, Caught: 1, Leads: map[int]int{seed: 1}},
				}}
				v.Field(i).Set(reflect.ValueOf(lt))
				continue
			}
			if f.Type.Elem().Kind() != reflect.Int {
				t.Fatalf("Totals.%s is a %s: teach Totals.Merge and this test how to merge it", f.Name, f.Type)
			}
			n := seed*100 + i
			v.Field(i).Set(reflect.ValueOf(&n))
		default:
			t.Fatalf("Totals.%s is a %s: teach Totals.Merge and this test how to merge it", f.Name, f.Type)
		}
	}
}

// TestTotalsStateCarriesEveryField holds the partial-file state to every
// exported field of Totals: a field the JSON leaves out (json:"-") or
// that Merge does not add fails here.
func TestTotalsStateCarriesEveryField(t *testing.T) {
	var a, b Totals
	setEveryField(t, &a, 1)
	setEveryField(t, &b, 2)
	// Counts that agree with each other, as a run's do: a state that
	// could not come from a run is refused (checkCounts).
	for seed, tot := range []*Totals{&a, &b} {
		seed++
		tot.Episodes, tot.Loops, tot.Terminated = 1000*seed, 1000*seed, 500*seed
		tot.saved = map[int]int{7: tot.Terminated}
		tot.TurnsSaved = 7 * tot.Terminated
	}
	for _, tot := range []*Totals{&a, &b} {
		s, err := tot.State()
		if err != nil {
			t.Fatal(err)
		}
		back, err := s.Totals()
		if err != nil {
			t.Fatal(err)
		}
		// The derived figures are left out, and recomputed alike.
		want := *tot
		want.Finish()
		back.Finish()
		if !reflect.DeepEqual(back, want) {
			t.Errorf("state round trip:\n got %+v\nwant %+v", back, want)
		}
	}
	m := a
	m.Merge(&b)
	mv, av, bv := reflect.ValueOf(m), reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range mv.NumField() {
		f := mv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		var got, want float64
		switch f.Type.Kind() {
		case reflect.Int:
			got, want = float64(mv.Field(i).Int()), float64(av.Field(i).Int()+bv.Field(i).Int())
		case reflect.Bool: // a flag stays set
			if !mv.Field(i).Bool() {
				t.Errorf("Merge: %s = false, want true (set in one part)", f.Name)
			}
			continue
		case reflect.Pointer:
			if l, ok := mv.Field(i).Interface().(*LabelTotals); ok {
				w := a.Labels.Scores["stuck_warnings/warning"].Firings + b.Labels.Scores["stuck_warnings/warning"].Firings
				if l.Episodes != a.Labels.Episodes+b.Labels.Episodes || l.Scores["stuck_warnings/warning"].Firings != w || len(l.Scores["stuck_warnings/warning"].Leads) != 2 {
					t.Errorf("Merge: Labels = %+v", l)
				}
				if a.Labels.Episodes != 1 {
					t.Error("Merge changed the Labels of the Totals it was copied from")
				}
				continue
			}
			got, want = float64(mv.Field(i).Elem().Int()), float64(av.Field(i).Elem().Int()+bv.Field(i).Elem().Int())
		default:
			got, want = mv.Field(i).Float(), av.Field(i).Float()+bv.Field(i).Float()
		}
		if got != want {
			t.Errorf("Merge: %s = %v, want %v", f.Name, got, want)
		}
	}
}

// TestTotalsMergeEqualsOneRun splits random results over shards and holds
// the merged totals, after a round trip through their state, equal to
// totals that Added every result, field by field and histogram included.
func TestTotalsMergeEqualsOneRun(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var results []Result
	for range 300 {
		res := Result{Censored: r.IntN(7) == 0, Warnings: r.IntN(4), WouldReject: r.IntN(3)}
		if r.IntN(2) == 0 {
			res.Terminated, res.TurnsSaved, res.LLMCallsSaved = true, r.IntN(90), r.IntN(400)
			res.ScoreForfeited, res.FalseTermination = float64(r.IntN(20)), r.IntN(3) == 0
		}
		results = append(results, res)
	}
	for _, n := range []int{1, 2, 7} {
		var one Totals
		shards := make([]Totals, n)
		for i := range results {
			one.Add(&results[i], 100+i, i%3)
			shards[i%n].Add(&results[i], 100+i, i%3)
		}
		var merged Totals
		for i := range shards {
			s, err := shards[i].State()
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(s)
			var back TotalsState
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			tot, err := back.Totals()
			if err != nil {
				t.Fatal(err)
			}
			merged.Merge(&tot)
		}
		one.Finish()
		merged.Finish()
		if !reflect.DeepEqual(one, merged) {
			t.Errorf("N=%d: merged\n %+v\nwant\n %+v", n, merged, one)
		}
	}
}

func TestTotalsStateErrors(t *testing.T) {
	for _, tc := range []struct {
		state, want string
	}{
		{`{"sums":{"episodes":1,"future_field":3},"turns_saved_histogram":[]}`, `unknown field "future_field"`},
		{`{"sums":{"terminated":1},"turns_saved_histogram":[[4,0]]}`, "0 episodes saving 4 turns"},
		{`{"sums":{"terminated":2},"turns_saved_histogram":[[4,1],[4,1]]}`, "4 turns listed twice"},
		{`{"sums":{"terminated":2},"turns_saved_histogram":[[4,1]]}`, "counts 1 episodes, 2 terminated"},
		{`{"sums":[],"turns_saved_histogram":[]}`, "totals: json"},
		// Counts no run gives (issue 23: a merge summed them).
		{`{"sums":{"episodes":-3},"turns_saved_histogram":[]}`, "totals: episodes is negative (-3)"},
		{`{"sums":{"episodes":1,"live_disagreements":-1},"turns_saved_histogram":[]}`, "live_disagreements is negative"},
		{`{"sums":{"episodes":2,"terminated":1,"turns_saved":-4},"turns_saved_histogram":[[-4,1]]}`, "turns_saved is negative"},
		{`{"sums":{"episodes":1,"terminated":1,"turns_saved":9223372036854775805},"turns_saved_histogram":[[4,1]]}`, "adds up to 4 turns, turns_saved is 9223372036854775805"},
		{`{"sums":{"episodes":1,"terminated":2,"turns_saved":8},"turns_saved_histogram":[[4,2]]}`, "terminated 2 of 1 episodes"},
		{`{"sums":{"episodes":3,"censored":4},"turns_saved_histogram":[]}`, "censored 4 of 3 episodes"},
		{`{"sums":{"episodes":3,"loops":1,"false_alarms":2},"turns_saved_histogram":[]}`, "false_alarms 2 of 1 loops"},
		{`{"sums":{"episodes":9,"terminated":2,"turns_saved":8},"turns_saved_histogram":[[4,9223372036854775807],[5,9223372036854775807]]}`, "overflow"},
	} {
		var s TotalsState
		if err := json.Unmarshal([]byte(tc.state), &s); err != nil {
			t.Fatal(err)
		}
		_, err := s.Totals()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.state, err, tc.want)
		}
	}
}

// TestDerivedFields: the figures Finish computes are found by watching
// it, and are the ones it computes today.
func TestDerivedFields(t *testing.T) {
	got := strings.Join(derivedFields(), " ")
	for _, name := range []string{"turns_saved_pct", "false_termination_pct", "median_turns_saved"} {
		if !strings.Contains(got, name) {
			t.Errorf("derived fields %q lack %s", got, name)
		}
	}
	for _, name := range []string{"episodes", "turns_saved", "score_forfeited"} {
		for _, d := range derivedFields() {
			if d == name {
				t.Errorf("%s taken for a derived figure", name)
			}
		}
	}
}

// TestTotalsUnexportedFields: State and Merge carry the one unexported
// field they know, the turns-saved histogram; another one fails here
// until they carry it too.
func TestTotalsUnexportedFields(t *testing.T) {
	typ := reflect.TypeOf(Totals{})
	for i := range typ.NumField() {
		if f := typ.Field(i); !f.IsExported() && f.Name != "saved" {
			t.Errorf("Totals.%s is not carried by State nor added by Merge", f.Name)
		}
	}
}

// TestTotalsMergeOverflow: a score sum that leaves the float64 range in a
// merge is held finite and flagged, as Add does in one run.
func TestTotalsMergeOverflow(t *testing.T) {
	var one, a, b Totals
	r := Result{Terminated: true, ScoreForfeited: math.MaxFloat64}
	for _, tot := range []*Totals{&one, &a, &b} {
		tot.Add(&r, 10, 0)
	}
	one.Add(&r, 10, 0)
	if a.ScoreOverflow || b.ScoreOverflow {
		t.Fatal("one huge score is no overflow")
	}
	a.Merge(&b)
	one.Finish()
	a.Finish()
	if !reflect.DeepEqual(one, a) || !a.ScoreOverflow || a.ScoreForfeited != math.MaxFloat64 {
		t.Errorf("merged %+v, one run %+v", a, one)
	}
}

// TestMergeCheckedOverflow: a merge whose sums would wrap is refused and
// leaves the totals as they were; one that fits merges as Merge does.
func TestMergeCheckedOverflow(t *testing.T) {
	a := Totals{Episodes: math.MaxInt - 1, TurnsSaved: 5}
	b := Totals{Episodes: 2}
	if err := a.MergeChecked(&b); err == nil || !strings.Contains(err.Error(), "episodes overflows") {
		t.Errorf("MergeChecked: %v", err)
	}
	if a.Episodes != math.MaxInt-1 {
		t.Errorf("a refused merge changed the totals: %d episodes", a.Episodes)
	}
	live := 1
	c := Totals{Episodes: 1, LiveDisagreements: &live}
	if err := c.MergeChecked(&Totals{Episodes: 1, LiveDisagreements: &live}); err != nil || c.Episodes != 2 || *c.LiveDisagreements != 2 {
		t.Errorf("MergeChecked: %v, %+v", err, c)
	}
}
