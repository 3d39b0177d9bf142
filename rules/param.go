package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is a parameter's TOML type.
type Type int

const (
	Int Type = iota
	Float
	Bool
)

func (t Type) String() string {
	switch t {
	case Int:
		return "integer"
	case Float:
		return "number"
	default:
		return "boolean"
	}
}

// Param is one configuration key. Values are int, float64 or bool.
type Param struct {
	Key      string
	Doc      string
	Type     Type
	Default  any
	Min, Max *float64 // inclusive bounds, nil when unbounded
}

func bound(f float64) *float64 { return &f }

// IntParam, FloatParam and BoolParam are typed keys. A rule declares each
// of its keys once as a package-level value and reads it with Get, so a
// misspelt key does not compile and a value always has its key's type.
// Strings name keys only at the edges (TOML files, --set, sweep grids),
// through LookupParam and Config.Set, which reject unknown keys.
type (
	IntParam   struct{ *Param }
	FloatParam struct{ *Param }
	BoolParam  struct{ *Param }
)

// Get returns the key's value in c. Coerce and Parse guarantee the type;
// a key c does not hold (a rule outside the registry) reads as its default.
func (p IntParam) Get(c *Config) int {
	if v, ok := c.values[p.Key].(int); ok {
		return v
	}
	return p.Default.(int)
}

// Get returns the key's value in c (see IntParam.Get).
func (p FloatParam) Get(c *Config) float64 {
	if v, ok := c.values[p.Key].(float64); ok {
		return v
	}
	return p.Default.(float64)
}

// Get returns the key's value in c (see IntParam.Get).
func (p BoolParam) Get(c *Config) bool {
	if v, ok := c.values[p.Key].(bool); ok {
		return v
	}
	return p.Default.(bool)
}

func intParam(key string, def int, doc string, min, max *float64) IntParam {
	return IntParam{&Param{Key: key, Doc: doc, Type: Int, Default: def, Min: min, Max: max}}
}

func floatParam(key string, def float64, doc string, min, max *float64) FloatParam {
	return FloatParam{&Param{Key: key, Doc: doc, Type: Float, Default: def, Min: min, Max: max}}
}

func boolParam(key string, doc string) BoolParam {
	return BoolParam{&Param{Key: key, Doc: doc, Type: Bool, Default: true}}
}

// Constraint describes the bounds in words, "" when unbounded.
func (p *Param) Constraint() string {
	switch {
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf("must be in [%s, %s]", fmtNum(*p.Min), fmtNum(*p.Max))
	case p.Min != nil:
		return fmt.Sprintf("must be >= %s", fmtNum(*p.Min))
	case p.Max != nil:
		return fmt.Sprintf("must be <= %s", fmtNum(*p.Max))
	}
	return ""
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Coerce converts a decoded TOML value (int64, float64, bool, ...) to the
// parameter's type, then checks its bounds. An integral float is accepted
// for an integer key and an integer for a number key, as ZorkGPT's own
// loader does.
func (p *Param) Coerce(v any) (any, error) {
	var out any
	switch p.Type {
	case Int:
		switch x := v.(type) {
		case int:
			out = x
		case int64:
			out = int(x)
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, fmt.Errorf("must be an integer, got %v", x)
			}
			if x >= math.MaxInt64 || x < math.MinInt64 {
				return nil, fmt.Errorf("must be an integer that fits in 64 bits, got %v", x)
			}
			out = int(x)
		default:
			return nil, fmt.Errorf("must be an integer, got %s", describe(v))
		}
	case Float:
		switch x := v.(type) {
		case int:
			out = float64(x)
		case int64:
			out = float64(x)
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, fmt.Errorf("must be a finite number, got %v", x)
			}
			out = x
		default:
			return nil, fmt.Errorf("must be a number, got %s", describe(v))
		}
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("must be true or false, got %s", describe(v))
		}
		out = b
	}
	if err := p.check(out); err != nil {
		return nil, err
	}
	return out, nil
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case int64, int:
		return fmt.Sprintf("integer %v", x)
	case float64:
		return fmt.Sprintf("number %v", x)
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func (p *Param) check(v any) error {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case float64:
		f = x
	default:
		return nil
	}
	if (p.Min != nil && f < *p.Min) || (p.Max != nil && f > *p.Max) {
		return fmt.Errorf("%s, got %s", p.Constraint(), fmtNum(f))
	}
	return nil
}

// Parse reads a value written on the command line (--set, sweep grids).
func (p *Param) Parse(s string) (any, error) {
	s = strings.TrimSpace(s)
	switch p.Type {
	case Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("must be true or false, got %q", s)
		}
		return p.Coerce(b)
	case Int:
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return p.Coerce(i)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return p.Coerce(f)
		}
		return nil, fmt.Errorf("must be an integer, got %q", s)
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("must be a number, got %q", s)
		}
		return p.Coerce(f)
	}
}

// FormatValue writes a value as TOML would.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}
