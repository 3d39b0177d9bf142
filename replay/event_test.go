package replay

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestSniffEventType(t *testing.T) {
	for _, tc := range []struct {
		line            string
		relevant, found bool
	}{
		{`{"event_type": "turn_completed", "turn": 1}`, true, true},
		{`{"event_type":"turn_completed"}`, true, true},
		{"{\"event_type\" :\t\"llm_call\"}", true, true},
		{`{"event_type": "zork_response", "turn": 1}`, false, true},
		{`{"level": "INFO", "message": "hi"}`, false, false},
		{`{}`, false, false},
		{`{"message": "r", "extras": {"event_type": "room_description_captured", "turn": 2}}`, true, true},
		{`{"message": "r", "extras": {"event_type": "llm_retry", "turn": 2}}`, false, true},
		// an irrelevant top-level type does not hide a relevant nested one
		{`{"event_type": "llm_retry", "extras": {"event_type": "objective_completed"}}`, true, true},
		// the text inside a string value is never a key
		{`{"message": "{\"event_type\": \"turn_completed\"}"}`, false, false},
		{`{"message": "say \"event_type\": \"turn_completed\" now", "event_type": "zork_response"}`, false, true},
		{`{"message": "C:\\logs\\", "event_type": "turn_completed"}`, true, true},
		// non-string values
		{`{"event_type": 5}`, false, false},
		{`{"event_type": null, "x": "turn_completed"}`, false, false},
		{`{"event_type": ["turn_completed"]}`, false, false},
		// a prefix or suffix of a relevant name is not relevant
		{`{"event_type": "turn_completed_v2"}`, false, true},
		{`{"event_type": "turn"}`, false, true},
		{`{"event_type": ""}`, false, true},
		// cut lines
		{`{"event_type": "turn_compl`, false, false},
		{`{"event_type": `, false, false},
		{`{"event_type"`, false, false},
	} {
		rel, found := sniffEventType([]byte(tc.line))
		if rel != tc.relevant || found != tc.found {
			t.Errorf("sniffEventType(%s) = %v, %v; want %v, %v", tc.line, rel, found, tc.relevant, tc.found)
		}
	}
	for et := range relevantEvents {
		if rel, _ := sniffEventType([]byte(rtLine(et, "turn", 1))); !rel {
			t.Errorf("%s not relevant", et)
		}
		if rel, _ := sniffEventType([]byte(rtLine("", "extras", rtRaw(`{"event_type": "`+et+`"}`)))); !rel {
			t.Errorf("%s under extras not relevant", et)
		}
	}
}

// JSON may spell ASCII as \u escapes and put \r or \n between a key and its
// colon; such lines (re-encoded logs, never Python's json.dumps) are still
// recognised as relevant.
func TestSniffEventTypeEscapes(t *testing.T) {
	for _, line := range []string{
		`{"event_type": "turn\u005fcompleted", "turn": 1, "score": 5}`,
		`{"event\u005ftype": "turn_completed", "turn": 1, "score": 5}`,
		"{\"event_type\"\r: \"turn_completed\", \"turn\": 1, \"score\": 5}",
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["event_type"] != "turn_completed" {
			t.Fatalf("test line %s: %v %v", line, err, m)
		}
		if rel, _ := sniffEventType([]byte(line)); !rel {
			t.Errorf("sniffEventType(%s): not relevant; a json decode finds event_type turn_completed", line)
		}
	}
}

func TestSanitizeNonFinite(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": NaN}`, `{"a": null}`},
		{`{"a": Infinity, "b": -Infinity}`, `{"a": null, "b": null}`},
		{`[NaN,NaN,-Infinity,Infinity,NaN]`, `[null,null,null,null,null]`},
		{`{"s": "NaN Infinity -Infinity", "n": NaN}`, `{"s": "NaN Infinity -Infinity", "n": null}`},
		{`{"s": "quote \" NaN \\", "n": NaN, "t": "\\\"Infinity"}`, `{"s": "quote \" NaN \\", "n": null, "t": "\\\"Infinity"}`},
		{`{"NaN": NaN}`, `{"NaN": null}`},
		{`{"u": "caf\u00e9 NaN", "v": Infinity}`, `{"u": "caf\u00e9 NaN", "v": null}`},
	} {
		got, changed := sanitizeNonFinite([]byte(tc.in))
		if string(got) != tc.want || !changed {
			t.Errorf("sanitizeNonFinite(%s) = %s, %v; want %s, true", tc.in, got, changed, tc.want)
		}
	}
	for _, in := range []string{`{"a": 1}`, `{"s": "NaN"}`, `{"s": "x\"NaN\"y"}`, ``, `"Infinity"`, `{"s": "unterminated NaN`} {
		got, changed := sanitizeNonFinite([]byte(in))
		if changed || string(got) != in {
			t.Errorf("sanitizeNonFinite(%s) = %s, %v; want it unchanged", in, got, changed)
		}
	}
}

// Sanitising NaN/Infinity costs one copy of the line, however many tokens.
func TestSanitizeNonFiniteLinear(t *testing.T) {
	line := []byte(`{"event_type": "turn_completed", "turn": 1, "score": 5, "v": [` + strings.Repeat("NaN, ", 5000) + `NaN]}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, _ := sanitizeNonFinite(line)
	runtime.ReadMemStats(&after)
	if !bytes.Contains(out, []byte(`[null, null`)) || bytes.Contains(out, []byte("NaN")) {
		t.Fatalf("not sanitised: %.80s", out)
	}
	if per := after.TotalAlloc - before.TotalAlloc; per > uint64(8*len(line)) {
		t.Errorf("sanitizing a %d-byte line with 5001 NaN tokens allocates %d bytes (%.0f× the line); want O(line)",
			len(line), per, float64(per)/float64(len(line)))
	}
}

func TestDecodeLineNonFinite(t *testing.T) {
	line := `{"timestamp": "t", "message": "NaN is not a number", "event_type": "turn_completed", "turn": 4, "score": NaN, "confidence": -Infinity, "action": "say NaN", "location": "Infinity Room"}`
	w, err := decodeLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := number(w.Score); ok {
		t.Errorf("score %s read as a number", w.Score)
	}
	if _, ok := number(w.Confidence); ok {
		t.Errorf("confidence %s read as a number", w.Confidence)
	}
	if a, _ := text(w.Action); a != "say NaN" {
		t.Errorf("action %q", a)
	}
	if l, _ := text(w.Location); l != "Infinity Room" {
		t.Errorf("location %q", l)
	}
	if n, ok := w.turn(); n != 4 || !ok {
		t.Errorf("turn %d %v", n, ok)
	}
	// The line is still used, the NaN field absent.
	prev := rtTurn("E", 3, "n", 10, "Dam", 0.5)
	ep := rtOne(t, prev+strings.Replace(line, `"turn": 4`, `"episode_id": "E", "turn": 4`, 1)+"\n")
	tr := ep.Row(ep.Turn(4))
	if ep.Turn(4) == nil || tr.Filled || tr.Score != 10 || tr.HasBase || tr.Action != "say NaN" || tr.LocEnd != "infinity room" {
		t.Errorf("turn 4 = %+v", tr)
	}
	rtWantNote(t, ep.Diag, "turn 4 has no score; carried forward")
	if ep.Diag.Skipped != 0 {
		t.Errorf("skipped %d: %q", ep.Diag.Skipped, ep.Diag.Problems)
	}
	// NaN does not rescue otherwise invalid JSON.
	if _, err := decodeLine([]byte(`{"a": NaN, "b": }`)); err == nil {
		t.Error("invalid line with NaN decoded")
	}
}

func TestNumberTextRoomID(t *testing.T) {
	for _, tc := range []struct {
		raw string
		f   float64
		ok  bool
	}{
		{`5`, 5, true}, {`-0.25`, -0.25, true}, {`1e2`, 100, true}, {`"7"`, 7, true}, {`" 8.5 "`, 8.5, true},
		{`null`, 0, false}, {``, 0, false}, {`"NaN"`, 0, false}, {`"Infinity"`, 0, false}, {`"-inf"`, 0, false},
		{`1e400`, 0, false}, {`"x"`, 0, false}, {`true`, 0, false}, {`{}`, 0, false}, {`[1]`, 0, false}, {`"`, 0, false},
	} {
		f, ok := number(json.RawMessage(tc.raw))
		if f != tc.f || ok != tc.ok {
			t.Errorf("number(%s) = %v, %v; want %v, %v", tc.raw, f, ok, tc.f, tc.ok)
		}
	}
	for _, tc := range []struct {
		raw, s string
		ok     bool
	}{
		{`"Dam"`, "Dam", true}, {`"caf\u00e9"`, "café", true}, {`"\ud83d\udea8 x"`, "🚨 x", true}, {`12`, "12", true},
		{`null`, "", false}, {`true`, "", false}, {`{"a":1}`, "", false}, {`[]`, "", false}, {`"bad`, "", false},
	} {
		s, ok := text(json.RawMessage(tc.raw))
		if s != tc.s || ok != tc.ok {
			t.Errorf("text(%s) = %q, %v; want %q, %v", tc.raw, s, ok, tc.s, tc.ok)
		}
	}
	for _, tc := range []struct {
		raw, id string
		ok      bool
	}{
		{`180`, "180", true}, {`180.0`, "180", true}, {`"180"`, "180", true}, {`" 42 "`, "42", true},
		{`"dam-room"`, "dam-room", true}, {`"  "`, "", false}, {`""`, "", false}, {`null`, "", false}, {`1.5`, "1.5", true},
	} {
		id, ok := roomID(json.RawMessage(tc.raw))
		if id != tc.id || ok != tc.ok {
			t.Errorf("roomID(%s) = %q, %v; want %q, %v", tc.raw, id, ok, tc.id, tc.ok)
		}
	}
}

func TestWireEventTurn(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int
		ok   bool
	}{
		{`{"turn": 3}`, 3, true},
		{`{"turn": 3.0}`, 3, true},
		{`{"turn": "3"}`, 3, true},
		{`{"turn_number": 9}`, 9, true},
		{`{"turn": 2, "turn_number": 9}`, 2, true},
		{`{"turn": null, "turn_number": 9}`, 9, true},
		{`{"turn": "x", "turn_number": 9}`, 9, true},
		{`{"extras": {"turn": 4}}`, 4, true},
		{`{"extras": {"turn_number": 5}}`, 5, true},
		{`{"turn": 1, "extras": {"turn": 4}}`, 1, true},
		{`{"turn": 2.5}`, 0, false},
		{`{"turn": 1e12}`, 1e12, true}, // out of range: the builder skips the line
		{`{"turn": -3}`, -3, true},
		{`{"turn": 1e15}`, 0, false},
		{`{"turn": true}`, 0, false},
		{`{}`, 0, false},
	} {
		w, err := decodeLine([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		n, ok := w.turn()
		if n != tc.n || ok != tc.ok {
			t.Errorf("turn(%s) = %d, %v; want %d, %v", tc.line, n, ok, tc.n, tc.ok)
		}
	}
}

func TestWireEventExtras(t *testing.T) {
	w, err := decodeLine([]byte(`{"message": "m", "extras": {"event_type": "room_description_captured", "turn": 2, "location_id": 79}}`))
	if err != nil {
		t.Fatal(err)
	}
	if w.eventType() != "room_description_captured" {
		t.Errorf("event type %q", w.eventType())
	}
	if id, _ := roomID(w.field(func(e *wireEvent) json.RawMessage { return e.LocationID })); id != "79" {
		t.Errorf("location id %q", id)
	}
	// top level wins over extras
	w, _ = decodeLine([]byte(`{"event_type": "turn_completed", "score": 1, "extras": {"event_type": "llm_retry", "score": 2, "location": "Dam"}}`))
	if w.eventType() != "turn_completed" {
		t.Errorf("event type %q", w.eventType())
	}
	if f, _ := number(w.field(func(e *wireEvent) json.RawMessage { return e.Score })); f != 1 {
		t.Errorf("score %v", f)
	}
	if l, _ := text(w.field(func(e *wireEvent) json.RawMessage { return e.Location })); l != "Dam" {
		t.Errorf("location %q", l)
	}
	// a null top-level value falls back to extras
	w, _ = decodeLine([]byte(`{"event_type": "turn_completed", "score": null, "extras": {"score": 2}}`))
	if f, _ := number(w.field(func(e *wireEvent) json.RawMessage { return e.Score })); f != 2 {
		t.Errorf("score %v", f)
	}
}

// A field of an unexpected type the turn model does not need (extras as a
// string or list, a nested event_type that is a number) does not drop a
// line that is valid JSON.
func TestDecodeLineLenientTypes(t *testing.T) {
	for _, extra := range []string{
		`"extras": "none"`,
		`"extras": ["a", "b"]`,
		`"extras": 5`,
		`"extras": {"event_type": 7}`,
		`"extras": {"extras": "x"}`,
	} {
		line := `{"event_type": "turn_completed", "turn": 1, "score": 5, "location": "Dam", ` + extra + `}`
		if !json.Valid([]byte(line)) {
			t.Fatalf("test line not valid JSON: %s", line)
		}
		ep := rtOne(t, line+"\n")
		if ep.RecordedTurns() != 1 || ep.FinalScore() != 5 || ep.Diag.Skipped != 0 {
			t.Errorf("%s: turns %d score %v skipped %d %q; want turn 1 read", extra, ep.RecordedTurns(), ep.FinalScore(), ep.Diag.Skipped, ep.Diag.Problems)
		}
	}
}

// \uXXXX escapes (Python's ensure_ascii) decode in names and actions;
// names fold to the same key however they are escaped.
func TestUnicodeEscapes(t *testing.T) {
	in := rtLine("final_action_selection", "turn", 1, "agent_action", rtRaw(`"say \u00abbonjour\u00bb \ud83d\udea8"`)) + "\n" +
		rtLine("turn_completed", "turn", 1, "score", 0, "location", rtRaw(`"Caf\u00e9  D\u00c9J\u00c0"`)) + "\n" +
		rtLine("turn_completed", "turn", 2, "score", 0, "location", "café déjà") + "\n"
	ep := rtOne(t, in)
	if a := ep.Str(ep.Turn(1).Action); a != "say «bonjour» 🚨" {
		t.Errorf("action %q", a)
	}
	if ep.Str(ep.Turn(1).LocEnd) != "café déjà" || ep.Str(ep.Turn(2).LocEnd) != "café déjà" || ep.Turn(2).Moved {
		t.Errorf("locations %q %q moved %v", ep.Str(ep.Turn(1).LocEnd), ep.Str(ep.Turn(2).LocEnd), ep.Turn(2).Moved)
	}
	if n := ep.RoomName("café déjà"); n != "Café  DÉJÀ" {
		t.Errorf("room name %q", n)
	}
}

// JSON keys are case-sensitive: "Score", "TURN" or "Location" from some
// component's extra= never stand for score, turn or location.
func TestKeysCaseSensitive(t *testing.T) {
	line := `{"event_type": "turn_completed", "turn": 3, "score": 5, "location": "Dam", "Score": "n/a", "TURN": 99, "Location": {"x": 1}}`
	ep := rtOne(t, line+"\n")
	if tr := ep.Row(ep.Turn(3)); ep.RecordedTurns() != 3 || ep.Turn(3) == nil || tr.Score != 5 || tr.LocEnd != "dam" {
		t.Errorf("recorded turns %d, turn 3 = %+v; want turn 3 with score 5 at dam", ep.RecordedTurns(), tr)
	}
}

// TestKnownEvent holds knownEvent and isRelevant to the maps they stand
// for, for every name in them and for near misses.
func TestKnownEvent(t *testing.T) {
	names := []string{"", "zork_respons", "zork_response ", "Turn_completed", "llm_calls", "x"}
	for n := range relevantWithOutputs {
		names = append(names, n, n[:len(n)-1], n+"_")
	}
	for _, n := range names {
		got, ok := knownEvent([]byte(n))
		if ok != relevantWithOutputs[n] || ok && got != n {
			t.Errorf("knownEvent(%q) = %q, %v", n, got, ok)
		}
		if got, ok := knownEvent(n); ok != relevantWithOutputs[n] || ok && got != n {
			t.Errorf("knownEvent(string %q) = %q, %v", n, got, ok)
		}
		if isRelevant(n, false) != relevantEvents[n] || isRelevant([]byte(n), true) != relevantWithOutputs[n] {
			t.Errorf("isRelevant(%q) differs from the maps", n)
		}
	}
	line := []byte("turn_completed")
	if n := testing.AllocsPerRun(100, func() { knownEvent(line) }); n != 0 {
		t.Errorf("knownEvent of a []byte allocates %v times", n)
	}
}
