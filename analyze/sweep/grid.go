package sweep

// Grids: values per key (Axis) and their cartesian product over a base
// configuration (ExpandGrid).

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/rules"
)

// Limits on a grid, so a typo in a range cannot start an endless run.
const (
	MaxAxisValues = 1000  // values one key may take
	MaxGridPoints = 10000 // configurations in the cartesian product
)

// Setting is one key and its value in a grid point.
type Setting struct {
	Key   string
	Value any // int, float64 or bool
}

// String writes key=value as --set takes it.
func (s Setting) String() string { return s.Key + "=" + rules.FormatValue(s.Value) }

// Axis is one swept key and its values, in the order given.
type Axis struct {
	Key    string
	Values []any
}

// ParseAxis reads the values of a key: a comma-separated list whose items
// are values ("30", "0.5", "true") or inclusive ranges "start:stop:step"
// (numeric keys only), e.g. "20:80:5" or "30,40,50" or "10,20:40:10".
// Every value must satisfy the key's bounds; repeated values are kept once.
func ParseAxis(key, spec string) (Axis, error) {
	p, ok := rules.LookupParam(key)
	if !ok {
		// rules words it, with its did-you-mean: unknown key "max_turns_stuk"
		// (did you mean max_turns_stuck?)
		return Axis{}, rules.Default().Set(key, nil, rules.Source{})
	}
	ax := Axis{Key: key}
	seen := map[any]bool{}
	add := func(v any) error {
		if seen[v] {
			return nil
		}
		if len(ax.Values) == MaxAxisValues {
			return fmt.Errorf("more than %d values", MaxAxisValues)
		}
		seen[v] = true
		ax.Values = append(ax.Values, v)
		return nil
	}
	if strings.TrimSpace(spec) == "" {
		return Axis{}, fmt.Errorf("no values")
	}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return Axis{}, fmt.Errorf("empty value in the list")
		}
		if !strings.Contains(item, ":") {
			v, err := p.Parse(item)
			if err != nil {
				return Axis{}, err
			}
			if err := add(v); err != nil {
				return Axis{}, err
			}
			continue
		}
		vals, err := parseRange(p, item)
		if err != nil {
			return Axis{}, err
		}
		for _, v := range vals {
			if err := add(v); err != nil {
				return Axis{}, err
			}
		}
	}
	return ax, nil
}

// parseRange expands "start:stop:step", stop included when on a step.
func parseRange(p *rules.Param, item string) ([]any, error) {
	parts := strings.Split(item, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("range %q: want start:stop:step", item)
	}
	if p.Type == rules.Bool {
		return nil, fmt.Errorf("range %q: %s is a boolean; give true,false", item, p.Key)
	}
	var num [3]float64
	for i, s := range parts {
		s = strings.TrimSpace(s)
		parts[i] = s
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("range %q: %q is not a number", item, s)
		}
		if p.Type == rules.Int && f != math.Trunc(f) {
			return nil, fmt.Errorf("range %q: %s is an integer key, got %s", item, p.Key, s)
		}
		num[i] = f
	}
	start, stop, step := num[0], num[1], num[2]
	if step <= 0 {
		return nil, fmt.Errorf("range %q: step must be positive", item)
	}
	if start > stop {
		return nil, fmt.Errorf("range %q: start is above stop", item)
	}
	if (stop-start)/step >= MaxAxisValues {
		return nil, fmt.Errorf("range %q: more than %d values", item, MaxAxisValues)
	}
	// Round float values to the decimals written, so 0.1:0.5:0.1 gives
	// 0.3, not 0.30000000000000004.
	dec := 0
	for _, s := range parts {
		if i := strings.IndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s, "eE") {
			dec = max(dec, len(s)-i-1)
		}
	}
	scale := math.Pow(10, float64(dec))
	var out []any
	for i := 0; ; i++ {
		x := start + float64(i)*step
		if x > stop+step*1e-9 {
			break
		}
		// Coerce range-checks the float before converting it: a range
		// near 1e300 is refused by its bounds, not wrapped into an int.
		raw := math.Round(x)
		if p.Type != rules.Int {
			raw = math.Round(x*scale) / scale
		}
		v, err := p.Coerce(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Point is one configuration of a grid: the swept settings in axis order
// and the full configuration (base plus those settings).
type Point struct {
	Params []Setting
	Config *rules.Config
}

// SkippedPoint is a combination that violates a cross-key constraint.
type SkippedPoint struct {
	Params []Setting
	Reason string
}

// grid is the cartesian product of axes over a base configuration,
// enumerated by index (the first axis varies slowest) rather than
// materialised: a point's configuration exists only while it is looked at,
// so 10,000 points cost no more than one.
type grid struct {
	base *rules.Config
	axes []Axis
	n    int
}

// newGrid checks the axes: at least one, none twice, none empty, at most
// MaxGridPoints points.
func newGrid(base *rules.Config, axes []Axis) (*grid, error) {
	if len(axes) == 0 {
		return nil, fmt.Errorf("no key to sweep")
	}
	n := 1
	seen := map[string]bool{}
	for _, ax := range axes {
		if seen[ax.Key] {
			return nil, fmt.Errorf("%s is swept twice", ax.Key)
		}
		seen[ax.Key] = true
		if len(ax.Values) == 0 {
			return nil, fmt.Errorf("%s has no values", ax.Key)
		}
		n *= len(ax.Values)
		if n > MaxGridPoints {
			return nil, fmt.Errorf("the grid has more than %d configurations", MaxGridPoints)
		}
	}
	return &grid{base: base, axes: axes, n: n}, nil
}

// settings writes point k's settings into params (len(axes) entries).
func (g *grid) settings(k int, params []Setting) {
	for i := len(g.axes) - 1; i >= 0; i-- { // the last axis turns fastest
		ax := &g.axes[i]
		params[i] = Setting{ax.Key, ax.Values[k%len(ax.Values)]}
		k /= len(ax.Values)
	}
}

// each calls valid or skipped for every point in grid order: valid with
// the point's index and a configuration that holds only during the
// call, skipped with the point's settings and reason.
func (g *grid) each(valid func(k int, cfg *rules.Config) error, skipped func(SkippedPoint)) error {
	cfg := g.base.Clone()
	params := make([]Setting, len(g.axes))
	for k := range g.n {
		g.settings(k, params)
		// Every point sets every swept key, so cfg is the base plus
		// point k.
		for _, s := range params {
			if err := cfg.Set(s.Key, s.Value, rules.Source{Kind: "flag"}); err != nil {
				return err
			}
		}
		if err := cfg.Validate(); err != nil {
			skipped(SkippedPoint{Params: slices.Clone(params), Reason: err.Error()})
			continue
		}
		if err := valid(k, cfg); err != nil {
			return err
		}
	}
	return nil
}

// rows lays out the rows of the points listed (grid indexes): the
// baseline's, with the base's values of the swept keys, then one per
// point, in order. Their settings share a few allocations.
func (g *grid) rows(points []int32) []Row {
	na := len(g.axes)
	rows := make([]Row, 1+len(points))
	rows[0].Baseline = true
	slab := make([]Setting, na*len(rows))
	for i, ax := range g.axes {
		slab[i] = Setting{Key: ax.Key, Value: g.base.Value(ax.Key)}
	}
	rows[0].Params = slab[:na:na]
	for i, k := range points {
		params := slab[(i+1)*na : (i+2)*na : (i+2)*na]
		g.settings(int(k), params)
		rows[i+1].Params = params
	}
	return rows
}

// ExpandGrid returns the cartesian product of the axes over base, in grid
// order (the first axis varies slowest), without the combinations that
// fail Config.Validate, which are returned apart with the reason. Each
// point holds its own configuration; Run enumerates the grid instead.
func ExpandGrid(base *rules.Config, axes []Axis) ([]Point, []SkippedPoint, error) {
	g, err := newGrid(base, axes)
	if err != nil {
		return nil, nil, err
	}
	var points []Point
	var skipped []SkippedPoint
	err = g.each(func(k int, cfg *rules.Config) error {
		params := make([]Setting, len(axes))
		g.settings(k, params)
		points = append(points, Point{Params: params, Config: cfg.Clone()})
		return nil
	}, func(s SkippedPoint) { skipped = append(skipped, s) })
	if err != nil {
		return nil, nil, err
	}
	return points, skipped, nil
}
