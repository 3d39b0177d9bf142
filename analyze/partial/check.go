package partial

import (
	"fmt"
	"math"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
)

// CheckSettings are the flags that decide a check's verdict. The baseline
// is read by the merge, not the shards: a merged check compares the
// union of the shards with it as one run would, and --update writes it
// then.
type CheckSettings struct {
	Mode         string   `json:"mode"`
	Baseline     string   `json:"baseline"`
	Prune        bool     `json:"prune"`
	MaxFalseRate *float64 `json:"max_false_rate_pct"`
	MinSaved     *float64 `json:"min_saved_pct"`
	MaxForfeit   *float64 `json:"max_forfeit"`
	FailOn       []string `json:"fail_on"`
	// ConfigLine is the text report's second line (the shard knows the
	// configuration file's name; the merge only its values).
	ConfigLine string `json:"config_line,omitempty"`
}

// CheckBody is a check partial's body.
type CheckBody struct {
	Totals analyze.TotalsState `json:"totals"`
	// Entries are the shard's baseline entries (sources relative to the
	// baseline's directory, as a run writes them).
	Entries    []check.Entry     `json:"entries"`
	Errors     []Error           `json:"errors"`
	Unreadable map[string]string `json:"unreadable"`
	Diags      []check.Diag      `json:"diagnostics"`
	FailOn     []FailOn          `json:"fail_on"` // one per settings.FailOn
}

// FailOn is what a shard saw of one --fail-on gate.
type FailOn struct {
	Fired int     `json:"fired"`
	Where []Where `json:"where"`
}

// Where is an episode a --fail-on gate counted, and its file's position.
type Where struct {
	Log       int    `json:"log"`
	EpisodeID string `json:"episode_id"`
	N         int    `json:"n"`
}

// NewCheckBody is the body of a shard's check over set's files.
func NewCheckBody(col *check.Collected, set *LogSet) (*CheckBody, error) {
	body := &CheckBody{Entries: col.Current.Episodes, Errors: WalkErrors(set), Unreadable: col.Unreadable, Diags: col.Diags, FailOn: []FailOn{}}
	if body.Diags == nil {
		body.Diags = []check.Diag{}
	}
	var err error
	if body.Totals, err = col.Totals.State(); err != nil {
		return nil, err
	}
	for i, e := range col.Errors {
		body.Errors = append(body.Errors, Error{Log: set.Index[col.ErrorFile[i]], FileError: e})
	}
	for g, f := range col.FailOn {
		pf := FailOn{Fired: f.Fired, Where: []Where{}}
		for i, w := range f.Where {
			pf.Where = append(pf.Where, Where{Log: set.Index[col.WhereFile[g][i]], EpisodeID: w.EpisodeID, N: w.N})
		}
		body.FailOn = append(body.FailOn, pf)
	}
	return body, nil
}

// Check compares the union of check parts made with settings with the
// baseline and gates it, as check over every shard's logs does; every
// lists every drifted episode (check.Options.Every). Finish's errors are
// returned as they are; the parts' name the part.
func (m *Merger) Check(settings *CheckSettings, every bool) (*check.Result, error) {
	switch settings.Mode {
	case check.ModeCompare, check.ModeUpdate, check.ModeGatesOnly:
	default:
		return nil, fmt.Errorf("%s: check settings: unknown mode %q", m.names[0], settings.Mode)
	}
	cfg, err := m.parts[0].config()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", m.names[0], err)
	}
	var failOn []*check.FailOn
	for _, spec := range settings.FailOn {
		f, err := check.ParseFailOn(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.names[0], err)
		}
		failOn = append(failOn, f)
	}
	var (
		cols    []*check.Collected
		skipped []analyze.FileError // what the walk skipped, listed first
		sum     analyze.Totals      // as far as read: an overflow names its part
		fired   = make([]int, len(failOn))
		keys    = map[[2]string]int{} // source and episode → the part that has it
	)
	for i, p := range m.parts {
		var body CheckBody
		if err := p.decodeBody(&body); err != nil {
			return nil, fmt.Errorf("%s: %v", m.names[i], err)
		}
		if len(body.FailOn) != len(failOn) {
			return nil, fmt.Errorf("%s: %d fail-on observations, %d --fail-on gates", m.names[i], len(body.FailOn), len(failOn))
		}
		t, err := body.Totals.Totals()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.names[i], err)
		}
		if err := sum.MergeChecked(&t); err != nil {
			return nil, fmt.Errorf("%s: %v", m.names[i], err)
		}
		for j := range body.Entries {
			e := &body.Entries[j]
			if err := check.CheckEntry(j, e); err != nil {
				return nil, fmt.Errorf("%s: entries: %v", m.names[i], err)
			}
			key := [2]string{e.Source, e.EpisodeID}
			if prev, dup := keys[key]; dup {
				return nil, fmt.Errorf("%s: episode %s of %s is in %s too: a part is not the shard it says it is", m.names[i], e.EpisodeID, e.Source, m.names[prev])
			}
			keys[key] = i
		}
		if err := analyze.NonNegative(body.Diags); err != nil {
			return nil, fmt.Errorf("%s: diagnostics: %v", m.names[i], err)
		}
		col := &check.Collected{Current: &check.Baseline{Episodes: body.Entries}, Totals: t, Unreadable: body.Unreadable, Diags: body.Diags}
		for _, e := range body.Errors {
			if err := p.checkErrLog(e.Log); err != nil {
				return nil, fmt.Errorf("%s: error: %v", m.names[i], err)
			}
			if e.Log == -1 {
				skipped = append(skipped, e.FileError)
				continue
			}
			col.Errors = append(col.Errors, e.FileError)
			col.ErrorFile = append(col.ErrorFile, e.Log)
		}
		for g, pf := range body.FailOn {
			if pf.Fired < 0 || pf.Fired > math.MaxInt-fired[g] {
				return nil, fmt.Errorf("%s: fail-on: %d firings: negative or overflowing", m.names[i], pf.Fired)
			}
			fired[g] += pf.Fired
			f := &check.FailOn{Fired: pf.Fired}
			var files []int
			for _, w := range pf.Where {
				if err := p.checkLog(w.Log); err != nil {
					return nil, fmt.Errorf("%s: fail-on: %v", m.names[i], err)
				}
				if w.N < 0 {
					return nil, fmt.Errorf("%s: fail-on: episode %s: %d firings", m.names[i], w.EpisodeID, w.N)
				}
				f.Where = append(f.Where, check.EpisodeCount{EpisodeID: w.EpisodeID, N: w.N})
				files = append(files, w.Log)
			}
			col.FailOn = append(col.FailOn, f)
			col.WhereFile = append(col.WhereFile, files)
		}
		cols = append(cols, col)
	}
	merged := check.Merge(cfg, failOn, cols)
	// Scoped to the paths the shards were given (every shard is given the
	// same ones and picks its logs among them), not to a shard's logs:
	// the union of the shards is checked as one run over those paths.
	res, err := merged.Finish(check.Options{
		Config: cfg, Mode: settings.Mode, Baseline: settings.Baseline, Prune: settings.Prune, Skipped: skipped, Scope: m.Args,
		MaxFalseRatePct: settings.MaxFalseRate, MinSavedPct: settings.MinSaved, MaxForfeit: settings.MaxForfeit,
		FailOn: failOn, Every: every,
	})
	if err != nil {
		return nil, err
	}
	res.Errors = append(skipped, res.Errors...)
	return res, nil
}
