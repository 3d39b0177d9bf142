// Package report turns the facts of analyze, sweep and check into words,
// tables and documents: analyze's human report (text.go), JSON and JSON
// Lines (json.go); sweep's table, CSV, JSON and recommendation (sweep*.go);
// check's drift lines and gate verdicts (check_words.go) in text, JSON,
// JUnit, GitHub and Markdown (check.go, check_ci.go). Renderers take plain
// writers; callers decide colour and terminal width.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// SchemaVersion is the version of the JSON documents loopbreak writes
// (analyze, sweep, config and the Parquet file's metadata), each but
// check's, which has CheckSchemaVersion (docs/output.md, "Schema
// versions").
const SchemaVersion = 1

// CheckSchemaVersion is the version of check --format json's document:
// 2 since a drift's and a configuration change's baseline and current
// are JSON values of their own types (1 had them as strings of JSON).
const CheckSchemaVersion = 2

// Episode is the JSON form of one episode's outcome (docs/output.md: JSON output).
type Episode struct {
	EpisodeID        string               `json:"episode_id"`
	Source           string               `json:"source"`
	RecordedTurns    int                  `json:"recorded_turns"`
	FinalScore       float64              `json:"final_score"`
	RecordedEnd      string               `json:"recorded_end"`
	LocationKey      string               `json:"location_key"`
	Input            *InputJSON           `json:"input"`
	Termination      *analyze.Termination `json:"termination"`
	Checkpoints      []analyze.Checkpoint `json:"checkpoints"`
	TurnsSaved       int                  `json:"turns_saved"`
	LLMCallsSaved    int                  `json:"llm_calls_saved"`
	LLMCallsMethod   string               `json:"llm_calls_method"`
	ScoreForfeited   float64              `json:"score_forfeited"`
	FalseTermination bool                 `json:"false_termination"`
	ProgressAfter    *analyze.Progress    `json:"progress_after"`
	ObjectivesAfter  int                  `json:"objectives_after"`
	Censored         bool                 `json:"censored"`
	FiringCounts     map[string]int       `json:"firing_counts"`
	Warnings         int                  `json:"warnings"`
	WouldReject      int                  `json:"would_reject"`
	LowConfidence    int                  `json:"low_confidence"`
	Loops            int                  `json:"loops"`        // loop firings of the generic and peer rules, up to the cut
	FalseAlarms      int                  `json:"false_alarms"` // of which the agent made progress after (detectors.go)
	Live             *LiveJSON            `json:"live"`
	Diagnostics      Diagnostics          `json:"diagnostics"`
	Firings          []Firing             `json:"firings"`
	// Detectors is the headline table of a steps or attempts log (one row
	// per rule that ran, detectors.go); absent for ZorkGPT logs.
	Detectors []DetectorRow `json:"detectors,omitempty"`
	// Tasks groups an attempts log's firings by task (detectors.go).
	Tasks []TaskRow `json:"tasks,omitempty"`
	// Labels is how the rules scored against the episode's labels; null
	// when it is unlabelled (labels.go).
	Labels *EpisodeLabels `json:"labels"`

	// spilled holds the firings instead of Firings when the outcome's
	// were encoded as they came (EpisodeFirings).
	spilled *EpisodeFirings
}

// Diagnostics is what the reader could not use.
type Diagnostics struct {
	Lines         int      `json:"lines"`
	Skipped       int      `json:"skipped"`
	Problems      []string `json:"problems"`
	Notes         []string `json:"notes"`
	GapTurns      int      `json:"gap_turns"`
	RepeatedTurns int      `json:"repeated_turns"`
}

// NewEpisode builds the JSON form of an outcome.
func NewEpisode(o *analyze.Outcome, ep *replay.Episode) Episode {
	e := Episode{
		EpisodeID:        o.EpisodeID,
		Source:           o.Source,
		RecordedTurns:    o.RecordedTurns,
		FinalScore:       Round(finite(o.FinalScore), 4),
		RecordedEnd:      o.RecordedEnd,
		LocationKey:      o.LocationKey,
		Input:            newInput(ep),
		Termination:      o.Termination,
		Checkpoints:      o.Checkpoints,
		TurnsSaved:       o.TurnsSaved,
		LLMCallsSaved:    o.LLMCallsSaved,
		LLMCallsMethod:   o.LLMCallsMethod,
		ScoreForfeited:   Round(finite(o.ScoreForfeited), 4), // huge scores overflow a difference
		FalseTermination: o.FalseTermination,
		ObjectivesAfter:  o.ObjectivesAfter,
		Censored:         o.Censored,
		FiringCounts:     o.Counts,
		Warnings:         o.Warnings,
		WouldReject:      o.WouldReject,
		LowConfidence:    o.LowConfidence,
		Loops:            o.Loops,
		FalseAlarms:      o.FalseAlarms,
		Live:             NewLive(o.Live),
		Diagnostics: Diagnostics{
			Lines: ep.Diag.Lines, Skipped: ep.Diag.Skipped,
			Problems: nonNil(ep.Diag.Problems), Notes: nonNil(ep.Diag.Notes),
			GapTurns: ep.Diag.Gaps, RepeatedTurns: ep.Diag.Repeated,
		},
		Firings: make([]Firing, len(o.Firings)),
	}
	if e.Checkpoints == nil {
		e.Checkpoints = []analyze.Checkpoint{}
	}
	if o.ProgressAfter.Turn != 0 {
		p := o.ProgressAfter
		e.ProgressAfter = &p
	}
	for i := range o.Firings {
		e.Firings[i] = Firing{Firing: &o.Firings[i], AfterCut: o.AfterCut(&o.Firings[i])}
	}
	if s, ok := o.Sink.(tallied); ok {
		// The firings went to a sink (EpisodeFirings, ParquetFirings),
		// which tallied what the episode reads off them.
		if s, ok := s.(*EpisodeFirings); ok {
			e.spilled = s
		}
		if a := s.tallies(); a.det != nil {
			e.Detectors = a.det.rows
		}
		if a := s.tallies(); a.tasks != nil {
			e.Tasks = a.tasks.finish(ep)
		}
		return e
	}
	if !isZorkGPT(ep) {
		e.Detectors = Detectors(o, ep)
		e.Tasks = Tasks(o, ep)
	}
	return e
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Firing marshals a rules.Firing as {"turn","rule","kind","origin",
// fields..., "after_cut"} with the fields its rule declares for that kind, in that
// order. "turn" is "step" in a steps log and "attempt" in an attempts log
// (RULES.md §9, §11). AfterCut: the firing is after the termination turn, so the
// terminated run would never have seen it (the outcome's counts leave it
// out).
type Firing struct {
	// A pointer into the outcome's firings: an episode's report does not
	// copy its firings (tens of thousands of 300-byte structs per corpus).
	*rules.Firing
	AfterCut bool
}

func (f Firing) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	unit := f.Unit
	if unit == "" {
		unit = rules.UnitTurn
	}
	b.WriteString(`{"` + unit + `":`)
	b.WriteString(strconv.Itoa(f.Turn))
	b.WriteString(`,"rule":`)
	writeString(&b, f.Rule.Name)
	b.WriteString(`,"kind":`)
	writeString(&b, f.Kind.Name)
	b.WriteString(`,"origin":`)
	writeString(&b, f.Rule.Origin)
	for _, field := range f.Kind.Fields {
		b.WriteByte(',')
		writeString(&b, field)
		b.WriteByte(':')
		v, err := json.Marshal(FieldValue(f.Firing, field))
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteString(`,"after_cut":`)
	b.WriteString(strconv.FormatBool(f.AfterCut))
	b.WriteByte('}')
	return b.Bytes(), nil
}

// FieldValue returns the value of a documented firing field (nil = null).
func FieldValue(f *rules.Firing, field string) any {
	switch field {
	case "cause":
		return f.Cause
	case "urgency":
		return f.Urgency
	case "turns_stuck":
		return f.TurnsStuck
	case "turns_until_death":
		return f.TurnsUntilDeath
	case "score":
		return Round(f.Score, 4)
	case "visits":
		return f.Visits
	case "penalty":
		// Confidences and penalties to 4 decimals: 0.61, not
		// 0.6100000000000001 (base minus a sum of penalties).
		return Round(f.Penalty, 4)
	case "base":
		if !f.HasBase {
			return nil
		}
		return Round(f.Base, 4)
	case "adjusted":
		if !f.HasBase {
			return nil
		}
		return Round(f.Adjusted, 4)
	case "pattern":
		return f.Pattern[:]
	case "location":
		return f.Location
	case "destination":
		return f.Destination
	case "action":
		return f.Action
	case "rejected":
		return f.Rejected
	case "low_confidence":
		// Always a boolean: without a logged confidence there is no
		// adjusted value, so nothing could slip through the override.
		return f.LowConfidence
	case "proposal":
		return f.Proposal
	case "signature":
		return f.Signature
	case "similarity":
		return f.Similarity
	case "matched_step":
		return f.MatchedStep
	case "task_id":
		return f.TaskID
	case "loop_type":
		return f.LoopType
	case "recommendation":
		return f.Recommendation
	case "attempt_count":
		return f.AttemptCount
	case "cycle_length":
		return f.CycleLength
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	v, _ := json.Marshal(s)
	b.Write(v)
}

// JSONWriter streams one analyze document: the header, then episodes as
// they finish, then the totals. Memory does not grow with the corpus.
type JSONWriter struct {
	w     io.Writer
	n     int
	Lines bool // JSON Lines: one episode object per line, nothing else
}

// Begin writes the document head.
func (j *JSONWriter) Begin(w io.Writer, cfg *rules.Config) error {
	j.w = w
	if j.Lines {
		return nil
	}
	head, err := json.Marshal(cfg.Map())
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, `{"schema_version":`+strconv.Itoa(SchemaVersion)+`,"config":`+string(head)+`,"episodes":[`)
	return err
}

// Rounded is a copy of t with its percentages to 2 decimals: what the
// counts behind them can mean, without float noise (35.53, not
// 35.53210202286719). Documents round here, at encoding; the figures
// compared against limits stay exact.
func Rounded(t *analyze.Totals) *analyze.Totals {
	if t == nil {
		return nil
	}
	c := *t
	c.TurnsSavedPct = Round(c.TurnsSavedPct, 2)
	c.FalseRatePct = Round(c.FalseRatePct, 2)
	c.MedianTurnsSaved = Round(c.MedianTurnsSaved, 4)
	c.ScoreForfeited = Round(c.ScoreForfeited, 4) // a sum of fractional scores
	return &c
}

// finite is x clamped to the float64 range: JSON cannot hold +Inf.
func finite(x float64) float64 {
	v, _ := analyze.Finite(x)
	return v
}

// Episode writes one episode, encoded whole before any byte is written.
func (j *JSONWriter) Episode(e Episode) error {
	data, err := EncodeEpisode(&e)
	if err != nil {
		return err
	}
	return j.EpisodeJSON(data)
}

// EncodeEpisode is an episode's JSON, as Episode writes it (safe for
// concurrent use: analyze encodes on its workers).
func EncodeEpisode(e *Episode) ([]byte, error) {
	return AppendEpisode(nil, e)
}

// AppendEpisode is EncodeEpisode appending to dst, so a caller can reuse
// its buffers from episode to episode.
func AppendEpisode(dst []byte, e *Episode) ([]byte, error) {
	data, err := appendEpisode(dst, e)
	if err == nil && e.spilled != nil {
		err = e.spilled.finish()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: episode %s: %w", e.Source, e.EpisodeID, err)
	}
	return data, nil
}

// EpisodeJSON writes one episode already marshalled (merge replays the
// episodes of partial files this way).
func (j *JSONWriter) EpisodeJSON(data []byte) error {
	if err := j.separator(); err != nil {
		return err
	}
	if _, err := j.w.Write(data); err != nil {
		return err
	}
	return j.lineEnd()
}

// separator comes before an episode: the separator and the episode are
// written apart, as joining them would copy each episode (tens of KB)
// once more.
func (j *JSONWriter) separator() error {
	var sep string
	switch {
	case j.Lines:
	case j.n > 0:
		sep = ",\n"
	default:
		sep = "\n"
	}
	j.n++
	_, err := io.WriteString(j.w, sep)
	return err
}

// lineEnd ends an episode's line in JSON Lines.
func (j *JSONWriter) lineEnd() error {
	if j.Lines {
		_, err := io.WriteString(j.w, "\n")
		return err
	}
	return nil
}

// End writes totals and unreadable files, closing the document.
func (j *JSONWriter) End(t *analyze.Totals, errs []analyze.FileError) error {
	if j.Lines {
		return nil
	}
	if errs == nil {
		errs = []analyze.FileError{}
	}
	tot, err := json.Marshal(Rounded(t))
	if err != nil {
		return fmt.Errorf("totals: %w", err)
	}
	e, err := json.Marshal(errs)
	if err != nil {
		return err
	}
	_, err = io.WriteString(j.w, "\n],\"totals\":"+string(tot)+",\"errors\":"+string(e)+"}\n")
	return err
}
