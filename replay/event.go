package replay

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// relevantEvents are the event types the turn model uses. Every other line
// is recognised from its raw bytes and skipped without a JSON decode.
var relevantEvents = map[string]bool{
	"final_action_selection":    true,
	"location_penalty_applied":  true,
	"action_rejected":           true,
	"map_movement_update":       true,
	"room_description_captured": true,
	"objective_completed":       true,
	"turn_completed":            true,
	"stuck_termination":         true,
	"game_over_detected":        true,
	"episode_completed":         true,
	"episode_finalized":         true,
	"episode_initialized":       true,
	"orchestrator_init":         true,
	"llm_call":                  true,
}

var eventTypeKey = []byte(`"event_type"`)

// sniffEventType finds the values of every "event_type" key in a raw line
// (top level or nested under "extras") and reports whether one is
// relevant. It never decodes the line: a match on a key inside a string
// value is impossible because quotes there are escaped.
func sniffEventType(line []byte) (relevant, found bool) {
	rest := line
	for {
		i := bytes.Index(rest, eventTypeKey)
		if i < 0 {
			return false, found
		}
		if i > 0 && rest[i-1] == '\\' {
			rest = rest[i+len(eventTypeKey):]
			continue
		}
		rest = rest[i+len(eventTypeKey):]
		j := 0
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		if j >= len(rest) || rest[j] != ':' {
			continue
		}
		j++
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		if j >= len(rest) || rest[j] != '"' {
			continue
		}
		j++
		k := bytes.IndexByte(rest[j:], '"')
		if k < 0 {
			return false, found
		}
		found = true
		if relevantEvents[string(rest[j:j+k])] {
			return true, true
		}
		rest = rest[j+k:]
	}
}

// wireEvent is the subset of a log line the turn model reads. Values are
// kept raw because real logs vary in type (ids as ints or strings, turns as
// floats, NaN confidences).
type wireEvent struct {
	EventType string          `json:"event_type"`
	EpisodeID json.RawMessage `json:"episode_id"`
	Turn      json.RawMessage `json:"turn"`
	TurnNum   json.RawMessage `json:"turn_number"`

	AgentAction      json.RawMessage `json:"agent_action"`
	Action           json.RawMessage `json:"action"`
	CriticConfidence json.RawMessage `json:"critic_confidence"`
	BaseConfidence   json.RawMessage `json:"base_confidence"`
	Confidence       json.RawMessage `json:"confidence"`
	Score            json.RawMessage `json:"score"`
	Location         json.RawMessage `json:"location"`
	LocationID       json.RawMessage `json:"location_id"`
	LocationName     json.RawMessage `json:"location_name"`
	FromRoomID       json.RawMessage `json:"from_room_id"`
	FromRoom         json.RawMessage `json:"from_room"`
	ToRoomID         json.RawMessage `json:"to_room_id"`
	ToRoom           json.RawMessage `json:"to_room"`
	FinalScore       json.RawMessage `json:"final_score"`
	Reason           json.RawMessage `json:"reason"`

	Extras *wireEvent `json:"extras"`
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
		if f, ok := number(raw); ok && f == math.Trunc(f) && math.Abs(f) < 1e9 {
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

// roomID reads a room id (int or string) as a location key.
func roomID(v json.RawMessage) (string, bool) {
	if f, ok := number(v); ok && f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10), true
	}
	s, ok := text(v)
	s = strings.TrimSpace(s)
	return s, ok && s != ""
}

// decodeLine decodes a line; Python's NaN/Infinity literals are replaced
// by null first when plain decoding fails.
func decodeLine(line []byte) (*wireEvent, error) {
	var w wireEvent
	err := json.Unmarshal(line, &w)
	if err == nil {
		return &w, nil
	}
	if fixed, changed := sanitizeNonFinite(line); changed {
		w = wireEvent{}
		if err2 := json.Unmarshal(fixed, &w); err2 == nil {
			return &w, nil
		}
	}
	return nil, err
}

// sanitizeNonFinite replaces the bare tokens NaN, Infinity and -Infinity
// (outside strings) with null, keeping everything else byte for byte.
func sanitizeNonFinite(line []byte) ([]byte, bool) {
	var out []byte
	changed := false
	inStr := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if c == tok[0] && bytes.HasPrefix(line[i:], []byte(tok)) {
				if out == nil {
					out = make([]byte, 0, len(line))
				}
				if !changed {
					out = append(out, line[:i]...)
				}
				changed = true
				out = append(out, "null"...)
				// Copy nothing of the token; continue after it.
				rest := line[i+len(tok):]
				fixed, _ := sanitizeNonFinite(rest)
				return append(out, fixed...), true
			}
		}
	}
	return line, changed
}
