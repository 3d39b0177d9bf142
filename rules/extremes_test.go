package rules_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// extremeCase is one value written for a key, and whether it is inside
// the key's bounds (so every way of giving it must accept it).
type extremeCase struct {
	name string
	text string // as --set and a grid write it
	toml string // as a TOML file writes it
	ok   bool
}

// extremes lists, for p, the values at and beyond its bounds: min-1,
// min, max, max+1, huge and negative numbers, NaN and infinities.
func extremes(p *rules.Param) []extremeCase {
	in := func(f float64) bool {
		return (p.Min == nil || f >= *p.Min) && (p.Max == nil || f <= *p.Max)
	}
	var cs []extremeCase
	num := func(name string, f float64) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if p.Type == rules.Float && !strings.Contains(s, ".") {
			s += ".0"
		}
		cs = append(cs, extremeCase{name, s, s, in(f)})
	}
	switch p.Type {
	case rules.Bool:
		return []extremeCase{
			{"true", "true", "true", true}, {"false", "false", "false", true},
			{"two", "2", "2", false}, {"word", "maybe", `"maybe"`, false},
		}
	case rules.Int:
		if p.Min != nil {
			num("min-1", *p.Min-1)
			num("min", *p.Min)
		}
		if p.Max != nil {
			num("max", *p.Max)
			num("max+1", *p.Max+1)
		}
		num("negative", -1)
		num("zero", 0)
		// The largest and smallest int64 and one past them, and a number
		// no integer holds.
		cs = append(cs,
			extremeCase{"maxint64", "9223372036854775807", "9223372036854775807", p.Max == nil},
			extremeCase{"maxint64+1", "9223372036854775808", "9.223372036854775808e18", false},
			extremeCase{"minint64", "-9223372036854775808", "-9223372036854775808", false},
			extremeCase{"huge", "1e300", "1e300", false},
			extremeCase{"-huge", "-1e300", "-1e300", false},
			extremeCase{"fraction", "2.5", "2.5", false},
			extremeCase{"nan", "NaN", "nan", false},
			extremeCase{"inf", "Inf", "inf", false},
			extremeCase{"-inf", "-Inf", "-inf", false},
		)
		if p.Seconds {
			// 2562047h47m16s is the longest Duration: one second more
			// overflows one.
			cs = append(cs,
				extremeCase{"duration max", "2562047h47m16s", `"2562047h47m16s"`, true},
				extremeCase{"seconds past a Duration", "9223372037", "9223372037", false},
				extremeCase{"duration past a Duration", "2562048h", `"2562048h"`, false},
			)
		}
	case rules.Float:
		if p.Min != nil {
			num("min-1", *p.Min-1)
			num("min", *p.Min)
		}
		if p.Max != nil {
			num("max", *p.Max)
			num("max+1", *p.Max+1)
		}
		num("negative", -1)
		cs = append(cs,
			extremeCase{"huge", "1e308", "1e308", p.Max == nil},
			extremeCase{"-huge", "-1e308", "-1e308", p.Min == nil},
			extremeCase{"overflow", "1e309", "1e309", false},
			extremeCase{"nan", "NaN", "nan", false},
			extremeCase{"inf", "Inf", "inf", false},
			extremeCase{"-inf", "-Inf", "-inf", false},
		)
	}
	return cs
}

// Every key, at and beyond its bounds, given by --set, by a config file
// and by Config.Set: a value inside the bounds is accepted and every rule
// is built and replayed with it (no panic); one outside is refused
// naming the key, before any conversion could wrap it (attempt_window =
// 9223372037 s once overflowed a time.Duration and panicked).
func TestEveryKeyAtItsExtremes(t *testing.T) {
	eps := buildEpisodes(t)
	dir := t.TempDir()
	for _, p := range rules.Params() {
		for _, c := range extremes(p) {
			t.Run(p.Key+"/"+c.name, func(t *testing.T) {
				cfg := allEnabled()
				err := cfg.SetString(p.Key + "=" + c.text)
				if (err == nil) != c.ok {
					t.Fatalf("--set %s=%s: %v, want accepted %v", p.Key, c.text, err, c.ok)
				}
				if err != nil && !strings.Contains(err.Error(), p.Key) {
					t.Errorf("--set error %q does not name the key", err)
				}

				path := filepath.Join(dir, rules.OwnFile)
				if werr := os.WriteFile(path, []byte("[loop_break]\n"+p.Key+" = "+c.toml+"\n"), 0o644); werr != nil {
					t.Fatal(werr)
				}
				fcfg := allEnabled()
				_, ferr := rules.LoadFile(fcfg, path)
				// A TOML file may not spell some values (1e309 is a syntax
				// error): refused either way.
				if (ferr == nil) != c.ok {
					t.Fatalf("file %s = %s: %v, want accepted %v", p.Key, c.toml, ferr, c.ok)
				}
				if ferr != nil && !strings.Contains(ferr.Error(), path) {
					t.Errorf("file error %q does not name the file", ferr)
				}
				if err == nil && ferr == nil && fcfg.Value(p.Key) != cfg.Value(p.Key) {
					t.Errorf("file reads %v, --set %v", fcfg.Value(p.Key), cfg.Value(p.Key))
				}
				if err != nil {
					return
				}
				// Config.Set with the decoded value, as a sweep grid sets it.
				if serr := allEnabled().Set(p.Key, cfg.Value(p.Key), rules.Source{Kind: "flag"}); serr != nil {
					t.Fatalf("Set(%v): %v", cfg.Value(p.Key), serr)
				}
				buildAll(t, cfg, eps)
			})
		}
	}
}

// allEnabled is the default configuration with every rule switched on,
// so building it builds every rule.
func allEnabled() *rules.Config {
	cfg := rules.Default()
	for _, p := range rules.Params() {
		if p.Type == rules.Bool {
			if err := cfg.Set(p.Key, true, rules.Source{Kind: "flag"}); err != nil {
				panic(err)
			}
		}
	}
	return cfg
}

// buildEpisodes reads one committed log of each format.
func buildEpisodes(t testing.TB) []*replay.Episode {
	t.Helper()
	var eps []*replay.Episode
	for _, f := range []string{"episodes/2025-06-09T20-04-36/episode_log.jsonl", "steps/agent.jsonl", "attempts/autopilot.jsonl"} {
		e, err := replay.ReadFile(filepath.Join("..", "testdata", filepath.FromSlash(f)), nil, replay.Options{Format: replay.FormatAuto, Outputs: true})
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, e...)
	}
	return eps
}

// buildAll builds and replays every rule under cfg, when the cross-key
// constraints let the commands use it, over eps; a panic fails t.
func buildAll(t testing.TB, cfg *rules.Config, eps []*replay.Episode) {
	t.Helper()
	if cfg.Validate() != nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("building the rules panicked: %v", r)
		}
	}()
	for _, ep := range eps {
		n := 0
		rules.Run(ep, cfg, nil, func(rules.Firing) { n++ })
		for _, r := range rules.Registry {
			// Also every rule on every format, whether or not it applies.
			r.New(cfg, ep)
		}
	}
}

// FuzzSetBuild: any --set key=value lines either fail with an error naming
// the flag or give a configuration every rule is built and replayed under
// without a panic.
func FuzzSetBuild(f *testing.F) {
	for _, p := range rules.Params() {
		for _, c := range extremes(p) {
			f.Add(p.Key + "=" + c.text)
		}
	}
	f.Add("attempt_window=9223372037\nmax_attempts=2")
	f.Add("attempt_window=2562048h")
	f.Add("content_max_history=10000000\ncontent_chunk_size=1")
	eps := buildEpisodes(f)
	f.Fuzz(func(t *testing.T, sets string) {
		cfg := allEnabled()
		for _, kv := range strings.Split(sets, "\n") {
			if err := cfg.SetString(kv); err != nil {
				if !strings.HasPrefix(err.Error(), "--set") {
					t.Fatalf("--set %q: error %q does not name the flag", kv, err)
				}
				return
			}
		}
		for _, p := range rules.Params() {
			v := cfg.Value(p.Key)
			if got, err := p.Coerce(v); err != nil || got != v {
				t.Fatalf("%s = %v accepted outside its bounds: %v", p.Key, v, err)
			}
		}
		buildAll(t, cfg, eps)
	})
}

// The largest attempt_window is the longest Duration in whole seconds.
func TestAttemptWindowBound(t *testing.T) {
	p, _ := rules.LookupParam("attempt_window")
	if p.Max == nil || *p.Max != rules.MaxSeconds || rules.MaxSeconds != 9223372036 {
		t.Fatalf("attempt_window max %v, want %v", p.Max, rules.MaxSeconds)
	}
	err := rules.Default().SetString("attempt_window=9223372037")
	if want := "--set attempt_window: must be in [1, 9223372036], got 9223372037"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
