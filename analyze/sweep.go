package analyze

// Sweeps: one corpus, many configurations. A grid of values (Axis) expands
// into configurations (ExpandGrid); a Plan replays all of them over each
// parsed episode (Replayer), so a file is read once however many
// configurations there are; SweepFiles runs that on a bounded pool in
// input order; SweepTotals sums the results per configuration exactly as
// Totals sums analyze's outcomes; MarkPareto and Recommend read the rows.
//
// A Plan does not replay every rule for every configuration. Rules that
// require one another form components ({progress_velocity, stuck_warnings},
// {location_revisit}, {oscillation, camping, score_adjustment},
// {action_novelty}); a component's firings depend only on its own keys and
// on which of its rules are enabled, so it is replayed once per distinct
// projection of the configurations onto those, not once per configuration.
// A grid over max_turns_stuck replays the loop-detection rules once per
// episode. The tests hold sweep results equal to Analyze, key by key.

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/replay"
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
		var raw any
		if p.Type == rules.Int {
			raw = int64(math.Round(x))
		} else {
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

// ExpandGrid returns the cartesian product of the axes over base, in grid
// order (the first axis varies slowest), without the combinations that
// fail Config.Validate, which are returned apart with the reason.
func ExpandGrid(base *rules.Config, axes []Axis) ([]Point, []SkippedPoint, error) {
	if len(axes) == 0 {
		return nil, nil, fmt.Errorf("no key to sweep")
	}
	n := 1
	seen := map[string]bool{}
	for _, ax := range axes {
		if seen[ax.Key] {
			return nil, nil, fmt.Errorf("%s is swept twice", ax.Key)
		}
		seen[ax.Key] = true
		if len(ax.Values) == 0 {
			return nil, nil, fmt.Errorf("%s has no values", ax.Key)
		}
		n *= len(ax.Values)
		if n > MaxGridPoints {
			return nil, nil, fmt.Errorf("the grid has more than %d configurations", MaxGridPoints)
		}
	}
	var points []Point
	var skipped []SkippedPoint
	idx := make([]int, len(axes))
	for range n {
		params := make([]Setting, len(axes))
		cfg := base.Clone()
		for i, ax := range axes {
			params[i] = Setting{ax.Key, ax.Values[idx[i]]}
			if err := cfg.Set(ax.Key, ax.Values[idx[i]], rules.Source{Kind: "flag"}); err != nil {
				return nil, nil, err
			}
		}
		if err := cfg.Validate(); err != nil {
			skipped = append(skipped, SkippedPoint{Params: params, Reason: err.Error()})
		} else {
			points = append(points, Point{Params: params, Config: cfg})
		}
		for i := len(idx) - 1; i >= 0; i-- { // odometer: the last axis turns fastest
			idx[i]++
			if idx[i] < len(axes[i].Values) {
				break
			}
			idx[i] = 0
		}
	}
	return points, skipped, nil
}

// Result is what one configuration does to one episode: the fields of
// Outcome that Totals reads.
type Result struct {
	Terminated       bool
	TerminationTurn  int
	TurnsSaved       int
	LLMCallsSaved    int
	ScoreForfeited   float64
	FalseTermination bool
	Censored         bool
	Warnings         int // stuck_warnings/warning firings
	WouldReject      int
}

// Outcome classes of a Result, as --by-episode reports them.
const (
	ClassNever      = "never"             // no termination
	ClassTerminated = "terminated"        // terminated, no progress after
	ClassFalse      = "false_termination" // terminated, but the recording made progress after
	ClassCensored   = "censored"          // the live system stopped the recording first
)

// Class is the result's outcome class.
func (r *Result) Class() string {
	switch {
	case r.Censored:
		return ClassCensored
	case !r.Terminated:
		return ClassNever
	case r.FalseTermination:
		return ClassFalse
	}
	return ClassTerminated
}

// ResultOf extracts a Result from an analyze Outcome (tests compare the two).
func ResultOf(o *Outcome) Result {
	r := Result{
		TurnsSaved: o.TurnsSaved, LLMCallsSaved: o.LLMCallsSaved, ScoreForfeited: o.ScoreForfeited,
		FalseTermination: o.FalseTermination, Censored: o.Censored,
		Warnings: o.Counts[rules.Warning.Key()], WouldReject: o.WouldReject,
	}
	if o.Termination != nil {
		r.Terminated, r.TerminationTurn = true, o.Termination.Turn
	}
	return r
}

// Plan replays a list of configurations over episodes. It is read-only
// once built: each goroutine replays through its own Replayer.
type Plan struct {
	Configs []*rules.Config

	comps     []sweepComponent
	threshold []float64 // rejection_threshold per configuration
	objOn     []bool    // enable_objective_based_progress per configuration
}

// sweepComponent is a set of rules closed under Requires, with the
// distinct projections of the configurations onto what it reads.
type sweepComponent struct {
	rules []*rules.Rule
	reps  []*rules.Config // one configuration per distinct projection
	proj  []int           // configuration index → projection index
}

// NewPlan prepares the replay of configs (each already validated).
func NewPlan(configs []*rules.Config) *Plan {
	p := &Plan{Configs: configs}
	for _, c := range configs {
		p.threshold = append(p.threshold, rules.RejectionThreshold.Get(c))
		p.objOn = append(p.objOn, rules.EnableObjectiveBasedProgress.Get(c))
	}
	// Union-find over the registry by Requires.
	parent := map[string]string{}
	var find func(string) string
	find = func(n string) string {
		if parent[n] == n {
			return n
		}
		r := find(parent[n])
		parent[n] = r
		return r
	}
	for _, r := range rules.Registry {
		parent[r.Name] = r.Name
	}
	for _, r := range rules.Registry {
		for _, req := range r.Requires {
			parent[find(r.Name)] = find(req.Name)
		}
	}
	byRoot := map[string]int{}
	for _, r := range rules.Registry { // registry order keeps requirements first
		root := find(r.Name)
		i, ok := byRoot[root]
		if !ok {
			i = len(p.comps)
			byRoot[root] = i
			p.comps = append(p.comps, sweepComponent{})
		}
		p.comps[i].rules = append(p.comps[i].rules, r)
	}
	for ci := range p.comps {
		comp := &p.comps[ci]
		seen := map[string]int{}
		for _, c := range configs {
			var b strings.Builder
			for _, r := range comp.rules {
				fmt.Fprintf(&b, "%s:%v;", r.Name, r.Enabled(c))
				for _, prm := range r.Params {
					fmt.Fprintf(&b, "%s=%#v;", prm.Key, c.Value(prm.Key))
				}
			}
			k := b.String()
			j, ok := seen[k]
			if !ok {
				j = len(comp.reps)
				seen[k] = j
				comp.reps = append(comp.reps, c)
			}
			comp.proj = append(comp.proj, j)
		}
	}
	return p
}

// Replays is how many component replays the plan runs per episode (one
// full analyze is len(components)); benchmarks report it.
func (p *Plan) Replays() int {
	n := 0
	for i := range p.comps {
		n += len(p.comps[i].reps)
	}
	return n
}

// sweepCompOut is what one replay of a component yields.
type sweepCompOut struct {
	term      bool
	termTurn  int
	termScore float64
	warnings  int
	rejected  int       // score adjustments that reject
	revisit   []float64 // adjusted confidences of revisit penalties (logged confidence), sorted
}

// Replayer replays a Plan; it keeps scratch space, so one per goroutine.
type Replayer struct {
	p                *Plan
	outs             [][]sweepCompOut
	cur              *sweepCompOut
	report           func(rules.Firing)
	sufCalls, sufRej []int
}

// NewReplayer returns a Replayer for p.
func (p *Plan) NewReplayer() *Replayer {
	r := &Replayer{p: p, outs: make([][]sweepCompOut, len(p.comps))}
	for i := range p.comps {
		r.outs[i] = make([]sweepCompOut, len(p.comps[i].reps))
	}
	r.report = r.count
	return r
}

func (r *Replayer) count(f rules.Firing) {
	o := r.cur
	switch f.Rule {
	case rules.ProgressVelocity:
		if f.Kind == rules.Termination && !o.term {
			o.term, o.termTurn, o.termScore = true, f.Turn, f.Score
		}
	case rules.StuckWarnings:
		if f.Kind == rules.Warning {
			o.warnings++
		}
	case rules.ScoreAdjustment:
		if f.Rejected {
			o.rejected++
		}
	case rules.LocationRevisit:
		// NaN is never below a threshold; keep it out of the sorted list.
		if f.HasBase && !math.IsNaN(f.Adjusted) {
			o.revisit = append(o.revisit, f.Adjusted)
		}
	}
}

// Replay computes every configuration's Result for ep into out, which
// must have len(p.Configs) entries.
func (r *Replayer) Replay(ep *replay.Episode, out []Result) {
	p := r.p
	for ci := range p.comps {
		comp := &p.comps[ci]
		for j, cfg := range comp.reps {
			o := &r.outs[ci][j]
			*o = sweepCompOut{revisit: o.revisit[:0]}
			r.cur = o
			rules.Run(ep, cfg, comp.rules, r.report)
			if len(o.revisit) > 1 {
				sort.Float64s(o.revisit)
			}
		}
	}
	r.cur = nil
	recorded := ep.RecordedTurns()
	final := ep.FinalScore()
	prepared := false
	lastDiff := -1 // index of the last turn whose score differs from the turn before
	for c := range p.Configs {
		res := Result{}
		var term *sweepCompOut
		for ci := range p.comps {
			o := &r.outs[ci][p.comps[ci].proj[c]]
			if o.term && term == nil {
				term = o
			}
			res.Warnings += o.warnings
			res.WouldReject += o.rejected + sort.SearchFloat64s(o.revisit, p.threshold[c])
		}
		if ep.HasLiveStop && (term == nil || ep.LiveStopTurn < term.termTurn) {
			res.Censored = true
		}
		if term != nil {
			if !prepared {
				lastDiff = r.prepare(ep)
				prepared = true
			}
			T := term.termTurn
			idx := T - ep.Turns[0].N
			res.Terminated, res.TerminationTurn = true, T
			res.TurnsSaved = recorded - T
			res.ScoreForfeited = final - term.termScore
			res.FalseTermination = lastDiff > idx
			if p.objOn[c] {
				if n := len(ep.ObjectiveTurns); n > 0 && ep.ObjectiveTurns[n-1] > T {
					res.FalseTermination = true
				}
			}
			if ep.LLMCallsLogged {
				res.LLMCallsSaved = ep.TailLLMCalls + r.sufCalls[idx+1]
			} else {
				res.LLMCallsSaved = 4*res.TurnsSaved + 2*(ep.TailRejections+r.sufRej[idx+1])
			}
		}
		out[c] = res
	}
}

// prepare fills the suffix sums of LLM calls and rejections (index i: the
// turns from i on) and returns the index of the last score change.
func (r *Replayer) prepare(ep *replay.Episode) int {
	n := len(ep.Turns)
	if cap(r.sufCalls) < n+1 {
		r.sufCalls, r.sufRej = make([]int, n+1), make([]int, n+1)
	}
	r.sufCalls, r.sufRej = r.sufCalls[:n+1], r.sufRej[:n+1]
	r.sufCalls[n], r.sufRej[n] = 0, 0
	last := -1
	for i := n - 1; i >= 0; i-- {
		t := &ep.Turns[i]
		r.sufCalls[i] = r.sufCalls[i+1] + t.LLMCalls
		r.sufRej[i] = r.sufRej[i+1] + t.Rejections
		if last < 0 && i > 0 && t.Score != ep.Turns[i-1].Score {
			last = i
		}
	}
	return last
}

// SweptEpisode is one episode's results, without its turn table.
type SweptEpisode struct {
	ID, Source    string
	RecordedTurns int
	Diag          replay.Diagnostics
	Results       []Result // one per Plan configuration
}

// SweptFile is one log file: its episodes' results, or why it could not
// be read (as FileResult).
type SweptFile struct {
	Path     string
	Episodes []SweptEpisode
	Err      error
}

// SweepFiles reads each file once on a bounded pool of workers, replays
// plan over its episodes on the worker, and calls emit for each file in
// input order whatever the scheduling. Turn tables are dropped as soon as
// their episode is replayed; at most 2×workers files' results are held.
// emit runs on the caller's goroutine; returning false stops early.
func SweepFiles(files []string, stdin io.Reader, opts replay.Options, workers int, plan *Plan, emit func(SweptFile) bool) {
	inOrder(len(files), workers, func() func(int) SweptFile {
		rp := plan.NewReplayer() // scratch space: one per worker
		return func(i int) SweptFile {
			eps, err := replay.ReadFile(files[i], stdin, opts)
			sf := SweptFile{Path: files[i], Err: err, Episodes: make([]SweptEpisode, len(eps))}
			for k, ep := range eps {
				se := &sf.Episodes[k]
				se.ID, se.Source, se.RecordedTurns, se.Diag = ep.ID, ep.Source, ep.RecordedTurns(), ep.Diag
				se.Results = make([]Result, len(plan.Configs))
				rp.Replay(ep, se.Results)
				eps[k] = nil // let the turn table go
			}
			return sf
		}
	}, emit)
}

// SweepTotals sums Results per configuration as Totals sums outcomes, with
// a histogram of turns saved instead of the list (memory bounded by the
// longest episode, not the corpus).
type SweepTotals struct {
	rows []sweepAcc
}

type sweepAcc struct {
	t    Totals
	hist map[int]int
}

// NewSweepTotals starts totals for n configurations.
func NewSweepTotals(n int) *SweepTotals {
	s := &SweepTotals{rows: make([]sweepAcc, n)}
	for i := range s.rows {
		s.rows[i].hist = map[int]int{}
	}
	return s
}

// Add accumulates one episode (every configuration).
func (s *SweepTotals) Add(e *SweptEpisode) {
	for i := range s.rows {
		a := &s.rows[i]
		r := &e.Results[i]
		t := &a.t
		t.Episodes++
		t.RecordedTurns += e.RecordedTurns
		t.LinesSkipped += e.Diag.Skipped
		t.Warnings += r.Warnings
		t.WouldReject += r.WouldReject
		if r.Censored {
			t.Censored++
		}
		if !r.Terminated {
			continue
		}
		t.Terminated++
		t.TurnsSaved += r.TurnsSaved
		t.LLMCallsSaved += r.LLMCallsSaved
		t.ScoreForfeited += r.ScoreForfeited
		a.hist[r.TurnsSaved]++
		if r.FalseTermination {
			t.FalseTerminations++
		}
	}
}

// Totals returns the finished totals of configuration i.
func (s *SweepTotals) Totals(i int) Totals {
	a := &s.rows[i]
	t := a.t
	t.TurnsSavedPct = pct(t.TurnsSaved, t.RecordedTurns)
	t.FalseRatePct = pct(t.FalseTerminations, t.Terminated)
	t.MedianTurnsSaved = histMedian(a.hist, t.Terminated)
	return t
}

// histMedian is median() over a histogram of n values.
func histMedian(h map[int]int, n int) float64 {
	if n == 0 {
		return 0
	}
	keys := make([]int, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	kth := func(k int) int { // 0-based
		for _, v := range keys {
			if k < h[v] {
				return v
			}
			k -= h[v]
		}
		return keys[len(keys)-1]
	}
	m := n / 2
	if n%2 == 1 {
		return float64(kth(m))
	}
	return float64(kth(m-1)+kth(m)) / 2
}

// SweepRow is one configuration's totals in a sweep report. Row 0 is the
// baseline (the base configuration); Params are the swept keys.
type SweepRow struct {
	Baseline    bool
	Params      []Setting
	Totals      Totals
	Pareto      bool
	Recommended bool
}

// RowLabel names a row for people: "baseline" or "#3".
func RowLabel(rows []SweepRow, i int) string {
	if rows[i].Baseline {
		return "baseline"
	}
	return "#" + strconv.Itoa(i)
}

// dominates says whether a is at least as good as b on turns saved, false
// terminations and score forfeited, and strictly better on one.
func dominates(a, b *Totals) bool {
	if a.TurnsSaved < b.TurnsSaved || a.FalseTerminations > b.FalseTerminations || a.ScoreForfeited > b.ScoreForfeited {
		return false
	}
	return a.TurnsSaved > b.TurnsSaved || a.FalseTerminations < b.FalseTerminations || a.ScoreForfeited < b.ScoreForfeited
}

// MarkPareto sets Pareto on the rows no other row dominates (the baseline
// takes part).
func MarkPareto(rows []SweepRow) {
	for i := range rows {
		rows[i].Pareto = true
		for j := range rows {
			if j != i && dominates(&rows[j].Totals, &rows[i].Totals) {
				rows[i].Pareto = false
				break
			}
		}
	}
}

// TargetFalseRatePct is the ZorkGPT authors' target for false terminations
// ("under 5%"), used to choose from the frontier without --max-false-rate.
const TargetFalseRatePct = 5.0

// Recommendation criteria.
const (
	CriterionMaxFalseRate = "max_false_rate" // most turns saved within a false-termination rate
	CriterionFrontier     = "frontier"       // from the Pareto frontier, against ZorkGPT's target
)

// Recommendation is the configuration a sweep recommends and why.
type Recommendation struct {
	Row             int // index into the rows; -1 when none qualifies
	Criterion       string
	MaxFalseRatePct float64 // the limit applied (the target for CriterionFrontier)
	Reason          string  // one sentence
}

// sweepEps absorbs float noise when comparing rates built from counts.
const sweepEps = 1e-9

// within says whether a row's false-termination rate is at most pct
// percent (below it when strict).
func within(t *Totals, pct float64, strict bool) bool {
	if t.FalseTerminations == 0 {
		return true // nothing terminated falsely, whatever was terminated
	}
	if strict {
		return float64(t.FalseTerminations)*100 < pct*float64(t.Terminated)-sweepEps
	}
	return float64(t.FalseTerminations)*100 <= pct*float64(t.Terminated)+sweepEps
}

// better orders candidates: more turns saved, then fewer false
// terminations, then less score forfeited; earlier rows win ties.
func better(a, b *Totals) bool {
	if a.TurnsSaved != b.TurnsSaved {
		return a.TurnsSaved > b.TurnsSaved
	}
	if a.FalseTerminations != b.FalseTerminations {
		return a.FalseTerminations < b.FalseTerminations
	}
	return a.ScoreForfeited < b.ScoreForfeited
}

// Recommend chooses a row and sets its Recommended flag. Rows must have
// Pareto marked. With maxFalseRatePct (non-nil) it is the row saving the
// most turns whose false-termination rate is at most that; without, the
// Pareto-efficient row saving the most turns under ZorkGPT's 5% target,
// or, when none is under it, the efficient row with the lowest rate.
func Recommend(rows []SweepRow, maxFalseRatePct *float64) Recommendation {
	best := -1
	if maxFalseRatePct != nil {
		limit := *maxFalseRatePct
		n := 0
		for i := range rows {
			if !within(&rows[i].Totals, limit, false) {
				continue
			}
			n++
			if best < 0 || better(&rows[i].Totals, &rows[best].Totals) {
				best = i
			}
		}
		rec := Recommendation{Row: best, Criterion: CriterionMaxFalseRate, MaxFalseRatePct: limit}
		if best < 0 {
			low := 0
			for i := range rows {
				if rows[i].Totals.FalseRatePct < rows[low].Totals.FalseRatePct {
					low = i
				}
			}
			rec.Reason = fmt.Sprintf("No configuration keeps false terminations at or below %s of terminated episodes; the lowest rate, %s, is that of %s.",
				fmtPct(limit), fmtPct(rows[low].Totals.FalseRatePct), describeRow(rows, low))
			return rec
		}
		rows[best].Recommended = true
		t := &rows[best].Totals
		rec.Reason = fmt.Sprintf("%s saves the most turns, %d (%s of recorded turns), of the %s whose false terminations stay at or below %s of terminated episodes (its own: %d of %d, %s; score forfeited %s).",
			capitalize(describeRow(rows, best)), t.TurnsSaved, fmtPct(t.TurnsSavedPct), plural(n, "configuration", "configurations"),
			fmtPct(limit), t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct), fmtNum(t.ScoreForfeited))
		return rec
	}

	rec := Recommendation{Criterion: CriterionFrontier, MaxFalseRatePct: TargetFalseRatePct}
	under := false
	for i := range rows {
		if !rows[i].Pareto || !within(&rows[i].Totals, TargetFalseRatePct, true) {
			continue
		}
		if best < 0 || better(&rows[i].Totals, &rows[best].Totals) {
			best, under = i, true
		}
	}
	if best < 0 { // nothing under the target: the lowest rate on the frontier
		for i := range rows {
			if !rows[i].Pareto {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			a, b := &rows[i].Totals, &rows[best].Totals
			// compare rates exactly: a.F/a.T against b.F/b.T (both T > 0
			// here: a row with no false termination is under the target)
			l, r := a.FalseTerminations*b.Terminated, b.FalseTerminations*a.Terminated
			if l < r || (l == r && better(a, b)) {
				best = i
			}
		}
	}
	rec.Row = best
	if best < 0 {
		rec.Reason = "No configuration to recommend."
		return rec
	}
	rows[best].Recommended = true
	t := &rows[best].Totals
	var b strings.Builder
	if under {
		fmt.Fprintf(&b, "%s saves the most turns, %d (%s of recorded turns), of the Pareto-efficient configurations that keep false terminations under ZorkGPT's %s target (%d of %d, %s; score forfeited %s)",
			capitalize(describeRow(rows, best)), t.TurnsSaved, fmtPct(t.TurnsSavedPct), fmtPct(TargetFalseRatePct),
			t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct), fmtNum(t.ScoreForfeited))
	} else {
		fmt.Fprintf(&b, "No Pareto-efficient configuration keeps false terminations under ZorkGPT's %s target; %s has the lowest rate (%d of %d, %s) and saves %d turns (%s; score forfeited %s)",
			fmtPct(TargetFalseRatePct), describeRow(rows, best), t.FalseTerminations, t.Terminated, fmtPct(t.FalseRatePct),
			t.TurnsSaved, fmtPct(t.TurnsSavedPct), fmtNum(t.ScoreForfeited))
	}
	// The trade-off: the next efficient row saving more turns.
	next := -1
	for i := range rows {
		if !rows[i].Pareto || rows[i].Totals.TurnsSaved <= t.TurnsSaved {
			continue
		}
		if next < 0 || rows[i].Totals.TurnsSaved < rows[next].Totals.TurnsSaved ||
			(rows[i].Totals.TurnsSaved == rows[next].Totals.TurnsSaved && better(&rows[i].Totals, &rows[next].Totals)) {
			next = i
		}
	}
	if next < 0 {
		b.WriteString("; no efficient configuration saves more turns.")
	} else {
		n := &rows[next].Totals
		fmt.Fprintf(&b, "; the next efficient one, %s, would save %d more turns but has %s (%s) and score forfeited %s.",
			describeRow(rows, next), n.TurnsSaved-t.TurnsSaved, plural(n.FalseTerminations, "false termination", "false terminations"),
			fmtPct(n.FalseRatePct), fmtNum(n.ScoreForfeited))
	}
	rec.Reason = b.String()
	return rec
}

// describeRow is "#3 (max_turns_stuck=50, stuck_check_interval=10)" or
// "the baseline (max_turns_stuck=40)".
func describeRow(rows []SweepRow, i int) string {
	var ps []string
	for _, s := range rows[i].Params {
		ps = append(ps, s.String())
	}
	label := RowLabel(rows, i)
	if rows[i].Baseline {
		label = "the baseline"
	}
	if len(ps) == 0 {
		return label
	}
	return label + " (" + strings.Join(ps, ", ") + ")"
}

func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// fmtPct writes a percentage with at most one decimal: "5%", "12.3%".
func fmtPct(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// EpisodeFlip is an episode whose outcome class differs between rows.
type EpisodeFlip struct {
	EpisodeID, Source string
	Outcomes          []Result // one per row
}

// Flips says whether the results of one episode change class across rows.
func Flips(results []Result) bool {
	for i := 1; i < len(results); i++ {
		if results[i].Class() != results[0].Class() {
			return true
		}
	}
	return false
}
