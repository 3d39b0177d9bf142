package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// Any status string is an attempt's status, kept as logged: the
// autopilot's component compares it exactly with "done" and "completed",
// and its state machine has more (RULES.md §9). A status that is not a
// string, or is blank, is no attempt.
func TestAttemptStatuses(t *testing.T) {
	in := `{"task_id": "T", "status": "completed", "timestamp": 0}
{"task_id": "T", "status": "needs_review", "timestamp": 1}
{"task_id": "T", "status": "Done", "timestamp": 2}
{"task_id": "T", "status": 3, "timestamp": 3}
{"task_id": "T", "status": " ", "timestamp": 4}
`
	eps := rtRead(t, in, Options{Format: FormatAttempts})
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	ep := eps[0]
	var got []string
	for i := range ep.NumAttempts() {
		got = append(got, ep.Attempt(i).Status)
	}
	if len(got) != 3 || got[0] != "completed" || got[1] != "needs_review" || got[2] != "Done" {
		t.Errorf("statuses %q, want completed, needs_review, Done", got)
	}
	if ep.Diag.Skipped != 2 {
		t.Errorf("%d lines skipped, want 2", ep.Diag.Skipped)
	}
}

// TestAttemptRows: an attempt comes out of the episode's rows as it went
// in: its strings, its lists (nil, empty or not, shared when equal), its
// time to the nanosecond with its zone's name and offset.
func TestAttemptRows(t *testing.T) {
	plus2, err := time.Parse(time.RFC3339Nano, "2025-11-14T08:00:00.123456789+02:00")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := time.Parse(time.RFC3339, "2025-11-14T09:00:00+02:00") // a second FixedZone of the same offset
	minus, _ := time.Parse(time.RFC3339, "2025-11-14T09:00:00-05:30")
	in := []Attempt{
		{TaskID: "auth", Status: "blocked", Blockers: []string{"missing KEY"}, CompletedWork: []string{}, SessionID: "s1", Timestamp: time.UnixMilli(1763107200000).UTC()},
		{TaskID: "docs", Status: "done", CompletedWork: []string{"README", "a:b", "a", ":b"}, Timestamp: plus2},
		{TaskID: "auth", Status: "blocked", Blockers: []string{"missing KEY"}, SessionID: "s2", Timestamp: other},
		{TaskID: "", Status: "x", Blockers: []string{"a:b"}, CompletedWork: []string{"a", ":b"}, Timestamp: minus},
		{TaskID: "local", Status: "y", Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 6, time.Local)},
		{TaskID: "zero", Status: "z"},
		// Seconds past 32 bits, either way: the rows keep the low 32.
		{TaskID: "local", Status: "y", Timestamp: time.Date(2200, 1, 2, 3, 4, 5, 6, time.UTC)},
		{TaskID: "local", Status: "y", Timestamp: time.Date(1900, 1, 2, 3, 4, 5, 999999999, time.UTC)},
		{TaskID: "local", Status: "y", Timestamp: time.Date(292277026596, 12, 4, 15, 30, 7, 0, time.UTC)},
	}
	ep := &Episode{Format: FormatAttempts}
	ep.AppendAttempts(in...)
	if ep.NumAttempts() != len(in) {
		t.Fatalf("%d attempts, want %d", ep.NumAttempts(), len(in))
	}
	for i, want := range in {
		got := ep.Attempt(i)
		if got.TaskID != want.TaskID || got.Status != want.Status || got.SessionID != want.SessionID {
			t.Errorf("%d: %+v, want %+v", i, got, want)
		}
		for _, l := range [][2][]string{{got.Blockers, want.Blockers}, {got.CompletedWork, want.CompletedWork}} {
			if (l[0] == nil) != (l[1] == nil) || strings.Join(l[0], "\x00") != strings.Join(l[1], "\x00") || len(l[0]) != len(l[1]) {
				t.Errorf("%d: list %q, want %q", i, l[0], l[1])
			}
		}
		gn, go_ := got.Timestamp.Zone()
		wn, wo := want.Timestamp.Zone()
		if !got.Timestamp.Equal(want.Timestamp) || gn != wn || go_ != wo || got.Timestamp.String() != want.Timestamp.String() {
			t.Errorf("%d: time %v, want %v", i, got.Timestamp, want.Timestamp)
		}
	}
	if a, b := ep.Attempt(0).Blockers, ep.Attempt(2).Blockers; &a[0] != &b[0] {
		t.Error("equal lists are not shared")
	}
	if a, b := ep.Attempt(3).Blockers, ep.Attempt(3).CompletedWork; len(a) == len(b) {
		t.Error(`["a:b"] and ["a", ":b"] taken for one list`)
	}
	if got := ep.Attempt(5).Timestamp; got != (time.Time{}) {
		t.Errorf("no time: %v, want the zero time", got)
	}
	if len(ep.attemptZones) != 4 { // UTC, +02:00 (once), -05:30, Local
		t.Errorf("%d zones, want 4", len(ep.attemptZones))
	}
}

// TestAttemptsManyRows: a log of more rows than a page of the reader's
// (4,096) comes out whole and in order, a skipped line between them.
func TestAttemptsManyRows(t *testing.T) {
	var b strings.Builder
	const n = 10_000
	for i := range n {
		fmt.Fprintf(&b, `{"task_id": "T%d", "status": "done", "timestamp": %d}`+"\n", i, 1763107200000+i)
		if i == 5000 {
			b.WriteString(`{"task_id": "", "status": "done", "timestamp": 0}` + "\n")
		}
	}
	ep := rtRead(t, b.String(), Options{Format: FormatAttempts})[0]
	if ep.NumAttempts() != n || ep.NumTurns() != n || ep.RecordedTurns() != n {
		t.Fatalf("%d attempts, %d turns (last %d), want %d", ep.NumAttempts(), ep.NumTurns(), ep.RecordedTurns(), n)
	}
	for i := range n {
		a := ep.Attempt(i)
		if a.TaskID != fmt.Sprintf("T%d", i) || a.Timestamp.UnixMilli() != 1763107200000+int64(i) {
			t.Fatalf("attempt %d: %+v", i, a)
		}
	}
}

// TestAttemptBytes: an attempts log in the autopilot's shape (a few
// tasks retried over sessions, the same blockers and work again and
// again) costs a row of 12 bytes an attempt once read, its attempts'
// strings, lists and zones shared by shape, and no turn row (Turns is
// empty: TurnAt makes attempt i's turn, {N: i+1}). Rows of 40 bytes
// beside a turn row of 48 had a 100 MB log peak at 73-74 MB of RSS, a
// turn row of 32 beside a row of 12 a 200 MB log at ~75 MB; this fails
// if an attempt costs 24 bytes or more again (a turn row, even of 16
// bytes, brings it to 28 or more).
func TestAttemptBytes(t *testing.T) {
	if n := unsafe.Sizeof(attemptRow{}); n != 12 {
		t.Errorf("an attempt's row is %d bytes, want 12", n)
	}
	var b bytes.Buffer
	const n = 200_000
	tasks := []string{"auth", "docs", "deploy", "billing"}
	for i := range n {
		task := tasks[i%len(tasks)]
		ts := fmt.Sprintf(`"2025-11-14T%02d:%02d:%02d.%03dZ"`, i/3600%24, i/60%60, i%60, i%1000)
		if i%3 == 0 {
			ts = fmt.Sprint(1763107200000 + int64(i)*1000)
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"task_id": %q, "status": "blocked", "blockers": ["missing STRIPE_API_KEY"], "completed_work": [], "session_id": "s%d", "timestamp": %s}`+"\n", task, i/25000, ts)
		case 1:
			fmt.Fprintf(&b, `{"task_id": %q, "status": "done", "blockers": [], "completed_work": ["README updated"], "session_id": "s%d", "timestamp": %s}`+"\n", task, i/25000, ts)
		default:
			fmt.Fprintf(&b, `{"task_id": %q, "status": "in_progress", "blockers": ["tests fail", "%d"], "completed_work": ["step %d"], "session_id": "s%d", "timestamp": %s}`+"\n", task, i%3, i%2, i/25000, ts)
		}
	}
	in := b.Bytes()
	// A read first, so that what readers keep between reads (buffers)
	// is not counted.
	if _, err := Read(bytes.NewReader(in[:bytes.IndexByte(in, '\n')+1]), "log.jsonl", "ep", Options{Format: FormatAttempts}); err != nil {
		t.Fatal(err)
	}
	var eps []*Episode
	var err error
	held := heldBy(func() { eps, err = Read(bytes.NewReader(in), "log.jsonl", "ep", Options{Format: FormatAttempts}) })
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if ep.NumAttempts() != n || ep.NumTurns() != n || len(ep.Turns) != 0 {
		t.Fatalf("%d attempts, %d turns, %d turn rows, want %d, %d, 0", ep.NumAttempts(), ep.NumTurns(), len(ep.Turns), n, n)
	}
	per := float64(held) / n
	t.Logf("%.1f bytes an attempt (%d shapes)", per, ep.nshapes)
	if per >= 24 {
		t.Errorf("%.1f bytes an attempt, want under 24 (a row of 12, no turn row)", per)
	}
	runtime.KeepAlive(eps)
	runtime.KeepAlive(in)
}

// TestAttemptShapesPastTheIndex: past maxByteStrings distinct shapes,
// a new shape is added for each attempt, not found again; the shapes
// indexed before are still found, and every attempt reads as written.
func TestAttemptShapesPastTheIndex(t *testing.T) {
	n := maxByteStrings + 3000
	ep := &Episode{Format: FormatAttempts}
	var in attemptIntern
	at := func(i int) Attempt {
		return Attempt{TaskID: fmt.Sprintf("T%d", i), Status: "blocked", Blockers: []string{"b"},
			Timestamp: time.Unix(1763107200+int64(i), 0).UTC()}
	}
	for i := range n {
		ep.addAttempt(at(i), &in)
	}
	for i := range n { // again: the first maxByteStrings are found
		ep.addAttempt(at(i), &in)
	}
	if want := n + (n - maxByteStrings); ep.nshapes != want {
		t.Errorf("%d shapes, want %d", ep.nshapes, want)
	}
	if got := ep.AttemptTasks(); got != n || distinctTasks(ep) != n {
		t.Errorf("AttemptTasks %d, distinct task ids %d, want %d", got, distinctTasks(ep), n)
	}
	for i := range 2 * n {
		a, want := ep.Attempt(i), at(i%n)
		if a.TaskID != want.TaskID || a.Status != want.Status || !a.Timestamp.Equal(want.Timestamp) || len(a.Blockers) != 1 {
			t.Fatalf("attempt %d: %+v, want %+v", i, a, want)
		}
	}
}

// TestAttemptStringsAsStr holds Attempt, AttemptWork and AttemptTask,
// which read a shape's strings from the episode's table inlined, to
// Episode.Str of the shape's Syms, over a log read (with actions in the
// episode's other table too) and attempts appended by hand.
func TestAttemptStringsAsStr(t *testing.T) {
	var in strings.Builder
	for i := range 3 * pagedLen {
		fmt.Fprintf(&in, `{"task_id": "task %d", "status": "s%d", "session_id": "sess %d", "completed_work": ["w%d"], "timestamp": %d}`+"\n", i%37, i%5, i/100, i%3, i)
	}
	eps := rtRead(t, in.String(), Options{Format: FormatAttempts})
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	byHand := &Episode{Format: FormatAttempts}
	byHand.AppendAttempts(Attempt{TaskID: "a", Status: "b", SessionID: "c"}, Attempt{TaskID: "", Status: "x"})
	byHand.acts.sym("an action")
	for _, ep := range []*Episode{eps[0], byHand} {
		if ep.NumAttempts() == 0 {
			t.Fatal("no attempts")
		}
		for i := range ep.NumAttempts() {
			s := ep.attemptShapes.at(int(ep.attempts.at(i).shape))
			a := ep.Attempt(i)
			if a.TaskID != ep.Str(s.task) || a.Status != ep.Str(s.status) || a.SessionID != ep.Str(s.session) {
				t.Fatalf("attempt %d: %q %q %q, Str %q %q %q", i, a.TaskID, a.Status, a.SessionID, ep.Str(s.task), ep.Str(s.status), ep.Str(s.session))
			}
			task, status, work := ep.AttemptWork(i)
			if task != ep.Str(s.task) || status != ep.Str(s.status) || strings.Join(work, "\x00") != strings.Join(a.CompletedWork, "\x00") {
				t.Fatalf("attempt %d: AttemptWork %q %q %q, want %q %q %q", i, task, status, work, a.TaskID, a.Status, a.CompletedWork)
			}
			if got := ep.AttemptTask(i); got != ep.Str(s.task) {
				t.Fatalf("attempt %d: AttemptTask %q, Str %q", i, got, ep.Str(s.task))
			}
		}
	}
}

// TestFastTimeDigits holds fastTime's epoch milliseconds, read by words
// past eight digits, to the byte loop it stands for (fastTimeDigits):
// every length to 16 bytes, all nines, and each byte in turn made every
// digit and the bytes about and past them (a carry into the next byte
// of eightDigits' sum, a high nibble 3 or a low nibble under 10 alone).
func TestFastTimeDigits(t *testing.T) {
	r := newAttemptReader(&Episode{})
	bad := []byte{0x00, 0x06, 0x2f, 0x3a, 0x3f, 0x40, 0x70, 0x79, 0xb0, 0xb9, 0xf9, 0xfa, 0xff}
	for n := 1; n <= 16; n++ {
		base := make([]byte, n)
		for i := range base {
			base[i] = "3141592653589793"[i]
		}
		cases := [][]byte{bytes.Repeat([]byte{'9'}, n), bytes.Repeat([]byte{'0'}, n)}
		for i := range n {
			for c := '0'; c <= '9'; c++ {
				b := bytes.Clone(base)
				b[i] = byte(c)
				cases = append(cases, b)
			}
			for _, c := range bad {
				b := bytes.Clone(base)
				b[i] = c
				cases = append(cases, b)
			}
		}
		for _, v := range cases {
			// Within a longer array, as a line holds a time: the bytes
			// after it are no digits.
			line := append(bytes.Clone(v), '}', '\n')
			sec, nsec, ok := r.fastTime(rawValue(line[:n:n]))
			wsec, wnsec, wok := fastTimeDigits(v)
			if sec != wsec || nsec != wnsec || ok != wok {
				t.Fatalf("%q: %d %d %v, the byte loop's %d %d %v", v, sec, nsec, ok, wsec, wnsec, wok)
			}
		}
	}
}

// fastTimeDigits is fastTime of epoch milliseconds a byte at a time.
func fastTimeDigits(v []byte) (sec int64, nsec int32, ok bool) {
	if len(v) > 15 {
		return 0, 0, false
	}
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		ms = ms*10 + int64(c-'0')
	}
	return ms / 1000, int32(ms%1000) * 1e6, true
}

// TestReadAttemptsPend holds readAttempts' lines cut in its loop from
// pend (as nextLine cuts them, without its call) to the lines read one
// by one by ReadSlice (takeBuffered off: pend is then never filled):
// lines blank, led or ended by white space, CRLF, past the longest line,
// invalid, unterminated, over buffers of several sizes, Strict or not.
// The same attempts, lines, skips, problems and error.
func TestReadAttemptsPend(t *testing.T) {
	rec := func(task, ts string) string {
		return `{"task_id": "` + task + `", "status": "done", "blockers": [], "completed_work": ["w"], "session_id": "s1", "timestamp": ` + ts + `}`
	}
	logs := []string{
		rec("a", `"2025-11-14T08:00:00Z"`) + "\n" + rec("b", "1763107920000") + "\n" + rec("a", `"2025-11-14T08:01:00Z"`) + "\n",
		rec("a", `"2025-11-14T08:00:00Z"`) + "\r\n\n  " + rec("b", "1763107920000") + " \n\t" + rec("c", "5") + "\r\n\n\n" + rec("a", `"x"`),
		rec("a", "1") + "\n" + rec("a", "2") + "\nnot json\n" + rec("a", "3") + "\n" + rec("a", strings.Repeat("1", 300)) + "\n{}\n" + rec("a", "4") + "\n",
		"\n\n" + rec("toolong"+strings.Repeat("x", 400), "1") + "\n" + rec("a", "2") + "\n" + rec("a", "3"),
		rec("a", "1") + "\n" + " \n" + "\x0b" + rec("a", "2") + "\n" + rec("a", "3") + "\x0b\n" + rec("a", "4") + "\n",
	}
	for _, data := range logs {
		for _, size := range []int{16, 64, 200, 4096} {
			for _, strict := range []bool{false, true} {
				read := func(pend bool) string {
					takeBuffered = pend
					defer func() { takeBuffered = true }()
					var ep *Episode
					c := &readContext{source: "log", defaultID: "id", maxLine: 300, opts: Options{Strict: strict},
						emit: func(e *Episode) error { ep = e; return nil }}
					src := &recordSource{br: bufio.NewReaderSize(strings.NewReader(data), size), max: c.maxLine}
					err := readAttempts(src, c)
					out := fmt.Sprint(err)
					if ep != nil {
						out += fmt.Sprint(ep.Diag.Lines, ep.Diag.Skipped, ep.Diag.Problems)
						for i := range ep.NumAttempts() {
							out += fmt.Sprint(ep.Attempt(i))
						}
					}
					return out
				}
				if got, want := read(true), read(false); got != want {
					t.Fatalf("%q (buffer %d, strict %v):\n%s\nread by ReadSlice:\n%s", data, size, strict, got, want)
				}
			}
		}
	}
}
