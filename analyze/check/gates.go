package check

// Policy gates: corpus-wide limits (--max-false-rate, --min-saved,
// --max-forfeit) and --fail-on RULE/KIND[:rejected][@EPISODES].

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

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
func MaxFalseRateGate(t *analyze.Totals, limitPct float64) GateResult {
	limit, value := FormatPercent(limitPct), fmt.Sprintf("%.1f%%", t.FalseRatePct)
	return gate("max-false-rate", limit, value, t.FalseRatePct <= limitPct+eps,
		fmt.Sprintf("false terminations %d of %d terminated episodes (%s)", t.FalseTerminations, t.Terminated, value),
		", at most "+limit+" allowed", " exceed the limit of "+limit)
}

// MinSavedGate fails when the turns saved are less than limitPct percent
// of the recorded turns (Totals.TurnsSavedPct).
func MinSavedGate(t *analyze.Totals, limitPct float64) GateResult {
	limit, value := FormatPercent(limitPct), fmt.Sprintf("%.1f%%", t.TurnsSavedPct)
	return gate("min-saved", limit, value, t.TurnsSavedPct+eps >= limitPct,
		fmt.Sprintf("turns saved %d of %d recorded turns (%s)", t.TurnsSaved, t.RecordedTurns, value),
		", at least "+limit+" required", ", below the required "+limit)
}

// MaxForfeitGate fails when the score forfeited over the corpus exceeds
// limit.
func MaxForfeitGate(t *analyze.Totals, limit float64) GateResult {
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
	var k *rules.Kind
	var kinds []string
	for i := range r.Kinds {
		kinds = append(kinds, r.Kinds[i].Name)
		if r.Kinds[i].Name == kind {
			k = &r.Kinds[i]
		}
	}
	if k == nil {
		return nil, fmt.Errorf("--fail-on %q: rule %s has no kind %q (kinds: %s)", spec, rule, kind, strings.Join(kinds, ", "))
	}
	f.Rule, f.Kind = rule, kind
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
func (f *FailOn) Observe(o *analyze.Outcome, threshold float64) {
	if f.patterns != nil && !f.inScope(o.EpisodeID) {
		return
	}
	n := 0
	if !f.Rejected {
		n = o.Counts[f.Rule+"/"+f.Kind]
	} else {
		for i := range o.Firings {
			x := &o.Firings[i]
			if x.Rule != f.Rule || x.Kind != f.Kind {
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
