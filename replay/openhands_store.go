package replay

// The OpenHands V0 on-disk event store: the FileStore writes each event
// of a conversation to its own file, sessions/<sid>/events/<id>.json
// (users/<uid>/conversations/<sid>/events/<id>.json with a user;
// openhands/storage/locations.py get_conversation_event_filename,
// All-Hands-AI/OpenHands 156d068), each json.dumps(event_to_dict(event))
// on one line. The store is one session: its files are read as one log,
// in the numeric order of their ids (10.json after 9.json), one event a
// line, the episode named by <sid>.

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

// eventStoreIDs returns the ids of dir's <id>.json files, in numeric
// order, and whether dir is an event store: named events and holding at
// least one such file.
func eventStoreIDs(dir string) ([]int64, bool) {
	if filepath.Base(dir) != "events" {
		return nil, false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var ids []int64
	for _, e := range entries {
		if id, ok := eventFileID(e.Name()); ok && !e.IsDir() {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, len(ids) > 0
}

// eventFileID reads <id>.json's id: digits only, as the store writes it.
func eventFileID(name string) (int64, bool) {
	stem, ok := strings.CutSuffix(name, ".json")
	if !ok || stem == "" || strings.Trim(stem, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseInt(stem, 10, 64)
	return id, err == nil
}

// IsEventStore says dir is an OpenHands V0 event store, read as one log.
func IsEventStore(dir string) bool {
	_, ok := eventStoreIDs(dir)
	return ok
}

// storeReader reads an event store's files one after the other, each
// followed by a newline, opening one file at a time.
type storeReader struct {
	dir string
	ids []int64
	cur *os.File
	sep bool // the newline after cur is due
}

func openEventStore(dir string) (*storeReader, error) {
	ids, ok := eventStoreIDs(dir)
	if !ok {
		return nil, fmt.Errorf("%s: a directory, not an OpenHands event store (events/<id>.json)", dir)
	}
	return &storeReader{dir: dir, ids: ids}, nil
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
			if len(s.ids) == 0 {
				return 0, io.EOF
			}
			f, err := os.Open(filepath.Join(s.dir, strconv.FormatInt(s.ids[0], 10)+".json"))
			if err != nil {
				return 0, err
			}
			s.ids, s.cur = s.ids[1:], f
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
