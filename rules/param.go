package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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

	// Unread is set for a key ZorkGPT's loader does not read: what the
	// live agent does instead, whatever the key says. loopbreak still
	// honours the key (a what-if) and warns when a pyproject.toml sets it.
	Unread string

	// Seconds marks an integer key counted in seconds that also accepts a
	// Go duration string ("1h", "90m") in TOML and on the command line.
	Seconds bool
}

// param gives generic helpers the *Param inside a typed key.
func (p *Param) param() *Param { return p }

// unread marks a key ZorkGPT does not read (see Param.Unread).
func unread[P interface{ param() *Param }](p P, live string) P {
	p.param().Unread = live
	return p
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

// secondsParam is an integer key in seconds (see Param.Seconds), for a
// rule outside ZorkGPT. Its rule multiplies it into a time.Duration, so
// it is never above MaxSeconds, whatever max says: a larger value would
// wrap to a negative Duration after its bounds were checked.
func secondsParam(key string, def int, doc string, min, max *float64) IntParam {
	if max == nil || *max > MaxSeconds {
		max = bound(MaxSeconds)
	}
	return IntParam{&Param{Key: key, Doc: doc, Type: Int, Default: def, Min: min, Max: max, Seconds: true, Unread: notZorkGPT}}
}

// MaxSeconds is the most whole seconds a time.Duration holds
// (9,223,372,036: some 292 years).
const MaxSeconds = float64(math.MaxInt64 / int64(time.Second))

// durationSeconds reads a duration string as whole seconds.
func durationSeconds(s string) (int, bool) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d%time.Second != 0 {
		return 0, false
	}
	return int(d / time.Second), true
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
		return fmt.Sprintf("must be in [%s, %s]", FormatBound(*p.Min), FormatBound(*p.Max))
	case p.Min != nil:
		return fmt.Sprintf("must be >= %s", FormatBound(*p.Min))
	case p.Max != nil:
		return fmt.Sprintf("must be <= %s", FormatBound(*p.Max))
	}
	return ""
}

// FormatBound writes a bound or value: whole numbers in full (9223372036, not
// 9.223372036e+09), others as short as they read back.
func FormatBound(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Coerce converts a decoded TOML value (int64, float64, bool, string, ...)
// to the parameter's type, then checks its bounds. It accepts what
// ZorkGPT's loader (pydantic, lax mode) accepts; see coerce.
func (p *Param) Coerce(v any) (any, error) {
	out, _, err := p.coerce(v)
	return out, err
}

// coerce is Coerce that also says which coercion it applied ("" when v
// already had the key's TOML type), for the note LoadFile writes: pydantic
// accepts these silently, so a user may not know ZorkGPT reads "40" as 40.
//   - integer key: an integral float (40.0), a string of an integer ("40");
//   - number key: an integer (TOML's own 0 for 0.0, no note), a string of a
//     finite number ("-0.2");
//   - boolean key: the integers 0 and 1, and the strings true/false,
//     yes/no, on/off, t/f, y/n, 1/0 in any case.
func (p *Param) coerce(v any) (out any, how string, err error) {
	switch p.Type {
	case Int:
		switch x := v.(type) {
		case int:
			out = x
		case int64:
			out = int(x)
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, "", fmt.Errorf("must be an integer, got %v", x)
			}
			if x >= math.MaxInt64 || x < math.MinInt64 {
				return nil, "", fmt.Errorf("must be an integer that fits in 64 bits, got %v", x)
			}
			out, how = int(x), "a float"
		case string:
			i, perr := strconv.Atoi(x)
			if perr != nil && p.Seconds {
				if secs, ok := durationSeconds(x); ok {
					out = secs
					break
				}
				return nil, "", fmt.Errorf("must be an integer (seconds) or a duration such as \"1h\", got %s", describe(v))
			}
			if perr != nil {
				return nil, "", fmt.Errorf("must be an integer, got %s", describe(v))
			}
			out, how = i, "a string"
		default:
			return nil, "", fmt.Errorf("must be an integer, got %s", describe(v))
		}
	case Float:
		switch x := v.(type) {
		case int:
			out = float64(x)
		case int64:
			out = float64(x)
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, "", fmt.Errorf("must be a finite number, got %v", x)
			}
			out = x
		case string:
			f, perr := strconv.ParseFloat(x, 64)
			if perr != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, "", fmt.Errorf("must be a number, got %s", describe(v))
			}
			out, how = f, "a string"
		default:
			return nil, "", fmt.Errorf("must be a number, got %s", describe(v))
		}
	case Bool:
		switch x := v.(type) {
		case bool:
			out = x
		case int64, int:
			switch fmt.Sprint(x) {
			case "0":
				out, how = false, "an integer"
			case "1":
				out, how = true, "an integer"
			default:
				return nil, "", fmt.Errorf("must be true or false, got %s", describe(v))
			}
		case string:
			b, ok := boolWords[strings.ToLower(x)]
			if !ok {
				return nil, "", fmt.Errorf("must be true or false, got %s", describe(v))
			}
			out, how = b, "a string"
		default:
			return nil, "", fmt.Errorf("must be true or false, got %s", describe(v))
		}
	}
	if err := p.check(out); err != nil {
		return nil, "", err
	}
	return out, how, nil
}

// boolWords are the strings pydantic reads as booleans, in lower case.
var boolWords = map[string]bool{
	"true": true, "yes": true, "on": true, "t": true, "y": true, "1": true,
	"false": false, "no": false, "off": false, "f": false, "n": false, "0": false,
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
		return fmt.Errorf("%s, got %s", p.Constraint(), FormatBound(f))
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
		if p.Seconds {
			if secs, ok := durationSeconds(s); ok {
				return p.Coerce(secs)
			}
			return nil, fmt.Errorf("must be an integer (seconds) or a duration such as \"1h\", got %q", s)
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
