// Package check is `loopbreak check`: a reviewed baseline file holding, per
// episode, the hash of its log and the outcome the rules gave it, so CI can
// show which episodes change outcome when a rule or threshold changes;
// its comparison with a corpus (drift); and policy gates. Run is the one
// entry point; report words the result.
package check

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// BaselineVersion is the schema version of the baseline file.
const BaselineVersion = 1

// DefaultBaseline is the baseline file check uses without --baseline.
const DefaultBaseline = "loopbreak.baseline.json"

// Baseline is the content of a baseline file. Encode writes it in its one
// canonical form: keys in a fixed order, episodes sorted, no timestamps and
// no absolute paths, so the same corpus and configuration give the same
// bytes on every machine.
type Baseline struct {
	SchemaVersion int `json:"schema_version"`
	// Config is every configuration key with the value the baseline was
	// made with (int, float64 or bool; float64 for numbers read back).
	Config   map[string]any `json:"config"`
	Episodes []Entry        `json:"episodes"`
}

// Entry is one episode's entry: where its log is, what the log
// held, and the outcome fields of analyze.
type Entry struct {
	EpisodeID string `json:"episode_id"`
	// Source is the log's path relative to the baseline file's directory,
	// slash-separated ("-" for standard input).
	Source string `json:"source"`
	// LogHash is "sha256:<hex>" of the log file's bytes as stored (before
	// any gzip decoding). Episodes read from one file share it.
	LogHash          string         `json:"log_hash"`
	RecordedTurns    int            `json:"recorded_turns"`
	FinalScore       float64        `json:"final_score"`
	TerminationTurn  *int           `json:"termination_turn"` // null: never terminated
	Checkpoints      []int          `json:"checkpoints"`
	TurnsSaved       int            `json:"turns_saved"`
	LLMCallsSaved    int            `json:"llm_calls_saved"`
	LLMCallsMethod   string         `json:"llm_calls_method"`
	ScoreForfeited   float64        `json:"score_forfeited"`
	FalseTermination bool           `json:"false_termination"`
	Censored         bool           `json:"censored"`
	WouldReject      int            `json:"would_reject"`
	LowConfidence    int            `json:"low_confidence"`
	FiringCounts     map[string]int `json:"firing_counts"` // every registered rule/kind, 0 included
}

// NewBaseline starts a baseline for cfg.
func NewBaseline(cfg *rules.Config) *Baseline {
	return &Baseline{SchemaVersion: BaselineVersion, Config: cfg.Map(), Episodes: []Entry{}}
}

// NewEntry is the baseline form of an outcome.
func NewEntry(o *analyze.Outcome, source, hash string) Entry {
	e := Entry{
		// An id taken from a directory name may not be UTF-8; stored as
		// JSON reads it back, so it matches the next run's.
		EpisodeID:        strings.ToValidUTF8(o.EpisodeID, "\uFFFD"),
		Source:           source,
		LogHash:          hash,
		RecordedTurns:    o.RecordedTurns,
		FinalScore:       finite(o.FinalScore),
		Checkpoints:      make([]int, len(o.Checkpoints)),
		TurnsSaved:       o.TurnsSaved,
		LLMCallsSaved:    o.LLMCallsSaved,
		LLMCallsMethod:   o.LLMCallsMethod,
		ScoreForfeited:   finite(o.ScoreForfeited), // huge scores overflow a difference
		FalseTermination: o.FalseTermination,
		Censored:         o.Censored,
		WouldReject:      o.WouldReject,
		LowConfidence:    o.LowConfidence,
		FiringCounts:     map[string]int{},
	}
	if o.Termination != nil {
		t := o.Termination.Turn
		e.TerminationTurn = &t
	}
	for i, c := range o.Checkpoints {
		e.Checkpoints[i] = c.Turn
	}
	// Every registered kind, so a firing appearing or vanishing is a
	// changed number in review rather than a line added or removed.
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			e.FiringCounts[r.Name+"/"+k.Name] = 0
		}
	}
	for k, n := range o.Counts {
		e.FiringCounts[k] = n
	}
	return e
}

// Sort puts episodes in their canonical order: by episode id, then source.
func (b *Baseline) Sort() {
	sort.SliceStable(b.Episodes, func(i, j int) bool { return lessEpisode(&b.Episodes[i], &b.Episodes[j]) })
}

func lessEpisode(a, b *Entry) bool {
	if a.EpisodeID != b.EpisodeID {
		return a.EpisodeID < b.EpisodeID
	}
	return a.Source < b.Source
}

// Encode writes the canonical form: two-space indentation, one block per
// episode, config and firing counts sorted by key, check points on one
// line, a final newline. Episodes are encoded in their current order;
// call Sort first.
func (b *Baseline) Encode() []byte {
	var w bytes.Buffer
	b.encodeHead(&w)
	for i := range b.Episodes {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		b.Episodes[i].encode(&w, "    ")
	}
	if len(b.Episodes) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString(encodeTail)
	return w.Bytes()
}

// encodeHead writes what comes before the episodes; encodeTail follows
// them.
func (b *Baseline) encodeHead(w *bytes.Buffer) {
	w.WriteString("{\n")
	fmt.Fprintf(w, "  \"schema_version\": %d,\n", b.SchemaVersion)
	w.WriteString("  \"config\": ")
	writeObject(w, "  ", slices.Sorted(maps.Keys(b.Config)), func(k string) string { return lit(b.Config[k]) })
	w.WriteString(",\n  \"episodes\": [")
}

const encodeTail = "]\n}\n"

func (e *Entry) encode(w *bytes.Buffer, ind string) {
	// Appended directly (a million entries are written, and compared
	// before that): the bytes fmt and encoding/json wrote.
	b := w.AvailableBuffer()
	b = append(b, "{\n"...)
	field := func(name string) {
		b = append(b, ind...)
		b = append(b, "  \""...)
		b = append(b, name...)
		b = append(b, "\": "...)
	}
	end := func() { b = append(b, ",\n"...) }
	field("episode_id")
	b = appendLitString(b, e.EpisodeID)
	end()
	field("source")
	b = appendLitString(b, e.Source)
	end()
	field("log_hash")
	b = appendLitString(b, e.LogHash)
	end()
	field("recorded_turns")
	b = strconv.AppendInt(b, int64(e.RecordedTurns), 10)
	end()
	field("final_score")
	b = appendLitFloat(b, e.FinalScore)
	end()
	field("termination_turn")
	if e.TerminationTurn != nil {
		b = strconv.AppendInt(b, int64(*e.TerminationTurn), 10)
	} else {
		b = append(b, "null"...)
	}
	end()
	field("checkpoints")
	b = append(b, '[')
	for i, c := range e.Checkpoints {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(c), 10)
	}
	b = append(b, ']')
	end()
	field("turns_saved")
	b = strconv.AppendInt(b, int64(e.TurnsSaved), 10)
	end()
	field("llm_calls_saved")
	b = strconv.AppendInt(b, int64(e.LLMCallsSaved), 10)
	end()
	field("llm_calls_method")
	b = appendLitString(b, e.LLMCallsMethod)
	end()
	field("score_forfeited")
	b = appendLitFloat(b, e.ScoreForfeited)
	end()
	field("false_termination")
	b = strconv.AppendBool(b, e.FalseTermination)
	end()
	field("censored")
	b = strconv.AppendBool(b, e.Censored)
	end()
	field("would_reject")
	b = strconv.AppendInt(b, int64(e.WouldReject), 10)
	end()
	field("low_confidence")
	b = strconv.AppendInt(b, int64(e.LowConfidence), 10)
	end()
	field("firing_counts")
	if len(e.FiringCounts) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(e.FiringCounts)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			b = append(b, ind...)
			b = append(b, "    "...)
			b = appendLitString(b, k)
			b = append(b, ": "...)
			b = strconv.AppendInt(b, int64(e.FiringCounts[k]), 10)
		}
		b = append(b, '\n')
		b = append(b, ind...)
		b = append(b, "  }"...)
	}
	b = append(b, '\n')
	b = append(b, ind...)
	b = append(b, '}')
	w.Write(b)
}

// appendLitString appends lit(s): a string of printable ASCII other than
// a quote or backslash as it is, any other through encoding/json.
func appendLitString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return append(b, lit(s)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendLitFloat appends lit(f): where encoding/json writes a float64
// without an exponent (0, or 1e-6 <= |f| < 1e21), strconv's shortest
// form is its form.
func appendLitFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	return append(b, lit(f)...)
}

func writeObject(w *bytes.Buffer, ind string, keys []string, val func(string) string) {
	if len(keys) == 0 {
		w.WriteString("{}")
		return
	}
	w.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "\n%s  %s: %s", ind, lit(k), val(k))
	}
	fmt.Fprintf(w, "\n%s}", ind)
}

func finite(x float64) float64 {
	v, _ := analyze.Finite(x)
	return v
}

// lit is the JSON literal of a scalar, without HTML escaping. A
// non-finite float is clamped (never "null": a null would read back as
// 0 and show as drift on every later check).
func lit(v any) string {
	if f, ok := v.(float64); ok {
		v = finite(f)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null" // not a scalar: never produced
	}
	return strings.TrimSuffix(b.String(), "\n")
}

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

// ReadBaseline reads a baseline file; a missing file is an error wrapping
// fs.ErrNotExist. The file is decoded an entry at a time, and what the
// entries repeat (sources, hashes, firing counts) is stored once.
func ReadBaseline(file string) (*Baseline, error) {
	in := newInterner()
	var eps []Entry
	b, err := readBaseline(file, func(e *Entry) {
		in.entry(e)
		eps = append(eps, *e)
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
// compares with it.
func readStore(file string) (*baseStore, error) {
	var s *baseStore
	b, err := readBaseline(file, func(e *Entry) {
		if s == nil {
			s = newBaseStore(nil)
		}
		s.add(e)
	})
	switch {
	case err != nil:
		return nil, err
	case b.Episodes != nil: // read whole
		return storeOf(b), nil
	case s == nil:
		s = newBaseStore(nil)
	}
	s.Config = b.Config
	s.done()
	return s, nil
}

// readBaseline reads a baseline file, handing add each entry, checked,
// as it is decoded; it returns the rest (no Episodes). A file that is not
// a baseline decoded in one pass (bad JSON, a wrong type, an odd shape)
// is read whole by encoding/json, for its error as it always was, or,
// if it reads after all, returned whole with its Episodes.
func readBaseline(file string, add func(*Entry)) (*Baseline, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	var entryErr error
	n := 0
	b, ok := decodeBaseline(bufio.NewReaderSize(f, 256<<10), func(e *Entry) {
		if entryErr == nil {
			if entryErr = checkEntry(n, e); entryErr == nil {
				add(e)
			}
		}
		n++
	})
	f.Close()
	if !ok {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if b, err = ParseBaseline(data); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if b.Episodes == nil {
			b.Episodes = []Entry{}
		}
		return b, nil
	}
	if err := b.checkHead(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if entryErr != nil {
		return nil, fmt.Errorf("%s: %w", file, entryErr)
	}
	return b, nil
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

// TempPattern names the temporary files WriteBaseline writes next to the
// baseline before renaming one into place.
const TempPattern = ".loopbreak-baseline-*"

// ReadOnlyError is returned by WriteBaseline for a baseline file without
// write permission: someone made it read-only on purpose.
type ReadOnlyError struct{ File string }

func (e *ReadOnlyError) Error() string {
	return e.File + " is read-only: not overwriting it (make it writable to update it)"
}

// WriteBaseline writes b's canonical bytes to file, through a temporary
// file renamed into place, creating the directory if needed. It returns
// false, writing nothing, when the file already holds exactly these bytes.
// A rewrite keeps the file's mode; a read-only file is refused. When ctx
// is done before the rename, the temporary file is removed and the old
// baseline stays.
func WriteBaseline(ctx context.Context, file string, b *Baseline) (bool, error) {
	data := b.Encode()
	return writeBaseline(ctx, file, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeBaseline is WriteBaseline of the bytes write writes, called once
// to compare them with the file's (streaming: neither is held), then, if
// they differ, once more into the temporary file.
func writeBaseline(ctx context.Context, file string, write func(io.Writer) error) (bool, error) {
	if same, err := sameAsFile(file, write); err != nil {
		return false, err
	} else if same {
		return false, nil // up to date, read-only or not
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(file); err == nil {
		if st.Mode().Perm()&0o200 == 0 {
			return false, &ReadOnlyError{file}
		}
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, TempPattern)
	if err != nil {
		return false, err
	}
	bw := bufio.NewWriterSize(tmp, 256<<10)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil {
		werr = tmp.Sync() // the rename must not publish unwritten bytes
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), mode)
	}
	if werr == nil && ctx.Err() != nil {
		werr = interrupted(ctx)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), file)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return false, werr
	}
	return true, nil
}

// errDiffers stops a comparison at the first byte that differs.
var errDiffers = errors.New("differs")

// sameAsFile says whether file holds exactly the bytes write writes; a
// file that cannot be read is not the same. Only write's own errors are
// returned.
func sameAsFile(file string, write func(io.Writer) error) (bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	c := &compareWriter{r: bufio.NewReaderSize(f, 64<<10)}
	switch err := write(c); {
	case errors.Is(err, errDiffers) || c.differs:
		return false, nil
	case err != nil:
		return false, err
	}
	_, err = c.r.ReadByte() // the file must end here too
	return err == io.EOF, nil
}

// compareWriter compares what is written with what r reads.
type compareWriter struct {
	r       *bufio.Reader
	buf     []byte
	differs bool
}

func (c *compareWriter) Write(p []byte) (int, error) {
	if c.differs {
		return 0, errDiffers
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	b := c.buf[:len(p)]
	if _, err := io.ReadFull(c.r, b); err != nil || !bytes.Equal(b, p) {
		c.differs = true
		return 0, errDiffers
	}
	return len(p), nil
}

// removeStaleTemps removes temporary baselines older than age left in
// dir by a writer killed before it could clean up (kill -9, a crash).
// With the directory's lock held no live writer owns one, and age is 0.
func removeStaleTemps(dir string, age time.Duration) {
	removeStaleTempsIn(dir, TempPattern, age)
}

// removeStaleTempsIn removes the files of pattern in dir older than age.
func removeStaleTempsIn(dir, pattern string, age time.Duration) {
	olds, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, f := range olds {
		if st, err := os.Stat(f); err == nil && time.Since(st.ModTime()) >= age {
			os.Remove(f)
		}
	}
}

// HashFile returns "sha256:<hex>" of a file's bytes as stored.
func HashFile(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// HashBytes returns "sha256:<hex>" of data.
func HashBytes(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

// SourceOf is how a baseline names a log file: its path relative to
// the baseline file's directory, slash-separated, so the baseline reads the
// same on every machine and from any working directory.
func SourceOf(baselineFile, logFile string) string {
	if logFile == "-" {
		return "-"
	}
	dir, err1 := filepath.Abs(filepath.Dir(baselineFile))
	abs, err2 := filepath.Abs(logFile)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(dir, abs); err == nil {
			return escapeSource(filepath.ToSlash(rel))
		}
	}
	// Another volume (Windows): no relative path exists.
	return escapeSource(filepath.ToSlash(filepath.Clean(logFile)))
}

// escapeSource makes a path a JSON string that reads back to the same
// bytes: JSON strings are UTF-8, and encoding/json would replace each
// invalid byte with U+FFFD, so such a path would never match its log
// again. '%' becomes %25 and each byte that is not part of valid UTF-8
// becomes %XX; every other path is stored as it is.
func escapeSource(p string) string {
	if utf8.ValidString(p) && !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && n <= 1, p[i] == '%':
			fmt.Fprintf(&b, "%%%02X", p[i])
			i++
		default:
			b.WriteString(p[i : i+n])
			i += n
		}
	}
	return b.String()
}

// unescapeSource reverses escapeSource; a '%' not followed by two hex
// digits is kept (a baseline written before sources were escaped).
func unescapeSource(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// SourcePath turns a baseline source back into a path usable from the
// working directory (the baseline's directory joined with the source).
func SourcePath(baselineFile, source string) string {
	if source == "-" {
		return source
	}
	p := filepath.FromSlash(unescapeSource(source))
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(baselineFile), p)
}
