package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
)

// ParseBaseline reads a baseline document and checks its shape.
func ParseBaseline(data []byte) (*Baseline, error) {
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		return nil, err
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	return &b, nil
}

// check checks a decoded baseline's shape, filling in empty maps.
func (b *Baseline) check() error {
	if err := b.checkHead(); err != nil {
		return err
	}
	for i := range b.Episodes {
		if err := checkEntry(i, &b.Episodes[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkHead checks the schema version, filling in an empty config.
func (b *Baseline) checkHead() error {
	switch {
	case b.SchemaVersion == 0:
		return errors.New("no schema_version: not a loopbreak baseline")
	case b.SchemaVersion < 0:
		return fmt.Errorf("schema_version %d: want %d", b.SchemaVersion, BaselineVersion)
	case b.SchemaVersion > BaselineVersion:
		return fmt.Errorf("schema_version %d is newer than this loopbreak understands (%d); upgrade loopbreak", b.SchemaVersion, BaselineVersion)
	}
	if b.Config == nil {
		b.Config = map[string]any{}
	}
	return nil
}

// checkEntry checks entry i (from 0), filling in empty firing counts.
func checkEntry(i int, e *Entry) error {
	switch {
	case e.EpisodeID == "":
		return fmt.Errorf("episode %d: no episode_id", i+1)
	case e.Source == "":
		return fmt.Errorf("episode %s: no source", e.EpisodeID)
	case !strings.HasPrefix(e.LogHash, "sha256:"):
		return fmt.Errorf("episode %s: log_hash %q is not sha256:<hex>", e.EpisodeID, e.LogHash)
	}
	if e.FiringCounts == nil {
		e.FiringCounts = map[string]int{}
	}
	return nil
}

// CheckEntry checks an entry read from elsewhere than a baseline (a
// partial file): as a baseline's, and no count negative.
func CheckEntry(i int, e *Entry) error {
	if err := checkEntry(i, e); err != nil {
		return err
	}
	if err := analyze.NonNegative(e); err != nil {
		return fmt.Errorf("episode %s: %v", e.EpisodeID, err)
	}
	return nil
}

// ReadBaseline reads a baseline file; a missing file is an error wrapping
// fs.ErrNotExist. The file is decoded an entry at a time, and what the
// entries repeat (sources, hashes, firing counts) is stored once.
func ReadBaseline(file string) (*Baseline, error) {
	var eps []Entry
	b, _, err := readBaseline(file, nil, func() func(*Entry) {
		in := newInterner()
		eps = nil
		return func(e *Entry) {
			in.entry(e)
			eps = append(eps, *e)
		}
	})
	if err != nil || b.Episodes != nil {
		return b, err // read whole
	}
	b.Episodes = eps
	if b.Episodes == nil {
		b.Episodes = []Entry{}
	}
	return b, nil
}

// readStore reads a baseline file into a compact store, as a check
// compares with it: only the entries in scope (sc nil: all), the others
// counted in out.
func readStore(file string, sc *scope) (st *baseStore, out int, err error) {
	var s *baseStore
	var want func(id, src []byte) bool
	if sc != nil {
		want = func(_, src []byte) bool { return sc.inBytes(src) }
	}
	b, out, err := readBaseline(file, want, func() func(*Entry) {
		s = nil
		return func(e *Entry) {
			if s == nil {
				s = newBaseStore(nil)
			}
			s.add(e)
		}
	})
	switch {
	case err != nil:
		return nil, 0, err
	case b.Episodes != nil: // read whole
		return storeOf(b), out, nil
	case s == nil:
		s = newBaseStore(nil)
	}
	s.Config = b.Config
	s.done()
	return s, out, nil
}

// readBaseline reads a baseline file, handing each entry, checked, as it
// is decoded to the function start returns; it returns the rest (no
// Episodes). Entries whose id and source want refuses (nil: none) are counted in
// skipped, not handed on (a canonical file's are not even decoded). A
// file in the canonical form (what loopbreak writes) is read by
// decodeCanonical; any other is read from its start again (start is
// called again for a fresh one) by encoding/json an entry at a time; and
// a file that is not a baseline decoded in one pass (bad JSON, a wrong
// type, an odd shape) is read whole by encoding/json, for its error as it
// always was, or, if it reads after all, returned whole with its
// Episodes (those want takes).
func readBaseline(file string, want func(id, source []byte) bool, start func() func(*Entry)) (b *Baseline, skipped int, err error) {
	var entryErr error
	n := 0
	skip := func() { n++; skipped++ }
	checked := func() func(*Entry) {
		add := start()
		entryErr, n, skipped = nil, 0, 0
		return func(e *Entry) {
			if want != nil && !want([]byte(e.EpisodeID), []byte(e.Source)) {
				skip()
				return
			}
			if entryErr == nil {
				if entryErr = checkEntry(n, e); entryErr == nil {
					add(e)
				}
			}
			n++
		}
	}
	decode := func(dec func(io.Reader, func(*Entry)) (*Baseline, bool)) (*Baseline, bool, error) {
		f, err := os.Open(file)
		if err != nil {
			return nil, false, err
		}
		defer f.Close()
		b, ok := dec(f, checked())
		return b, ok, nil
	}
	ok := false
	if st, err := os.Stat(file); err == nil && st.Mode().IsRegular() {
		// Read twice if need be; a pipe is read once, by encoding/json.
		if b, ok, err = decode(func(r io.Reader, add func(*Entry)) (*Baseline, bool) {
			return decodeCanonical(r, add, want, skip)
		}); err != nil {
			return nil, 0, err
		}
	}
	if !ok {
		b, ok, err = decode(func(r io.Reader, add func(*Entry)) (*Baseline, bool) {
			return decodeBaseline(bufio.NewReaderSize(r, 256<<10), add)
		})
		if err != nil {
			return nil, 0, err
		}
	}
	if !ok {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, 0, err
		}
		if b, err = ParseBaseline(data); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", file, err)
		}
		skipped = 0
		eps := []Entry{}
		for _, e := range b.Episodes {
			if want != nil && !want([]byte(e.EpisodeID), []byte(e.Source)) {
				skipped++
				continue
			}
			eps = append(eps, e)
		}
		b.Episodes = eps
		return b, skipped, nil
	}
	if err := b.checkHead(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", file, err)
	}
	if entryErr != nil {
		return nil, 0, fmt.Errorf("%s: %w", file, entryErr)
	}
	return b, skipped, nil
}

// decodeBaseline decodes a baseline document as json.Unmarshal would,
// holding one entry's text at a time and handing each entry to add; false
// for anything else (which Unmarshal then explains).
func decodeBaseline(r io.Reader, add func(*Entry)) (*Baseline, bool) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var b Baseline
	seen := false
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return nil, false
		}
		if strings.EqualFold(key, "episodes") {
			if seen {
				return nil, false // twice: as Unmarshal makes of it
			}
			seen = true
			t, err := dec.Token()
			switch {
			case err != nil:
				return nil, false
			case t == nil: // null
				continue
			case t != json.Delim('['):
				return nil, false
			}
			for dec.More() {
				var e Entry
				if err := dec.Decode(&e); err != nil {
					return nil, false
				}
				add(&e)
			}
			if t, err := dec.Token(); err != nil || t != json.Delim(']') {
				return nil, false
			}
			continue
		}
		// Any other key as Unmarshal takes it (case, duplicates, null).
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		k, _ := json.Marshal(key)
		doc := append(append(append(append([]byte("{"), k...), ':'), raw...), '}')
		if err := json.Unmarshal(doc, &b); err != nil || b.Episodes != nil {
			return nil, false
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // something after the document
	}
	return &b, true
}

// interner stores once the strings and firing counts entries repeat.
type interner struct {
	strs   map[string]string
	counts map[string]map[string]int
	key    []byte
}

// internMax bounds each table: values that are all different are kept
// per entry, as they came.
const internMax = 1 << 16

func newInterner() *interner {
	return &interner{strs: map[string]string{}, counts: map[string]map[string]int{}}
}

func (in *interner) str(s string) string {
	if v, ok := in.strs[s]; ok {
		return v
	}
	if len(in.strs) < internMax {
		in.strs[s] = s
	}
	return s
}

func (in *interner) entry(e *Entry) {
	e.Source, e.LogHash, e.LLMCallsMethod = in.str(e.Source), in.str(e.LogHash), in.str(e.LLMCallsMethod)
	if e.FiringCounts == nil {
		return
	}
	in.key = in.key[:0]
	for _, k := range slices.Sorted(maps.Keys(e.FiringCounts)) {
		in.key = strconv.AppendQuote(in.key, k)
		in.key = strconv.AppendInt(in.key, int64(e.FiringCounts[k]), 10)
	}
	if m, ok := in.counts[string(in.key)]; ok {
		e.FiringCounts = m
	} else if len(in.counts) < internMax {
		in.counts[string(in.key)] = e.FiringCounts
	}
}
