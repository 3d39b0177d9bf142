package rules_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// TestFuzzyRepeatRuleAsDetector holds the rule, which makes its firing
// from detect.FuzzyRepeat.Match, to the detector's own firings
// (FuzzyRepeat.Check) over the same outputs: the same turns, matched
// steps and similarities, over outputs repeated, edited a little and
// new, at two thresholds and windows.
func TestFuzzyRepeatRuleAsDetector(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 10))
	words := strings.Fields("read file error retry the build failed passed test module value not found ok")
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	for _, c := range []struct {
		th     float64
		window int
	}{{0.9, 5}, {0.75, 3}} {
		var outs []string
		for i := range 120 {
			switch {
			case i > 0 && rng.IntN(4) == 0:
				outs = append(outs, outs[len(outs)-1-rng.IntN(min(len(outs), 6))])
			case i > 0 && rng.IntN(3) == 0:
				o := []byte(outs[len(outs)-1-rng.IntN(min(len(outs), 6))])
				for range 1 + rng.IntN(4) {
					o[rng.IntN(len(o))] = 'x'
				}
				outs = append(outs, string(o))
			default:
				outs = append(outs, text(20+rng.IntN(300)))
			}
		}
		var b strings.Builder
		for i, o := range outs {
			fmt.Fprintf(&b, `{"step": %d, "action": "run %d", "output": %q}`+"\n", i+1, i%7, o)
		}
		eps, err := replay.Read(strings.NewReader(b.String()), "log.jsonl", "ep", replay.Options{Format: replay.FormatSteps})
		if err != nil {
			t.Fatal(err)
		}
		cfg := rlCfg(t, "fuzzy_threshold", c.th, "fuzzy_window", c.window)
		got := rlRun(eps[0], cfg, []*rules.Rule{rules.FuzzyRepeat}, rules.FuzzyRepeat)
		d, err := detect.NewFuzzyRepeat(detect.FuzzyConfig{Threshold: c.th, Window: c.window})
		if err != nil {
			t.Fatal(err)
		}
		var want []rules.Firing
		for i, o := range outs {
			if f, ok := d.Check(&detect.Step{N: i + 1, Output: o}); ok {
				want = append(want, rules.Firing{Turn: f.Step, Rule: rules.FuzzyRepeat, Kind: rules.FuzzyLoop, Similarity: f.Similarity, MatchedStep: f.MatchedStep})
			}
		}
		if len(want) == 0 {
			t.Fatalf("threshold %v: no firing to compare", c.th)
		}
		if len(got) != len(want) {
			t.Fatalf("threshold %v: %d firings, want %d", c.th, len(got), len(want))
		}
		for i := range want {
			want[i].Unit = got[i].Unit // the replay's, set past the rule
			if got[i] != want[i] {
				t.Fatalf("threshold %v: firing %d = %+v, want %+v", c.th, i, got[i], want[i])
			}
		}
	}
}
