package check

// A baseline held compactly while a check compares with it: each entry a
// record of a few dozen bytes, decoded when a comparison needs it.

import (
	"bytes"
	"encoding/binary"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"unsafe"
)

// baseStore holds a baseline's entries as records in blocks of a MiB:
// the id, then numbers as varints; what entries repeat (sources, log
// hashes, LLM call methods, sets of firing counts) is numbered in tables.
// A million entries cost about 50 MB, where []Entry cost 200 MB and
// encoding/json's decoding of the file several times that. Entries are
// found by (id, source) by binary search.
type baseStore struct {
	Config map[string]any

	blocks [][]byte
	at     []uint64 // record j: block index << 32 | offset in it
	order  []int32  // record numbers by (id, source); nil when the records are in that order
	last   struct {
		id     []byte
		source uint64
		sorted bool
	}

	strs     map[string]uint64
	strNames []string
	sets     map[string]uint64
	setMaps  []map[string]int
	setOf    map[unsafe.Pointer]uint64 // a map of setMaps → its number
	key      []byte
	rec      []byte
}

const storeBlock = 1 << 20

func newBaseStore(config map[string]any) *baseStore {
	s := &baseStore{Config: config, strs: map[string]uint64{}, sets: map[string]uint64{}, setOf: map[unsafe.Pointer]uint64{}}
	s.last.sorted = true
	return s
}

// storeOf holds b's entries.
func storeOf(b *Baseline) *baseStore {
	s := newBaseStore(b.Config)
	for i := range b.Episodes {
		s.add(&b.Episodes[i])
	}
	s.done()
	return s
}

func (s *baseStore) str(v string) uint64 {
	n, ok := s.strs[v]
	if !ok {
		n = uint64(len(s.strNames))
		s.strs[v] = n
		s.strNames = append(s.strNames, v)
	}
	return n
}

// counts numbers a set of firing counts; the sets are shared, read only.
// A map already numbered (decodeCanonical hands one map to every entry
// of the same counts) is known by its identity, without sorting its
// keys again; only maps the store keeps are known so (a map dropped could
// have its address reused).
func (s *baseStore) counts(m map[string]int) uint64 {
	p := reflect.ValueOf(m).UnsafePointer()
	if n, ok := s.setOf[p]; ok && p != nil {
		return n
	}
	s.key = s.key[:0]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s.key = appendString(s.key, k)
		s.key = binary.AppendVarint(s.key, int64(m[k]))
	}
	n, ok := s.sets[string(s.key)]
	if !ok {
		n = uint64(len(s.setMaps))
		s.sets[string(s.key)] = n
		if m == nil {
			m = map[string]int{}
		} else {
			s.setOf[p] = n
		}
		s.setMaps = append(s.setMaps, m)
	}
	return n
}

// add stores e (its strings and counts may be shared with later entries).
func (s *baseStore) add(e *Entry) {
	b := appendString(s.rec[:0], e.EpisodeID)
	source := s.str(e.Source)
	b = binary.AppendUvarint(b, source)
	b = binary.AppendUvarint(b, s.str(e.LogHash))
	b = appendFigures(b, e, func(b []byte, v string) []byte { return binary.AppendUvarint(b, s.str(v)) })
	b = binary.AppendUvarint(b, s.counts(e.FiringCounts))
	s.rec = b

	if len(s.blocks) == 0 || cap(s.blocks[len(s.blocks)-1])-len(s.blocks[len(s.blocks)-1]) < len(b) {
		s.blocks = append(s.blocks, make([]byte, 0, max(storeBlock, len(b))))
	}
	k := len(s.blocks) - 1
	s.at = append(s.at, uint64(k)<<32|uint64(len(s.blocks[k])))
	s.blocks[k] = append(s.blocks[k], b...)

	// Still in canonical order? (A baseline loopbreak wrote is.)
	id := s.idBytes(len(s.at) - 1)
	if s.last.sorted && len(s.at) > 1 {
		switch c := compareBytes(s.last.id, id); {
		case c > 0:
			s.last.sorted = false
		case c == 0 && s.strNames[s.last.source] > e.Source:
			s.last.sorted = false
		}
	}
	s.last.id, s.last.source = id, source
}

// done ends the adding: the index by (id, source) if the records are
// not in that order.
func (s *baseStore) done() {
	if s.last.sorted {
		return
	}
	s.order = make([]int32, len(s.at))
	for i := range s.order {
		s.order[i] = int32(i)
	}
	sort.SliceStable(s.order, func(i, j int) bool { return s.less(int(s.order[i]), int(s.order[j])) })
}

func (s *baseStore) less(i, j int) bool {
	if c := compareBytes(s.idBytes(i), s.idBytes(j)); c != 0 {
		return c < 0
	}
	return s.source(i) < s.source(j)
}

func compareBytes(a, b []byte) int {
	switch sa, sb := string(a), string(b); {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return 0
}

// appendFigures appends an entry's outcome figures, from recorded_turns
// to low_confidence, as the store's records and the sorter's spilled
// records both hold them; str appends a string as the record keeps one.
func appendFigures(b []byte, e *Entry, str func(b []byte, s string) []byte) []byte {
	b = binary.AppendVarint(b, int64(e.RecordedTurns))
	b = appendFloat(b, e.FinalScore)
	if e.TerminationTurn == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendVarint(b, int64(*e.TerminationTurn))
	}
	b = binary.AppendUvarint(b, uint64(len(e.Checkpoints)))
	for _, c := range e.Checkpoints {
		b = binary.AppendVarint(b, int64(c))
	}
	b = binary.AppendVarint(b, int64(e.TurnsSaved))
	b = binary.AppendVarint(b, int64(e.LLMCallsSaved))
	b = str(b, e.LLMCallsMethod)
	b = appendFloat(b, e.ScoreForfeited)
	var flags byte
	if e.FalseTermination {
		flags |= 1
	}
	if e.Censored {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(e.WouldReject))
	return binary.AppendVarint(b, int64(e.LowConfidence))
}

func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// n is the number of entries.
func (s *baseStore) n() int {
	if s == nil {
		return 0
	}
	return len(s.at)
}

func (s *baseStore) record(j int) []byte {
	a := s.at[j]
	return s.blocks[a>>32][uint32(a):]
}

// idBytes is entry j's episode id, in the store (not to be kept).
func (s *baseStore) idBytes(j int) []byte {
	b := s.record(j)
	n, k := binary.Uvarint(b)
	return b[k : k+int(n)]
}

// id is entry j's episode id.
func (s *baseStore) id(j int) string { return string(s.idBytes(j)) }

// heads are entry j's source and log hash numbers, and the rest of its
// record.
func (s *baseStore) heads(j int) (source, hash uint64, rest []byte) {
	b := s.record(j)
	n, k := binary.Uvarint(b)
	b = b[k+int(n):]
	source, k = binary.Uvarint(b)
	b = b[k:]
	hash, k = binary.Uvarint(b)
	return source, hash, b[k:]
}

// source is entry j's source.
func (s *baseStore) source(j int) string {
	src, _, _ := s.heads(j)
	return s.strNames[src]
}

// hash is entry j's log hash.
func (s *baseStore) hash(j int) string {
	_, h, _ := s.heads(j)
	return s.strNames[h]
}

// entry decodes entry j; its firing counts are shared, not to be
// modified.
func (s *baseStore) entry(j int) *Entry {
	e := &Entry{EpisodeID: s.id(j)}
	s.decode(j, e)
	return e
}

// decode decodes entry j into e, but for its id.
func (s *baseStore) decode(j int, e *Entry) {
	src, h, rest := s.heads(j)
	d := decoder{b: rest}
	e.Source, e.LogHash = s.strNames[src], s.strNames[h]
	e.RecordedTurns = int(d.varint())
	e.FinalScore = d.float()
	e.TerminationTurn = nil
	if d.byte() == 1 {
		t := int(d.varint())
		e.TerminationTurn = &t
	}
	e.Checkpoints = make([]int, d.uvarint())
	for i := range e.Checkpoints {
		e.Checkpoints[i] = int(d.varint())
	}
	e.TurnsSaved = int(d.varint())
	e.LLMCallsSaved = int(d.varint())
	e.LLMCallsMethod = s.strNames[d.uvarint()]
	e.ScoreForfeited = d.float()
	flags := d.byte()
	e.FalseTermination, e.Censored = flags&1 != 0, flags&2 != 0
	e.WouldReject = int(d.varint())
	e.LowConfidence = int(d.varint())
	e.FiringCounts = s.setMaps[d.uvarint()]
}

// find is the entry of (id, source), -1 if none; of several, the last (as
// a map from keys filled in order would hold).
func (s *baseStore) find(id, source string) int {
	if s == nil {
		return -1
	}
	rec := func(k int) int {
		if s.order != nil {
			return int(s.order[k])
		}
		return k
	}
	// The first entry past the key, then one back.
	k := sort.Search(len(s.at), func(k int) bool {
		j := rec(k)
		if e := string(s.idBytes(j)); e != id {
			return e > id
		}
		return s.source(j) > source
	}) - 1
	if k < 0 {
		return -1
	}
	if j := rec(k); string(s.idBytes(j)) == id && s.source(j) == source {
		return j
	}
	return -1
}

// countID is the number of entries of an episode id.
func (s *baseStore) countID(id string) int {
	if s == nil {
		return 0
	}
	idAt := func(k int) string {
		if s.order != nil {
			k = int(s.order[k])
		}
		return string(s.idBytes(k))
	}
	lo := sort.Search(len(s.at), func(k int) bool { return idAt(k) >= id })
	hi := sort.Search(len(s.at), func(k int) bool { return idAt(k) > id })
	return hi - lo
}

// countIDAt is the number of entries of entry j's episode id: with the
// records in canonical order they are j's neighbours, counted without a
// search.
func (s *baseStore) countIDAt(j int) int {
	if s.order != nil {
		return s.countID(s.id(j))
	}
	id := s.idBytes(j)
	lo, hi := j, j+1
	for lo > 0 && bytes.Equal(s.idBytes(lo-1), id) {
		lo--
	}
	for hi < len(s.at) && bytes.Equal(s.idBytes(hi), id) {
		hi++
	}
	return hi - lo
}
