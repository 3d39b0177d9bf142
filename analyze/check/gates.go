package check

// Policy gates: corpus-wide limits (--max-false-rate, --min-saved,
// --max-forfeit) and --fail-on RULE/KIND[:rejected][@EPISODES].

import (
	"fmt"
	"path"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Gate kinds, named as their flags.
const (
	GateMaxFalseRate = "max-false-rate"
	GateMinSaved     = "min-saved"
	GateMaxForfeit   = "max-forfeit"
	GateFailOn       = "fail-on"
)

// GateResult is the verdict of one policy gate. The figure it judged is
// in the Totals of the check (or, for fail-on, in FailOn).
type GateResult struct {
	Kind   string
	Limit  float64 // percent (the rate gates) or score (max-forfeit); unused for fail-on
	Passed bool
	FailOn *FailOn // GateFailOn: the gate and what it observed
}

// eps absorbs float noise in percentages computed from counts.
const eps = 1e-9

// MaxFalseRateGate fails when more than limitPct percent of the terminated
// episodes are false terminations (Totals.FalseRatePct).
func MaxFalseRateGate(t *analyze.Totals, limitPct float64) GateResult {
	return GateResult{Kind: GateMaxFalseRate, Limit: limitPct, Passed: t.FalseRatePct <= limitPct+eps}
}

// MinSavedGate fails when the turns saved are less than limitPct percent
// of the recorded turns (Totals.TurnsSavedPct).
func MinSavedGate(t *analyze.Totals, limitPct float64) GateResult {
	return GateResult{Kind: GateMinSaved, Limit: limitPct, Passed: t.TurnsSavedPct+eps >= limitPct}
}

// MaxForfeitGate fails when the score forfeited over the corpus exceeds
// limit.
func MaxForfeitGate(t *analyze.Totals, limit float64) GateResult {
	return GateResult{Kind: GateMaxForfeit, Limit: limit, Passed: t.ScoreForfeited <= limit+eps}
}

// FailOn is a --fail-on gate: RULE/KIND[:rejected][@EPISODES]. It fails
// when the rule reports that kind at all in an episode in scope; with
// :rejected, only firings that would have rejected the action count (kinds
// carrying a rejected flag: score_adjustment/adjustment; a revisit penalty
// lowers confidence, never the score, so it never rejects); EPISODES is a
// comma-separated list of globs on episode ids (path.Match syntax), e.g.
// the team's winning reference episodes; every episode without it.
type FailOn struct {
	Spec string // as written
	// Live: the spec is "live[@EPISODES]", failing when a live run
	// disagrees with the replay under the configuration checked (RULES.md
	// §10), so CI can assert the deployed configuration is the one
	// reviewed. Fired then counts disagreements; Rule and Kind are empty.
	Live     bool
	Rule     string
	Kind     string
	Rejected bool
	Episodes string   // the scope as written, "" for every episode
	patterns []string // Episodes, split at commas

	// Fired counts the firings observed; Where lists the episodes they
	// were in, in order.
	Fired int
	Where []EpisodeCount

	kind *rules.Kind
}

// EpisodeCount is how many times a gate's firing occurred in one episode.
type EpisodeCount struct {
	EpisodeID string
	N         int
}

// ParseFailOn checks a --fail-on spec against rules.Registry.
func ParseFailOn(spec string) (*FailOn, error) {
	s := strings.TrimSpace(spec)
	f := &FailOn{Spec: s}
	rk, scope, scoped := strings.Cut(s, "@")
	if rk == "live" {
		f.Live = true
		return f, f.parseScope(spec, scope, scoped)
	}
	rk, qual, qualified := strings.Cut(rk, ":")
	rule, kind, ok := strings.Cut(rk, "/")
	if !ok || rule == "" || kind == "" {
		return nil, fmt.Errorf("--fail-on %q: want RULE/KIND[:rejected][@EPISODES] or live[@EPISODES], e.g. progress_velocity/termination", spec)
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
		if !hasField(k.Fields, "rejected") {
			return nil, fmt.Errorf("--fail-on %q: %s/%s never rejects an action; :rejected applies to score_adjustment/adjustment (a revisit penalty lowers the critic's confidence, not its score)", spec, rule, kind)
		}
		f.Rejected = true
	}
	if err := f.parseScope(spec, scope, scoped); err != nil {
		return nil, err
	}
	return f, nil
}

// parseScope reads the @EPISODES part of a spec.
func (f *FailOn) parseScope(spec, scope string, scoped bool) error {
	if !scoped {
		return nil
	}
	for _, p := range strings.Split(scope, ",") {
		if p = strings.TrimSpace(p); p == "" {
			return fmt.Errorf("--fail-on %q: empty episode pattern after @ or a comma", spec)
		}
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("--fail-on %q: bad episode pattern %q: %v", spec, p, err)
		}
		f.patterns = append(f.patterns, p)
	}
	f.Episodes = scope
	return nil
}

func hasField(fields []string, name string) bool {
	for _, f := range fields {
		if f == name {
			return true
		}
	}
	return false
}

// NeedsFirings says whether Observe needs more of the outcome than its
// counts: a :rejected gate counts the rejecting firings at or before the
// cut, which Rejections tallies as they come (analyze.Options.Sink), so
// they need not be kept; plain RULE/KIND gates use the counts.
func (f *FailOn) NeedsFirings() bool { return f.Rejected }

// Rejections counts an episode's firings that would reject the action,
// at or before the cut, per kind, as the replay produces them (an
// analyze.FiringSink, made by NewRejections): all a :rejected gate reads
// of them. An episode of millions of firings costs a few words.
type Rejections map[*rules.Kind]int

// NewRejections is an analyze.Options.Sink for the :rejected gates.
func NewRejections(*analyze.Outcome, *replay.Episode) analyze.FiringSink { return Rejections{} }

// Firing counts f if it rejects (an analyze.FiringSink); a rejection
// after the cut never happens, as would_reject says.
func (r Rejections) Firing(f *rules.Firing, afterCut bool) {
	if f.Rejected && !afterCut {
		r[f.Kind]++
	}
}

// Observe counts the gate's firings in one outcome.
func (f *FailOn) Observe(o *analyze.Outcome) {
	if f.patterns != nil && !f.inScope(o.EpisodeID) {
		return
	}
	n := 0
	switch {
	case f.Live:
		if o.Live != nil {
			n = len(o.Live.Disagreements)
		}
	case !f.Rejected:
		n = o.Counts[f.kind.Key()]
	default:
		if r, ok := o.Sink.(Rejections); ok {
			n = r[f.kind]
			break
		}
		for i := range o.Firings {
			x := &o.Firings[i]
			if x.Kind != f.kind {
				continue
			}
			// As would_reject: a firing after the cut never happens.
			if x.Rejected && !o.AfterCut(x) {
				n++
			}
		}
	}
	if n > 0 {
		f.Fired += n
		f.Where = append(f.Where, EpisodeCount{o.EpisodeID, n})
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
	return GateResult{Kind: GateFailOn, Passed: f.Fired == 0, FailOn: f}
}
