package replay

// Sniffing raw lines: the event type and episode id found without a decode.

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"
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

// relevantWithOutputs is relevantEvents and zork_response, whose replies
// are the turns' outputs with Options.Outputs.
var relevantWithOutputs = func() map[string]bool {
	m := maps.Clone(relevantEvents)
	m["zork_response"] = true
	return m
}()

// eventsByLen is relevantWithOutputs' names by their length (at most
// two share one), made from the map so the names are written once.
var eventsByLen = func() (t [32][]string) {
	for name := range relevantWithOutputs {
		t[len(name)] = append(t[len(name)], name)
	}
	return t
}()

// knownEvent returns the relevant event type spelled by b (zork_response
// included), as the string relevantWithOutputs holds, without hashing or
// allocating: every line of a log asks, and hashing the name for the map
// lookups was a few percent of reading many small episodes. A name is
// compared only with the names of its length. TestKnownEvent holds it to
// relevantWithOutputs.
func knownEvent[T string | []byte](b T) (string, bool) {
	if len(b) >= len(eventsByLen) {
		return "", false
	}
	for _, name := range eventsByLen[len(b)] {
		if name == string(b) {
			return name, true
		}
	}
	return "", false
}

// isRelevant is relevantEvents[name], or relevantWithOutputs[name] with
// outputs.
func isRelevant[T string | []byte](name T, outputs bool) bool {
	n, ok := knownEvent(name)
	return ok && (outputs || n != "zork_response")
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
