package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/rules"
)

// sweepSample is a baseline and three rows over max_turns_stuck, with one
// skipped combination, one unreadable file and one flipping episode.
func sweepSample() *sweep.Result {
	ms := func(v int) []sweep.Setting { return []sweep.Setting{{Key: "max_turns_stuck", Value: v}} }
	tot := func(term, saved, fals int, forf float64) analyze.Totals {
		t := analyze.Totals{Episodes: 10, Terminated: term, RecordedTurns: 1000, TurnsSaved: saved, FalseTerminations: fals,
			ScoreForfeited: forf, LLMCallsSaved: 4 * saved, Warnings: 7, WouldReject: 3, MedianTurnsSaved: 12.5}
		t.TurnsSavedPct = float64(saved) / 10
		if term > 0 {
			t.FalseRatePct = float64(fals) * 100 / float64(term)
		}
		return t
	}
	s := &sweep.Result{
		Base: rules.Default(),
		Axes: []sweep.Axis{{Key: "max_turns_stuck", Values: []any{20, 30, 50}}},
		Rows: []sweep.Row{
			{Baseline: true, Params: ms(40), Totals: tot(3, 300, 0, 0)},
			{Params: ms(20), Totals: tot(6, 600, 3, 40.5)},
			{Params: ms(30), Totals: tot(5, 500, 1, 10)},
			{Params: ms(50), Totals: tot(2, 200, 0, 0)},
		},
		Skipped: []sweep.SkippedPoint{{Params: ms(20), Reason: "why, \"quoted\""}},
		Errors:  []analyze.FileError{{Source: "eps/x/episode_log.jsonl.gz", Error: "gzip: invalid header"}},
		Flips: []sweep.Flip{{EpisodeID: "E1", Source: "eps/E1/episode_log.jsonl", Outcomes: []analyze.Result{
			{}, {Terminated: true, TerminationTurn: 50, TurnsSaved: 10, FalseTermination: true}, {Terminated: true, TerminationTurn: 60}, {},
		}}},
	}
	sweep.MarkPareto(s.Rows)
	s.Recommendation = sweep.Recommend(s.Rows, nil)
	return s
}

func TestSweepJSONDocument(t *testing.T) {
	s := sweepSample()
	s.ByEpisode = true
	var b bytes.Buffer
	if err := WriteSweepJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Objects keep their order: base in registry order, params in grid order.
	if !strings.HasPrefix(out, "{\n  \"schema_version\": 1,\n  \"base\": {\n    \"enable_velocity_detection\": true,\n    \"max_turns_stuck\": 40,") {
		t.Errorf("head:\n%.200s", out)
	}
	var doc struct {
		Results []struct {
			Row         int            `json:"row"`
			Params      map[string]any `json:"params"`
			TurnsSaved  int            `json:"turns_saved"`
			Pareto      bool           `json:"pareto"`
			Recommended bool           `json:"recommended"`
		} `json:"results"`
		Recommended struct {
			Row    *int     `json:"row"`
			Set    []string `json:"set"`
			Reason string   `json:"reason"`
		} `json:"recommended"`
		ByEpisode []struct {
			EpisodeID string `json:"episode_id"`
			Outcomes  []struct {
				Row             int    `json:"row"`
				Outcome         string `json:"outcome"`
				TerminationTurn *int   `json:"termination_turn"`
			} `json:"outcomes"`
		} `json:"by_episode"`
		Errors []analyze.FileError `json:"errors"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 4 || doc.Results[2].Params["max_turns_stuck"] != 30.0 || doc.Results[2].TurnsSaved != 500 {
		t.Errorf("results %+v", doc.Results)
	}
	if doc.Recommended.Row == nil || *doc.Recommended.Row != 0 || strings.Join(doc.Recommended.Set, " ") != "max_turns_stuck=40" || !doc.Results[0].Recommended {
		t.Errorf("recommended %+v", doc.Recommended)
	}
	if len(doc.ByEpisode) != 1 || len(doc.ByEpisode[0].Outcomes) != 4 || doc.ByEpisode[0].Outcomes[1].Outcome != "false_termination" ||
		*doc.ByEpisode[0].Outcomes[1].TerminationTurn != 50 || doc.ByEpisode[0].Outcomes[0].TerminationTurn != nil {
		t.Errorf("by_episode %+v", doc.ByEpisode)
	}
	if len(doc.Errors) != 1 {
		t.Errorf("errors %+v", doc.Errors)
	}
	// Without --by-episode the key is absent; an empty list when nothing flips.
	s.ByEpisode = false
	b.Reset()
	WriteSweepJSON(&b, s)
	if strings.Contains(b.String(), "by_episode") {
		t.Error("by_episode without ByEpisode")
	}
	s.ByEpisode, s.Flips = true, nil
	b.Reset()
	WriteSweepJSON(&b, s)
	if !strings.Contains(b.String(), `"by_episode": []`) {
		t.Error("by_episode is not [] when nothing flips")
	}
	// No recommendation: row and params null.
	s.Recommendation = sweep.Recommendation{Row: -1, Criterion: sweep.CriterionMaxFalseRate, MaxFalseRatePct: 1, Lowest: 0, Next: -1}
	b.Reset()
	WriteSweepJSON(&b, s)
	if !strings.Contains(b.String(), "\"recommended\": {\n    \"row\": null,\n    \"params\": null,\n    \"set\": [],") {
		t.Errorf("no recommendation:\n%s", b.String())
	}
}

func TestSweepCSVFormat(t *testing.T) {
	s := sweepSample()
	var b bytes.Buffer
	if err := WriteSweepCSV(&b, s); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "row,baseline,max_turns_stuck,"+strings.Join(sweepCSVMetrics, ",") {
		t.Errorf("header %s", got)
	}
	if got := strings.Join(recs[2], ","); got != "1,false,20,10,6,0,1000,600,60,2400,3,50,40.5,12.5,7,3,0,0,0,0,true,false" {
		t.Errorf("row 1: %s", got)
	}
	s.ByEpisode = true
	b.Reset()
	WriteSweepCSV(&b, s)
	recs, _ = csv.NewReader(&b).ReadAll()
	want := [][]string{
		{"episode_id", "source", "row", "baseline", "max_turns_stuck", "outcome", "termination_turn", "turns_saved"},
		{"E1", "eps/E1/episode_log.jsonl", "0", "true", "40", "never", "", "0"},
		{"E1", "eps/E1/episode_log.jsonl", "1", "false", "20", "false_termination", "50", "10"},
		{"E1", "eps/E1/episode_log.jsonl", "2", "false", "30", "terminated", "60", "0"},
		{"E1", "eps/E1/episode_log.jsonl", "3", "false", "50", "never", "", "0"},
	}
	if len(recs) != len(want) {
		t.Fatalf("by-episode csv %v", recs)
	}
	for i := range want {
		if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("line %d: %v, want %v", i, recs[i], want[i])
		}
	}
}

func TestSweepTable(t *testing.T) {
	s := sweepSample()
	s.ByEpisode = true
	var b bytes.Buffer
	if err := WriteSweepTable(&b, s, SweepTableOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Sweep over 10 episodes (1000 recorded turns): 3 configurations and the baseline\n",
		" >  base",
		"Recommended: baseline (keeps the base configuration)\n",
		"Skipped 1 combination that violates a constraint:\n  max_turns_stuck=20: why, \"quoted\"\n",
		"Unreadable files, excluded from every row:\n  eps/x/episode_log.jsonl.gz: gzip: invalid header\n",
		"Episodes whose outcome flips (1 of 10; the others have the same outcome in every row):\n  E1  never terminated: base, 3 · false termination: 1 · terminated: 2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// Fitting: hide columns, then abbreviate heads and wrap prose, until
	// every line fits; the figures the recommendation rests on stay.
	for _, width := range []int{120, 90, 70, 60} {
		b.Reset()
		WriteSweepTable(&b, s, SweepTableOptions{Width: width})
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		head := ""
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line of %d: %q", width, n, l)
			}
			if strings.HasPrefix(l, "───") && head == "" {
				head = lines[i-1]
			}
		}
		for _, col := range [][2]string{{"turns saved", " saved"}, {"false terminations", " false"}, {"forfeited", "forf."}} {
			if !strings.Contains(head, col[0]) && !strings.Contains(head, col[1]) {
				t.Errorf("width %d: a column that is always shown is hidden: %q", width, head)
			}
		}
	}
	// Colour marks the recommended row.
	b.Reset()
	WriteSweepTable(&b, s, SweepTableOptions{Color: true})
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, " >  base") && !strings.HasPrefix(l, "\x1b[") {
			t.Errorf("recommended row not highlighted: %q", l)
		}
	}
}

func TestRowRanges(t *testing.T) {
	s := &sweep.Result{Rows: make([]sweep.Row, 12)}
	s.Rows[0].Baseline = true
	for idx, want := range map[string]string{
		"0":                 "base",
		"0 1 2 3":           "base, 1–3",
		"1 2":               "1, 2",
		"1 3 4 5 7 9 10 11": "1, 3–5, 7, 9–11",
		"5":                 "5",
	} {
		var xs []int
		for _, f := range strings.Fields(idx) {
			n := 0
			for _, c := range f {
				n = n*10 + int(c-'0')
			}
			xs = append(xs, n)
		}
		if got := rowRanges(s, xs); got != want {
			t.Errorf("rowRanges(%s) = %q, want %q", idx, got, want)
		}
	}
}

// TestJSONStreamEqualsEncoder holds jsonStream, which writes a sweep's
// rows one at a time, to the bytes json.Encoder writes for the whole
// object: nested and empty arrays and objects, HTML characters left
// alone, an array of one element and one of none.
func TestJSONStreamEqualsEncoder(t *testing.T) {
	type elem struct {
		A    int               `json:"a"`
		Tags []string          `json:"tags"`
		M    map[string]any    `json:"m"`
		P    *orderedObject    `json:"p,omitempty"`
		E    []json.RawMessage `json:"e"`
	}
	type head struct {
		V    int           `json:"v"`
		Base orderedObject `json:"base"`
		Why  string        `json:"why"`
	}
	type whole struct {
		head
		Rows  []elem `json:"rows"`
		One   []elem `json:"one"`
		None  []elem `json:"none"`
		After string `json:"after"`
	}
	o := orderedObject{keys: []string{"k<", "z"}, vals: []any{[]int{1, 2}, 0.5}}
	rows := []elem{
		{A: 1, Tags: []string{"a & b", "<c>"}, M: map[string]any{"x": []any{}, "y": map[string]any{}}, P: &o, E: []json.RawMessage{}},
		{A: 2, Tags: []string{}, M: map[string]any{}},
	}
	w := whole{head: head{V: 1, Base: o, Why: "a < b, é"}, Rows: rows, One: rows[:1], None: []elem{}, After: "end"}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	j := &jsonStream{w: &got}
	j.structFields(w.head)
	for _, a := range []struct {
		k  string
		es []elem
	}{{"rows", w.Rows}, {"one", w.One}, {"none", w.None}} {
		j.array(a.k, len(a.es), func(i int) any { return a.es[i] })
	}
	j.field("after", w.After)
	j.end()
	if j.err != nil || got.String() != want.String() {
		t.Errorf("err %v, got:\n%s\nwant:\n%s", j.err, got.String(), want.String())
	}
	var empty bytes.Buffer
	e := &jsonStream{w: &empty}
	e.structFields(struct{}{})
	e.end()
	if empty.String() != "{}\n" {
		t.Errorf("no fields: %q", empty.String())
	}
}
