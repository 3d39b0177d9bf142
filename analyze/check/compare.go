package check

// Comparing a corpus's entries with its baseline: which episodes changed,
// appeared or went missing, field by field, and which configuration keys
// differ.

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/rules"
)

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
}

// Episode is one episode of a comparison.
type Episode struct {
	EpisodeID string
	Source    string // the current source, else the baseline's
	// Label names the episode in messages: its id, with the source when
	// several episodes share the id.
	Label    string
	Status   string
	Drift    []Drift
	Baseline *Entry // nil for a new episode
	Current  *Entry // nil for a missing episode

	// Unreadable says why the log of a missing episode could not be read
	// ("" when it was simply not among the inputs).
	Unreadable string

	Path     string   // the log from the working directory (annotations)
	Skipped  int      // unreadable lines skipped in its log
	Problems []string // the first of them, "file:line: reason"

	// As a comparison is made (tally):
	seq         int64 // arrival order; a missing episode's after every current one
	base        int32 // the matched baseline entry, -1 when none
	hashPending bool  // matched before its log's hash was known
	open        bool  // spilled before its log ended
}

// ConfigChange is a configuration key whose value differs from the
// baseline's.
type ConfigChange struct {
	Key      string `json:"key"`
	Baseline string `json:"baseline"` // JSON literal; "" when the baseline lacks the key
	Current  string `json:"current"`  // "" when the key no longer exists
}

// Comparison is the result of comparing a corpus with its baseline.
type Comparison struct {
	Episodes []Episode      // in canonical order (episode id, then source)
	Config   []ConfigChange // sorted by key
}

// Compare matches the episodes of cur with those of base and lists every
// difference. Episodes match on episode id and source; an id left over on
// both sides exactly once is the same episode whose log moved. base nil
// means there is nothing to compare with (every episode is unchecked).
// unreadable maps the sources of files that could not be read to why, to
// explain missing episodes. (Run compares as it replays, keeping only
// what its report names; Compare lists every episode.)
func Compare(base, cur *Baseline, unreadable map[string]string) *Comparison {
	var store *baseStore
	if base != nil {
		store = storeOf(base)
	}
	t := newTally(store, base == nil, true)
	for i := range cur.Episodes {
		t.add(&cur.Episodes[i], true, 0, nil)
	}
	// cur is held: so are the rows, never spilled (nor failing to be).
	t.limit = math.MaxInt
	t.finish(unreadable)
	c := Comparison{Episodes: t.out}
	if base != nil {
		c.Config = CompareConfig(base.Config, cur.Config)
	}
	return &c
}

// diffEpisode lists the fields that differ between two entries of one
// episode, in the order of the baseline's fields.
func diffEpisode(b, c *Entry) []Drift {
	var out []Drift
	add := func(field, was, now string) {
		out = append(out, Drift{Field: field, Baseline: was, Current: now})
	}
	if b.LogHash != c.LogHash {
		add("log_hash", b.LogHash, c.LogHash)
	}
	if b.Source != c.Source {
		add("source", b.Source, c.Source)
	}
	if b.RecordedTurns != c.RecordedTurns {
		add("recorded_turns", strconv.Itoa(b.RecordedTurns), strconv.Itoa(c.RecordedTurns))
	}
	if b.FinalScore != c.FinalScore {
		add("final_score", lit(b.FinalScore), lit(c.FinalScore))
	}
	// A moved termination carries the turns saved, as a reviewer reads
	// them together; only an unmoved one has its own turns_saved drift.
	termMoved := true
	switch bt, ct := b.TerminationTurn, c.TerminationTurn; {
	case bt == nil && ct != nil:
		add("termination_turn", "null", strconv.Itoa(*ct))
	case bt != nil && ct == nil:
		add("termination_turn", strconv.Itoa(*bt), "null")
	case bt != nil && *bt != *ct:
		add("termination_turn", strconv.Itoa(*bt), strconv.Itoa(*ct))
	default:
		termMoved = false
		if b.TurnsSaved != c.TurnsSaved {
			add("turns_saved", strconv.Itoa(b.TurnsSaved), strconv.Itoa(c.TurnsSaved))
		}
	}
	cpMoved := !equalInts(b.Checkpoints, c.Checkpoints)
	if cpMoved {
		add("checkpoints", intList(b.Checkpoints), intList(c.Checkpoints))
	}
	if b.LLMCallsSaved != c.LLMCallsSaved {
		add("llm_calls_saved", strconv.Itoa(b.LLMCallsSaved), strconv.Itoa(c.LLMCallsSaved))
	}
	if b.LLMCallsMethod != c.LLMCallsMethod {
		add("llm_calls_method", b.LLMCallsMethod, c.LLMCallsMethod)
	}
	if b.ScoreForfeited != c.ScoreForfeited {
		add("score_forfeited", lit(b.ScoreForfeited), lit(c.ScoreForfeited))
	}
	if b.FalseTermination != c.FalseTermination {
		add("false_termination", strconv.FormatBool(b.FalseTermination), strconv.FormatBool(c.FalseTermination))
	}
	if b.Censored != c.Censored {
		add("censored", strconv.FormatBool(b.Censored), strconv.FormatBool(c.Censored))
	}
	if b.WouldReject != c.WouldReject {
		add("would_reject", strconv.Itoa(b.WouldReject), strconv.Itoa(c.WouldReject))
	}
	if b.LowConfidence != c.LowConfidence {
		add("low_confidence", strconv.Itoa(b.LowConfidence), strconv.Itoa(c.LowConfidence))
	}
	keys := map[string]bool{}
	for k := range b.FiringCounts {
		keys[k] = true
	}
	for k := range c.FiringCounts {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		// These two counts restate the termination and check point drift.
		if (k == rules.Termination.Key() && termMoved) || (k == rules.Checkpoint.Key() && cpMoved) {
			continue
		}
		// An absent count is 0: a rule added to loopbreak is not drift.
		if was, now := b.FiringCounts[k], c.FiringCounts[k]; was != now {
			add("firing_counts/"+k, strconv.Itoa(was), strconv.Itoa(now))
		}
	}
	return out
}

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
