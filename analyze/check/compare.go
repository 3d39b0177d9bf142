package check

// Comparing a corpus's entries with its baseline: which episodes changed,
// appeared or went missing, field by field, and which configuration keys
// differ.

import (
	"fmt"
	"math"
	"sort"
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
	Message  string `json:"message"`  // in words, without the episode's name
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

	Path     string   // the log from the working directory (annotations)
	Skipped  int      // unreadable lines skipped in its log
	Problems []string // the first of them, "file:line: reason"
}

// Lines are the episode's drift lines, "<label>: <message>".
func (e *Episode) Lines() []string {
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
	Episodes []Episode      // in canonical order (episode id, then source)
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
			c.Episodes = append(c.Episodes, Episode{EpisodeID: e.EpisodeID, Source: e.Source, Status: StatusUnchecked, Current: e})
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
		ec := Episode{EpisodeID: e.EpisodeID, Source: e.Source, Current: e}
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
		c.Episodes = append(c.Episodes, Episode{
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
func labelEpisodes(eps []Episode) {
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

func describeOutcome(e *Entry) string {
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
func diffEpisode(b, c *Entry) []Drift {
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
	for _, k := range rules.SortedKeys(keys) {
		// These two counts restate the termination and check point lines.
		if (k == "progress_velocity/termination" && termMoved) || (k == "progress_velocity/checkpoint" && cpMoved) {
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
	for _, k := range rules.SortedKeys(keys) {
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
