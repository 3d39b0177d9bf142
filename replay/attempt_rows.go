package replay

// An attempts log's attempts as an episode keeps them: rows without
// pointers. An Attempt is 120 bytes with seven pointers; an episode of
// 65,000 attempts (a 10 MB log) held 8 MB of them, copied once more at
// the end of the read, and the collector scanned every pointer at every
// collection while two or three such episodes were in memory (a corpus
// read on every CPU). A row is 40 bytes the collector does not scan.

import (
	"strconv"
	"time"
)

// attemptRow is an Attempt in an episode: its strings are Syms of the
// episode, its lists indices into Episode.attemptLists (0: nil), its time
// the seconds and nanoseconds since 1970 with an index into
// Episode.attemptZones.
type attemptRow struct {
	sec                   int64
	task, status, session Sym
	blockers, work        int32
	nsec                  int32
	zone                  int32
}

// attemptIntern finds an episode's repeated lists and zones while its
// attempts are added: an autopilot logs the same blockers and works
// attempt after attempt.
type attemptIntern struct {
	lists map[string]int32 // a list's key (listKey) → its index
	zones map[zoneKey]int32
	key   []byte
}

type zoneKey struct {
	name string
	off  int
}

// NumAttempts is the number of attempts of an attempts log (0 for other
// formats): record i+1 is Attempt(i), turn i+1.
func (e *Episode) NumAttempts() int { return len(e.attempts) }

// Attempt returns attempt i (0-based) as it was read. Its lists are the
// episode's, shared between attempts: not to be modified.
func (e *Episode) Attempt(i int) Attempt {
	r := &e.attempts[i]
	return Attempt{TaskID: e.Str(r.task), Status: e.Str(r.status), SessionID: e.Str(r.session),
		Blockers: e.attemptLists[r.blockers], CompletedWork: e.attemptLists[r.work],
		Timestamp: time.Unix(r.sec, int64(r.nsec)).In(e.attemptZones[r.zone])}
}

// AppendAttempts adds attempts to the table: how a test writes one by
// hand (the reader adds them as it reads them).
func (e *Episode) AppendAttempts(as ...Attempt) {
	var in attemptIntern
	for _, a := range as {
		e.addAttempt(a, &in)
	}
}

func (e *Episode) addAttempt(a Attempt, in *attemptIntern) {
	if e.attemptLists == nil {
		e.attemptLists = [][]string{nil}
	}
	if e.syms.ids.n == 0 && e.syms.len() > 1 {
		e.syms.reindex() // a built episode's table, written by hand
	}
	e.attempts = append(e.attempts, attemptRow{
		task: e.syms.sym(a.TaskID), status: e.syms.sym(a.Status), session: e.syms.sym(a.SessionID),
		blockers: e.attemptList(a.Blockers, in), work: e.attemptList(a.CompletedWork, in),
		sec: a.Timestamp.Unix(), nsec: int32(a.Timestamp.Nanosecond()), zone: e.attemptZone(a.Timestamp, in),
	})
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
