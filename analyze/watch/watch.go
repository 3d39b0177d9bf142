package watch

// The loop: finding sessions, waiting for changes and timers.

import (
	"cmp"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Options control a watch.
type Options struct {
	Read   replay.Options // as analyze reads (format, preset, fields, outputs)
	Config *rules.Config
	// Match says which files of a directory are sessions (analyze's
	// choice: episode_log.jsonl, or any *.jsonl/*.json for agents' logs);
	// nil means replay.LogNames.
	Match func(name string) bool
	// Keep, when set, is asked before a matching file becomes a session
	// and may look inside it (analyze's scan sniffs a JSON file's first
	// records); a file it refuses is asked again at its next change, so
	// a session created empty is followed once it holds a record.
	Keep         func(path string) bool
	IncludeTests bool // test_*/test-* directories too
	// FromEnd reads what the files hold at the start without reporting
	// it: only what is written after is reported.
	FromEnd bool
	// Poll stats the sessions and rescans the directories at this
	// interval instead of waiting for file system events (filesystems
	// without them: NFS, some container mounts); 0 uses events.
	Poll time.Duration
	// Idle ends a session after this long without a write; 0 never.
	Idle time.Duration
	// Settle is how long a file must be quiet before its last turn's
	// firings are reported (see the package doc); 0 means DefaultSettle.
	Settle time.Duration
}

// DefaultSettle lets the lines a turn writes in one burst come in before
// its firings are reported.
const DefaultSettle = 10 * time.Millisecond

// EventKind says what an Event reports.
type EventKind int

const (
	Firing  EventKind = iota // a rule fired: Firing, AfterCut
	Start                    // a session is followed (a file found)
	Restart                  // truncated or replaced: read again from its start (Reason)
	End                      // an episode ended (Reason, Summary)
	Problem                  // the session cannot be read as it is (Reason)
	Revised                  // the firings reported changed on reading again (Reason)
)

// Event is one thing a watch reports.
type Event struct {
	Kind    EventKind
	Session string // the file's path
	Episode string // the episode's id
	// Offset is where, in the file, the last line read starts: the line
	// whose arrival made the firing final (for a document read whole, 0).
	Offset   int64
	Firing   *rules.Firing // valid during the emit call only
	AfterCut bool
	Reason   string
	Summary  *Summary
}

// Summary is an episode's state when it ends.
type Summary struct {
	Unit        string // turn, step or attempt
	Turns       int    // recorded turns (steps, attempts)
	Firings     int
	Counts      map[string]int // firings per rule/kind
	Termination *analyze.Termination
	RecordedEnd string
}

// watcher is one Run's state; everything runs on Run's goroutine.
type watcher struct {
	ctx   context.Context
	opts  Options
	emitF func(Event) error
	err   error // emit's error: stops the watch

	roots    []string            // directories given
	named    map[string]bool     // files given
	sessions map[string]*session // by cleaned path
	fsw      *fsnotify.Watcher
	watched  map[string]bool // directories watched
	polling  bool            // poll (Options.Poll, or a second when a watch failed)
}

// Run follows paths (files and directories) until ctx is done or emit
// returns an error, calling emit for each event. When ctx is done, every
// open episode is ended with its summary (Reason "interrupted") and
// ctx's cause is returned; emit's error is returned as it is.
func Run(ctx context.Context, paths []string, opts Options, emit func(Event) error) error {
	if opts.Settle <= 0 {
		opts.Settle = DefaultSettle
	}
	if opts.Match == nil {
		opts.Match = func(name string) bool { return slices.Contains(replay.LogNames, name) }
	}
	w := &watcher{ctx: ctx, opts: opts, emitF: emit, named: map[string]bool{},
		sessions: map[string]*session{}, watched: map[string]bool{}}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st.IsDir() {
			w.roots = append(w.roots, filepath.Clean(p))
		} else {
			w.named[filepath.Clean(p)] = true
		}
	}
	if opts.Poll <= 0 {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			// No events on this system: poll instead.
			w.emit(Event{Kind: Problem, Reason: "file system events unavailable (" + err.Error() + "); polling every second"})
			w.opts.Poll = time.Second
		} else {
			w.fsw = fsw
			defer fsw.Close()
		}
	}
	w.scan(true)
	return w.loop()
}

func (w *watcher) emit(e Event) {
	if w.err != nil {
		return
	}
	w.err = w.emitF(e)
}

// scan finds the sessions of the paths given, watching their
// directories; first is the scan at the start (FromEnd applies to it).
func (w *watcher) scan(first bool) {
	for p := range w.named {
		if w.fsw != nil {
			w.watchDir(filepath.Dir(p))
		}
		if _, err := os.Stat(p); err == nil {
			w.found(p, first)
		}
	}
	for _, root := range w.roots {
		w.scanDir(root, first)
	}
}

// scanDir finds the sessions below dir, watching each directory.
func (w *watcher) scanDir(dir string, first bool) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != dir && w.skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if w.fsw != nil {
				w.watchDir(path)
			}
			return nil
		}
		if w.opts.Match(d.Name()) && regular(path) {
			w.found(path, first)
		}
		return nil
	})
}

// skipDir is the directory walk's choice (replay.FindMatching).
func (w *watcher) skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || (!w.opts.IncludeTests && replay.IsTestDir(name))
}

func regular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

func (w *watcher) watchDir(dir string) {
	dir = filepath.Clean(dir)
	if w.watched[dir] {
		return
	}
	if err := w.fsw.Add(dir); err != nil {
		// Out of inotify watches (fs.inotify.max_user_watches), or a
		// directory gone: its sessions are still looked at, by polling.
		if !w.polling {
			w.emit(Event{Kind: Problem, Session: dir, Reason: "cannot watch (" + err.Error() + "); polling every second as well"})
			w.polling = true
		}
		return
	}
	w.watched[dir] = true
}

// found follows a session file, if it is not followed yet.
func (w *watcher) found(path string, first bool) {
	path = filepath.Clean(path)
	if w.sessions[path] != nil {
		return
	}
	if w.opts.Keep != nil && !w.named[path] && !w.opts.Keep(path) {
		return
	}
	s := &session{path: path, eps: map[string]*episode{}, silent: first && w.opts.FromEnd}
	w.sessions[path] = s
	if !first {
		w.emit(Event{Kind: Start, Session: path, Reason: "new session"})
	} else {
		w.emit(Event{Kind: Start, Session: path})
	}
	w.stat(s, time.Now())
	if s.dirty {
		w.update(s, time.Now(), false)
	}
	// FromEnd skips what the file holds now: what comes later is
	// reported, even when nothing could be read yet (an empty file).
	s.silent = false
}

func (w *watcher) drop(s *session) { delete(w.sessions, s.path) }

// inRoots says a path is below a directory given (or is a file given).
func (w *watcher) inRoots(path string) bool {
	if w.named[path] {
		return true
	}
	for _, r := range w.roots {
		if rel, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}

// event handles one file system event.
func (w *watcher) event(ev fsnotify.Event, now time.Time) {
	path := filepath.Clean(ev.Name)
	if s := w.sessions[path]; s != nil {
		w.stat(s, now)
		return
	}
	if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Write) {
		return
	}
	if !w.inRoots(path) {
		return
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
	case st.IsDir() && !w.skipDir(filepath.Base(path)):
		// A new directory (a new ZorkGPT episode): its files may have
		// been created before its watch was added.
		w.scanDir(path, false)
	case st.Mode().IsRegular() && (w.named[path] || w.opts.Match(filepath.Base(path))):
		w.found(path, false)
	}
}

// loop waits for events and timers until ctx is done or emit fails.
func (w *watcher) loop() error {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	var tick <-chan time.Time
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for w.err == nil {
		if ticker == nil && (w.opts.Poll > 0 || w.polling) {
			ticker = time.NewTicker(cmp.Or(w.opts.Poll, time.Second))
			tick = ticker.C
		}
		now := time.Now()
		w.due(now)
		if w.err != nil {
			break
		}
		wake, ok := w.next()
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		var timerC <-chan time.Time
		if ok {
			timer.Reset(max(time.Until(wake), 0))
			timerC = timer.C
		}
		select {
		case <-w.ctx.Done():
			w.finish("interrupted")
			if w.err != nil {
				return w.err
			}
			return context.Cause(w.ctx)
		case ev, open := <-events:
			if !open {
				events = nil
				continue
			}
			w.event(ev, time.Now())
			// Take the events already queued before reading: a turn's
			// lines come in a burst.
			for drained := false; !drained; {
				select {
				case ev := <-events:
					w.event(ev, time.Now())
				default:
					drained = true
				}
			}
		case err, open := <-errs:
			if !open {
				errs = nil
				continue
			}
			// Events were lost (a queue overflow): look at everything.
			w.emit(Event{Kind: Problem, Reason: "file system events: " + err.Error() + "; rescanning"})
			w.rescan(time.Now())
		case <-tick:
			w.rescan(time.Now())
		case <-timerC:
		}
	}
	return w.err
}

// rescan stats every session and looks for new ones.
func (w *watcher) rescan(now time.Time) {
	for _, key := range sortedKeys(w.sessions) {
		if s := w.sessions[key]; s != nil {
			w.stat(s, now)
		}
	}
	w.scan(false)
}

// due reads the changed sessions whose time has come, reports settled
// firings and ends idle sessions.
func (w *watcher) due(now time.Time) {
	for _, key := range sortedKeys(w.sessions) {
		s := w.sessions[key]
		if s == nil || w.err != nil {
			continue
		}
		if s.dirty && !now.Before(s.nextRead) {
			w.update(s, now, false)
		}
		if w.sessions[key] == nil {
			continue // deleted
		}
		if !s.settleAt.IsZero() && !now.Before(s.settleAt) && !s.dirty {
			s.settleAt = time.Time{}
			for _, k := range sortedKeys(s.eps) {
				s.eps[k].settle(s, w)
			}
		}
		if w.opts.Idle > 0 && !s.idle && !s.lastChange.IsZero() && now.Sub(s.lastChange) >= w.opts.Idle && !s.dirty {
			if s.skipped {
				w.update(s, now, true) // what was left unread, before the summary
			}
			s.idle = true
			w.close(s, "idle for "+w.opts.Idle.String())
		}
	}
}

// next is when due has something to do next; ok false: nothing but
// events.
func (w *watcher) next() (wake time.Time, ok bool) {
	take := func(t time.Time) {
		if !t.IsZero() && (!ok || t.Before(wake)) {
			wake, ok = t, true
		}
	}
	for _, s := range w.sessions {
		if s.dirty {
			t := s.nextRead
			if t.IsZero() {
				t = time.Now()
			}
			take(t)
		}
		take(s.settleAt)
		if w.opts.Idle > 0 && !s.idle && !s.lastChange.IsZero() {
			take(s.lastChange.Add(w.opts.Idle))
		}
	}
	return wake, ok
}

// finish ends every open episode (an interruption).
func (w *watcher) finish(reason string) {
	for _, key := range sortedKeys(w.sessions) {
		s := w.sessions[key]
		if (s.dirty || s.skipped) && w.ctx.Err() == nil {
			w.update(s, time.Now(), true)
		}
		w.close(s, reason)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
