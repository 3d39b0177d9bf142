package replay

// Reading `attempts` logs: an autopilot's attempts at tasks, one record a
// line (RULES.md §9), for the task_attempts rule.

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Attempt is one record of an attempts log.
type Attempt struct {
	TaskID        string
	Status        string // as logged: pending, in_progress, blocked, done, completed, ...
	Blockers      []string
	CompletedWork []string
	SessionID     string
	Timestamp     time.Time
}

// AttemptStatuses are the autopilot's usual statuses. Any other string is
// read too: the component compares a status only with "done" and
// "completed", and its state machine has more (needs_review,
// needs_improvement).
var AttemptStatuses = []string{"pending", "in_progress", "blocked", "done"}

// attemptKeys are the members of an attempts record, read in one pass.
var attemptKeys = []string{"task_id", "status", "blockers", "completed_work", "session_id", "timestamp"}

var attemptFieldKeys = newJSKeys(attemptKeys...) // for parseFields

// byteStrings interns a log's short strings that repeat (an attempts
// log's statuses, sessions, tasks, blockers; a steps log's actions and
// locations): a string written without an escape is looked up by its
// bytes, copied only the first time.
type byteStrings map[string]string

// maxByteStrings bounds the table: past it, strings are copied.
const maxByteStrings = 1 << 14

// text is v.Text(), interned.
func (in byteStrings) text(v rawValue) string {
	if v.Kind() != '"' {
		return v.Text()
	}
	body := v[1 : len(v)-1]
	if s, ok := in[string(body)]; ok {
		return s // only bodies without escapes, valid UTF-8, are keys
	}
	s, _ := v.Str()
	if len(in) < maxByteStrings && bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		in[s] = s
	}
	return s
}

// rawStringList reads a list of strings; null or absent is empty.
func rawStringList(v rawValue, key string, in byteStrings) ([]string, string) {
	if !v.Present() {
		return nil, ""
	}
	if v.Kind() != '[' {
		return nil, key + " is not a list"
	}
	out := make([]string, 0, v.Len())
	v.Elems(func(_ int, x rawValue) bool {
		out = append(out, in.text(x))
		return true
	})
	return out, ""
}

// rawTimestamp reads RFC 3339 (with or without a zone: none is UTC) or
// epoch milliseconds (a number, or a string of digits).
func rawTimestamp(v rawValue) (time.Time, string) {
	if s, ok := v.Str(); ok {
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
	if f, ok := rawFloat(v); ok && f >= -1e15 && f <= 1e15 {
		return time.UnixMilli(int64(f)).UTC(), ""
	}
	return time.Time{}, fmt.Sprintf("timestamp %s is neither RFC 3339 nor epoch milliseconds", v.Text())
}

// readAttempts reads an attempts log: one episode per file, attempt i
// (1-based, in log order) being turn i (Episode.TurnAt(i-1)).
func readAttempts(src *recordSource, c *readContext) error {
	ep := &Episode{ID: c.defaultID, Source: c.source, Format: FormatAttempts, Detected: c.detected,
		LocationKey: KeyRoomName, RecordedEnd: EndUnknown, RoomNames: map[string]string{}, Rejected: map[int][]string{}}
	d := &ep.Diag
	vals := make([]rawValue, len(attemptKeys))
	r := newAttemptReader(ep)
	flat, lines := newAttemptFlat(), &attemptLines{}
	src.reuse = true // an attempt keeps nothing of its line
	skip := func(line int, reason string) error { return c.skip(d, line, reason) }
	for {
		// A record's line of pend, cut here as nextLine cuts it
		// (nextLine, a call of six results over the inlining budget,
		// was some 60 instructions a line).
		if rest := src.pend[src.at:]; len(rest) > 0 {
			if i := bytes.IndexByte(rest, '\n'); i > 0 && i < src.max+2 && rest[0]-'!' < 0x7f-'!' && rest[i-1]-'!' < 0x7f-'!' {
				lineNo := src.took(i + 1)
				d.Lines++
				if reason := r.readLine(rest[:i], flat, lines, vals); reason != "" {
					if perr := skip(lineNo, reason); perr != nil {
						return perr
					}
				}
				continue
			}
		}
		line, lineNo, tooLong, err := src.nextLine()
		if tooLong {
			d.Lines++
			if perr := skip(lineNo, fmt.Sprintf("line longer than %d bytes", c.maxLine)); perr != nil {
				return perr
			}
		} else if line != nil {
			d.Lines++
			if reason := r.readLine(line, flat, lines, vals); reason != "" {
				if perr := skip(lineNo, reason); perr != nil {
					return perr
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", c.source, lineNo+1, err)
		}
	}
	r.finish()
	ep.syms.ids, ep.syms.fold = symIndex{}, nil // the strings stay; the map that interned them goes
	// Attempt i is turn i+1, which has nothing else: no row of Turns is
	// kept for it (NumTurns, TurnAt).
	if ep.NumAttempts() == 0 {
		ne := &NoEventsError{File: c.source, Lines: d.Lines, Skipped: d.Skipped, What: "attempts"}
		if len(d.Problems) > 0 {
			ne.First = d.Problems[0]
		}
		return ne
	}
	return c.emit(ep)
}
