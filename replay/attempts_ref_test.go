package replay

// The attempts format's readings before the rows: from a decoded map (the
// reference FuzzParseAttempt holds parseAttempt to), and parseAttempt's
// (the one FuzzAttemptReader holds attemptReader to).

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// parseAttempt reads one record; a non-empty reason says why it is skipped.
func parseAttemptMap(m map[string]any) (Attempt, string) {
	var a Attempt
	id, ok := m["task_id"]
	if !ok || id == nil || strings.TrimSpace(asText(id)) == "" {
		return a, "no task_id"
	}
	a.TaskID = asText(id)
	st, ok := m["status"].(string)
	if !ok || strings.TrimSpace(st) == "" {
		return a, "no status (a string)"
	}
	a.Status = st // as logged: the component compares it exactly
	var reason string
	if a.Blockers, reason = stringListMap(m["blockers"], "blockers"); reason != "" {
		return a, reason
	}
	if a.CompletedWork, reason = stringListMap(m["completed_work"], "completed_work"); reason != "" {
		return a, reason
	}
	a.SessionID = asText(m["session_id"])
	ts, ok := m["timestamp"]
	if !ok || ts == nil {
		return a, "no timestamp"
	}
	if a.Timestamp, reason = parseTimestamp(ts); reason != "" {
		return a, reason
	}
	return a, ""
}

// stringList reads a list of strings; null or absent is empty.
func stringListMap(v any, key string) ([]string, string) {
	if v == nil {
		return nil, ""
	}
	xs, ok := v.([]any)
	if !ok {
		return nil, key + " is not a list"
	}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, asText(x))
	}
	return out, ""
}

// parseTimestamp reads RFC 3339 (with or without a zone: none is UTC) or
// epoch milliseconds (a number, or a string of digits).
func parseTimestamp(v any) (time.Time, string) {
	if s, ok := v.(string); ok {
		s = strings.TrimSpace(s)
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, ""
			}
		}
		if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.UnixMilli(ms).UTC(), ""
		}
		return time.Time{}, fmt.Sprintf("timestamp %q is neither RFC 3339 nor epoch milliseconds", s)
	}
	if f, ok := asFloat(v); ok && f >= -1e15 && f <= 1e15 {
		return time.UnixMilli(int64(f)).UTC(), ""
	}
	return time.Time{}, fmt.Sprintf("timestamp %s is neither RFC 3339 nor epoch milliseconds", asText(v))
}

// FuzzParseAttempt checks that an attempts record read in place gives
// what the decoded map gave.
func FuzzParseAttempt(f *testing.F) {
	for _, s := range []string{
		`{"task_id":"T1","status":"blocked","blockers":["a",1,null],"completed_work":null,"session_id":7,"timestamp":"2025-11-14T08:00:00Z"}`,
		`{"task_id":12,"status":"done","timestamp":1763107200000}`, `{"task_id":" ","status":"x","timestamp":1}`,
		`{"task_id":"T","status":1,"timestamp":1}`, `{"task_id":"T","status":"s","blockers":"x","timestamp":1}`,
		`{"task_id":"T","status":"s","timestamp":" 1763107200000 "}`, `{"task_id":"T","status":"s","timestamp":true}`,
		`{"task_id":"T","status":"s","timestamp":1e400}`, `{"task_id":{"a":[1.0]},"status":"s\u00e9","timestamp":"2025-11-14 08:00:00"}`,
		`{"task_id":"T","status":"s","timestamp":NaN}`, `{"task_id":"T","task_id":null,"status":"s","timestamp":1}`,
	} {
		f.Add([]byte(s))
	}
	vals := make([]rawValue, len(attemptKeys))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := decodeObject(raw)
		v, rerr := parseRecord(raw, true)
		if err != nil || rerr != nil {
			return // FuzzRawValue holds the two to the same records
		}
		want, wantReason := parseAttemptMap(m)
		got, gotReason := parseAttempt(v, vals)
		if gotReason != wantReason {
			t.Fatalf("reason %q, the map's %q", gotReason, wantReason)
		}
		if wantReason == "" && !reflect.DeepEqual(got, want) {
			t.Fatalf("attempt %+v, the map's %+v", got, want)
		}
	})
}

// FuzzAttemptReader checks that the reader's rows (attemptReader.add)
// give the attempts, and the reasons, that attemptOf and addAttempt gave,
// line after line of one log (so that the lists' and dates' caches are
// met again).
func FuzzAttemptReader(f *testing.F) {
	for _, s := range []string{
		"{\"task_id\":\"T1\",\"status\":\"blocked\",\"blockers\":[\"a\",1,null],\"completed_work\":null,\"session_id\":7,\"timestamp\":\"2025-11-14T08:00:00Z\"}\n" +
			"{\"task_id\":\"T1\",\"status\":\"blocked\",\"blockers\":[ \"a\" , 1,null],\"completed_work\":[],\"timestamp\":\"2025-11-14T08:00:00.5Z\"}\n" +
			"{\"task_id\":\"T1\",\"status\":\"blocked\",\"blockers\":[\"a\",1,null],\"timestamp\":\"2025-11-14T23:59:59.123456789Z\"}",
		"{\"task_id\":12,\"status\":\"done\",\"timestamp\":1763107200000}\n{\"task_id\":\"12\",\"status\":\"done\",\"timestamp\":999999999999999}\n{\"task_id\":\"12\",\"status\":\"done\",\"timestamp\":9999999999999999}",
		"{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2024-02-29T00:00:00Z\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2023-02-29T00:00:00Z\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2023-02-28T24:00:00Z\"}",
		"{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2025-11-14T08:00:60Z\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2025-13-14T08:00:00Z\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2025-11-14T08:00:00.Z\"}",
		"{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2025-11-14T08:00:00.1234567891Z\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2025-11-14t08:00:00z\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"0000-01-01T00:00:00Z\"}",
		"{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\"2025-11-14T08:00:00+02:00\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":\" 2025-11-14T08:00:00Z\"}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":-5}\n{\"task_id\":\"a\",\"status\":\"s\",\"timestamp\":1.5}",
		"{\"task_id\":\"\\u0041\",\"status\":\"\\u0020\",\"timestamp\":1}\n{\"task_id\":\" \\t\",\"status\":\"x\",\"timestamp\":1}\n{\"task_id\":\"\u00a0\",\"status\":\"x\",\"timestamp\":1}\n{\"task_id\":\"a\",\"status\":\"\u2003\",\"timestamp\":1}",
		"{\"task_id\":\"a\",\"status\":\"s\",\"blockers\":\"x\",\"completed_work\":3,\"timestamp\":1}\n{\"task_id\":\"a\",\"status\":\"s\",\"completed_work\":3,\"timestamp\":1}\n{\"task_id\":\"a\",\"status\":\"s\",\"blockers\":[],\"timestamp\":\"x\"}",
		// Records repeated (the reader's memo): with a time that fails,
		// members that fail, the same bytes as a null or absent member.
		"{\"task_id\":\"T\",\"status\":\"s\",\"blockers\":[\"b\"],\"timestamp\":1}\n{\"task_id\":\"T\",\"status\":\"s\",\"blockers\":[\"b\"],\"timestamp\":\"x\"}\n" +
			"{\"task_id\":\"T\",\"status\":\"s\",\"blockers\":[\"b\"]}\n{\"task_id\":\"T\",\"status\":\"s\",\"blockers\":[\"b\"],\"timestamp\":2}\n" +
			"{\"task_id\":\"T\",\"status\":\" \",\"timestamp\":1}\n{\"task_id\":\"T\",\"status\":\" \",\"timestamp\":1}\n{\"task_id\":\"T\",\"status\":\"s\",\"session_id\":null,\"timestamp\":3}\n" +
			"{\"task_id\":\"T\",\"status\":\"s\",\"timestamp\":4}\n{\"task_id\":\"T\",\"status\":\"s\",\"blockers\":null,\"timestamp\":5}\n{\"task_id\":\"T\",\"status\":\"s\",\"blockers\":[\"b\"],\"timestamp\":\"2025-11-14T08:00:00+02:00\"}",
		"{\"task_id\":{\"a\":[1.0]},\"status\":\"s\\u00e9\",\"session_id\":\"\\\"q\\\"\",\"timestamp\":\"2025-11-14 08:00:00\"}\n{\"task_id\":\"T\",\"status\":\"s\",\"timestamp\":\"1763107200000\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		old, cur := &Episode{}, &Episode{}
		var in attemptIntern
		r := newAttemptReader(cur)
		vals := make([]rawValue, len(attemptKeys))
		for i, line := range bytes.Split(data, []byte("\n")) {
			if _, err := parseFields(line, attemptFieldKeys, vals); err != nil {
				continue
			}
			a, want := attemptOf(vals, nil)
			if want == "" {
				old.addAttempt(a, &in)
			}
			if got := r.add(vals); got != want {
				t.Fatalf("line %d: reason %q, attemptOf's %q", i+1, got, want)
			}
		}
		r.finish()
		if old.NumAttempts() != cur.NumAttempts() {
			t.Fatalf("%d attempts, attemptOf's %d", cur.NumAttempts(), old.NumAttempts())
		}
		if got, want := cur.AttemptTasks(), distinctTasks(old); got != want {
			t.Fatalf("AttemptTasks %d, want %d", got, want)
		}
		for i := range old.NumAttempts() {
			want, got := old.Attempt(i), cur.Attempt(i)
			wz, wo := want.Timestamp.Zone()
			gz, gO := got.Timestamp.Zone()
			if !reflect.DeepEqual(got.Blockers, want.Blockers) || !reflect.DeepEqual(got.CompletedWork, want.CompletedWork) ||
				got.TaskID != want.TaskID || got.Status != want.Status || got.SessionID != want.SessionID ||
				!got.Timestamp.Equal(want.Timestamp) || gz != wz || gO != wo || got.Timestamp.String() != want.Timestamp.String() {
				t.Fatalf("attempt %d: %+v, attemptOf's %+v", i, got, want)
			}
		}
	})
}

// distinctTasks is the number of distinct task ids of ep's attempts,
// counted attempt by attempt (what AttemptTasks counts over the shapes).
func distinctTasks(ep *Episode) int {
	tasks := map[string]bool{}
	for i := range ep.NumAttempts() {
		tasks[ep.Attempt(i).TaskID] = true
	}
	return len(tasks)
}

// parseAttempt reads one record, validated and read in place; a non-empty
// reason says why it is skipped.
func parseAttempt(v rawValue, vals []rawValue) (Attempt, string) {
	v.Fields(attemptKeys, vals)
	return attemptOf(vals, nil)
}

// attemptOf reads an attempt from its members, attemptKeys' values: the
// record's meaning, which FuzzParseAttempt holds to the decoded map's.
// It was the reader's until the reader kept rows (attemptReader.add);
// FuzzAttemptReader holds those to it.
func attemptOf(vals []rawValue, in byteStrings) (Attempt, string) {
	if in == nil {
		in = byteStrings{}
	}
	var a Attempt
	id, status, blockers, work, session, ts := vals[0], vals[1], vals[2], vals[3], vals[4], vals[5]
	if !id.Present() {
		return a, "no task_id"
	}
	if a.TaskID = in.text(id); strings.TrimSpace(a.TaskID) == "" {
		return a, "no task_id"
	}
	if status.Kind() != '"' {
		return a, "no status (a string)"
	}
	st := in.text(status)
	if strings.TrimSpace(st) == "" {
		return a, "no status (a string)"
	}
	a.Status = st // as logged: the component compares it exactly
	var reason string
	if a.Blockers, reason = rawStringList(blockers, "blockers", in); reason != "" {
		return a, reason
	}
	if a.CompletedWork, reason = rawStringList(work, "completed_work", in); reason != "" {
		return a, reason
	}
	a.SessionID = in.text(session)
	if !ts.Present() {
		return a, "no timestamp"
	}
	if a.Timestamp, reason = rawTimestamp(ts); reason != "" {
		return a, reason
	}
	return a, ""
}
