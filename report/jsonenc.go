package report

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// A direct encoder of the analyze documents' episodes: the same bytes as
// json.Marshal (TestAppendEpisodeMatchesEncodingJSON holds it so over
// generated corpora and odd values), appended to one buffer instead of
// one reflective encoding per field, a MarshalJSON per firing and a
// compaction of its output (JSON encoding was some 22% of analyze on a
// 1,000-episode corpus). What it does not encode plainly (a string to
// escape, a NaN that json.Marshal refuses) it hands to encoding/json.

// marshalEpisode is json.Marshal(e).
func marshalEpisode(e *Episode) ([]byte, error) {
	return appendEpisode(nil, e)
}

// episodeBytes is about what an episode of n firings encodes in, a little
// more rather than less.
func episodeBytes(n int) int { return 2048 + 160*n }

// appendEpisode is marshalEpisode appending to dst.
func appendEpisode(dst []byte, e *Episode) ([]byte, error) {
	// Room for the whole episode up front (a firing encodes in some 150
	// bytes): grown by append, a buffer of hundreds of KB is allocated,
	// copied and faulted in afresh at each quarter it grows by.
	dst = slices.Grow(dst, episodeBytes(len(e.Firings)))
	w := jsonEnc{b: dst}
	w.episode(e)
	if w.refused {
		return json.Marshal(e) // its error, as before
	}
	return w.b, nil
}

type jsonEnc struct {
	b       []byte
	refused bool // a value json.Marshal refuses (NaN, infinities)
	// heads caches headOf for the kinds of this episode's firings, a
	// handful: a pointer comparison each, before the shared map.
	heads []cachedHead
}

type cachedHead struct {
	key headKey
	h   *firingHead
}

func (w *jsonEnc) episode(e *Episode) {
	w.b = append(w.b, `{"episode_id":`...)
	w.str(e.EpisodeID)
	w.b = append(w.b, `,"source":`...)
	w.str(e.Source)
	w.b = append(w.b, `,"recorded_turns":`...)
	w.int(e.RecordedTurns)
	w.b = append(w.b, `,"final_score":`...)
	w.float(e.FinalScore)
	w.b = append(w.b, `,"recorded_end":`...)
	w.str(e.RecordedEnd)
	w.b = append(w.b, `,"location_key":`...)
	w.str(e.LocationKey)
	w.b = append(w.b, `,"input":`...)
	w.value(e.Input) // one small struct: encoding/json
	w.b = append(w.b, `,"termination":`...)
	w.termination(e.Termination)
	w.b = append(w.b, `,"checkpoints":`...)
	w.checkpoints(e.Checkpoints)
	w.b = append(w.b, `,"turns_saved":`...)
	w.int(e.TurnsSaved)
	w.b = append(w.b, `,"llm_calls_saved":`...)
	w.int(e.LLMCallsSaved)
	w.b = append(w.b, `,"llm_calls_method":`...)
	w.str(e.LLMCallsMethod)
	w.b = append(w.b, `,"score_forfeited":`...)
	w.float(e.ScoreForfeited)
	w.b = append(w.b, `,"false_termination":`...)
	w.bool(e.FalseTermination)
	w.b = append(w.b, `,"progress_after":`...)
	if p := e.ProgressAfter; p == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, `{"turn":`...)
		w.int(p.Turn)
		w.b = append(w.b, `,"score":`...)
		w.float(p.Score)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, `,"objectives_after":`...)
	w.int(e.ObjectivesAfter)
	w.b = append(w.b, `,"censored":`...)
	w.bool(e.Censored)
	w.b = append(w.b, `,"firing_counts":`...)
	w.counts(e.FiringCounts)
	w.b = append(w.b, `,"warnings":`...)
	w.int(e.Warnings)
	w.b = append(w.b, `,"would_reject":`...)
	w.int(e.WouldReject)
	w.b = append(w.b, `,"low_confidence":`...)
	w.int(e.LowConfidence)
	w.b = append(w.b, `,"loops":`...)
	w.int(e.Loops)
	w.b = append(w.b, `,"false_alarms":`...)
	w.int(e.FalseAlarms)
	w.b = append(w.b, `,"live":`...)
	if e.Live == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.value(e.Live) // rare (live runs), and maps of any: encoding/json
	}
	w.b = append(w.b, `,"diagnostics":{"lines":`...)
	d := &e.Diagnostics
	w.int(d.Lines)
	w.b = append(w.b, `,"skipped":`...)
	w.int(d.Skipped)
	w.b = append(w.b, `,"problems":`...)
	w.strs(d.Problems)
	w.b = append(w.b, `,"notes":`...)
	w.strs(d.Notes)
	w.b = append(w.b, `,"gap_turns":`...)
	w.int(d.GapTurns)
	w.b = append(w.b, `,"repeated_turns":`...)
	w.int(d.RepeatedTurns)
	w.b = append(w.b, `},"firings":`...)
	if e.spilled != nil {
		// Encoded as the replay produced them: their place is left.
		w.b = append(w.b, '[')
		e.spilled.at = len(w.b)
		w.b = append(w.b, ']')
	} else if e.Firings == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
		for i := range e.Firings {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.firing(e.Firings[i].Firing, e.Firings[i].AfterCut)
		}
		w.b = append(w.b, ']')
	}
	// A steps or attempts log's table and tasks (omitempty): rare and
	// small, so encoding/json.
	if len(e.Detectors) > 0 {
		w.b = append(w.b, `,"detectors":`...)
		w.value(e.Detectors)
	}
	if len(e.Tasks) > 0 {
		w.b = append(w.b, `,"tasks":`...)
		w.value(e.Tasks)
	}
	w.b = append(w.b, `,"labels":`...)
	if e.Labels == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.value(e.Labels) // rare (labelled episodes), and maps: encoding/json
	}
	w.b = append(w.b, '}')
}

func (w *jsonEnc) termination(t *analyze.Termination) {
	if t == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, `{"turn":`...)
	w.int(t.Turn)
	w.b = append(w.b, `,"turns_stuck":`...)
	w.int(t.TurnsStuck)
	w.b = append(w.b, `,"score":`...)
	w.float(t.Score)
	w.b = append(w.b, '}')
}

func (w *jsonEnc) checkpoints(cs []analyze.Checkpoint) {
	if cs == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, c := range cs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, `{"turn":`...)
		w.int(c.Turn)
		w.b = append(w.b, `,"turns_stuck":`...)
		w.int(c.TurnsStuck)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ']')
}

// counts writes a map with its keys sorted, as encoding/json does.
func (w *jsonEnc) counts(m map[string]int) {
	if m == nil {
		w.b = append(w.b, "null"...)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.b = append(w.b, '{')
	for i, k := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(k)
		w.b = append(w.b, ':')
		w.int(m[k])
	}
	w.b = append(w.b, '}')
}

func (w *jsonEnc) strs(ss []string) {
	if ss == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, s := range ss {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(s)
	}
	w.b = append(w.b, ']')
}

// firing is Firing.MarshalJSON: turn, rule, kind, origin, the fields the
// kind declares, in order, then after_cut.
func (w *jsonEnc) firing(f *rules.Firing, afterCut bool) {
	switch f.Unit {
	case rules.UnitStep:
		w.b = append(w.b, `{"step":`...)
	case rules.UnitAttempt:
		w.b = append(w.b, `{"attempt":`...)
	default:
		w.b = append(w.b, `{"turn":`...)
	}
	w.int(f.Turn)
	h := w.head(f.Rule, f.Kind)
	w.b = append(w.b, h.head...)
	for i, field := range f.Kind.Fields {
		w.b = append(w.b, h.keys[i]...)
		w.field(f, field)
	}
	w.b = append(w.b, `,"after_cut":`...)
	w.bool(afterCut)
	w.b = append(w.b, '}')
}

// firingHead is what every firing of a kind encodes alike: its rule,
// kind and origin members, and the keys of its fields (",key:"), encoded
// once per kind instead of at each of an episode's thousands of firings.
type firingHead struct {
	head []byte
	keys [][]byte
}

var firingHeads sync.Map // headKey → *firingHead

type headKey struct {
	rule *rules.Rule
	kind *rules.Kind
}

func (w *jsonEnc) head(r *rules.Rule, k *rules.Kind) *firingHead {
	key := headKey{r, k}
	for i := range w.heads {
		if w.heads[i].key == key {
			return w.heads[i].h
		}
	}
	h := headOf(r, k)
	if len(w.heads) < 16 {
		w.heads = append(w.heads, cachedHead{key, h})
	}
	return h
}

func headOf(r *rules.Rule, k *rules.Kind) *firingHead {
	if h, ok := firingHeads.Load(headKey{r, k}); ok {
		return h.(*firingHead)
	}
	w := jsonEnc{}
	w.b = append(w.b, `,"rule":`...)
	w.str(r.Name)
	w.b = append(w.b, `,"kind":`...)
	w.str(k.Name)
	w.b = append(w.b, `,"origin":`...)
	w.str(r.Origin)
	h := &firingHead{head: w.b}
	for _, field := range k.Fields {
		w = jsonEnc{}
		w.b = append(w.b, ',')
		w.str(field)
		w.b = append(w.b, ':')
		h.keys = append(h.keys, w.b)
	}
	v, _ := firingHeads.LoadOrStore(headKey{r, k}, h)
	return v.(*firingHead)
}

// field writes FieldValue(f, field) without boxing it in an interface
// (an allocation per number or string); a field it does not know goes
// through FieldValue.
func (w *jsonEnc) field(f *rules.Firing, field string) {
	switch field {
	case "turns_stuck":
		w.int(f.TurnsStuck)
	case "turns_until_death":
		w.int(f.TurnsUntilDeath)
	case "score":
		w.float(Round(f.Score, 4))
	case "visits":
		w.int(f.Visits)
	case "penalty":
		w.float(Round(f.Penalty, 4)) // as FieldValue: no float noise
	case "base", "adjusted":
		if !f.HasBase {
			w.b = append(w.b, "null"...)
		} else if field == "base" {
			w.float(Round(f.Base, 4))
		} else {
			w.float(Round(f.Adjusted, 4))
		}
	case "location":
		w.str(f.Location)
	case "destination":
		w.str(f.Destination)
	case "action":
		w.str(f.Action)
	case "rejected":
		w.bool(f.Rejected)
	case "low_confidence":
		w.bool(f.LowConfidence)
	case "cause":
		w.str(f.Cause)
	case "urgency":
		w.str(f.Urgency)
	case "proposal":
		w.str(f.Proposal)
	case "signature":
		w.str(f.Signature)
	case "similarity":
		w.float(f.Similarity)
	case "matched_step":
		w.int(f.MatchedStep)
	case "task_id":
		w.str(f.TaskID)
	case "loop_type":
		w.str(f.LoopType)
	case "recommendation":
		w.str(f.Recommendation)
	case "attempt_count":
		w.int(f.AttemptCount)
	case "cycle_length":
		w.int(f.CycleLength)
	default:
		w.value(FieldValue(f, field))
	}
}

// value writes one of FieldValue's types; anything else goes through
// encoding/json.
func (w *jsonEnc) value(v any) {
	switch v := v.(type) {
	case nil:
		w.b = append(w.b, "null"...)
	case string:
		w.str(v)
	case int:
		w.int(v)
	case float64:
		w.float(v)
	case bool:
		w.bool(v)
	case []string:
		w.strs(v)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			w.refused = true
			return
		}
		w.b = append(w.b, data...)
	}
}

func (w *jsonEnc) int(n int) { w.b = strconv.AppendInt(w.b, int64(n), 10) }

func (w *jsonEnc) bool(v bool) { w.b = strconv.AppendBool(w.b, v) }

// float is encoding/json's float64 encoding: shortest form, exponent only
// below 1e-6 or from 1e21, "e-07" written "e-7".
func (w *jsonEnc) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.refused = true
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if format == 'e' {
		if n := len(w.b); n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
			w.b[n-2] = w.b[n-1]
			w.b = w.b[:n-1]
		}
	}
}

// str writes a string as encoding/json does; one of printable ASCII
// without '"', '\\' or the HTML characters it escapes (<, >, &) is copied
// as is, anything else goes through encoding/json.
func (w *jsonEnc) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			data, _ := json.Marshal(s) // a string always encodes
			w.b = append(w.b, data...)
			return
		}
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}
