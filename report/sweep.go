package report

// Rendering of `loopbreak sweep`: one result model (Sweep) written as a
// table for people, JSON (schema version 1, docs/sweep.md: "Sweep JSON") or CSV.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/rules"
)

// orderedObject marshals as a JSON object with its keys in order.
type orderedObject struct {
	keys []string
	vals []any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, k)
		b.WriteByte(':')
		v, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func settingsObject(ps []sweep.Setting) orderedObject {
	o := orderedObject{keys: []string{}, vals: []any{}}
	for _, p := range ps {
		o.keys = append(o.keys, p.Key)
		o.vals = append(o.vals, p.Value)
	}
	return o
}

type sweepSkippedJSON struct {
	Params orderedObject `json:"params"`
	Reason string        `json:"reason"`
}

type sweepResultJSON struct {
	Row      int           `json:"row"`
	Baseline bool          `json:"baseline"`
	Params   orderedObject `json:"params"`
	analyze.Totals
	Pareto      bool `json:"pareto"`
	Recommended bool `json:"recommended"`
}

type sweepRecommendedJSON struct {
	Row             *int           `json:"row"`
	Params          *orderedObject `json:"params"`
	Set             []string       `json:"set"`
	Criterion       string         `json:"criterion"`
	MaxFalseRatePct float64        `json:"max_false_rate_pct"`
	Reason          string         `json:"reason"`
}

type sweepOutcomeJSON struct {
	Row             int    `json:"row"`
	Outcome         string `json:"outcome"`
	TerminationTurn *int   `json:"termination_turn"`
	TurnsSaved      int    `json:"turns_saved"`
}

type sweepEpisodeJSON struct {
	EpisodeID string             `json:"episode_id"`
	Source    string             `json:"source"`
	Outcomes  []sweepOutcomeJSON `json:"outcomes"`
}

// sweepJSON is the document's fields before the rows, in order; the
// rows ("results"), "recommended", "errors" and "by_episode" follow
// (WriteSweepJSON).
type sweepJSON struct {
	SchemaVersion int                `json:"schema_version"`
	Base          orderedObject      `json:"base"`
	Grid          orderedObject      `json:"grid"`
	Skipped       []sweepSkippedJSON `json:"skipped"`
}

// WriteSweepJSON writes the sweep as one indented JSON document. It is
// written a row (and a flipping episode) at a time, as json.Encoder with
// two-space indentation writes it whole: a grid of 10,000 rows is never
// held encoded.
func WriteSweepJSON(w io.Writer, s *sweep.Result) error {
	doc := sweepJSON{
		SchemaVersion: SchemaVersion,
		Base:          orderedObject{keys: rules.Keys()},
		Grid:          orderedObject{keys: []string{}, vals: []any{}},
		Skipped:       []sweepSkippedJSON{},
	}
	for _, k := range doc.Base.keys {
		doc.Base.vals = append(doc.Base.vals, s.Base.Value(k))
	}
	for _, ax := range s.Axes {
		doc.Grid.keys = append(doc.Grid.keys, ax.Key)
		doc.Grid.vals = append(doc.Grid.vals, ax.Values)
	}
	for _, sk := range s.Skipped {
		doc.Skipped = append(doc.Skipped, sweepSkippedJSON{settingsObject(sk.Params), sk.Reason})
	}
	rec := s.Recommendation
	recommended := sweepRecommendedJSON{Set: []string{}, Criterion: rec.Criterion, MaxFalseRatePct: rec.MaxFalseRatePct, Reason: RecommendationReason(s.Rows, rec)}
	if rec.Row >= 0 && rec.Row < len(s.Rows) {
		row := rec.Row
		p := settingsObject(s.Rows[row].Params)
		recommended.Row, recommended.Params = &row, &p
		recommended.Set = setArgs(s, row)
	}
	errs := s.Errors
	if errs == nil {
		errs = []analyze.FileError{}
	}
	bw := bufio.NewWriter(w)
	j := &jsonStream{w: bw}
	j.structFields(doc)
	j.array("results", len(s.Rows), func(i int) any {
		r := &s.Rows[i]
		return sweepResultJSON{Row: i, Baseline: r.Baseline, Params: settingsObject(r.Params),
			Totals: *Rounded(&r.Totals), Pareto: r.Pareto, Recommended: r.Recommended}
	})
	j.field("recommended", recommended)
	j.field("errors", errs)
	if s.ByEpisode {
		j.array("by_episode", len(s.Flips), func(k int) any {
			f := &s.Flips[k]
			e := sweepEpisodeJSON{EpisodeID: f.EpisodeID, Source: f.Source, Outcomes: []sweepOutcomeJSON{}}
			for i := range f.Outcomes {
				r := &f.Outcomes[i]
				o := sweepOutcomeJSON{Row: i, Outcome: r.Class(), TurnsSaved: r.TurnsSaved}
				if r.Terminated {
					t := r.TerminationTurn
					o.TerminationTurn = &t
				}
				e.Outcomes = append(e.Outcomes, o)
			}
			return e
		})
	}
	j.end()
	if j.err != nil {
		return j.err
	}
	return bw.Flush()
}

// jsonStream writes one JSON object field by field, byte for byte as
// json.Encoder with SetIndent("", "  ") and SetEscapeHTML(false) writes
// it whole, so an array can be written an element at a time.
type jsonStream struct {
	w   io.Writer
	err error
	buf bytes.Buffer
	n   int // fields written
}

// encode returns v encoded at a depth whose lines start with prefix.
func (j *jsonStream) encode(v any, prefix string) []byte {
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false) // reasons say "<" and ">"
	if err := enc.Encode(v); err != nil && j.err == nil {
		j.err = err
	}
	return bytes.TrimSuffix(j.buf.Bytes(), []byte("\n"))
}

func (j *jsonStream) write(b []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
}

// key starts the next field.
func (j *jsonStream) key(k string) {
	if j.n == 0 {
		j.write([]byte("{\n  "))
	} else {
		j.write([]byte(",\n  "))
	}
	j.n++
	name, _ := json.Marshal(k)
	j.write(append(name, ':', ' '))
}

// field writes one field.
func (j *jsonStream) field(k string, v any) {
	j.key(k)
	j.write(j.encode(v, "  "))
}

// structFields writes the fields of struct v, as its json tags name them.
func (j *jsonStream) structFields(v any) {
	b := j.encode(v, "")
	if string(b) == "{}" || j.err != nil {
		return
	}
	// {\n  "a": 1,\n  "b": ...\n}: splice its fields in as our own.
	b = bytes.TrimSuffix(bytes.TrimPrefix(b, []byte("{\n  ")), []byte("\n}"))
	if j.n == 0 {
		j.write([]byte("{\n  "))
	} else {
		j.write([]byte(",\n  "))
	}
	j.n++
	j.write(b)
}

// array writes an array field of n elements, elem(i) each.
func (j *jsonStream) array(k string, n int, elem func(i int) any) {
	j.key(k)
	if n == 0 {
		j.write([]byte("[]"))
		return
	}
	j.write([]byte("["))
	for i := range n {
		if i > 0 {
			j.write([]byte(","))
		}
		j.write([]byte("\n    "))
		j.write(j.encode(elem(i), "    "))
	}
	j.write([]byte("\n  ]"))
}

// end closes the object.
func (j *jsonStream) end() {
	if j.n == 0 {
		j.write([]byte("{}\n"))
		return
	}
	j.write([]byte("\n}\n"))
}

// setArgs is the row's swept settings as key=value, for --set.
func setArgs(s *sweep.Result, row int) []string {
	out := []string{}
	for _, p := range s.Rows[row].Params {
		out = append(out, p.String())
	}
	return out
}

// sweepCSVMetrics are the CSV columns after the parameters.
var sweepCSVMetrics = []string{"episodes", "terminated", "censored", "recorded_turns", "turns_saved", "turns_saved_pct",
	"llm_calls_saved", "false_terminations", "false_termination_pct", "score_forfeited", "median_turns_saved",
	"warnings", "would_reject", "low_confidence", "loops", "false_alarms", "lines_skipped", "pareto", "recommended"}

// csvNum writes a number to at most 4 decimals (percentages: csvPct).
func csvNum(f float64) string { return strconv.FormatFloat(Round(f, 4), 'f', -1, 64) }

// csvPct writes a percentage to at most 2 decimals.
func csvPct(f float64) string { return strconv.FormatFloat(Round(f, 2), 'f', -1, 64) }

// WriteSweepCSV writes one line per row (header first): row, baseline, the swept
// keys, then the totals. With ByEpisode it writes the per-episode table
// instead: one line per flipping episode and row.
func WriteSweepCSV(w io.Writer, s *sweep.Result) error {
	cw := csv.NewWriter(w)
	head := []string{"row", "baseline"}
	for _, ax := range s.Axes {
		head = append(head, ax.Key)
	}
	params := func(r *sweep.Row) []string {
		var out []string
		for _, p := range r.Params {
			out = append(out, rules.FormatValue(p.Value))
		}
		return out
	}
	if s.ByEpisode {
		// Ids and paths are text from the logs: CSVCell. Parameters and
		// counts are numbers the program wrote (a "-1" stays a number).
		cw.Write(append(append([]string{"episode_id", "source"}, head...), "outcome", "termination_turn", "turns_saved"))
		for _, f := range s.Flips {
			for i := range f.Outcomes {
				r := &f.Outcomes[i]
				turn := ""
				if r.Terminated {
					turn = strconv.Itoa(r.TerminationTurn)
				}
				line := []string{CSVCell(f.EpisodeID), CSVCell(f.Source), strconv.Itoa(i), strconv.FormatBool(s.Rows[i].Baseline)}
				line = append(line, params(&s.Rows[i])...)
				cw.Write(append(line, r.Class(), turn, strconv.Itoa(r.TurnsSaved)))
			}
		}
		cw.Flush()
		return cw.Error()
	}
	kinds := sweepLabelKinds(s) // once: every row's kinds are read
	cw.Write(append(append(head, sweepCSVMetrics...), labelCSVHead(s, kinds)...))
	for i := range s.Rows {
		r := &s.Rows[i]
		t := &r.Totals
		line := append([]string{strconv.Itoa(i), strconv.FormatBool(r.Baseline)}, params(r)...)
		line = append(line,
			strconv.Itoa(t.Episodes), strconv.Itoa(t.Terminated), strconv.Itoa(t.Censored), strconv.Itoa(t.RecordedTurns),
			strconv.Itoa(t.TurnsSaved), csvPct(t.TurnsSavedPct), strconv.Itoa(t.LLMCallsSaved),
			strconv.Itoa(t.FalseTerminations), csvPct(t.FalseRatePct), csvNum(t.ScoreForfeited), csvNum(t.MedianTurnsSaved),
			strconv.Itoa(t.Warnings), strconv.Itoa(t.WouldReject), strconv.Itoa(t.LowConfidence), strconv.Itoa(t.Loops), strconv.Itoa(t.FalseAlarms), strconv.Itoa(t.LinesSkipped),
			strconv.FormatBool(r.Pareto), strconv.FormatBool(r.Recommended))
		cw.Write(append(line, labelCSVCells(s, i, kinds)...))
	}
	cw.Flush()
	return cw.Error()
}
