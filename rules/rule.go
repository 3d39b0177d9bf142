// Package rules declares every loop-break rule as a value in one registry,
// in the spirit of golang.org/x/tools/go/analysis: a Rule has a name, a
// doc, the configuration keys it owns and a constructor for its per-episode
// state. Rules never print; they report Firings.
//
// Each rule lives in the file named after it (progress_velocity.go, ...);
// RULES.md, section by section, is the contract they implement.
package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loopbreak/loopbreak/replay"
)

// A Rule is one loop-break rule.
type Rule struct {
	Name    string   // identifier, as in firings and --fail-on
	Title   string   // one line
	Doc     string   // one paragraph: what it does and when it fires
	Section string   // where docs/rules.md documents it
	Origin  string   // where the rule comes from: OriginZorkGPT, OriginDesign, OriginGeneric, ...
	Params  []*Param // configuration keys the rule owns (its enable key first)
	Kinds   []*Kind  // what it reports

	// Enabled says whether the rule runs under cfg.
	Enabled func(cfg *Config) bool
	// Check validates constraints across keys (single-key ranges are on
	// the Params). Nil when there are none.
	Check func(cfg *Config) error
	// Requires lists rules whose per-turn state this rule reads
	// (Env.Result); they run before it within each turn.
	Requires []*Rule
	// Reads lists every key Enabled, Applies and New read, the rule's
	// own and other rules' (score_adjustment reads the penalties
	// oscillation and camping declare). RunShared steps a rule once for
	// all the configurations of a grid that vary none of them. Nil: the
	// rule may read any key of the rules Requires connects it to, and is
	// never shared.
	Reads []*Param
	// New returns fresh per-episode state configured from cfg.
	New func(cfg *Config, ep *replay.Episode) Stepper
	// Applies says whether the rule replays over an episode of that
	// input format under cfg (AppliesTo); nil means ZorkGPT logs only.
	// InputsDoc says the same in words.
	Applies   func(ep *replay.Episode, cfg *Config) bool
	InputsDoc string

	index int // 1 + the rule's place in Registry, set at init; 0: outside it
}

// Index is r's place in Registry, -1 for a rule outside it: what a slice
// of len(Registry) holding something per rule is indexed by, where a map
// keyed by the rule hashed it at each firing. A copy of a registered
// Rule has its index: a slot is the rule's once its pointer is too.
func (r *Rule) Index() int { return r.index - 1 }

// Origins. Outputs keep "what ZorkGPT would have done" apart from "what
// the proposed rules add" (RULES.md, "Where each rule comes from"), so
// every rule says which it is; the generic rules and the peer frameworks'
// detectors have their own.
const (
	OriginZorkGPT   = "zorkgpt"    // deployed in ZorkGPT, checked against its code
	OriginDesign    = "design"     // proposed by the loop-break design, never shipped
	OriginGeneric   = "generic"    // output and task loops of any agent (RULES.md §8, §9)
	OriginOpenHands = "openhands"  // OpenHands' StuckDetector (RULES.md §11)
	OriginGeminiCLI = "gemini-cli" // Gemini CLI's LoopDetectionService (RULES.md §11)
	// OriginOpenHandsV1 is OpenHands V1's (software-agent-sdk) StuckDetector (RULES.md §11).
	OriginOpenHandsV1 = "openhands-v1"
)

// Origins lists the origins, in the order outputs group them.
var Origins = []string{OriginZorkGPT, OriginDesign, OriginGeneric, OriginOpenHands, OriginOpenHandsV1, OriginGeminiCLI, OriginCline, OriginRoo, OriginGoose}

// origins lists the origins Validate accepts.
var origins = map[string]bool{OriginZorkGPT: true, OriginDesign: true, OriginGeneric: true, OriginOpenHands: true, OriginOpenHandsV1: true, OriginGeminiCLI: true,
	OriginCline: true, OriginRoo: true, OriginGoose: true}

// Kind documents one kind of firing and the fields it carries. Each kind
// is a package-level value (Termination, Warning, ...) listed in its
// rule's Kinds and named by its firings; a kind name shared by two rules
// gets the rule's name in front (OscillationDetection, CampingDetection).
type Kind struct {
	Name   string
	Doc    string
	Fields []string

	rule *Rule  // the registered rule listing it, set at init
	key  string // rule/kind, set at init
	// loop is Firing.IsLoop of a firing of rule's of this kind, set at
	// init: a firing tested its rule's origin, a string, against seven.
	loop bool
	// index is 1 + the kind's place in registered, set at init; 0: a
	// kind outside the registry.
	index int
}

// registered lists the registered rules' kinds, in Registry's order: what
// Kind.Index indexes.
var registered []*Kind

// Index is k's place among the registered rules' kinds (KindAt's), -1
// for a kind outside the registry: what an array counting firings by kind
// is indexed by, where a list of kinds was searched at each firing.
func (k *Kind) Index() int { return k.index - 1 }

// KindAt returns the registered kind whose Index is i.
func KindAt(i int) *Kind { return registered[i] }

// Rule returns the registered rule whose Kinds lists k, nil for a kind
// outside the registry.
func (k *Kind) Rule() *Rule { return k.rule }

// Key is "rule/kind", the name outputs, counts and --fail-on use ("" for
// a kind outside the registry).
func (k *Kind) Key() string { return k.key }

// A Stepper is a rule's state for one episode. Step is called once per
// turn in increasing turn order, after the Steppers of required rules.
type Stepper interface {
	Step(t *replay.Turn, env *Env)
}

// Registry is every rule, in RULES.md order. Validate checks it at init.
var Registry = []*Rule{
	ProgressVelocity,
	StuckWarnings,
	LocationRevisit,
	Oscillation,
	Camping,
	ScoreAdjustment,
	ActionNovelty,
	SignatureRepeat,
	FuzzyRepeat,
	TaskAttempts,
	RepeatActionObservation,
	RepeatActionError,
	Monologue,
	AlternatingPair,
	ContextWindowError,
	V1RepeatActionObservation,
	V1RepeatActionError,
	V1Monologue,
	V1AlternatingPattern,
	ToolCycle,
	ContentChanting,
	LLMLoopCheck,
	ClineRepeat,
	RooRepeat,
	GooseRepeat,
}

var identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Validate checks a registry: identifier names, docs, known origins,
// unique names and keys, requirements listed earlier, defaults that satisfy their own
// constraints.
func Validate(reg []*Rule) error {
	names := map[string]bool{}
	seen := map[*Rule]bool{}
	owner := map[*Kind]string{} // a Kind value belongs to one rule
	keys := map[string]string{}
	for _, r := range reg {
		if !identRE.MatchString(r.Name) {
			return fmt.Errorf("rule %q: name is not an identifier", r.Name)
		}
		if names[r.Name] {
			return fmt.Errorf("rule %q registered twice", r.Name)
		}
		if r.Doc == "" || r.Title == "" {
			return fmt.Errorf("rule %q: missing doc", r.Name)
		}
		if !origins[r.Origin] {
			return fmt.Errorf("rule %q: unknown origin %q", r.Name, r.Origin)
		}
		if r.New == nil || r.Enabled == nil {
			return fmt.Errorf("rule %q: missing New or Enabled", r.Name)
		}
		for _, req := range r.Requires {
			if !seen[req] {
				return fmt.Errorf("rule %q requires %q, which is not registered before it", r.Name, req.Name)
			}
		}
		kinds := map[string]bool{}
		for _, k := range r.Kinds {
			if !identRE.MatchString(k.Name) || kinds[k.Name] {
				return fmt.Errorf("rule %q: kind %q is not an identifier or is listed twice", r.Name, k.Name)
			}
			if other, dup := owner[k]; dup {
				return fmt.Errorf("rule %q: kind %q is the value %s already lists", r.Name, k.Name, other)
			}
			kinds[k.Name], owner[k] = true, r.Name
		}
		names[r.Name] = true
		seen[r] = true
		for _, p := range r.Params {
			if other, dup := keys[p.Key]; dup {
				return fmt.Errorf("key %q declared by both %s and %s", p.Key, other, r.Name)
			}
			keys[p.Key] = r.Name
			if err := p.check(p.Default); err != nil {
				return fmt.Errorf("rule %q: default of %s: %v", r.Name, p.Key, err)
			}
			if r.Origin != OriginZorkGPT && p.Unread == "" {
				// ZorkGPT never shipped the other rules: a pyproject.toml
				// setting their keys must be told the live agent ignores them.
				return fmt.Errorf("rule %q: key %s of a %s rule does not say what ZorkGPT does without it (Unread)", r.Name, p.Key, r.Origin)
			}
		}
	}
	return nil
}

func init() {
	if err := Validate(Registry); err != nil {
		panic(err)
	}
	for i, r := range Registry {
		r.index = i + 1
		for _, k := range r.Kinds {
			k.rule, k.key = r, r.Name+"/"+k.Name
			k.loop = isLoop(r, k)
			registered = append(registered, k)
			k.index = len(registered)
		}
	}
}

// Lookup returns the registered rule with that name.
func Lookup(name string) *Rule {
	for _, r := range Registry {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Kind returns the rule's kind with that name, nil if it has none.
func (r *Rule) Kind(name string) *Kind {
	for _, k := range r.Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// LookupKind resolves "rule/kind" (as in --fail-on and the counts of an
// outcome) to registered values; both are nil when either is unknown.
func LookupKind(key string) (*Rule, *Kind) {
	name, kind, _ := strings.Cut(key, "/")
	r := Lookup(name)
	if r == nil || r.Kind(kind) == nil {
		return nil, nil
	}
	return r, r.Kind(kind)
}
