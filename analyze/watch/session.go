package watch

// One followed file: reading it again as it grows and reporting the new
// firings of its episodes.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// session is one followed file.
type session struct {
	path string

	info  os.FileInfo // the file last read: SameFile tells a replacement
	size  int64       // its size then
	mtime time.Time

	read      int64  // bytes read: up to the last complete line
	head      []byte // the file's first bytes when read: a rewrite changes them
	lineStart int64  // where the last complete line read starts
	whole     bool   // read whole at each change (one JSON document, compressed)
	document  bool   // whole, and one JSON document: read only when it is valid
	kindKnown bool   // whole was decided (on the first bytes)

	eps map[string]*episode // by id and occurrence

	zork    bool  // a ZorkGPT log: only lines with markers are worth a read
	scanned int64 // bytes scanned for markers
	skipped bool  // complete lines were left unread (no marker)

	lastChange time.Time // the file's last change seen
	settleAt   time.Time // pending firings are reported then; zero: none
	nextRead   time.Time // a read is not started before (see cost)
	dirty      bool      // changed since the last read
	idle       bool      // ended by Options.Idle; a write resumes it
	silent     bool      // the first read with FromEnd: nothing reported
	problem    string    // the last problem reported, said once
}

// episode is what a session remembers of one of its episodes between
// reads.
type episode struct {
	id       string
	reported int    // firings reported
	sum      uint64 // hash of them, in order
	pending  []rules.Firing
	cut      []bool // pending firings' after_cut
	ended    bool   // its end was reported
	summary  Summary
}

var seed = maphash.MakeSeed()

// mix adds a firing to a running hash of a firing list.
func mix(sum uint64, f *rules.Firing) uint64 {
	return sum*1099511628211 ^ maphash.Comparable(seed, *f)
}

// stat looks at the file: deleted, replaced, truncated or changed.
func (w *watcher) stat(s *session, now time.Time) {
	fi, err := os.Stat(s.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			w.close(s, "deleted")
			return
		}
		w.problem(s, err.Error())
		return
	}
	if !fi.Mode().IsRegular() {
		w.problem(s, "not a regular file")
		return
	}
	switch {
	case s.info != nil && !os.SameFile(s.info, fi):
		w.restart(s, "replaced by a new file at the path")
	case s.info != nil && !s.whole && fi.Size() < s.read:
		w.restart(s, fmt.Sprintf("truncated from %d to %d bytes", s.read, fi.Size()))
	}
	if s.info != nil && fi.Size() == s.size && fi.ModTime().Equal(s.mtime) {
		return
	}
	s.info, s.size, s.mtime = fi, fi.Size(), fi.ModTime()
	s.lastChange = now
	s.dirty = true
	if s.idle {
		s.idle = false
		for _, e := range s.eps {
			if e.ended && e.summary.RecordedEnd == replay.EndUnknown {
				e.ended = false // written again after an idle end: followed again
			}
		}
	}
}

// restart forgets what was read of the session's file.
func (w *watcher) restart(s *session, reason string) {
	w.emit(Event{Kind: Restart, Session: s.path, Reason: reason})
	s.info, s.size, s.read, s.lineStart, s.head = nil, 0, 0, 0, nil
	s.zork, s.scanned, s.skipped = false, 0, false
	s.kindKnown, s.whole, s.document = false, false, false
	s.eps = map[string]*episode{}
	s.settleAt = time.Time{}
	s.problem = ""
}

// update reads the session's file again if complete lines were added,
// and reports the episodes' new final firings.
//
// In a ZorkGPT log, lines that carry no turn_completed and no end record
// add no row to the turn table and end nothing (a turn's row is made by
// its turn_completed; the lines before it are the open turn's), so they
// cannot make a firing final: they are scanned for those event names and
// read with the next line that has one (force reads them anyway).
func (w *watcher) update(s *session, now time.Time, force bool) {
	s.dirty = false
	f, err := os.Open(s.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			w.close(s, "deleted")
			return
		}
		w.problem(s, err.Error())
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		w.problem(s, err.Error())
		return
	}
	size := fi.Size()
	if !s.kindKnown {
		if size == 0 {
			return
		}
		var known bool
		if s.whole, s.document, known = readWhole(f); !known {
			return // a first line still being written
		}
		s.kindKnown = true
	}
	if !s.whole && len(s.head) > 0 {
		// Truncated and written again past the old size between two
		// looks: the same inode, a larger size, other first bytes.
		head := make([]byte, len(s.head))
		if n, _ := f.ReadAt(head, 0); n < len(head) || !bytes.Equal(head, s.head) {
			w.restart(s, "rewritten from its start")
			s.kindKnown = true // still lines
			s.info, s.size, s.mtime = fi, size, fi.ModTime()
		}
	}
	limit := size
	if !s.whole {
		limit, err = lastLineEnd(f, s.read, size)
		if err != nil {
			w.problem(s, err.Error())
			return
		}
		if limit <= s.read {
			return // a partial line: wait for its newline
		}
		if s.zork && !force {
			found, err := hasMarker(f, max(s.read, s.scanned), limit)
			if err != nil {
				w.problem(s, err.Error())
				return
			}
			s.scanned = limit
			if !found {
				s.skipped = true
				return
			}
		}
		s.lineStart, err = lineStartBefore(f, limit)
		if err != nil {
			w.problem(s, err.Error())
			return
		}
	} else {
		s.lineStart = 0
	}
	start := time.Now()
	var r io.Reader = io.NewSectionReader(f, 0, limit)
	if s.document {
		// Rewritten whole (Gemini CLI's writeFileSync truncates, then
		// writes): a document cut short is a write in progress, not a
		// session whose steps went away. It is read once it is whole.
		data, err := io.ReadAll(r)
		if err != nil {
			w.problem(s, err.Error())
			return
		}
		if !json.Valid(data) {
			return
		}
		r = bytes.NewReader(data)
	}
	seen := map[string]int{} // occurrences of each id in this read
	zork := true
	_, err = replay.Stream(w.ctx, r, s.path, replay.DefaultEpisodeID(s.path), w.opts.Read,
		func(ep *replay.Episode) error {
			zork = zork && ep.Format == replay.FormatZorkGPT
			seen[ep.ID]++
			w.episode(s, ep, ep.ID+"\x00"+strconv.Itoa(seen[ep.ID]), now)
			return w.err
		})
	s.read, s.scanned, s.skipped = limit, limit, false
	s.zork = zork && len(seen) > 0 && !s.whole
	if !s.whole && len(s.head) < headBytes {
		s.head = make([]byte, min(limit, headBytes))
		if n, _ := f.ReadAt(s.head, 0); n < len(s.head) {
			s.head = s.head[:n]
		}
	}
	// A read that takes d is not followed by another for 2d: at most a
	// third of a core for a huge log, however often it is written.
	s.nextRead = now.Add(2 * time.Since(start))
	switch {
	case err == nil, w.err != nil && errors.Is(err, w.err):
		s.problem = ""
	case w.ctx.Err() != nil:
	case errors.Is(err, replay.ErrNoEvents) && limit < noEventsBytes:
		// Nothing the rules read yet: a log just begun (ZorkGPT's first
		// lines are its set-up, a turn comes seconds later).
	case errors.Is(err, replay.ErrNoEvents):
		w.problem(s, err.Error()+"; waiting")
	default:
		w.problem(s, err.Error())
	}
	if s.silent {
		// --from-end: what is there was read, not reported.
		for _, e := range s.eps {
			e.settle(s, w)
		}
		s.silent = false
		s.settleAt = time.Time{}
	}
}

// markers are the event names of the lines that make a ZorkGPT turn's
// firings final: its row (turn_completed) and the episode's end
// (replay/builder.go's end events).
var markers = [][]byte{[]byte("turn_completed"), []byte("stuck_termination"), []byte("game_over_detected"),
	[]byte("episode_completed"), []byte("episode_finalized")}

// hasMarker says whether [from, to) holds a marker.
func hasMarker(f io.ReaderAt, from, to int64) (bool, error) {
	const overlap = 32 // longer than any marker: one cut by a chunk is whole in the next
	buf := make([]byte, 64<<10)
	for pos := from; pos < to; {
		n := min(int64(len(buf)), to-pos)
		b := buf[:n]
		if _, err := f.ReadAt(b, pos); err != nil && err != io.EOF {
			return false, err
		}
		for _, m := range markers {
			if bytes.Contains(b, m) {
				return true, nil
			}
		}
		if pos+n >= to {
			break
		}
		pos += n - overlap
	}
	return false, nil
}

// headBytes of a file's start are kept to tell a rewrite from an append.
const headBytes = 256

// noEventsBytes is how much of a file without a loop-break event is a
// log just begun; past it, the file is said to have none (a wrong file
// named, another program's log) while it is still followed.
const noEventsBytes = 64 << 10

// readWhole says a file is read whole at each change: compressed, or one
// JSON document (an array, or a pretty-printed object) rather than lines.
// known is false while the file's start cannot tell yet (a first line
// without its newline).
func readWhole(f io.ReaderAt) (whole, document, known bool) {
	head := make([]byte, 4096)
	n, _ := f.ReadAt(head, 0)
	full := n == len(head)
	head = head[:n]
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) || bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		return true, false, true
	}
	t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	i := bytes.IndexByte(t, '\n')
	switch {
	case len(t) > 0 && t[0] == '[':
		return true, true, true
	case i < 0 && !full:
		// A first line still being written (a record of JSON Lines, or
		// the start of a pretty-printed document).
		return false, false, false
	case len(t) > 0 && t[0] == '{' && i >= 0 && !bytes.HasSuffix(bytes.TrimRight(t[:i], " \t\r"), []byte("}")):
		// An object whose first line is not whole: a pretty-printed
		// document, not JSON Lines.
		return true, true, true
	}
	return false, false, true
}

// lastLineEnd returns the offset just past the last newline in [from,
// size), from when there is none.
func lastLineEnd(f *os.File, from, size int64) (int64, error) {
	buf := make([]byte, 32<<10)
	for end := size; end > from; {
		n := min(int64(len(buf)), end-from)
		b := buf[:n]
		if _, err := f.ReadAt(b, end-n); err != nil && err != io.EOF {
			return from, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return from, nil
}

// lineStartBefore returns where the line ending at end (just past its
// newline) starts.
func lineStartBefore(f *os.File, end int64) (int64, error) {
	if end <= 1 {
		return 0, nil
	}
	pos, err := lastLineEnd(f, 0, end-1)
	return pos, err
}

// episode takes one episode of a read: its new firings that are final
// are reported, the others kept pending.
func (w *watcher) episode(s *session, ep *replay.Episode, key string, now time.Time) {
	e := s.eps[key]
	if e == nil {
		e = &episode{id: ep.ID}
		s.eps[key] = e
	}
	// The firings are taken as the replay produces them, never kept: an
	// episode read again at each write (a session of a million steps)
	// costs the last turn's firings, not its list.
	x := &firings{w: w, s: s, e: e, old: e.reported}
	x.open = !ended(ep) && ep.NumTurns() > 0
	if x.open {
		x.last = ep.RecordedTurns()
	}
	e.pending, e.cut = e.pending[:0], e.cut[:0]
	o := analyze.Analyze(ep, w.opts.Config, analyze.Options{Sink: func(*analyze.Outcome, *replay.Episode) analyze.FiringSink { return x }})
	x.check()
	if w.err != nil {
		return
	}
	e.summary = Summary{Unit: rules.UnitOf(ep), Turns: o.RecordedTurns, Firings: x.n, Counts: o.Counts,
		Termination: o.Termination, RecordedEnd: ep.RecordedEnd}
	if len(e.pending) > 0 {
		s.settleAt = now.Add(w.opts.Settle)
	}
	if ended(ep) && !e.ended {
		e.settle(s, w)
		e.ended = true
		if !s.silent {
			w.emit(Event{Kind: End, Session: s.path, Episode: e.id, Offset: s.lineStart, Reason: "recorded end: " + ep.RecordedEnd, Summary: &e.summary})
		}
	}
}

// fire reports one firing (silently on a FromEnd first read).
func (w *watcher) fire(s *session, e *episode, f *rules.Firing, afterCut bool) {
	e.reported++
	e.sum = mix(e.sum, f)
	if s.silent {
		return
	}
	w.emit(Event{Kind: Firing, Session: s.path, Episode: e.id, Offset: s.lineStart, Firing: f, AfterCut: afterCut})
}

// ended says whether the episode's end is recorded: its last turn's
// firings are final.
func ended(ep *replay.Episode) bool {
	return ep.RecordedEnd != "" && ep.RecordedEnd != replay.EndUnknown
}

// firings takes an episode's firings in order as the replay produces them
// (an analyze.FiringSink) on reading it again: the first old, reported
// before, are only hashed, to see that they are still the list's
// beginning (else the episode is revised: check); the others are
// reported as they come, but for the last turn's while the episode is
// open (its turn may not be whole yet): those wait in the episode's
// pending list, and a firing of an earlier turn after them (never, as
// firings come in turn order) would report them first.
type firings struct {
	w       *watcher
	s       *session
	e       *episode
	old     int    // firings reported before this read
	n       int    // firings seen
	sum     uint64 // hash of the first min(old, n)
	checked bool
	open    bool // the end is not recorded: the last turn's firings wait
	last    int  // the last turn
}

// Firing is an analyze.FiringSink.
func (x *firings) Firing(f *rules.Firing, afterCut bool) {
	if x.n < x.old {
		x.sum = mix(x.sum, f)
		x.n++
		return
	}
	x.check()
	x.n++
	if x.w.err != nil {
		return
	}
	e := x.e
	if x.open && f.Turn >= x.last {
		e.pending = append(e.pending, *f)
		e.cut = append(e.cut, afterCut)
		return
	}
	e.settle(x.s, x.w)
	x.w.fire(x.s, e, f, afterCut)
}

// check compares, once, the firings reported before with the list's
// beginning now: if they differ the episode is revised and followed from
// its new list.
func (x *firings) check() {
	if x.checked {
		return
	}
	x.checked = true
	e, n := x.e, min(x.old, x.n)
	if n != e.reported || x.sum != e.sum {
		if !x.s.silent {
			x.w.emit(Event{Kind: Revised, Session: x.s.path, Episode: e.id, Offset: x.s.lineStart,
				Reason: fmt.Sprintf("the %d firings reported are no longer the episode's first on reading it again; following the new list", e.reported)})
		}
		e.reported, e.sum = n, x.sum
	}
}

// settle reports the episode's pending firings.
func (e *episode) settle(s *session, w *watcher) {
	for i := range e.pending {
		w.fire(s, e, &e.pending[i], e.cut[i])
		if w.err != nil {
			break
		}
	}
	e.pending, e.cut = e.pending[:0], e.cut[:0]
}

// close ends the session's open episodes with their summaries.
func (w *watcher) close(s *session, reason string) {
	for _, key := range sortedKeys(s.eps) {
		e := s.eps[key]
		e.settle(s, w)
		if !e.ended {
			e.ended = true
			w.emit(Event{Kind: End, Session: s.path, Episode: e.id, Offset: s.read, Reason: reason, Summary: &e.summary})
		}
	}
	s.settleAt = time.Time{}
	if reason == "deleted" {
		w.drop(s)
	}
}

// problem reports what keeps a session from being read, once per
// message.
func (w *watcher) problem(s *session, msg string) {
	if msg == s.problem {
		return
	}
	s.problem = msg
	w.emit(Event{Kind: Problem, Session: s.path, Reason: msg})
}
