package sweep

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// Grid values at the keys' extremes are range-checked before any
// conversion: a range far beyond int64 is refused as such, not wrapped
// into a negative int that its bound then names, and an attempt_window
// past a time.Duration is refused, not built into a panicking rule.
func TestParseAxisExtremes(t *testing.T) {
	cases := []struct{ key, spec, want string }{
		{"camping_window", "1e300:1e300:1", "must be an integer that fits in 64 bits, got 1e+300"},
		{"camping_window", "9223372036854775808", "must be an integer that fits in 64 bits, got 9.223372036854776e+18"},
		{"attempt_window", "9223372037", "must be in [1, 9223372036], got 9223372037"},
		{"attempt_window", "9223372030:9223372040:5", "must be in [1, 9223372036], got 9223372040"},
		{"attempt_window", "2562048h", `must be an integer (seconds) or a duration such as "1h", got "2562048h"`},
		{"rejection_threshold", "NaN", "must be a finite number, got NaN"},
		{"rejection_threshold", "-Inf", "must be a finite number, got -Inf"},
	}
	for _, c := range cases {
		_, err := ParseAxis(c.key, c.spec)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseAxis(%s, %q) error = %v, want %q", c.key, c.spec, err, c.want)
		}
	}
	ax, err := ParseAxis("attempt_window", "9223372036,2562047h47m16s,1")
	if err != nil || len(ax.Values) != 2 {
		t.Fatalf("the largest attempt_window: %v %v", ax.Values, err)
	}
}

// FuzzParseAxis: any grid value list for any key either is refused or
// gives points every rule is built and replayed under without a panic.
func FuzzParseAxis(f *testing.F) {
	keys := rules.Keys()
	for i := range keys {
		for _, spec := range []string{"0", "1", "-1", "9223372037", "1e300:1e300:1", "1:3:1", "NaN", "true,false", "2562047h47m16s"} {
			f.Add(uint8(i), spec)
		}
	}
	var eps []*replay.Episode
	for _, p := range []string{"episodes/2025-06-09T20-04-36/episode_log.jsonl", "steps/agent.jsonl", "attempts/autopilot.jsonl"} {
		e, err := replay.ReadFile(filepath.Join("..", "..", "testdata", filepath.FromSlash(p)), nil, replay.Options{Format: replay.FormatAuto, Outputs: true})
		if err != nil {
			f.Fatal(err)
		}
		eps = append(eps, e...)
	}
	f.Fuzz(func(t *testing.T, k uint8, spec string) {
		key := keys[int(k)%len(keys)]
		ax, err := ParseAxis(key, spec)
		if err != nil {
			return
		}
		if len(ax.Values) > 4 {
			ax.Values = ax.Values[:4] // a few points are enough to build
		}
		base := rules.Default()
		for _, p := range rules.Params() {
			if p.Type == rules.Bool && !strings.EqualFold(p.Key, key) {
				if err := base.Set(p.Key, true, rules.Source{Kind: "flag"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		points, _, err := ExpandGrid(base, []Axis{ax})
		if err != nil {
			t.Fatalf("ExpandGrid of a parsed axis: %v", err)
		}
		for _, pt := range points {
			for _, ep := range eps {
				rules.Run(ep, pt.Config, nil, func(rules.Firing) {})
			}
		}
	})
}
