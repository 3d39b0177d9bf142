package replay

import (
	"fmt"
	"strings"
	"testing"
)

// TestAttemptLinesAsRead holds attemptLines to the reading it stands
// for: lines whose bytes before the time repeat those of lines read
// before, with every kind of time value (and zone, and seconds past
// 2106) and layout after them, and each with one byte changed at every
// place (twice: kept, then found, evicting others), read by readLine
// with the lines kept and found, and by a reader that never finds one:
// the same reason line by line, the same attempts.
func TestAttemptLinesAsRead(t *testing.T) {
	bases := []string{
		`{"task_id": "auth", "status": "blocked", "blockers": ["missing STRIPE_API_KEY"], "completed_work": [], "session_id": "s1", "timestamp": "2025-11-14T08:00:00Z"}`,
		`{"task_id": "docs", "status": "done", "blockers": [], "completed_work": ["README updated"], "session_id": "s2", "timestamp": 1763107920000}`,
		`{"task_id": "tests", "status": "in_progress", "blockers": [], "completed_work": ["wrote fixtures", "fixed flake"], "session_id": "s6", "timestamp": "2025-11-14T08:50:00Z"}`,
		`{"task_id": "a", "status": "s", "blockers": [], "completed_work": [], "session_id": "x", "task_id": "b", "timestamp": 10}`,
		`{"timestamp": 1, "task_id": "alpha", "status": "s", "blockers": [], "completed_work": [], "session_id": "session-x", "timestamp": 10}`,
		`{"task_id": "alpha", "status": "s", "blockers": [], "completed_work": [], "session_id": "session-x", "status": "zz", "timestamp": 10}`,
		`{"task_id": "alpha", "status": "s", "blockers": [], "completed_work": [], "session_id": "session-x", "time": 5, "timestamp": 10}`,
		`{"task_id": "alpha", "status": "s", "blockers": [], "completed_work": [], "session_id": "session-x" , "timestamp": 10}`,
		`{"task_id": "alpha", "status": "s", "blockers": [], "completed_work": [], "session_id": "session-x", "timestamp" :  10}`,
		`{"task_id": "alpha", "status": "s", "blockers": null, "completed_work": [], "session_id": "session-x", "timestamp": 10}`,
		`{"task_id": "alpha", "status": "s", "blockers": [], "completed_work": [], "session_id": "session-x", "time\"stamp": 10}`,
		`{"task_id": "alpha", "status": "s", "blockers": [], "completed_work": [], "session_id": "session-x", "timestamp": "a,b"}`,
	}
	tails := []string{`"2025-11-14T08:00:00Z"`, `"2025-11-14T08:00:00.5+02:00"`, `1763107200000`, `0`, `7`, `0123`, `-5`, `1.5`, `1e3`, `"x"`, `"a,b"`,
		`"\u0041"`, "\"a\x01\"", `"é"`, `99999999999999`, `"2200-01-01T00:00:00Z"`, `"2025-11-14T08:00:00+02:00"`, `null`, `true`, `[]`, `{}`, `""`, `"2025-11-14T08:00:00Z" `, `"2025-11-14T08:00:00Z"}x`, `"2025-11-14T08:00:00Z`, ``}
	var lines []string
	for _, base := range bases {
		lines = append(lines, base)
		cut := strings.LastIndex(base, ": ") + 2
		for _, tail := range tails {
			lines = append(lines, base[:cut]+tail+"}", base)
		}
		for i := range len(base) {
			for _, c := range []byte{'"', ',', ' ', '0', 'x', '\\', '}', 0x01, 0xff} {
				b := []byte(base)
				b[i] = c
				lines = append(lines, string(b), string(b), base) // kept, then found
			}
		}
	}
	keptLines := linesAsRead(t, lines)
	if keptLines.hits < len(lines)/8 {
		t.Errorf("%d lines of %d found", keptLines.hits, len(lines))
	}
}

// linesAsRead reads lines by readLine with the lines kept and found, and
// by a reader that never finds one, and fails unless both give the same
// reason line by line and the same attempts; it returns the lines kept.
func linesAsRead(t *testing.T, lines []string) *attemptLines {
	t.Helper()
	kept, plain := newAttemptReader(&Episode{}), newAttemptReader(&Episode{})
	keptFlat, plainFlat := newAttemptFlat(), newAttemptFlat()
	keptLines, noLines := &attemptLines{}, &attemptLines{off: true}
	keptVals, plainVals := make([]rawValue, len(attemptKeys)), make([]rawValue, len(attemptKeys))
	for i, s := range lines {
		got := kept.readLine([]byte(s), keptFlat, keptLines, keptVals)
		if want := plain.readLine([]byte(s), plainFlat, noLines, plainVals); got != want {
			t.Fatalf("line %d %q: reason %q, read without the lines kept %q", i+1, s, got, want)
		}
	}
	kept.finish()
	plain.finish()
	a, b := kept.ep, plain.ep
	if a.NumAttempts() != b.NumAttempts() {
		t.Fatalf("%d attempts, without the lines kept %d", a.NumAttempts(), b.NumAttempts())
	}
	for i := range a.NumAttempts() {
		if got, want := a.Attempt(i), b.Attempt(i); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("attempt %d: %+v, without the lines kept %+v", i, got, want)
		}
	}
	return keptLines
}

// TestLastComma holds lastComma to a search byte by byte.
func TestLastComma(t *testing.T) {
	for n := 0; n < 40; n++ {
		for _, c := range []int{-1, 0, 3, 7, 8, 15, 31, 39} {
			b := []byte(strings.Repeat("-", n))
			for i := range b {
				b[i] = byte(i*37 + 1) // every byte but ','
				if b[i] == ',' {
					b[i] = '+'
				}
			}
			if c >= 0 && c < n {
				b[c] = ','
				if c+1 < n {
					b[c+1] = '-' // ',' ^ 1: a borrow's false match in the plain zero-byte test
				}
			}
			for lo := 0; lo <= n; lo++ {
				got := lastComma(b, lo)
				want := lo - 2
				// the words from the end, whole: a comma below the
				// lowest whole word is not seen
				for j := len(b) - 8; j >= lo; j -= 8 {
					if k := strings.LastIndexByte(string(b[j:j+8]), ','); k >= 0 {
						want = j + k
						break
					}
				}
				if got != want {
					t.Fatalf("%q from %d: %d, want %d", b, lo, got, want)
				}
			}
		}
	}
}

// TestStringEndsLine holds stringEndsLine to flatString's end: strings
// of every length to past four words, each with a stop (or another
// byte) put at every place of the line, and lines cut or run on after
// the string.
func TestStringEndsLine(t *testing.T) {
	for n := 0; n <= 40; n++ {
		body := make([]byte, n)
		for i := range body {
			body[i] = "0123456789-:TZ.+ab"[i%18]
		}
		for _, tail := range []string{`"}`, `" }`, `"`, `"}}`, `}`, `\"}`} {
			base := `{"task_id": "a", "timestamp": "` + string(body) + tail
			k := strings.LastIndex(base[:len(base)-len(tail)-n], `"`)
			check := func(line []byte) {
				t.Helper()
				if k >= len(line)-1 {
					return
				}
				if got, want := stringEndsLine(line, k), flatString(line, k) == len(line)-1; got != want {
					t.Fatalf("%q at %d: %v, flatString's end %v", line, k, got, want)
				}
			}
			check([]byte(base))
			for i := k + 1; i < len(base); i++ {
				for _, c := range []byte{'"', '\\', 0x01, 0x1f, ' ', 0x7f, 0x80, 0xff, '}', 'n'} {
					b := []byte(base)
					b[i] = c
					check(b)
					if i+1 < len(b) {
						b[i+1] = 'u' // a \u escape
						check(b)
					}
				}
			}
		}
	}
}
