package replay

// An attempts line found by its bytes before its last member: an
// autopilot writes the same task, status, lists and session again and
// again (the 100 MB log: 14 records for 647,850 attempts), each with its
// time. flatLine read every member of every line, and addFlat then
// looked the five of them up in its memo's Go map by their run of
// bytes: most of an attempts line's reading, for bytes read before.

import (
	"bytes"
	"math/bits"
	"time"
)

// attemptLines holds lines read whole (attemptFlat) by their bytes up to
// their last member's value, the time's, with the memo those bytes read
// into: a line of the same bytes up to there is the same attempt but its
// time, read here from the value alone. An entry is found by the words
// around the line's last ", " (lineSlot), where that member's key starts.
type attemptLines struct {
	slots        [attemptLineSlots]attemptLine
	hits, misses int
	off          bool // missed far more than hit: not looked at again
	// tail is the bytes from the time's key to the line's end in the
	// last line found whose time was a string ([1]) or not ([0]): find
	// looks for the key there first, where lastComma searched the line
	// from its end (some 70 instructions a line). A line of an entry's
	// bytes up to its time's value and a valid value after is that
	// entry's however its key was found, so a key found there is the
	// one lastComma finds (or a line lastComma would not find, read the
	// same by the general way: a time with ", \"" in it).
	tail [2]int
}

// attemptLineSlots is the number of entries: a few times the records an
// autopilot repeats.
const attemptLineSlots = 128

// maxAttemptLine bounds the lines kept, so the entries' bytes stay
// within 64 KiB: an autopilot's records are a few hundred bytes.
const maxAttemptLine = 512

// attemptLine is a line's bytes up to its last member's value (the key
// and ": " before it included) and the memo they read into; an empty
// prefix is no entry.
type attemptLine struct {
	prefix []byte
	m      attemptMemo
	used   int // attemptLines.hits when last found or kept
	// The shape of the last row found by the entry (+1; 0 none), and
	// the zone and high seconds it was made with: a row of the same
	// is of an equal shape (attemptShape's), taken with no lookup.
	shape int32
	zone  int32
	hi    int64
}

// find returns the memo of a line whose bytes up to its last member's
// value are an entry's, and that value, the time's: the line is then
// read as flatLine and addFlat read the entry's, but for the time, which
// is digits (a number with no fraction, exponent or sign) or a string
// and ends the line with its '}'. ok is false for any other line, read
// the usual way. A string's body is not tested here: the caller tests it
// (attemptReader.timeAt) before it takes the line.
func (a *attemptLines) find(line []byte) (e *attemptLine, ts rawValue, ok bool) {
	n := len(line)
	if a.off || n < 48 || line[n-1] != '}' {
		return nil, nil, false
	}
	str := 0
	if line[n-2] == '"' {
		str = 1
	}
	k := 0
	// The time's key where the last line found of its kind had it,
	// found by its ", \"" and the entry's bytes; else lastComma's.
	b := n - a.tail[str]
	if b >= 34 && b < n && pairAt(line, b-2) == ','|' '<<8 && line[b] == '"' {
		e, k = a.lookup(line, b)
	}
	if e == nil {
		b = lastComma(line, 32) + 2
		if b < 34 || b >= n || line[b-1] != ' ' || line[b] != '"' {
			a.missed()
			return nil, nil, false
		}
		if e, k = a.lookup(line, b); e == nil {
			a.missed()
			return nil, nil, false
		}
	}
	switch c := line[k]; {
	case c == '"':
		// Its closing quote is the line's last byte but one; its body
		// is tested by readLine (timeAt), with the time read.
		if str == 0 || k >= n-2 {
			return nil, nil, false
		}
	case c == '0':
		if k+1 != n-1 {
			return nil, nil, false
		}
	case '1' <= c && c <= '9':
		for j := k + 1; j < n-1; j++ {
			if line[j]-'0' > 9 {
				return nil, nil, false
			}
		}
	default:
		return nil, nil, false
	}
	a.hits++
	e.used = a.hits
	a.tail[str] = n - b
	return e, line[k : n-1 : n-1], true
}

// lookup is the entry whose bytes are line's up to its time's value,
// the key at line[b] (34 <= b < len(line)), and the length of those
// bytes; nil when none is.
func (a *attemptLines) lookup(line []byte, b int) (*attemptLine, int) {
	n := len(line)
	s := lineSlot(line, b)
	e := &a.slots[s]
	k := len(e.prefix)
	if k <= b || k >= n-1 || !bytes.Equal(line[:k], e.prefix) {
		// The slot after: where note puts a prefix whose own slot
		// holds another.
		e = &a.slots[(s+1)%attemptLineSlots]
		if k = len(e.prefix); k <= b || k >= n-1 || !bytes.Equal(line[:k], e.prefix) {
			return nil, 0
		}
	}
	return e, k
}

// stringEndsLine says whether the string at line[k] closes at the
// line's last byte but one: flatString(line, k) == len(line)-1, k <
// len(line)-1. A time's string is 20 bytes or more, past the two words
// flatString tells without a call, and validString then went to the
// vector scan for it (some 70 instructions a line): where its quote is
// known, its body of 8 to 24 bytes is tested here, in three words (the
// first, the second or one before it, the last ending at the quote), for
// no stop (stopMask's: a quote, a backslash, a control byte). A body
// shorter or longer, or with a stop, is left to flatString.
func stringEndsLine(line []byte, k int) bool {
	n := len(line)
	if end := n - 2; end-k > 8 && end-k <= 25 && line[end] == '"' {
		if stopMask(wordAt(line, k+1))|stopMask(wordAt(line, min(k+9, end-8)))|stopMask(wordAt(line, end-8)) == 0 {
			return true
		}
	}
	return flatString(line, k) == n-1
}

// missed counts a line not found, and turns the lookups off once they
// miss far more than they hit (each line of another session, say).
func (a *attemptLines) missed() {
	if a.misses++; a.misses > 1024 && a.misses > 4*a.hits {
		a.off = true
	}
}

// note keeps line, read whole by attemptFlat into vals and added by
// addFlat into memo m, when its members end with the session id's value,
// ", " and the time's key and value, "}" last: its bytes up to the
// time's value then read into m again wherever they are met (the same
// bytes, read from the line's start). A line of any other layout is not
// kept: the five run in order (attemptRun), the session id's value
// right before the line's last ", " (so the bytes from there to the
// time's value, with no comma, are one key and its colon: no member
// lies between the two), the time's value last.
func (a *attemptLines) note(line []byte, vals []rawValue, m attemptMemo) {
	n := len(line)
	if a.off || n < 48 || n > maxAttemptLine || line[n-1] != '}' {
		return
	}
	if _, isRun := attemptRun(vals); !isRun {
		return
	}
	b := valueEnd(line, vals[4]) + 2
	k := valueStart(line, vals[5])
	if b < 34 || k <= b || k >= n-1 || valueEnd(line, vals[5]) != n-1 || pairAt(line, b-2) != ','|' '<<8 || lastComma(line, 32)+2 != b {
		return
	}
	// Its slot or the one after (find looks in both): an empty one,
	// else the one found last the longer ago.
	e, f := &a.slots[lineSlot(line, b)], &a.slots[(lineSlot(line, b)+1)%attemptLineSlots]
	if len(e.prefix) != 0 && (len(f.prefix) == 0 || f.used < e.used) {
		e = f
	}
	e.prefix = append(e.prefix[:0], line[:k]...)
	e.used, e.shape = a.hits, 0
	e.m = m
}

// valueStart and valueEnd are where v, a view of line, starts and ends
// in it.
func valueStart(line []byte, v rawValue) int {
	return int(addrAt(v, 0) - addrAt(line, 0))
}

func valueEnd(line []byte, v rawValue) int { return valueStart(line, v) + len(v) }

// lastComma is the index of line's last ',' at lo or after, lo-2 for
// none: a word at a time from the end (exact: a byte is flagged only
// when it is a comma).
func lastComma(line []byte, lo int) int {
	const ones, lows = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	for j := len(line) - 8; j >= lo; j -= 8 {
		w := wordAt(line, j) ^ ones*','
		if z := ^((w&lows + lows) | w | lows); z != 0 {
			return j + (63-bits.LeadingZeros64(z))>>3
		}
	}
	return lo - 2
}

// lineSlot is the entry of a line whose last member's key starts at b:
// by its three words after the first (the task id and status, mostly),
// the two before b (the session id's value), and b.
func lineSlot(line []byte, b int) int {
	h := wordAt(line, 8)*0x9e3779b97f4a7c15 ^ wordAt(line, 16)*0xc2b2ae3d27d4eb4f ^ wordAt(line, 24)*0x165667b19e3779f9 ^
		wordAt(line, b-16)*0xbf58476d1ce4e5b9 ^ wordAt(line, b-8)*0x94d049bb133111eb ^ uint64(b)
	h = (h ^ h>>31) * 0xbf58476d1ce4e5b9
	return int((h ^ h>>29) * 0x94d049bb133111eb >> (64 - 7))
}

// readLine reads an attempts line into a row: found among the lines
// before (lines), read whole by flat (and kept in lines), or read the
// general way (parseFields into vals); a non-empty reason says why it is
// skipped.
func (r *attemptReader) readLine(line []byte, flat *attemptFlat, lines *attemptLines, vals []rawValue) string {
	if e, ts, ok := lines.find(line); ok {
		if sec, nsec, fast, valid := r.timeAt(line, ts); valid {
			// As addFlat's memo hit: the bytes before the time's
			// passed the checks before it.
			r.hits++
			zone, reason := r.utc, ""
			if !fast {
				sec, nsec, zone, reason = r.when(ts)
			}
			if reason != "" {
				return reason
			}
			if e.shape != 0 && e.zone == zone && e.hi == sec>>32 {
				r.appendRow(attemptRow{lo: uint32(sec), nsec: nsec, shape: e.shape - 1})
				return ""
			}
			r.row(e.m, sec, nsec, zone)
			e.shape, e.zone, e.hi = r.rows.at(r.nrows-1).shape+1, zone, sec>>32
			return ""
		}
	}
	if fv, ok := flat.read(line); ok {
		reason := r.addFlat(fv, true)
		if reason == "" {
			lines.note(line, fv, r.lastMemo())
		}
		return reason
	}
	if _, err := parseFields(line, attemptFieldKeys, vals); err != nil {
		return err.Error()
	}
	return r.add(vals) // a row of Syms and indices (attempt_rows.go)
}

// timeAt says whether time value ts, found at the end of line by
// attemptLines.find, is valid JSON (valid): digits as find tested them,
// or a string closed at the line's last byte but one (stringEndsLine's).
// A string fastTime reads whole holds only digits and "-T:.Z" between
// its quotes, and is valid with no test of its own: stringEndsLine's
// three words' stop test was some 70 instructions a line. fast says the
// time was read so, as r.time reads it (in UTC, r.utc).
func (r *attemptReader) timeAt(line []byte, ts rawValue) (sec int64, nsec int32, fast, valid bool) {
	// (fastTime's date before any was read is ten zero bytes, which no
	// string it reads holds: its fifth is '-'.)
	if sec, nsec, ok := r.fastTime(ts); ok {
		if r.utc < 0 {
			r.utc = r.ep.attemptZone(time.Unix(0, 0).UTC(), &r.in)
		}
		return sec, nsec, true, true
	}
	return 0, 0, false, ts[0] != '"' || stringEndsLine(line, len(line)-1-len(ts))
}

// lastMemo is what the last row's task, status, session and lists read
// into.
func (r *attemptReader) lastMemo() attemptMemo {
	s := r.ep.attemptShapes.at(int(r.rows.at(r.nrows - 1).shape))
	return attemptMemo{task: s.task, status: s.status, session: s.session, blockers: s.blockers, work: s.work}
}
