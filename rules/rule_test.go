package rules_test

import (
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// Kinds are values: each knows its rule, and "rule/kind" finds it back.
func TestKindValues(t *testing.T) {
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			if k.Rule() != r {
				t.Errorf("%s: Rule() = %v, want %s", k.Name, k.Rule(), r.Name)
			}
			if gr, gk := rules.LookupKind(k.Key()); gr != r || gk != k {
				t.Errorf("LookupKind(%q) = %v, %v", k.Key(), gr, gk)
			}
		}
	}
	if got := rules.CampingDetection.Key(); got != "camping/detection" {
		t.Errorf("CampingDetection.Key() = %q", got)
	}
	f := rules.Firing{Rule: rules.Oscillation, Kind: rules.OscillationDetection}
	if got := f.KindKey(); got != "oscillation/detection" {
		t.Errorf("KindKey() = %q", got)
	}
	for _, bad := range []string{"camping/termination", "nope/detection", "camping", ""} {
		if r, k := rules.LookupKind(bad); r != nil || k != nil {
			t.Errorf("LookupKind(%q) = %v, %v, want nil", bad, r, k)
		}
	}
}

// Typed keys read what the string edges (Set, SetString) wrote.
func TestTypedKeys(t *testing.T) {
	cfg := rules.Default()
	if rules.MaxTurnsStuck.Get(cfg) != 40 || rules.RejectionThreshold.Get(cfg) != 0.5 || !rules.EnableObjectiveBasedProgress.Get(cfg) {
		t.Fatal("defaults not read back")
	}
	if err := cfg.SetString("max_turns_stuck=55"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Set("rejection_threshold", int64(1), rules.Source{Kind: "flag"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetString("enable_objective_based_progress=false"); err != nil {
		t.Fatal(err)
	}
	if rules.MaxTurnsStuck.Get(cfg) != 55 || rules.RejectionThreshold.Get(cfg) != 1 || rules.EnableObjectiveBasedProgress.Get(cfg) {
		t.Error("values set by key name not read back typed")
	}
	if err := cfg.SetString("max_turns_stuk=5"); err == nil {
		t.Error("a misspelt key was accepted")
	}
}

// Every rule is labelled with its origin (RULES.md, "Where each rule comes
// from"): rules 1, 2, 3 and 7 are ZorkGPT's, 4, 5 and 6 the design's, §8
// and §9 generic, §11 the peer frameworks'.
func TestOrigins(t *testing.T) {
	want := map[*rules.Rule]string{
		rules.ProgressVelocity: "zorkgpt",
		rules.StuckWarnings:    "zorkgpt",
		rules.LocationRevisit:  "zorkgpt",
		rules.Oscillation:      "design",
		rules.Camping:          "design",
		rules.ScoreAdjustment:  "design",
		rules.ActionNovelty:    "zorkgpt",

		rules.SignatureRepeat:           "generic",
		rules.FuzzyRepeat:               "generic",
		rules.TaskAttempts:              "generic",
		rules.RepeatActionObservation:   "openhands",
		rules.RepeatActionError:         "openhands",
		rules.Monologue:                 "openhands",
		rules.AlternatingPair:           "openhands",
		rules.ContextWindowError:        "openhands",
		rules.V1RepeatActionObservation: "openhands-v1",
		rules.V1RepeatActionError:       "openhands-v1",
		rules.V1Monologue:               "openhands-v1",
		rules.V1AlternatingPattern:      "openhands-v1",
		rules.ToolCycle:                 "gemini-cli",
		rules.ContentChanting:           "gemini-cli",
		rules.LLMLoopCheck:              "gemini-cli",
		rules.ClineRepeat:               "cline",
		rules.RooRepeat:                 "roo",
		rules.GooseRepeat:               "goose",
	}
	if len(want) != len(rules.Registry) {
		t.Fatalf("registry has %d rules, the table %d", len(rules.Registry), len(want))
	}
	for r, o := range want {
		if r.Origin != o {
			t.Errorf("%s: origin %q, want %q", r.Name, r.Origin, o)
		}
	}
}

// Validate refuses a rule without a known origin.
func TestValidateOrigin(t *testing.T) {
	for _, origin := range []string{"", "ZorkGPT", "OpenHands", "gemini"} {
		r := *rules.ActionNovelty
		r.Origin = origin
		err := rules.Validate([]*rules.Rule{&r})
		if err == nil || !strings.Contains(err.Error(), "origin") {
			t.Errorf("origin %q: Validate = %v, want an origin error", origin, err)
		}
	}
	r := *rules.ActionNovelty
	if err := rules.Validate([]*rules.Rule{&r}); err != nil {
		t.Errorf("copy of a registered rule: %v", err)
	}
}

// Validate refuses a design rule's key that does not say what the live
// agent does without it: a pyproject.toml setting it must be warned.
func TestValidateDesignKeysUnread(t *testing.T) {
	r := *rules.Camping
	p := *r.Params[0]
	p.Unread = ""
	r.Params = []*rules.Param{&p}
	if err := rules.Validate([]*rules.Rule{&r}); err == nil || !strings.Contains(err.Error(), "Unread") {
		t.Errorf("Validate = %v, want an error about %s", err, p.Key)
	}
}

// TestRuleIndex: a registered rule's Index is its place in Registry; a
// rule outside it has none.
func TestRuleIndex(t *testing.T) {
	for i, r := range rules.Registry {
		if r.Index() != i {
			t.Errorf("%s: index %d, want %d", r.Name, r.Index(), i)
		}
	}
	if i := (&rules.Rule{Name: "outside"}).Index(); i != -1 {
		t.Errorf("a rule outside the registry: index %d, want -1", i)
	}
}

// TestKindIndex: each registered kind has its own Index, which KindAt
// gives back; a kind outside the registry has none. kindCounts and
// kindTally (analyze) count a kind in its slot by it.
func TestKindIndex(t *testing.T) {
	seen := map[int]*rules.Kind{}
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			i := k.Index()
			if i < 0 || rules.KindAt(i) != k {
				t.Errorf("%s: index %d, not KindAt's", k.Key(), i)
			}
			if o := seen[i]; o != nil && o != k {
				t.Errorf("%s and %s share index %d", k.Key(), o.Key(), i)
			}
			seen[i] = k
		}
	}
	if i := (&rules.Kind{Name: "outside"}).Index(); i != -1 {
		t.Errorf("a kind outside the registry: index %d, want -1", i)
	}
}
