package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
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
	"score_change":              true,
	"objective_progress_reset":  true,
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
// relevant. It does not decode the line: a match on a key inside a string
// value is impossible because quotes there are escaped. A line that spells
// ASCII with \u escapes (never Python's json.dumps, but a re-encoded log)
// could hide its event type from a byte search, so it is decoded instead.
func sniffEventType(line []byte) (relevant, found bool) {
	relevant, found = sniffRaw(line)
	if relevant || !escapesASCII(line) {
		return relevant, found
	}
	w, err := decodeLine(line)
	if err != nil {
		return false, found
	}
	for _, e := range []*wireEvent{w, w.Extras} {
		if e != nil && e.EventType != "" {
			found = true
			if relevantEvents[e.EventType] {
				return true, true
			}
		}
	}
	return false, found
}

// isZorkResponse says a raw line is a zork_response event: with
// Options.Outputs its reply is each turn's output (RULES.md §8).
func isZorkResponse(line []byte) bool {
	is := false
	keyValues(line, eventTypeKey, func(v []byte) bool {
		is = is || string(v) == `"zork_response"`
		return !is
	})
	return is
}

func sniffRaw(line []byte) (relevant, found bool) {
	keyValues(line, eventTypeKey, func(v []byte) bool {
		if v == nil {
			return true // not a string: not an event type
		}
		found = true
		relevant = relevantEvents[string(v[1:len(v)-1])]
		return !relevant
	})
	return relevant, found
}

var episodeIDKey = []byte(`"episode_id"`)

// topEpisodeID returns the raw value of a line's own episode_id: the
// top-level key, else the one under a top-level "extras" object (as the
// writer nests some components' fields), the last of duplicate keys (as
// decodeLine and encoding/json read them). An "episode_id" nested anywhere
// else (a memory record, a copied event) names another episode and never
// routes the line. nil when the line has none.
func topEpisodeID(line []byte) json.RawMessage {
	if !bytes.Contains(line, episodeIDKey) && !bytes.Contains(line, []byte(`\u00`)) {
		return nil // the common case costs one byte search
	}
	var top, extras json.RawMessage
	eachMember(line, func(key, v []byte) {
		switch string(key) {
		case "episode_id":
			top = v
		case "extras":
			if len(v) > 0 && v[0] == '{' {
				var x json.RawMessage
				if eachMember(v, func(k, xv []byte) {
					if string(k) == "episode_id" {
						x = xv
					}
				}) {
					extras = x // a later extras object replaces an earlier one
				}
			}
		}
	})
	if present(top) {
		return top
	}
	if present(extras) {
		return extras
	}
	return nil
}

// keyValues calls fn with the raw value of each occurrence of key (quoted,
// as `"event_type"`) used as a key in a raw line: the string with its
// quotes, or nil for any other value. It stops when fn returns false or at
// a string cut by the line's end. A key spelled inside a string value never
// matches, because quotes there are escaped.
func keyValues(line, key []byte, fn func(v []byte) bool) {
	rest := line
	for {
		i := bytes.Index(rest, key)
		if i < 0 {
			return
		}
		escaped := i > 0 && rest[i-1] == '\\'
		rest = rest[i+len(key):]
		j := skipSpace(rest, 0)
		if escaped || j >= len(rest) || rest[j] != ':' {
			continue
		}
		j = skipSpace(rest, j+1)
		var v []byte
		if j < len(rest) && rest[j] == '"' {
			end := skipString(rest, j)
			if end-j < 2 || rest[end-1] != '"' {
				return // cut line
			}
			v, rest = rest[j:end], rest[end:]
		}
		if !fn(v) {
			return
		}
	}
}

// escapesASCII reports a \u00XX escape of a printable ASCII character
// other than '"' and '\\', which Python's json.dumps never writes.
func escapesASCII(line []byte) bool {
	rest := line
	for {
		i := bytes.Index(rest, []byte(`\u00`))
		if i < 0 || i+6 > len(rest) {
			return false
		}
		if c, err := strconv.ParseUint(string(rest[i+4:i+6]), 16, 8); err == nil && c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			return true
		}
		rest = rest[i+4:]
	}
}

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
	if len(v) < 2 || v[len(v)-1] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	ascii := true
	for _, c := range s {
		if c < 0x20 || c == '\\' || c == '"' {
			return "", false
		}
		ascii = ascii && c < 0x80
	}
	if !ascii && !utf8.Valid(s) {
		return "", false
	}
	return string(s), true
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
			w.EventType, _ = text(v)
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

// eachMember calls fn with each key (unescaped) and raw value of a JSON
// object that json.Valid accepted. It reports false when data is not an
// object. It never indexes out of range, whatever data holds.
func eachMember(data []byte, fn func(key, val []byte)) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		kEnd := skipString(data, i)
		key := data[i+1 : max(i+1, kEnd-1)]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if json.Unmarshal(data[i:kEnd], &s) == nil {
				key = []byte(s)
			}
		}
		i = skipSpace(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vEnd := skipValue(data, i)
		fn(key, data[i:vEnd])
		i = vEnd
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	if j := closingQuote(b, i+1); j >= 0 {
		return j + 1
	}
	return len(b)
}

// closingQuote returns the index of the '"' that ends a string whose
// content starts at b[i] (not inside an escape), or -1 when b ends first.
// It jumps from quote to quote with bytes.IndexByte (vectorised, unlike
// bytes.IndexAny with two bytes, which goes a byte at a time and was half
// of analyze's time on long lines) and tells an escaped quote by the
// parity of the backslashes before it: each backslash run is counted once,
// so the search stays linear.
func closingQuote(b []byte, i int) int {
	for i <= len(b) {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return -1
		}
		j := i + k
		if backslashesBefore(b, i, j)%2 == 0 {
			return j
		}
		i = j + 1
	}
	return -1
}

// backslashesBefore counts the backslashes right before b[j], down to b[from].
func backslashesBefore(b []byte, from, j int) int {
	n := 0
	for j--; j >= from && b[j] == '\\'; j-- {
		n++
	}
	return n
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); {
			switch b[j] {
			case '"':
				j = skipString(b, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// sanitizeNonFinite replaces the bare tokens NaN, Infinity and -Infinity
// (outside strings) with null, keeping everything else byte for byte. It
// makes one copy of the line, only when there is something to replace.
func sanitizeNonFinite(line []byte) ([]byte, bool) {
	var out []byte // nil until the first token
	copied := 0    // line[:copied] is in out
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
		if c != 'N' && c != 'I' && c != '-' {
			continue
		}
		for _, tok := range nonFinite {
			if bytes.HasPrefix(line[i:], tok) {
				if out == nil {
					out = make([]byte, 0, len(line))
				}
				out = append(out, line[copied:i]...)
				out = append(out, "null"...)
				copied = i + len(tok)
				i = copied - 1
				break
			}
		}
	}
	if out == nil {
		return line, false
	}
	return append(out, line[copied:]...), true
}

var nonFinite = [][]byte{[]byte("-Infinity"), []byte("Infinity"), []byte("NaN")}
