package detect

import (
	"encoding/json"
	"testing"
	"time"
)

// TestFiringJSON pins the field names RULES.md gives the firings.
func TestFiringJSON(t *testing.T) {
	tests := []struct {
		firing any
		want   string
	}{
		{SignatureFiring{Firing{3, "signature_repeat", KindLoop, OriginGeneric}, "ls|x"},
			`{"step":3,"rule":"signature_repeat","kind":"loop","origin":"generic","signature":"ls|x"}`},
		{FuzzyFiring{Firing{4, "fuzzy_repeat", KindLoop, OriginGeneric}, 2, 0.9123},
			`{"step":4,"rule":"fuzzy_repeat","kind":"loop","origin":"generic","matched_step":2,"similarity":0.9123}`},
		{TaskFiring{5, "task_attempts", KindLoop, OriginGeneric, "T1", LoopNoProgressRepeat, RecommendForceNext, 5},
			`{"attempt":5,"rule":"task_attempts","kind":"loop","origin":"generic","task_id":"T1","loop_type":"no_progress_repeat","recommendation":"force_next","attempt_count":5}`},
		{OpenHandsFiring{Firing{6, RuleMonologue, KindStop, OriginOpenHands}},
			`{"step":6,"rule":"monologue","kind":"stop","origin":"openhands"}`},
		{GeminiFiring{Firing{7, RuleToolCycle, KindFeedback, OriginGemini}, 2},
			`{"step":7,"rule":"tool_cycle","kind":"feedback","origin":"gemini-cli","cycle_length":2}`},
		{GeminiFiring{Firing{8, RuleLLMLoopCheck, KindRecorded, OriginGemini}, 0},
			`{"step":8,"rule":"llm_loop_check","kind":"recorded","origin":"gemini-cli"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.firing)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("got  %s\nwant %s", b, tt.want)
		}
	}
}

// TestParamsDefaults checks that each detector's declared keys are its
// configuration's, with its default configuration as defaults, within
// their bounds.
func TestParamsDefaults(t *testing.T) {
	for _, tt := range []struct {
		params []Param
		values map[string]float64
	}{
		{SignatureParams, DefaultSignatureConfig().values()},
		{FuzzyParams, DefaultFuzzyConfig().values()},
		{TaskParams, DefaultTaskConfig().values()},
		{OpenHandsParams, DefaultOpenHandsConfig().values()},
		{GeminiParams, DefaultGeminiConfig().values()},
	} {
		if len(tt.params) != len(tt.values) {
			t.Errorf("%d params for %d configuration keys", len(tt.params), len(tt.values))
		}
		for _, p := range tt.params {
			var want float64
			var typ ParamType
			switch d := p.Default.(type) {
			case int:
				want, typ = float64(d), TypeInt
			case float64:
				want, typ = d, TypeFloat
			case bool:
				want, typ = b2f(d), TypeBool
			case time.Duration:
				want, typ = d.Seconds(), TypeDuration
			default:
				t.Errorf("%s: default of type %T", p.Key, p.Default)
			}
			if typ != p.Type {
				t.Errorf("%s: type %v, default %T", p.Key, p.Type, p.Default)
			}
			if got, ok := tt.values[p.Key]; !ok || got != want {
				t.Errorf("%s: default configuration %v (present %v), declared %v", p.Key, got, ok, want)
			}
			if err := p.check(want); err != nil || p.Doc == "" {
				t.Errorf("%s: %v, doc %q", p.Key, err, p.Doc)
			}
		}
	}
}
