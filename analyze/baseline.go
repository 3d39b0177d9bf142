package analyze

// The baseline of `loopbreak check`: a reviewed JSON file holding, per
// episode, the hash of its log and the outcome the rules gave it, so CI can
// show which episodes change outcome when a rule or threshold changes.
// Also here: comparing two baselines (drift) and the policy gates.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

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
	Config   map[string]any    `json:"config"`
	Episodes []BaselineEpisode `json:"episodes"`
}

// BaselineEpisode is one episode's entry: where its log is, what the log
// held, and the outcome fields of analyze.
type BaselineEpisode struct {
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
	FiringCounts     map[string]int `json:"firing_counts"` // every registered rule/kind, 0 included
}

// NewBaseline starts a baseline for cfg.
func NewBaseline(cfg *rules.Config) *Baseline {
	return &Baseline{SchemaVersion: BaselineVersion, Config: cfg.Map(), Episodes: []BaselineEpisode{}}
}

// BaselineEntry is the baseline form of an outcome.
func BaselineEntry(o *Outcome, source, hash string) BaselineEpisode {
	e := BaselineEpisode{
		EpisodeID:        o.EpisodeID,
		Source:           source,
		LogHash:          hash,
		RecordedTurns:    o.RecordedTurns,
		FinalScore:       o.FinalScore,
		Checkpoints:      make([]int, len(o.Checkpoints)),
		TurnsSaved:       o.TurnsSaved,
		LLMCallsSaved:    o.LLMCallsSaved,
		LLMCallsMethod:   o.LLMCallsMethod,
		ScoreForfeited:   o.ScoreForfeited,
		FalseTermination: o.FalseTermination,
		Censored:         o.Censored,
		WouldReject:      o.WouldReject,
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

func lessEpisode(a, b *BaselineEpisode) bool {
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
	w.WriteString("{\n")
	fmt.Fprintf(&w, "  \"schema_version\": %d,\n", b.SchemaVersion)
	w.WriteString("  \"config\": ")
	writeObject(&w, "  ", slices.Sorted(maps.Keys(b.Config)), func(k string) string { return lit(b.Config[k]) })
	w.WriteString(",\n  \"episodes\": [")
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
	w.WriteString("]\n}\n")
	return w.Bytes()
}

func (e *BaselineEpisode) encode(w *bytes.Buffer, ind string) {
	term := "null"
	if e.TerminationTurn != nil {
		term = strconv.Itoa(*e.TerminationTurn)
	}
	cps := make([]string, len(e.Checkpoints))
	for i, c := range e.Checkpoints {
		cps[i] = strconv.Itoa(c)
	}
	fields := [][2]string{
		{"episode_id", lit(e.EpisodeID)},
		{"source", lit(e.Source)},
		{"log_hash", lit(e.LogHash)},
		{"recorded_turns", strconv.Itoa(e.RecordedTurns)},
		{"final_score", lit(e.FinalScore)},
		{"termination_turn", term},
		{"checkpoints", "[" + strings.Join(cps, ", ") + "]"},
		{"turns_saved", strconv.Itoa(e.TurnsSaved)},
		{"llm_calls_saved", strconv.Itoa(e.LLMCallsSaved)},
		{"llm_calls_method", lit(e.LLMCallsMethod)},
		{"score_forfeited", lit(e.ScoreForfeited)},
		{"false_termination", strconv.FormatBool(e.FalseTermination)},
		{"censored", strconv.FormatBool(e.Censored)},
		{"would_reject", strconv.Itoa(e.WouldReject)},
	}
	w.WriteString("{\n")
	for _, f := range fields {
		fmt.Fprintf(w, "%s  %q: %s,\n", ind, f[0], f[1])
	}
	fmt.Fprintf(w, "%s  \"firing_counts\": ", ind)
	writeObject(w, ind+"  ", slices.Sorted(maps.Keys(e.FiringCounts)), func(k string) string { return strconv.Itoa(e.FiringCounts[k]) })
	fmt.Fprintf(w, "\n%s}", ind)
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

// lit is the JSON literal of a scalar, without HTML escaping.
func lit(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null" // NaN or Inf: never produced by the rules
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
	switch {
	case b.SchemaVersion == 0:
		return nil, errors.New("no schema_version: not a loopbreak baseline")
	case b.SchemaVersion > BaselineVersion:
		return nil, fmt.Errorf("schema_version %d is newer than this loopbreak understands (%d); upgrade loopbreak", b.SchemaVersion, BaselineVersion)
	}
	if b.Config == nil {
		b.Config = map[string]any{}
	}
	for i := range b.Episodes {
		e := &b.Episodes[i]
		switch {
		case e.EpisodeID == "":
			return nil, fmt.Errorf("episode %d: no episode_id", i+1)
		case e.Source == "":
			return nil, fmt.Errorf("episode %s: no source", e.EpisodeID)
		case !strings.HasPrefix(e.LogHash, "sha256:"):
			return nil, fmt.Errorf("episode %s: log_hash %q is not sha256:<hex>", e.EpisodeID, e.LogHash)
		}
		if e.FiringCounts == nil {
			e.FiringCounts = map[string]int{}
		}
	}
	return &b, nil
}

// ReadBaseline reads a baseline file; a missing file is an error wrapping
// fs.ErrNotExist.
func ReadBaseline(file string) (*Baseline, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	b, err := ParseBaseline(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return b, nil
}

// WriteBaseline writes b's canonical bytes to file, through a temporary
// file renamed into place, creating the directory if needed. It returns
// false, writing nothing, when the file already holds exactly these bytes.
func WriteBaseline(file string, b *Baseline) (bool, error) {
	data := b.Encode()
	if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, ".loopbreak-baseline-*")
	if err != nil {
		return false, err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
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

// BaselineSource is how a baseline names a log file: its path relative to
// the baseline file's directory, slash-separated, so the baseline reads the
// same on every machine and from any working directory.
func BaselineSource(baselineFile, logFile string) string {
	if logFile == "-" {
		return "-"
	}
	dir, err1 := filepath.Abs(filepath.Dir(baselineFile))
	abs, err2 := filepath.Abs(logFile)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(dir, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	// Another volume (Windows): no relative path exists.
	return filepath.ToSlash(filepath.Clean(logFile))
}

// SourcePath turns a baseline source back into a path usable from the
// working directory (the baseline's directory joined with the source).
func SourcePath(baselineFile, source string) string {
	if source == "-" {
		return source
	}
	p := filepath.FromSlash(source)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(baselineFile), p)
}

// Episode statuses in a comparison.
const (
	StatusUnchanged = "unchanged"
	StatusChanged   = "changed"
	StatusNew       = "new"       // not in the baseline
	StatusMissing   = "missing"   // in the baseline, not among the inputs (or unreadable)
	StatusUnchecked = "unchecked" // no baseline to compare with
)

// Drift is one difference between the baseline and the current outcome of
// an episode.
type Drift struct {
	// Field is the baseline field that differs ("firing_counts/<rule>/<kind>"
	// for a count), or "episode" for a new or missing episode.
	Field    string `json:"field"`
	Baseline string `json:"baseline"` // as written in the baseline; "" when absent
	Current  string `json:"current"`  // as it would be written now; "" when absent
	Message  string `json:"message"`  // in words, without the episode's name
}

// EpisodeCheck is one episode of a comparison.
type EpisodeCheck struct {
	EpisodeID string
	Source    string // the current source, else the baseline's
	// Label names the episode in messages: its id, with the source when
	// several episodes share the id.
	Label    string
	Status   string
	Drift    []Drift
	Baseline *BaselineEpisode // nil for a new episode
	Current  *BaselineEpisode // nil for a missing episode
}

// Lines are the episode's drift lines, "<label>: <message>".
func (e *EpisodeCheck) Lines() []string {
	out := make([]string, len(e.Drift))
	for i, d := range e.Drift {
		out[i] = e.Label + ": " + d.Message
	}
	return out
}

// ConfigChange is a configuration key whose value differs from the
// baseline's.
type ConfigChange struct {
	Key      string `json:"key"`
	Baseline string `json:"baseline"` // JSON literal; "" when the baseline lacks the key
	Current  string `json:"current"`  // "" when the key no longer exists
}

func (c ConfigChange) String() string {
	was, now := c.Baseline, c.Current
	if was == "" {
		was = "(not in the baseline)"
	}
	if now == "" {
		now = "(no such key now)"
	}
	return c.Key + " " + was + " → " + now
}

// Comparison is the result of comparing a corpus with its baseline.
type Comparison struct {
	Episodes []EpisodeCheck // in canonical order (episode id, then source)
	Config   []ConfigChange // sorted by key
}

// Compare matches the episodes of cur with those of base and lists every
// difference. Episodes match on episode id and source; an id left over on
// both sides exactly once is the same episode whose log moved. base nil
// means there is nothing to compare with (every episode is unchecked).
// unreadable maps the sources of files that could not be read to why, to
// explain missing episodes.
func Compare(base, cur *Baseline, unreadable map[string]string) *Comparison {
	c := &Comparison{}
	if base == nil {
		for i := range cur.Episodes {
			e := &cur.Episodes[i]
			c.Episodes = append(c.Episodes, EpisodeCheck{EpisodeID: e.EpisodeID, Source: e.Source, Status: StatusUnchecked, Current: e})
		}
		labelEpisodes(c.Episodes)
		return c
	}
	c.Config = CompareConfig(base.Config, cur.Config)

	type key struct{ id, source string }
	baseAt := map[key]int{}
	for i := range base.Episodes {
		baseAt[key{base.Episodes[i].EpisodeID, base.Episodes[i].Source}] = i
	}
	usedBase := make([]bool, len(base.Episodes))
	pairOf := make([]int, len(cur.Episodes)) // index into base, -1 when none
	for i := range cur.Episodes {
		pairOf[i] = -1
		if j, ok := baseAt[key{cur.Episodes[i].EpisodeID, cur.Episodes[i].Source}]; ok && !usedBase[j] {
			pairOf[i] = j
			usedBase[j] = true
		}
	}
	// Moved logs: one unmatched episode with the id on each side.
	leftBase, leftCur := map[string][]int{}, map[string][]int{}
	for j := range base.Episodes {
		if !usedBase[j] {
			leftBase[base.Episodes[j].EpisodeID] = append(leftBase[base.Episodes[j].EpisodeID], j)
		}
	}
	for i := range cur.Episodes {
		if pairOf[i] < 0 {
			leftCur[cur.Episodes[i].EpisodeID] = append(leftCur[cur.Episodes[i].EpisodeID], i)
		}
	}
	for id, is := range leftCur {
		if js := leftBase[id]; len(is) == 1 && len(js) == 1 {
			pairOf[is[0]] = js[0]
			usedBase[js[0]] = true
		}
	}

	for i := range cur.Episodes {
		e := &cur.Episodes[i]
		ec := EpisodeCheck{EpisodeID: e.EpisodeID, Source: e.Source, Current: e}
		if j := pairOf[i]; j >= 0 {
			ec.Baseline = &base.Episodes[j]
			ec.Drift = diffEpisode(ec.Baseline, e)
			ec.Status = StatusUnchanged
			if len(ec.Drift) > 0 {
				ec.Status = StatusChanged
			}
		} else {
			ec.Status = StatusNew
			ec.Drift = []Drift{{Field: "episode", Current: e.Source, Message: "new episode, not in the baseline (" + describeOutcome(e) + ")"}}
		}
		c.Episodes = append(c.Episodes, ec)
	}
	for j := range base.Episodes {
		if usedBase[j] {
			continue
		}
		b := &base.Episodes[j]
		msg := "missing: in the baseline (" + describeOutcome(b) + ") but not among the inputs"
		if why, ok := unreadable[b.Source]; ok {
			msg = "missing: its log could not be read (" + why + ")"
		}
		c.Episodes = append(c.Episodes, EpisodeCheck{
			EpisodeID: b.EpisodeID, Source: b.Source, Status: StatusMissing, Baseline: b,
			Drift: []Drift{{Field: "episode", Baseline: b.Source, Message: msg}},
		})
	}
	sort.SliceStable(c.Episodes, func(i, j int) bool {
		a, b := &c.Episodes[i], &c.Episodes[j]
		if a.EpisodeID != b.EpisodeID {
			return a.EpisodeID < b.EpisodeID
		}
		return a.Source < b.Source
	})
	labelEpisodes(c.Episodes)
	return c
}

// labelEpisodes names each episode by its id, adding the source where an
// id is shared (two files holding the same episode id).
func labelEpisodes(eps []EpisodeCheck) {
	n := map[string]int{}
	for i := range eps {
		n[eps[i].EpisodeID]++
	}
	for i := range eps {
		eps[i].Label = eps[i].EpisodeID
		if n[eps[i].EpisodeID] > 1 {
			eps[i].Label += " (" + eps[i].Source + ")"
		}
	}
}

func describeOutcome(e *BaselineEpisode) string {
	switch {
	case e.TerminationTurn != nil:
		return fmt.Sprintf("terminates at t=%d, turns saved %d", *e.TerminationTurn, e.TurnsSaved)
	case e.Censored:
		return "censored: the live run stopped first"
	}
	return "never terminates"
}

// diffEpisode lists the differences between two entries of one episode,
// in the order of the baseline's fields.
func diffEpisode(b, c *BaselineEpisode) []Drift {
	var out []Drift
	add := func(field, was, now, msg string) {
		out = append(out, Drift{Field: field, Baseline: was, Current: now, Message: msg})
	}
	if b.LogHash != c.LogHash {
		add("log_hash", b.LogHash, c.LogHash, fmt.Sprintf("log changed (%s → %s): the recording changed, not the rules", shortHash(b.LogHash), shortHash(c.LogHash)))
	}
	if b.Source != c.Source {
		add("source", b.Source, c.Source, fmt.Sprintf("log moved: %s → %s", b.Source, c.Source))
	}
	if b.RecordedTurns != c.RecordedTurns {
		add("recorded_turns", strconv.Itoa(b.RecordedTurns), strconv.Itoa(c.RecordedTurns), fmt.Sprintf("recorded turns %d → %d", b.RecordedTurns, c.RecordedTurns))
	}
	if b.FinalScore != c.FinalScore {
		add("final_score", lit(b.FinalScore), lit(c.FinalScore), fmt.Sprintf("final score %s → %s", num(b.FinalScore), num(c.FinalScore)))
	}
	// The termination line carries the turns saved, as a reviewer reads
	// them together: "termination moved t=60 → t=70 (turns saved 213 → 203)".
	saved := fmt.Sprintf("turns saved %d → %d", b.TurnsSaved, c.TurnsSaved)
	paren := ""
	if b.TurnsSaved != c.TurnsSaved {
		paren = " (" + saved + ")"
	}
	termMoved := true
	switch bt, ct := b.TerminationTurn, c.TerminationTurn; {
	case bt == nil && ct != nil:
		add("termination_turn", "null", strconv.Itoa(*ct), fmt.Sprintf("would now terminate at t=%d%s", *ct, paren))
	case bt != nil && ct == nil:
		add("termination_turn", strconv.Itoa(*bt), "null", fmt.Sprintf("no longer terminates, was at t=%d%s", *bt, paren))
	case bt != nil && *bt != *ct:
		add("termination_turn", strconv.Itoa(*bt), strconv.Itoa(*ct), fmt.Sprintf("termination moved t=%d → t=%d%s", *bt, *ct, paren))
	default:
		termMoved = false
		if b.TurnsSaved != c.TurnsSaved {
			add("turns_saved", strconv.Itoa(b.TurnsSaved), strconv.Itoa(c.TurnsSaved), saved)
		}
	}
	cpMoved := !equalInts(b.Checkpoints, c.Checkpoints)
	if cpMoved {
		add("checkpoints", intList(b.Checkpoints), intList(c.Checkpoints),
			fmt.Sprintf("check points %s → %s", describeTurns(b.Checkpoints), describeTurns(c.Checkpoints)))
	}
	if b.LLMCallsSaved != c.LLMCallsSaved {
		add("llm_calls_saved", strconv.Itoa(b.LLMCallsSaved), strconv.Itoa(c.LLMCallsSaved), fmt.Sprintf("LLM calls saved %d → %d", b.LLMCallsSaved, c.LLMCallsSaved))
	}
	if b.LLMCallsMethod != c.LLMCallsMethod {
		add("llm_calls_method", b.LLMCallsMethod, c.LLMCallsMethod, fmt.Sprintf("LLM calls %s → %s", b.LLMCallsMethod, c.LLMCallsMethod))
	}
	if b.ScoreForfeited != c.ScoreForfeited {
		add("score_forfeited", lit(b.ScoreForfeited), lit(c.ScoreForfeited), fmt.Sprintf("score forfeited %s → %s", num(b.ScoreForfeited), num(c.ScoreForfeited)))
	}
	if b.FalseTermination != c.FalseTermination {
		msg := "no longer a false termination"
		if c.FalseTermination {
			msg = "now a false termination: the recording made progress after the termination turn"
		}
		add("false_termination", strconv.FormatBool(b.FalseTermination), strconv.FormatBool(c.FalseTermination), msg)
	}
	if b.Censored != c.Censored {
		msg := "no longer censored"
		if c.Censored {
			msg = "now censored: the live run stopped the recording before the first check point"
		}
		add("censored", strconv.FormatBool(b.Censored), strconv.FormatBool(c.Censored), msg)
	}
	if b.WouldReject != c.WouldReject {
		add("would_reject", strconv.Itoa(b.WouldReject), strconv.Itoa(c.WouldReject), fmt.Sprintf("actions that would be rejected %d → %d", b.WouldReject, c.WouldReject))
	}
	keys := map[string]bool{}
	for k := range b.FiringCounts {
		keys[k] = true
	}
	for k := range c.FiringCounts {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		// These two counts restate the termination and check point lines.
		if (k == rules.Termination.Key() && termMoved) || (k == rules.Checkpoint.Key() && cpMoved) {
			continue
		}
		// An absent count is 0: a rule added to loopbreak is not drift.
		if was, now := b.FiringCounts[k], c.FiringCounts[k]; was != now {
			add("firing_counts/"+k, strconv.Itoa(was), strconv.Itoa(now), fmt.Sprintf("%s fired %d → %d times", k, was, now))
		}
	}
	return out
}

func shortHash(h string) string {
	const n = len("sha256:") + 12
	if len(h) > n {
		return h[:n] + "…"
	}
	return h
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// describeTurns writes a list of check point turns compactly: "none",
// "t=60", "12 at t=60–80, 190–270 (every 10)": runs of three or more at the
// list's smallest step are ranges.
func describeTurns(xs []int) string {
	switch len(xs) {
	case 0:
		return "none"
	case 1:
		return "t=" + strconv.Itoa(xs[0])
	}
	step := math.MaxInt
	for i := 1; i < len(xs); i++ {
		if d := xs[i] - xs[i-1]; d > 0 && d < step {
			step = d
		}
	}
	var parts []string
	ranged := false
	start := 0
	for i := 1; i <= len(xs); i++ {
		if i < len(xs) && xs[i]-xs[i-1] == step {
			continue
		}
		if i-start >= 3 {
			parts = append(parts, strconv.Itoa(xs[start])+"–"+strconv.Itoa(xs[i-1]))
			ranged = true
		} else {
			for _, x := range xs[start:i] {
				parts = append(parts, strconv.Itoa(x))
			}
		}
		start = i
	}
	s := fmt.Sprintf("%d at t=%s", len(xs), strings.Join(parts, ", "))
	if ranged {
		s += fmt.Sprintf(" (every %d)", step)
	}
	return s
}

// CompareConfig lists the keys whose values differ (numbers compare as
// numbers, so 40 and 40.0 are equal).
func CompareConfig(base, cur map[string]any) []ConfigChange {
	keys := map[string]bool{}
	for k := range base {
		keys[k] = true
	}
	for k := range cur {
		keys[k] = true
	}
	var out []ConfigChange
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		b, inB := base[k]
		c, inC := cur[k]
		if inB && inC && sameValue(b, c) {
			continue
		}
		ch := ConfigChange{Key: k}
		if inB {
			ch.Baseline = lit(b)
		}
		if inC {
			ch.Current = lit(c)
		}
		out = append(out, ch)
	}
	return out
}

func sameValue(a, b any) bool {
	fa, okA := asFloat(a)
	fb, okB := asFloat(b)
	if okA || okB {
		return okA && okB && fa == fb
	}
	return a == b
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// GateResult is the verdict of one policy gate.
type GateResult struct {
	// Name is the gate as a flag: "max-false-rate", "min-saved",
	// "max-forfeit" or "fail-on RULE/KIND[:rejected][@EPISODES]".
	Name    string `json:"name"`
	Limit   string `json:"limit"`
	Value   string `json:"value"`
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
}

// eps absorbs float noise in percentages computed from counts.
const eps = 1e-9

// FormatPercent writes a limit the way the gates take it: "5%", "12.5%".
func FormatPercent(p float64) string {
	return strconv.FormatFloat(p, 'f', -1, 64) + "%"
}

// gate is a verdict: the figure (what), then why it passes or fails.
func gate(name, limit, value string, passed bool, what, pass, fail string) GateResult {
	g := GateResult{Name: name, Limit: limit, Value: value, Passed: passed, Message: what + fail}
	if passed {
		g.Message = what + pass
	}
	return g
}

// MaxFalseRateGate fails when more than limitPct percent of the terminated
// episodes are false terminations (Totals.FalseRatePct).
func MaxFalseRateGate(t *Totals, limitPct float64) GateResult {
	limit, value := FormatPercent(limitPct), fmt.Sprintf("%.1f%%", t.FalseRatePct)
	return gate("max-false-rate", limit, value, t.FalseRatePct <= limitPct+eps,
		fmt.Sprintf("false terminations %d of %d terminated episodes (%s)", t.FalseTerminations, t.Terminated, value),
		", at most "+limit+" allowed", " exceed the limit of "+limit)
}

// MinSavedGate fails when the turns saved are less than limitPct percent
// of the recorded turns (Totals.TurnsSavedPct).
func MinSavedGate(t *Totals, limitPct float64) GateResult {
	limit, value := FormatPercent(limitPct), fmt.Sprintf("%.1f%%", t.TurnsSavedPct)
	return gate("min-saved", limit, value, t.TurnsSavedPct+eps >= limitPct,
		fmt.Sprintf("turns saved %d of %d recorded turns (%s)", t.TurnsSaved, t.RecordedTurns, value),
		", at least "+limit+" required", ", below the required "+limit)
}

// MaxForfeitGate fails when the score forfeited over the corpus exceeds
// limit.
func MaxForfeitGate(t *Totals, limit float64) GateResult {
	value := num(t.ScoreForfeited)
	return gate("max-forfeit", num(limit), value, t.ScoreForfeited <= limit+eps,
		"score forfeited "+value+" in total", ", at most "+num(limit)+" allowed", " exceeds the limit of "+num(limit))
}

// FailOn is a --fail-on gate: RULE/KIND[:rejected][@EPISODES]. It fails
// when the rule reports that kind at all in an episode in scope; with
// :rejected, only firings whose adjusted confidence would have rejected the
// action count (kinds carrying an adjusted confidence:
// score_adjustment/adjustment and location_revisit/penalty); EPISODES is a
// comma-separated list of globs on episode ids (path.Match syntax), e.g.
// the team's winning reference episodes; every episode without it.
type FailOn struct {
	Spec     string // as written
	Rule     string
	Kind     string
	Rejected bool
	Episodes string   // the scope as written, "" for every episode
	patterns []string // Episodes, split at commas

	kind          *rules.Kind
	rejectedField bool // the kind carries its own rejected flag
	fired         int
	where         []string // "id (n)" per episode that fired
}

// ParseFailOn checks a --fail-on spec against rules.Registry.
func ParseFailOn(spec string) (*FailOn, error) {
	s := strings.TrimSpace(spec)
	f := &FailOn{Spec: s}
	rk, scope, scoped := strings.Cut(s, "@")
	rk, qual, qualified := strings.Cut(rk, ":")
	rule, kind, ok := strings.Cut(rk, "/")
	if !ok || rule == "" || kind == "" {
		return nil, fmt.Errorf("--fail-on %q: want RULE/KIND[:rejected][@EPISODES], e.g. progress_velocity/termination", spec)
	}
	r := rules.Lookup(rule)
	if r == nil {
		var names []string
		for _, x := range rules.Registry {
			names = append(names, x.Name)
		}
		return nil, fmt.Errorf("--fail-on %q: unknown rule %q (rules: %s)", spec, rule, strings.Join(names, ", "))
	}
	k := r.Kind(kind)
	var kinds []string
	for _, x := range r.Kinds {
		kinds = append(kinds, x.Name)
	}
	if k == nil {
		return nil, fmt.Errorf("--fail-on %q: rule %s has no kind %q (kinds: %s)", spec, rule, kind, strings.Join(kinds, ", "))
	}
	f.Rule, f.Kind, f.kind = rule, kind, k
	if qualified {
		if qual != "rejected" {
			return nil, fmt.Errorf("--fail-on %q: unknown qualifier %q (the only one is :rejected)", spec, qual)
		}
		if !hasField(k.Fields, "adjusted") {
			return nil, fmt.Errorf("--fail-on %q: %s/%s never rejects an action; :rejected applies to kinds with an adjusted confidence (score_adjustment/adjustment, location_revisit/penalty)", spec, rule, kind)
		}
		f.Rejected = true
		f.rejectedField = hasField(k.Fields, "rejected")
	}
	if scoped {
		for _, p := range strings.Split(scope, ",") {
			if p = strings.TrimSpace(p); p == "" {
				return nil, fmt.Errorf("--fail-on %q: empty episode pattern after @ or a comma", spec)
			}
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("--fail-on %q: bad episode pattern %q: %v", spec, p, err)
			}
			f.patterns = append(f.patterns, p)
		}
		f.Episodes = scope
	}
	return f, nil
}

func hasField(fields []string, name string) bool {
	for _, f := range fields {
		if f == name {
			return true
		}
	}
	return false
}

// NeedsFirings says whether Observe needs the outcome's Firings
// (Options.KeepFirings); plain RULE/KIND gates use the counts.
func (f *FailOn) NeedsFirings() bool { return f.Rejected }

// Observe counts the gate's firings in one outcome; threshold is the
// configuration's rejection_threshold.
func (f *FailOn) Observe(o *Outcome, threshold float64) {
	if f.patterns != nil && !f.inScope(o.EpisodeID) {
		return
	}
	n := 0
	if !f.Rejected {
		n = o.Counts[f.Rule+"/"+f.Kind]
	} else {
		for i := range o.Firings {
			x := &o.Firings[i]
			if x.Kind != f.kind {
				continue
			}
			if (f.rejectedField && x.Rejected) || (!f.rejectedField && x.HasBase && x.Adjusted < threshold) {
				n++
			}
		}
	}
	if n > 0 {
		f.fired += n
		f.where = append(f.where, fmt.Sprintf("%s (%d)", o.EpisodeID, n))
	}
}

// inScope says whether an episode id matches one of the patterns.
func (f *FailOn) inScope(id string) bool {
	for _, p := range f.patterns {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

// Result is the gate's verdict over the episodes observed.
func (f *FailOn) Result() GateResult {
	what := f.Rule + "/" + f.Kind
	verb, never := " fired", " never fired"
	if f.Rejected {
		verb, never = " would reject an action", " would never reject an action"
	}
	scope := ""
	if f.Episodes != "" {
		scope = " matching " + f.Episodes
	}
	g := GateResult{Name: "fail-on " + f.Spec, Limit: "0", Value: strconv.Itoa(f.fired), Passed: f.fired == 0}
	if g.Passed {
		if scope != "" {
			scope = " in episodes" + scope
		}
		g.Message = what + never + scope
		return g
	}
	const show = 5
	list := f.where
	if len(list) > show {
		list = append(list[:show:show], fmt.Sprintf("and %d more", len(f.where)-show))
	}
	times := "times"
	if f.fired == 1 {
		times = "time"
	}
	episodes := "episodes"
	if len(f.where) == 1 {
		episodes = "episode"
	}
	g.Message = fmt.Sprintf("%s%s %d %s in %d %s%s: %s", what, verb, f.fired, times, len(f.where), episodes, scope, strings.Join(list, ", "))
	return g
}
