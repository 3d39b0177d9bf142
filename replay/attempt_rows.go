package replay

// An attempts log's attempts as an episode keeps them: rows without
// pointers. An Attempt is 120 bytes with seven pointers; an episode of
// 65,000 attempts (a 10 MB log) held 8 MB of them, copied once more at
// the end of the read, and the collector scanned every pointer at every
// collection while two or three such episodes were in memory (a corpus
// read on every CPU). A row is 12 bytes the collector does not scan: its
// time, and the index of its shape, what it shares with other attempts
// (task, status, session, lists, zone), which an autopilot repeats
// attempt after attempt. Rows of 40 bytes, each with its own strings and
// lists, and a turn row of 48 beside each, had a 100 MB attempts log
// (647,850 attempts) peak at 73-74 MB of RSS.

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// attemptRow is an Attempt in an episode: the low 32 bits of its time's
// seconds since 1970, its nanoseconds, and the index of its shape in
// Episode.attemptShapes.
type attemptRow struct {
	lo    uint32
	nsec  int32
	shape int32
}

// attemptShape is what attempts share: their strings (Syms of the
// episode), their lists (indices into Episode.attemptLists, 0: nil),
// their time's zone (an index into Episode.attemptZones) and its seconds
// since 1970 but the low 32 bits (0 from 1970 to 2106).
type attemptShape struct {
	task, status, session Sym
	blockers, work        int32
	zone                  int32
	hi                    int64
}

// sec is the row's seconds since 1970.
func (s *attemptShape) sec(r *attemptRow) int64 { return s.hi<<32 | int64(r.lo) }

// attemptIntern finds an episode's repeated lists and zones while its
// attempts are added: an autopilot logs the same blockers and works
// attempt after attempt.
type attemptIntern struct {
	lists  map[string]int32 // a list's key (listKey) → its index
	zones  map[zoneKey]int32
	shapes shapeIndex
	key    []byte
}

type zoneKey struct {
	name string
	off  int
}

// NumAttempts is the number of attempts of an attempts log (0 for other
// formats): record i+1 is Attempt(i), turn i+1.
func (e *Episode) NumAttempts() int { return e.nattempts }

// Attempt returns attempt i (0-based) as it was read. Its lists are the
// episode's, shared between attempts: not to be modified.
func (e *Episode) Attempt(i int) Attempt {
	r := e.attempts.at(i)
	s := e.attemptShapes.at(int(r.shape))
	// A shape's strings are the episode's table's (attemptShape), never
	// its actions' (actTag): read there, inlined, not through Str's call.
	return Attempt{TaskID: e.syms.str(s.task), Status: e.syms.str(s.status), SessionID: e.syms.str(s.session),
		Blockers: e.attemptLists[s.blockers], CompletedWork: e.attemptLists[s.work],
		Timestamp: time.Unix(s.sec(r), int64(r.nsec)).In(e.attemptZones[s.zone])}
}

// AppendAttempts adds attempts to the table: how a test writes one by
// hand (the reader adds them as it reads them).
func (e *Episode) AppendAttempts(as ...Attempt) {
	var in attemptIntern
	for _, a := range as {
		e.addAttempt(a, &in)
	}
}

// AttemptWork is attempt i's task id, status and completed work:
// Attempt(i)'s, without making the rest of the attempt.
func (e *Episode) AttemptWork(i int) (task, status string, work []string) {
	s := e.attemptShapes.at(int(e.attempts.at(i).shape))
	return e.syms.str(s.task), e.syms.str(s.status), e.attemptLists[s.work] // as Attempt reads them
}

// AttemptTask is attempt i's task id: Attempt(i).TaskID without making
// the rest of the attempt.
func (e *Episode) AttemptTask(i int) string {
	return e.syms.str(e.attemptShapes.at(int(e.attempts.at(i).shape)).task) // as Attempt reads it
}

// AttemptTasks is the number of distinct task ids of the attempts,
// counted over their shapes: a shape is made only for an attempt, and an
// attempt's task is its shape's, so the shapes hold the attempts' tasks,
// each at least once. An autopilot's log has a few shapes where it has
// hundreds of thousands of attempts (the 100 MB log: 14 for 647,850),
// and the report counts its tasks twice.
func (e *Episode) AttemptTasks() int {
	tasks := map[string]struct{}{}
	for i := range e.nshapes {
		tasks[e.Str(e.attemptShapes.at(i).task)] = struct{}{}
	}
	return len(tasks)
}

func (e *Episode) addAttempt(a Attempt, in *attemptIntern) {
	if e.attemptLists == nil {
		e.attemptLists = [][]string{nil}
	}
	if e.syms.ids.n == 0 && e.syms.len() > 1 {
		e.syms.reindex() // a built episode's table, written by hand
	}
	sec := a.Timestamp.Unix()
	e.attempts.grow(e.nattempts + 1)
	*e.attempts.at(e.nattempts) = attemptRow{lo: uint32(sec), nsec: int32(a.Timestamp.Nanosecond()),
		shape: e.attemptShape(attemptShape{
			task: e.syms.sym(a.TaskID), status: e.syms.sym(a.Status), session: e.syms.sym(a.SessionID),
			blockers: e.attemptList(a.Blockers, in), work: e.attemptList(a.CompletedWork, in),
			zone: e.attemptZone(a.Timestamp, in), hi: sec >> 32,
		}, in)}
	e.nattempts++
}

// attemptShape is the index of shape s, the same for equal shapes while
// the table of them is below maxByteStrings (past it, a new shape is
// added for each attempt: a row and its shape are 44 bytes, a row was 40
// before shapes). In pages, as the rows: a log of a new session at each
// attempt has as many shapes as rows, and an array of them grown by
// append held them about twice at its peak (85 MB of RSS for 400,000
// attempts, 69-73 with rows of 40 bytes).
func (e *Episode) attemptShape(s attemptShape, in *attemptIntern) int32 {
	x := &in.shapes
	h := s.hash()
	if mask := uint64(len(x.slots) - 1); len(x.slots) > 0 {
		for k := h & mask; x.slots[k] != 0; k = (k + 1) & mask {
			if j := x.slots[k] - 1; *e.attemptShapes.at(int(j)) == s {
				return j
			}
		}
	}
	i := int32(e.nshapes)
	e.attemptShapes.grow(e.nshapes + 1)
	*e.attemptShapes.at(e.nshapes) = s
	e.nshapes++
	if x.n < maxByteStrings {
		x.add(e.attemptShapes, i, h)
	}
	return i
}

// shapeIndex finds shapes by their fields: an open-addressed table of
// their indices (+1; 0 is empty), probed linearly, doubled at three
// quarters full. A Go map keyed by the shapes hashed each 32-byte key
// with the runtime's memhash: 7.5% of reading an attempts log.
type shapeIndex struct {
	slots []int32
	n     int
}

// add enters shape i, of hash h, into the index.
func (x *shapeIndex) add(shapes paged[attemptShape], i int32, h uint64) {
	if (x.n+1)*4 > len(x.slots)*3 {
		old := x.slots
		x.slots = make([]int32, max(64, 2*len(old)))
		for _, j := range old {
			if j != 0 {
				x.put(j, shapes.at(int(j-1)).hash())
			}
		}
	}
	x.put(i+1, h)
	x.n++
}

func (x *shapeIndex) put(slot int32, h uint64) {
	mask := uint64(len(x.slots) - 1)
	k := h & mask
	for x.slots[k] != 0 {
		k = (k + 1) & mask
	}
	x.slots[k] = slot
}

// hash mixes a shape's fields (splitmix64's finalizer over their
// products with odd constants).
func (s *attemptShape) hash() uint64 {
	h := uint64(s.task) | uint64(s.status)<<32
	h ^= (uint64(s.session) | uint64(uint32(s.blockers))<<32) * 0x9e3779b97f4a7c15
	h ^= (uint64(uint32(s.work)) | uint64(uint32(s.zone))<<32) * 0xc2b2ae3d27d4eb4f
	h ^= uint64(s.hi) * 0x165667b19e3779f9
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}

// attemptList is the index of list l, the same for lists of the same
// strings while the table of them is below maxByteStrings; an empty list
// is not nil (as read: "[]" is not an absent member).
func (e *Episode) attemptList(l []string, in *attemptIntern) int32 {
	if l == nil {
		return 0
	}
	key := in.key[:0]
	for _, s := range l {
		key = strconv.AppendInt(key, int64(len(s)), 10)
		key = append(append(key, ':'), s...)
	}
	in.key = key
	if i, ok := in.lists[string(key)]; ok {
		return i
	}
	i := int32(len(e.attemptLists))
	e.attemptLists = append(e.attemptLists, l)
	if in.lists == nil {
		in.lists = map[string]int32{}
	}
	if len(in.lists) < maxByteStrings {
		in.lists[string(key)] = i
	}
	return i
}

// attemptZone is the index of t's location. time.Parse makes a new fixed
// zone for each offset it reads: zones of the same name and offset are
// one (UTC and Local are themselves).
func (e *Episode) attemptZone(t time.Time, in *attemptIntern) int32 {
	loc := t.Location()
	for i, z := range e.attemptZones {
		if z == loc {
			return int32(i)
		}
	}
	name, off := t.Zone()
	k := zoneKey{name, off}
	if loc != time.Local {
		if i, ok := in.zones[k]; ok {
			return i
		}
	}
	i := int32(len(e.attemptZones))
	e.attemptZones = append(e.attemptZones, loc)
	if in.zones == nil {
		in.zones = map[zoneKey]int32{}
	}
	if loc != time.Local {
		in.zones[k] = i
	}
	return i
}

// attemptReader reads an attempts log's records into rows, each string
// member hashed once, into the episode's table, where reading an Attempt
// first (attemptOf) hashed it into a Go map of strings and then again
// into the table, made each list twice (a []string and its key) and
// parsed each time with time.Parse. It gives the rows, and the reasons,
// addAttempt of attemptOf gives (FuzzAttemptReader).
type attemptReader struct {
	ep    *Episode
	strs  byteStrings       // list elements, at a list's first sight
	in    attemptIntern     // lists by their strings, zones
	lists map[string]int32  // a short list's JSON text → its index
	utc   int32             // UTC's index in attemptZones; -1 until met
	rows  paged[attemptRow] // the rows read, moved into the episode by finish
	nrows int

	// The date of the last RFC 3339 time read in the fast path
	// (YYYY-MM-DD) and its midnight in Unix seconds: an autopilot's
	// attempts of a day share it.
	date    [10]byte
	dateSec int64

	// memo finds a record's task, status, session and lists by their
	// bytes as written (memoKey), all five at once: an autopilot writes
	// the same few again and again (the 100 MB log: 14 for 647,850
	// attempts), and each was checked, hashed and looked up on its own.
	// nil once full and missed more than hit.
	memo         map[string]attemptMemo
	memoKey      []byte
	hits, misses int
}

// attemptMemo is what a record's task, status, session, blockers and
// completed work read into: bytes that read into it once read into it
// again (the reading depends on the bytes alone: the strings interned
// are found again, a list's text is found again).
type attemptMemo struct {
	task, status, session Sym
	blockers, work        int32
}

// maxAttemptMemo bounds the memo's records, and maxAttemptMemoKey their
// bytes: past them, a record is read member by member.
const (
	maxAttemptMemo    = 1 << 10
	maxAttemptMemoKey = 512
)

func newAttemptReader(ep *Episode) *attemptReader {
	return &attemptReader{ep: ep, strs: byteStrings{}, lists: map[string]int32{}, utc: -1, memo: map[string]attemptMemo{}}
}

// maxListKey is the longest list text attemptReader.lists keeps: longer
// lists are found by their strings only, so the table stays small.
const maxListKey = 256

// rawText is a string member as a row keeps it: plain (its bytes between
// the quotes) when written without an escape in valid UTF-8, else its
// text (Text: unescaped, or a number's literal, ...).
func rawText(v rawValue) (plain []byte, text string, isPlain bool) {
	if v.Kind() == '"' {
		body := v[1 : len(v)-1]
		if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			return body, "", true
		}
	}
	return nil, v.Text(), false
}

func blankText(plain []byte, text string, isPlain bool) bool {
	if isPlain {
		return len(bytes.TrimSpace(plain)) == 0
	}
	return strings.TrimSpace(text) == ""
}

func (r *attemptReader) sym(plain []byte, text string, isPlain bool) Sym {
	if isPlain {
		return r.ep.syms.bytes(plain)
	}
	return r.ep.syms.sym(text)
}

// add reads a record from its members, attemptKeys' values, into a row;
// a non-empty reason says why it is skipped (attemptOf's reasons, in its
// order).
func (r *attemptReader) add(vals []rawValue) string { return r.addFlat(vals, false) }

// addFlat is add, where flat says vals are attemptFlat's, each a view of
// one line: the memo's key is then the line's bytes from the task id's
// value to the session id's (attemptRun) where the five are there in
// that order, not one built of their bytes.
func (r *attemptReader) addFlat(vals []rawValue, flat bool) string {
	vals = vals[:6]
	var key []byte
	if r.memo != nil {
		run, isRun := []byte(nil), false
		if flat {
			run, isRun = attemptRun(vals)
		}
		if isRun {
			key = run // a view of the line: copied only into the memo
		} else {
			// The five members' bytes, each after its length (0:
			// absent), after a byte no run starts with (the first of
			// a JSON value).
			key = append(r.memoKey[:0], 0xff)
			for _, v := range vals[:5] {
				key = binary.AppendUvarint(key, uint64(len(v)))
				key = append(key, v...)
			}
			r.memoKey = key
		}
		if len(key) <= maxAttemptMemoKey { // a longer one is never kept: not hashed
			if m, ok := r.memo[string(key)]; ok {
				// These bytes passed the checks before the time's (a
				// memo is made only of a record read): the time is
				// checked, as it would be after them.
				r.hits++
				sec, nsec, zone, reason := r.when(vals[5])
				if reason == "" {
					r.row(m, sec, nsec, zone)
				}
				return reason
			}
		}
		r.misses++
		if len(r.memo) >= maxAttemptMemo && r.misses > r.hits {
			r.memo = nil
		}
	}
	id, status, blockers, work, session, ts := vals[0], vals[1], vals[2], vals[3], vals[4], vals[5]
	if !id.Present() {
		return "no task_id"
	}
	idB, idS, idP := rawText(id)
	if blankText(idB, idS, idP) {
		return "no task_id"
	}
	if status.Kind() != '"' {
		return "no status (a string)"
	}
	stB, stS, stP := rawText(status)
	if blankText(stB, stS, stP) {
		return "no status (a string)"
	}
	if blockers.Present() && blockers.Kind() != '[' {
		return "blockers is not a list"
	}
	if work.Present() && work.Kind() != '[' {
		return "completed_work is not a list"
	}
	sec, nsec, zone, reason := r.when(ts)
	if reason != "" {
		return reason
	}
	if r.ep.attemptLists == nil {
		r.ep.attemptLists = [][]string{nil}
	}
	m := attemptMemo{task: r.sym(idB, idS, idP), status: r.sym(stB, stS, stP), session: r.sym(rawText(session)),
		blockers: r.list(blockers, "blockers"), work: r.list(work, "completed_work")}
	if r.memo != nil && len(r.memo) < maxAttemptMemo && len(key) <= maxAttemptMemoKey {
		r.memo[string(key)] = m
	}
	r.row(m, sec, nsec, zone)
	return ""
}

// when reads a record's timestamp member (time); a non-empty reason says
// why the record is skipped.
func (r *attemptReader) when(ts rawValue) (sec int64, nsec, zone int32, reason string) {
	if !ts.Present() {
		return 0, 0, 0, "no timestamp"
	}
	return r.time(ts)
}

// row adds the row of m at the time read.
func (r *attemptReader) row(m attemptMemo, sec int64, nsec, zone int32) {
	shape := attemptShape{task: m.task, status: m.status, session: m.session,
		blockers: m.blockers, work: m.work, zone: zone, hi: sec >> 32}
	r.appendRow(attemptRow{lo: uint32(sec), nsec: nsec, shape: r.ep.attemptShape(shape, &r.in)})
}

// appendRow adds a row. The rows' pages mostly have room: that is
// tested here, inlined, where the call to paged.grow (a generic method,
// not inlined) cost some 16 instructions a line.
func (r *attemptReader) appendRow(row attemptRow) {
	if r.nrows >= r.rows.len() {
		r.rows.grow(r.nrows + 1)
	}
	*r.rows.at(r.nrows) = row
	r.nrows++
}

// finish moves the rows read into the episode's table, their pages as
// they are. Copied into one array made at the table's size, the rows
// were held twice at the peak, and an attempts log of 100 MB peaked at
// 75-100 MB of RSS, where its pages peak at 75 (4 runs each, loaded
// machine); appended one by one, the table grew by a quarter at a time,
// its rows copied some five times over.
func (r *attemptReader) finish() {
	if r.nrows == 0 {
		return
	}
	e := r.ep
	if e.nattempts == 0 {
		e.attempts, e.nattempts = r.rows, r.nrows
	} else {
		e.attempts.grow(e.nattempts + r.nrows)
		for i := range r.nrows {
			*e.attempts.at(e.nattempts + i) = *r.rows.at(i)
		}
		e.nattempts += r.nrows
	}
	r.rows, r.nrows = nil, 0
}

// list is the index of a list member (0 when absent or null), a list of
// a text seen before found by its text.
func (r *attemptReader) list(v rawValue, key string) int32 {
	if !v.Present() {
		return 0
	}
	if i, ok := r.lists[string(v)]; ok {
		return i
	}
	l, _ := rawStringList(v, key, r.strs)
	i := r.ep.attemptList(l, &r.in)
	if len(v) <= maxListKey && len(r.lists) < maxByteStrings {
		r.lists[string(v)] = i
	}
	return i
}

// time reads a timestamp into its seconds, nanoseconds and zone: the
// usual shapes (RFC 3339 in UTC, YYYY-MM-DDTHH:MM:SS[.fraction]Z, and
// epoch milliseconds of up to 15 digits) by hand, the rest by
// rawTimestamp.
func (r *attemptReader) time(v rawValue) (sec int64, nsec, zone int32, reason string) {
	if sec, nsec, ok := r.fastTime(v); ok {
		if r.utc < 0 {
			r.utc = r.ep.attemptZone(time.Unix(0, 0).UTC(), &r.in)
		}
		return sec, nsec, r.utc, ""
	}
	t, reason := rawTimestamp(v)
	if reason != "" {
		return 0, 0, 0, reason
	}
	return t.Unix(), int32(t.Nanosecond()), r.ep.attemptZone(t, &r.in), ""
}

// fastTime reads the timestamps time.Parse and strconv would read to a
// UTC time, in their usual shapes; ok is false for any other (which may
// still be a time: rawTimestamp reads it).
func (r *attemptReader) fastTime(v rawValue) (sec int64, nsec int32, ok bool) {
	if len(v) == 0 {
		return 0, 0, false
	}
	if v[0] != '"' {
		// Epoch milliseconds: up to 15 digits, exact as a float64 and
		// within rawTimestamp's ±1e15.
		if len(v) > 15 {
			return 0, 0, false
		}
		var ms int64
		if n := len(v); n > 8 {
			// Two words (a time of 13 digits: some 45 instructions,
			// where the loop below took 146): the first eight
			// digits, then the last n-8, the second word's first
			// 16-n bytes (the first word's too) masked off.
			w1, w2 := wordAt(v, 0), wordAt(v, n-8)
			if !eightDigits(w1) || !eightDigits(w2) {
				return 0, 0, false
			}
			ms = int64(digitsValue(w1)*decPow[(n-8)&7] + digitsValue(w2&^(1<<(8*(16-n))-1)))
		} else {
			for _, c := range v {
				if c < '0' || c > '9' {
					return 0, 0, false
				}
				ms = ms*10 + int64(c-'0')
			}
		}
		return ms / 1000, int32(ms%1000) * 1e6, true
	}
	b := v[1 : len(v)-1]
	// YYYY-MM-DDTHH:MM:SS, then .fraction of 1 to 9 digits, then Z.
	if len(b) < 20 || len(b) > 30 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, 0, false
	}
	hh, ok1 := twoDigits(b[11:13])
	mm, ok2 := twoDigits(b[14:16])
	ss, ok3 := twoDigits(b[17:19])
	if !ok1 || !ok2 || !ok3 || hh > 23 || mm > 59 || ss > 59 {
		return 0, 0, false
	}
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if len(frac) < 2 || frac[0] != '.' {
			return 0, 0, false
		}
		scale := int32(1e9)
		for _, c := range frac[1:] {
			if c < '0' || c > '9' {
				return 0, 0, false
			}
			scale /= 10
			nsec += int32(c-'0') * scale
		}
	}
	if [10]byte(b[:10]) != r.date {
		y1, ok1 := twoDigits(b[0:2])
		y2, ok2 := twoDigits(b[2:4])
		mo, ok3 := twoDigits(b[5:7])
		d, ok4 := twoDigits(b[8:10])
		if !ok1 || !ok2 || !ok3 || !ok4 || mo < 1 || mo > 12 || d < 1 {
			return 0, 0, false
		}
		t := time.Date(y1*100+y2, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d { // past the month's last day: time.Parse's error
			return 0, 0, false
		}
		r.date, r.dateSec = [10]byte(b[:10]), t.Unix()
	}
	return r.dateSec + int64(hh*3600+mm*60+ss), nsec, true
}

// eightDigits says whether the 8 bytes of w are each '0' to '9': the
// high nibble 3, and still 3 with 6 added (a carry into a byte comes
// only from one over 0xf9, itself no digit).
func eightDigits(w uint64) bool {
	const highs, sixes, threes = 0xf0f0f0f0f0f0f0f0, 0x0606060606060606, 0x3030303030303030
	return w&highs == threes && (w+sixes)&highs == threes
}

// digitsValue is the number the 8 bytes of w write as decimal digits
// ('0' to '9', the first byte the highest digit; a byte 0 reads as 0),
// in three multiplications: the digits in pairs, the pairs in fours,
// the fours in one.
func digitsValue(w uint64) uint64 {
	w &= 0x0f0f0f0f0f0f0f0f
	w = w*10 + w>>8
	return ((w&0x000000ff000000ff)*(100+1000000<<32) + (w>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
}

// decPow are the powers of ten to 10^7.
var decPow = [8]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000}

// twoDigits reads two decimal digits.
func twoDigits(b []byte) (int, bool) {
	if b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	return int(b[0]-'0')*10 + int(b[1]-'0'), true
}
