package rules

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Source says where a configuration value came from.
type Source struct {
	Kind string // "default", "file" or "flag"
	File string
	Line int
}

func (s Source) String() string {
	switch s.Kind {
	case "file":
		if s.Line > 0 {
			return fmt.Sprintf("%s:%d", s.File, s.Line)
		}
		return s.File
	case "flag":
		return "--set"
	}
	return "default"
}

// Config holds a value for every registered key. It stores only the keys
// set (by a file, --set or a sweep); the others read as their defaults, so
// a configuration costs what was set on it, not the registry's size
// (a sweep keeps thousands).
type Config struct {
	values  map[string]any
	sources map[string]Source
}

// Params lists every registered key in registry order.
func Params() []*Param {
	var out []*Param
	for _, r := range Registry {
		out = append(out, r.Params...)
	}
	return out
}

// LookupParam finds a registered key.
func LookupParam(key string) (*Param, bool) {
	for _, r := range Registry {
		for _, p := range r.Params {
			if p.Key == key {
				return p, true
			}
		}
	}
	return nil, false
}

// Default returns the configuration ZorkGPT deploys.
func Default() *Config {
	return &Config{values: map[string]any{}, sources: map[string]Source{}}
}

// Clone returns an independent copy.
func (c *Config) Clone() *Config {
	n := &Config{values: make(map[string]any, len(c.values)), sources: make(map[string]Source, len(c.sources))}
	for k, v := range c.values {
		n.values[k] = v
	}
	for k, s := range c.sources {
		n.sources[k] = s
	}
	return n
}

// Set coerces and stores a value; the error names the constraint.
func (c *Config) Set(key string, v any, src Source) error {
	p, ok := LookupParam(key)
	if !ok {
		return fmt.Errorf("unknown key %q%s", ShortKey(key), suggest(key))
	}
	val, err := p.Coerce(v)
	if err != nil {
		return fmt.Errorf("%s %v", key, err)
	}
	c.values[key] = val
	c.sources[key] = src
	return nil
}

// SetString parses "key=value" as given to --set.
func (c *Config) SetString(kv string) error {
	key, val, ok := strings.Cut(kv, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return fmt.Errorf("--set %q: want key=value", kv)
	}
	p, known := LookupParam(key)
	if !known {
		return fmt.Errorf("--set %s: unknown key%s", ShortKey(key), suggest(key))
	}
	v, err := p.Parse(val)
	if err != nil {
		return fmt.Errorf("--set %s: %v", key, err)
	}
	c.values[key] = v
	c.sources[key] = Source{Kind: "flag"}
	return nil
}

// Validate applies every rule's cross-key constraints, whether or not the
// rule is enabled (ZorkGPT validates its whole section on load).
func (c *Config) Validate() error {
	for _, r := range Registry {
		if r.Check != nil {
			if err := r.Check(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// ConstraintError is a violated cross-key constraint; Keys lets callers
// point at the lines that set them.
type ConstraintError struct {
	Keys []string
	Msg  string
}

func (e *ConstraintError) Error() string { return e.Msg }

// Value returns a key's value (int, float64 or bool), nil for an unknown
// key. Rules read their keys typed, with IntParam.Get and the like.
func (c *Config) Value(key string) any {
	if v, ok := c.values[key]; ok {
		return v
	}
	if p := paramIndex()[key]; p != nil {
		return p.Default
	}
	return nil
}

// Source returns where a key's value came from.
func (c *Config) Source(key string) Source {
	if s, ok := c.sources[key]; ok {
		return s
	}
	if paramIndex()[key] != nil {
		return Source{Kind: "default"}
	}
	return Source{}
}

// paramIndex is LookupParam as a map, for Value and Source.
var paramIndex = sync.OnceValue(func() map[string]*Param {
	m := map[string]*Param{}
	for _, p := range Params() {
		m[p.Key] = p
	}
	return m
})

// Map returns key → value for every key, for JSON output.
func (c *Config) Map() map[string]any {
	m := map[string]any{}
	for _, p := range Params() {
		m[p.Key] = c.Value(p.Key)
	}
	return m
}

// Keys returns every key in registry order.
func Keys() []string {
	var out []string
	for _, p := range Params() {
		out = append(out, p.Key)
	}
	return out
}

// ShortKey is how an error quotes a key: whole up to 40 bytes, else its
// first 40 bytes (whole characters) and "…", so a runaway key (a 4 MB
// line) does not flood the terminal.
func ShortKey(key string) string {
	const max = 40
	if len(key) <= max {
		return key
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(key[cut]) {
		cut--
	}
	return key[:cut] + "…"
}

// suggest offers the closest known key for a typo.
func suggest(key string) string {
	best, bestD := "", 4
	for _, k := range Keys() {
		// The length difference bounds the distance from below: a key
		// far longer than any known one costs no quadratic work.
		if abs(len(key)-len(k)) >= bestD {
			continue
		}
		if d := EditDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// EditDistance is the Levenshtein distance between a and b, in bytes
// (quadratic: callers bound it by the length difference first).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
