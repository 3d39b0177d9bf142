package replay

// wireEvent: the decoded fields of a line, how they are read and how a line fills them.

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// wireEvent is the subset of a log line the turn model reads (filled by
// decodeLine). Values are kept raw because real logs vary in type (ids as
// ints or strings, turns as floats, NaN confidences).
type wireEvent struct {
	EventType string
	EpisodeID json.RawMessage
	Turn      json.RawMessage
	TurnNum   json.RawMessage

	AgentAction      json.RawMessage
	Action           json.RawMessage
	CriticConfidence json.RawMessage
	BaseConfidence   json.RawMessage
	Confidence       json.RawMessage
	Score            json.RawMessage
	Location         json.RawMessage
	LocationID       json.RawMessage
	LocationName     json.RawMessage
	FromRoomID       json.RawMessage
	FromRoom         json.RawMessage
	ToRoomID         json.RawMessage
	ToRoom           json.RawMessage
	FinalScore       json.RawMessage
	Reason           json.RawMessage
	ZorkResponse     json.RawMessage // read only with Options.Outputs

	// The live loop-break system's own decisions (RULES.md §10).
	TurnsStuck         json.RawMessage
	WasStuckFor        json.RawMessage
	OldScore           json.RawMessage
	NewScore           json.RawMessage
	AdjustedConfidence json.RawMessage
	RecentVisits       json.RawMessage

	Extras *wireEvent
	spare  *wireEvent // storage for Extras, kept across decodes
}

// field returns the top-level value, else the one nested under extras.
func (w *wireEvent) field(get func(*wireEvent) json.RawMessage) json.RawMessage {
	if v := get(w); present(v) {
		return v
	}
	if w.Extras != nil {
		if v := get(w.Extras); present(v) {
			return v
		}
	}
	return nil
}

func (w *wireEvent) eventType() string {
	if w.EventType != "" {
		return w.EventType
	}
	if w.Extras != nil {
		return w.Extras.EventType
	}
	return ""
}

// turn returns `turn`, else `turn_number`, at top level or under extras.
func (w *wireEvent) turn() (int, bool) {
	for _, raw := range []json.RawMessage{
		w.field(func(e *wireEvent) json.RawMessage { return e.Turn }),
		w.field(func(e *wireEvent) json.RawMessage { return e.TurnNum }),
	} {
		// Any integral value is the line's turn; the builder decides
		// whether it is a valid one (MaxTurnNumber).
		if f, ok := number(raw); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return int(f), true
		}
	}
	return 0, false
}

func present(v json.RawMessage) bool {
	return len(v) > 0 && string(v) != "null"
}

// number reads a JSON number, or a string holding one. NaN and infinities
// (after sanitising) arrive as null and are absent.
func number(v json.RawMessage) (float64, bool) {
	if !present(v) {
		return 0, false
	}
	s := string(v)
	if s[0] == '"' {
		var str string
		if json.Unmarshal(v, &str) != nil {
			return 0, false
		}
		s = strings.TrimSpace(str)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// text reads a JSON string; numbers are returned as written.
func text(v json.RawMessage) (string, bool) {
	if !present(v) {
		return "", false
	}
	if v[0] == '"' {
		if s, ok := plainString(v); ok {
			return s, true
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	if v[0] == '{' || v[0] == '[' || v[0] == 't' || v[0] == 'f' {
		return "", false
	}
	return string(v), true
}

// plainString reads a quoted string without escapes or control bytes
// (nearly every value in a log) without encoding/json; anything else,
// invalid UTF-8 included (which json.Unmarshal replaces), is for
// json.Unmarshal.
func plainString(v []byte) (string, bool) {
	s, ok := plainBytes(v)
	if !ok {
		return "", false
	}
	return string(s), true
}

// plainBytes is plainString without the copy: the bytes between the
// quotes, aliasing v.
func plainBytes(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s := v[1 : len(v)-1]
	ascii := true
	for _, c := range s {
		if c < 0x20 || c == '\\' || c == '"' {
			return nil, false
		}
		ascii = ascii && c < 0x80
	}
	if !ascii && !utf8.Valid(s) {
		return nil, false
	}
	return s, true
}

// eventTypeName reads an event_type value. The types the reader uses
// come back as the names it already holds, so decoding a line's type
// copies nothing.
func eventTypeName(v []byte) string {
	if raw, ok := plainBytes(v); ok {
		if name, ok := eventNames[string(raw)]; ok {
			return name
		}
	}
	s, _ := text(v)
	return s
}

// eventNames maps each relevant event type (zork_response included) to
// itself.
var eventNames = func() map[string]string {
	m := map[string]string{}
	for name := range relevantWithOutputs {
		m[name] = name
	}
	return m
}()

// roomID reads a room id (int or string) as a location key.
func roomID(v json.RawMessage) (string, bool) {
	if f, ok := number(v); ok && f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10), true
	}
	s, ok := text(v)
	s = strings.TrimSpace(s)
	return s, ok && s != ""
}

// decodeLine reads the fields the turn model uses from a line holding one
// JSON object. Keys match exactly (JSON keys are case-sensitive, unlike
// encoding/json's struct matching), and a field of an unexpected type is
// absent rather than a reason to drop the line. Python's NaN/Infinity
// literals are read as null. Values alias line.
func decodeLine(line []byte) (*wireEvent, error) {
	w := &wireEvent{}
	if err := w.decode(line); err != nil {
		return nil, err
	}
	return w, nil
}

// decode is decodeLine into w, which it resets; a collector decodes every
// relevant line into the same wireEvent (and extras), which the builder
// reads before the next line.
func (w *wireEvent) decode(line []byte) error {
	*w = wireEvent{spare: w.spare}
	if scanLine(line, func(key []byte, esc bool, v []byte) {
		if esc {
			key = unescapeKey(key)
		}
		w.set(key, v, true)
	}) {
		return nil
	}
	// Invalid (or, should the scanners ever disagree, valid after all):
	// encoding/json decides and names the problem.
	if !json.Valid(line) {
		fixed, changed := sanitizeNonFinite(line)
		if !changed || !json.Valid(fixed) {
			var v struct{}
			if err := json.Unmarshal(line, &v); err != nil {
				return err
			}
			return errors.New("invalid JSON")
		}
		line = fixed
	}
	*w = wireEvent{spare: w.spare}
	if !w.fill(line, true) {
		return errors.New("not a JSON object")
	}
	return nil
}

// unescapeKey decodes a key holding escapes (left as is if it cannot be).
func unescapeKey(raw []byte) []byte {
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) == nil {
		return []byte(s)
	}
	return raw
}

// fill sets w's fields from the members of a valid JSON object; extras
// is read one level down, as the writer nests it.
func (w *wireEvent) fill(obj []byte, top bool) bool {
	return eachMember(obj, func(key, v []byte) { w.set(key, v, top) })
}

// set reads one member. Python's NaN and infinities (left in place inside
// extras by scanLine) read as null, as sanitizeNonFinite would make them.
func (w *wireEvent) set(key, v []byte, top bool) {
	if nonFiniteToken(v) {
		v = nullLit
	}
	switch string(key) {
	case "event_type":
		if len(v) > 0 && v[0] == '"' {
			w.EventType = eventTypeName(v)
		}
	case "episode_id":
		w.EpisodeID = v
	case "turn":
		w.Turn = v
	case "turn_number":
		w.TurnNum = v
	case "agent_action":
		w.AgentAction = v
	case "action":
		w.Action = v
	case "critic_confidence":
		w.CriticConfidence = v
	case "base_confidence":
		w.BaseConfidence = v
	case "confidence":
		w.Confidence = v
	case "score":
		w.Score = v
	case "location":
		w.Location = v
	case "location_id":
		w.LocationID = v
	case "location_name":
		w.LocationName = v
	case "from_room_id":
		w.FromRoomID = v
	case "from_room":
		w.FromRoom = v
	case "to_room_id":
		w.ToRoomID = v
	case "to_room":
		w.ToRoom = v
	case "turns_stuck":
		w.TurnsStuck = v
	case "was_stuck_for":
		w.WasStuckFor = v
	case "old_score":
		w.OldScore = v
	case "new_score":
		w.NewScore = v
	case "adjusted_confidence":
		w.AdjustedConfidence = v
	case "recent_visits":
		w.RecentVisits = v
	case "final_score":
		w.FinalScore = v
	case "reason":
		w.Reason = v
	case "zork_response":
		w.ZorkResponse = v
	case "extras":
		if top && len(v) > 0 && v[0] == '{' {
			// The spare is reused, unless it holds an earlier extras
			// that this one may yet fail to replace.
			x := w.spare
			if x == nil || x == w.Extras {
				x = &wireEvent{}
				if w.spare == nil {
					w.spare = x
				}
			}
			*x = wireEvent{}
			if x.fill(v, false) {
				w.Extras = x
			}
		}
	}
}
