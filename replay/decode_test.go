package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeRef is the decoder scanLine replaced: json.Valid (after
// sanitizing Python's non-finite numbers), then a member walk.
func decodeRef(line []byte) (*wireEvent, error) {
	if !json.Valid(line) {
		fixed, changed := sanitizeNonFinite(line)
		if !changed || !json.Valid(fixed) {
			var v struct{}
			if err := json.Unmarshal(line, &v); err != nil {
				return nil, err
			}
			return nil, errors.New("invalid JSON")
		}
		line = fixed
	}
	w := &wireEvent{}
	if !w.fill(line, true) {
		return nil, errors.New("not a JSON object")
	}
	return w, nil
}

// wireValues is what the builder can read of w: every field through the
// accessors it uses.
func wireValues(w *wireEvent) string {
	var b strings.Builder
	b.WriteString(w.eventType())
	t, ok := w.turn()
	b.WriteString(strings.Repeat("|", 1) + string(rune('0'+btoi(ok))) + " " + itoa(t))
	for _, get := range []func(*wireEvent) json.RawMessage{
		func(e *wireEvent) json.RawMessage { return e.EpisodeID },
		func(e *wireEvent) json.RawMessage { return e.AgentAction },
		func(e *wireEvent) json.RawMessage { return e.Action },
		func(e *wireEvent) json.RawMessage { return e.CriticConfidence },
		func(e *wireEvent) json.RawMessage { return e.BaseConfidence },
		func(e *wireEvent) json.RawMessage { return e.Confidence },
		func(e *wireEvent) json.RawMessage { return e.Score },
		func(e *wireEvent) json.RawMessage { return e.Location },
		func(e *wireEvent) json.RawMessage { return e.LocationID },
		func(e *wireEvent) json.RawMessage { return e.LocationName },
		func(e *wireEvent) json.RawMessage { return e.FromRoomID },
		func(e *wireEvent) json.RawMessage { return e.FromRoom },
		func(e *wireEvent) json.RawMessage { return e.ToRoomID },
		func(e *wireEvent) json.RawMessage { return e.ToRoom },
		func(e *wireEvent) json.RawMessage { return e.FinalScore },
		func(e *wireEvent) json.RawMessage { return e.Reason },
		func(e *wireEvent) json.RawMessage { return e.TurnsStuck },
		func(e *wireEvent) json.RawMessage { return e.WasStuckFor },
		func(e *wireEvent) json.RawMessage { return e.OldScore },
		func(e *wireEvent) json.RawMessage { return e.NewScore },
		func(e *wireEvent) json.RawMessage { return e.AdjustedConfidence },
		func(e *wireEvent) json.RawMessage { return e.RecentVisits },
	} {
		v := w.field(get)
		s, okS := text(v)
		f, okF := number(v)
		id, okID := roomID(v)
		b.WriteString("|" + s + itoa(btoi(okS)) + " " + strings.TrimSpace(jsonFloat(f)) + itoa(btoi(okF)) + " " + id + itoa(btoi(okID)))
	}
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func jsonFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }

// FuzzScanLine: the one-pass decoder gives encoding/json's verdict (valid
// or not, with the same error) and the same values, on any line.
func FuzzScanLine(f *testing.F) {
	for _, l := range rtSeedLines {
		f.Add([]byte(l))
	}
	for _, l := range []string{
		`{}`, ` { } `, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":1e+}`,
		`{"a":-0.5E-3}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, "{\"a\":\"\t\"}", `{"a":[1,2,]}`,
		`{"a":[NaN,-Infinity,Infinity]}`, `{"a":-NaN}`, `{"a":nul}`, `{"a":truex}`, `{"a":{"b":}}`,
		`{"a":"x"}}`, `{"a":"x"} x`, `{"a\"b":1}`, `{"turn\u0020":1,"turn":2}`, `{"extras":{"turn":NaN,"score":Infinity}}`,
		`{"extras":{"event_type":"turn_completed"},"extras":1}`, `{"event_type":1,"event_type":"turn_completed"}`,
		`{"location":"\u00e9\\\"","score":"12"}`, "{\"location\":\"\xff\"}", `{"a":"\\\\"}`, `{"a":"\\\"}`,
		`{"a":[[[[{}]]]]}`, `{"a":[}`, `{"a":{]}`, `{"a":{"b":1,"c":[true,false,null]}}`, `{"a": 1 , "b" : 2 }`,
		`{"a":` + strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting) + `}`,
		`{"a":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`,
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		q := fmt.Sprintf("%.200q", line)
		got, gotErr := decodeLine(line)
		want, wantErr := decodeRef(line)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%s: decodeLine error %v, encoding/json %v", q, gotErr, wantErr)
		}
		if gotErr != nil {
			if gotErr.Error() != wantErr.Error() {
				t.Fatalf("%s: error %q, encoding/json %q", q, gotErr, wantErr)
			}
			return
		}
		// The fast verdict itself, not only decodeLine's (which falls back).
		if !scanLine(line, func([]byte, bool, []byte) {}) {
			t.Fatalf("%s: scanLine refuses a line encoding/json accepts", q)
		}
		if g, w := wireValues(got), wireValues(want); g != w {
			t.Fatalf("%s:\n got %s\nwant %s", q, g, w)
		}
	})
}

// TestScanLineRefuses: scanLine's own verdict on invalid lines (decodeLine
// would hide a wrong one behind its fallback).
func TestScanLineRefuses(t *testing.T) {
	for _, l := range []string{
		`{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12"}`,
		"{\"a\":\"\t\"}", `{"a":[1,2,]}`, `{"a":-NaN}`, `{"a":nul}`, `{"a":truex}`, `{"a":"x"}}`, `{"a":"\\\"}`,
		`{"a":[}`, `{"a":{]}`, `{"a":1`, `{"a":"x`, `{NaN:1}`,
		`{"a":` + strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1) + `}`,
	} {
		if scanLine([]byte(l), func([]byte, bool, []byte) {}) {
			t.Errorf("scanLine accepts %.200q", l)
		}
		if json.Valid([]byte(l)) {
			t.Errorf("test is wrong: %.200q is valid JSON", l)
		}
	}
}

// FuzzSniffLine: the one walk agrees with the searches it replaces
// (sniffEventType, then topEpisodeID on an irrelevant line), on any line.
func FuzzSniffLine(f *testing.F) {
	for _, l := range rtSeedLines {
		f.Add([]byte(l))
	}
	for _, l := range []string{
		`{"event_type": "zork_response", "extras": {"event_type": "turn_completed"}}`,
		`{"message": "{\"event_type\": \"turn_completed\"}", "event_type": "llm_usage"}`,
		`{"message": "C:\\", "event_type": "llm_call"}`,
		`{"event_type":"turn_completed","event_type":"zork_response"}`,
		`{"x":1"event_type":"turn_completed"}`, `{"x":[1,"event_type":"turn_completed"]}`,
		`{"memory":{"record":{"event_type":"turn_completed","episode_id":"other"}},"episode_id":"E"}`,
		`{"event\u005ftype":"turn_completed"}`, `{"event_type":"turn\u005fcompleted"}`, `{"a":"\u0041","event_type":"x"}`,
		`{"extras":{"episode_id":"A"},"extras":{"turn":1}}`, `{"extras":{"episode_id":"A"},"extras":3}`,
		`{"episode_id":null,"extras":{"episode_id":"B"}}`, `{"episode_id":7}`, `{"episode_id":"A"} x`,
		`{"extras":{"a":]}}`, `{"a":{"b":"c}`, `{"a":"b"`, `{"a" "b"}`, `{"a":tru"e"}`,
		`{"event_type": "zork_response", "episode_id": "E", "zork_response": "ok"}`,
		`{"x": {"event_type": "zork_response"}, "episode_id": "E"}`, `{"event_type": "zork\u005fresponse"}`,
		`{"event_type": "zork_response", "a": ]}`,
		"{\"event_type\"\x00: \"turn_completed\"}", "{\"event_type\": \"llm_usage\", \"episode_id\": \"E\x00\"}",
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, outputs := range []bool{false, true} {
			relevant, id := sniffLine(line, outputs)
			wantRelevant, _ := sniffEventType(line)
			// A raw NUL is never JSON: such a line goes to the decoder,
			// which refuses it (issue 23).
			wantRelevant = wantRelevant || outputs && isZorkResponse(line) || bytes.IndexByte(line, 0) >= 0
			var wantID []byte
			if !wantRelevant {
				wantID = topEpisodeID(line)
			}
			if relevant != wantRelevant || !bytes.Equal(id, wantID) {
				t.Fatalf("%.300q outputs=%v: sniffLine %v %q, searches %v %q", line, outputs, relevant, id, wantRelevant, wantID)
			}
		}
	})
}

// FuzzPlainRelevant: a line collector.line takes as relevant without
// sniffing it (plainRelevant) is one sniffLine calls relevant, decoded as
// decodeLine decodes it, on any line.
func FuzzPlainRelevant(f *testing.F) {
	for _, l := range rtSeedLines {
		f.Add([]byte(l))
	}
	for _, l := range []string{
		`{"event_type": "zork_response", "extras": {"event_type": "turn_completed"}}`,
		`{"message": "{\"event_type\": \"turn_completed\"}", "event_type": "llm_usage"}`,
		`{"event_type":"turn_completed","event_type":"zork_response"}`, `{"event_type":"turn_completed","event_type":5}`,
		`{"event_type":"llm_usage","event_type":"turn_completed"}`, `{"event\u005ftype":"zork_response","event_type":"turn_completed"}`,
		`{"x": {"event_type": "turn_completed"}, "event_type": "llm_usage"}`, `{"x": {"event_type": "zork_response"}, "episode_id": "E"}`,
		`{"event\u005ftype":"zork_response"}`, `{"event_type":"zork\u005fresponse"}`, `{"event_type": "zork_response", "a": ]}`,
		`{"extras":{"a\u0041":1},"event_type":"zork_response"}`, `{"a":NaN,"event_type":"turn_completed"}`,
		`{"event_type" : "zork_response" , "turn": 3}`, "{\"event_type\": \"turn_completed\", \"a\": \"\x00\"}",
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, outputs := range []bool{false, true} {
			c := &collector{outputs: outputs}
			if !c.plainRelevant(line) {
				continue
			}
			if relevant, _ := sniffLine(line, outputs); !relevant {
				t.Fatalf("%.300q outputs=%v: taken as relevant unsniffed, sniffLine says irrelevant", line, outputs)
			}
			want, err := decodeLine(line)
			if err != nil {
				t.Fatalf("%.300q: taken as relevant, decodeLine fails: %v", line, err)
			}
			got := c.wire
			got.spare, want.spare = nil, nil
			if !reflect.DeepEqual(&got, want) {
				t.Fatalf("%.300q: decoded\n%+v\nwant\n%+v", line, got, *want)
			}
		}
	})
}

// special's word-at-a-time search agrees with a byte loop, whatever the
// neighbours of the byte in question and wherever the search starts: in
// the first or second word of a turn of two, the single word after them,
// or the bytes left.
func TestSpecial(t *testing.T) {
	naive := func(s []byte, j int) int {
		for ; j < len(s); j++ {
			if s[j] < 0x20 || s[j] == '"' || s[j] == '\\' {
				break
			}
		}
		return j
	}
	for _, fill := range []byte{0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0x9f, 0xa0, 0xdc, 0xff} {
		for n := range 36 {
			for pos := range n {
				for c := range 256 {
					s := bytes.Repeat([]byte{fill}, n)
					s[pos] = byte(c)
					for from := range min(n, 3) {
						if got, want := special(s, from), naive(s, from); got != want {
							t.Fatalf("%x from %d: %d, want %d", s, from, got, want)
						}
					}
				}
			}
		}
	}
}

// validStringRef is validString a byte at a time.
func validStringRef(b []byte, i int) (end int, esc bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc
		case c < 0x20:
			return -1, false
		case c == '\\':
			esc = true
			if j+1 >= len(b) {
				return -1, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+6 > len(b) {
					return -1, false
				}
				for _, h := range b[j+2 : j+6] {
					if !isHex(h) {
						return -1, false
					}
				}
				j += 5
			default:
				return -1, false
			}
		}
	}
	return -1, false
}

// validString's inline words agree with the byte loop whatever byte
// stands wherever in a string, near its end or the buffer's, from any
// start: the stop in the first word, a later one (the vector scan's
// five 16-byte steps and every tail, with the escapes it passes), the
// last few bytes.
func TestValidString(t *testing.T) {
	for _, tail := range []string{"", "\"", "\" ", "\",\"abcdefgh\"}"} {
		for _, fill := range []string{"a", `abcdefghijklmn\n`, `\t`, `abcdefghijk\u00e9`} {
			for n := range 81 {
				for pos := range n {
					for _, c := range []byte{0, 0x1f, ' ', '"', '\\', 'n', 'u', '0', 'g', 0x7f, 0x80, 0xff} {
						body := []byte(strings.Repeat(fill, n))[:n]
						body[pos] = c
						b := append(append([]byte{'"'}, body...), tail...)
						gotEnd, gotEsc := validString(b, 0)
						wantEnd, wantEsc := validStringRef(b, 0)
						if gotEnd != wantEnd || gotEsc != wantEsc {
							t.Fatalf("%q: %d %v, want %d %v", b, gotEnd, gotEsc, wantEnd, wantEsc)
						}
					}
				}
			}
		}
	}
}

// skipSpace's one-test pass over a byte above ' ' agrees with the plain
// four tests for every byte, after runs of every kind of white space and
// at the slice's end.
func TestSkipSpace(t *testing.T) {
	ref := func(b []byte, i int) int {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
		return i
	}
	for c := range 256 {
		for _, pre := range []string{"", " ", "\t", "\n", "\r", " \t\r\n "} {
			for _, post := range []string{"", "x", " "} {
				b := []byte(pre + string([]byte{byte(c)}) + post)
				for i := range len(b) + 1 {
					if got, want := skipSpace(b, i), ref(b, i); got != want {
						t.Fatalf("skipSpace(%q, %d) = %d, want %d", b, i, got, want)
					}
				}
			}
		}
	}
}
