package replay

// The OpenHands on-disk event stores. V0's FileStore writes each event
// of a conversation to its own file, sessions/<sid>/events/<id>.json
// (users/<uid>/conversations/<sid>/events/<id>.json with a user;
// openhands/storage/locations.py get_conversation_event_filename,
// All-Hands-AI/OpenHands 156d068), each json.dumps(event_to_dict(event))
// on one line. The store is one session: its files are read as one log,
// in the numeric order of their ids (10.json after 9.json), one event a
// line, the episode named by <sid>. V1 (software-agent-sdk
// conversation/event_store.py) writes conversations/<id>/events/
// event-<idx>-<event id>.json, read the same way in idx order.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// eventStoreFiles returns the event files of dir in the numeric order of
// their ids, and whether dir is an event store: named events and holding
// at least one V0 <id>.json or V1 event-<idx>-<event id>.json
// (software-agent-sdk persistence_const.py EVENT_NAME_RE).
func eventStoreFiles(dir string) ([]string, bool) {
	if filepath.Base(dir) != "events" {
		return nil, false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	type file struct {
		id   int64
		name string
	}
	var files []file
	for _, e := range entries {
		if id, ok := eventFileID(e.Name()); ok && !e.IsDir() {
			files = append(files, file{id, e.Name()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].id < files[j].id })
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	return names, len(names) > 0
}

// eventFileID reads an event file's number: V0's <id>.json, V1's
// event-<idx>-<event id>.json (idx of 5 digits or more).
func eventFileID(name string) (int64, bool) {
	stem, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return 0, false
	}
	if rest, ok := strings.CutPrefix(stem, "event-"); ok {
		idx, id, ok := strings.Cut(rest, "-")
		if !ok || len(idx) < 5 || len(id) < 8 || strings.Trim(id, "0123456789abcdefABCDEF-") != "" {
			return 0, false
		}
		stem = idx
	}
	if stem == "" || strings.Trim(stem, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(stem, 10, 64)
	return n, err == nil
}

// IsEventStore says dir is an OpenHands event store, read as one log.
func IsEventStore(dir string) bool {
	_, ok := eventStoreFiles(dir)
	return ok
}

// storeReader reads an event store's files one after the other, each
// followed by a newline, opening one file at a time.
type storeReader struct {
	dir   string
	names []string
	cur   *os.File
	sep   bool // the newline after cur is due
}

func openEventStore(dir string) (*storeReader, error) {
	names, ok := eventStoreFiles(dir)
	if !ok {
		return nil, fmt.Errorf("%s: a directory, not an OpenHands event store (events/<id>.json or events/event-<idx>-<id>.json)", dir)
	}
	return &storeReader{dir: dir, names: names}, nil
}

func (s *storeReader) Read(p []byte) (int, error) {
	for {
		if s.sep {
			if len(p) == 0 {
				return 0, nil
			}
			p[0] = '\n'
			s.sep = false
			return 1, nil
		}
		if s.cur == nil {
			if len(s.names) == 0 {
				return 0, io.EOF
			}
			f, err := os.Open(filepath.Join(s.dir, s.names[0]))
			if err != nil {
				return 0, err
			}
			s.names, s.cur = s.names[1:], f
		}
		n, err := s.cur.Read(p)
		if errors.Is(err, io.EOF) {
			s.cur.Close()
			s.cur, s.sep = nil, true
			err = nil
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

func (s *storeReader) Close() error {
	if s.cur != nil {
		return s.cur.Close()
	}
	return nil
}
