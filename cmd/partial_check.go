package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// checkSettings are the flags that decide a check's verdict. The baseline
// is read by the merge, not the shards: a merged check compares the
// union of the shards with it as one run would, and --update writes it
// then.
type checkSettings struct {
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

type checkBody struct {
	Totals analyze.TotalsState `json:"totals"`
	// Entries are the shard's baseline entries (sources relative to the
	// baseline's directory, as a run writes them).
	Entries    []check.Entry     `json:"entries"`
	Errors     []partialError    `json:"errors"`
	Unreadable map[string]string `json:"unreadable"`
	Diags      []check.Diag      `json:"diagnostics"`
	FailOn     []partialFailOn   `json:"fail_on"` // one per settings.FailOn
}

type partialFailOn struct {
	Fired int            `json:"fired"`
	Where []partialWhere `json:"where"`
}

type partialWhere struct {
	Log       int    `json:"log"`
	EpisodeID string `json:"episode_id"`
	N         int    `json:"n"`
}

// checkPartialRun is check --partial: the shard's replay, not compared.
func checkPartialRun(opts *CheckOptions, cfg *rules.Config, cfgPath, mode string) error {
	set, err := opts.Input.findShard(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	settings := checkSettings{ConfigLine: report.ConfigLine(cfgPath, cfg), Mode: mode, Baseline: opts.Baseline, Prune: opts.Prune, MaxFalseRate: opts.MaxFalseRate.Ptr(), MinSaved: opts.MinSaved.Ptr(), MaxForfeit: opts.MaxForfeit.Ptr(), FailOn: []string{}}
	for _, f := range opts.failOn {
		settings.FailOn = append(settings.FailOn, f.Spec)
	}
	p, err := newPartial("check", settings, cfg, &opts.Input, set)
	if err != nil {
		return err
	}
	col, err := check.Collect(check.Options{
		Files: set.Files, Stdin: opts.IO.In, Read: opts.Input.options(), Workers: opts.Input.Jobs,
		Config: cfg, Mode: mode, Baseline: opts.Baseline, FailOn: opts.failOn,
		OnFileError: func(_ string, err error) { reportFileError(opts.IO, err) },
	})
	if err != nil {
		return err
	}
	body := checkBody{Entries: col.Current.Episodes, Errors: walkErrors(set), Unreadable: col.Unreadable, Diags: col.Diags, FailOn: []partialFailOn{}}
	if body.Diags == nil {
		body.Diags = []check.Diag{}
	}
	if body.Totals, err = col.Totals.State(); err != nil {
		return err
	}
	for i, e := range col.Errors {
		body.Errors = append(body.Errors, partialError{Log: set.Index[col.ErrorFile[i]], FileError: e})
	}
	for g, f := range col.FailOn {
		pf := partialFailOn{Fired: f.Fired, Where: []partialWhere{}}
		for i, w := range f.Where {
			pf.Where = append(pf.Where, partialWhere{Log: set.Index[col.WhereFile[g][i]], EpisodeID: w.EpisodeID, N: w.N})
		}
		body.FailOn = append(body.FailOn, pf)
	}
	return p.write(opts.IO.Out, opts.Partial.Output, body)
}

// mergeCheck compares the union of the shards with the baseline and
// gates it, as check over every shard's logs does.
func mergeCheck(opts *MergeOptions, parts []*partialFile, names []string) error {
	format := opts.Format
	if format == "" {
		format = "text"
	}
	if err := checkFormat(format, "text", "json", "junit", "github", "markdown"); err != nil {
		return err
	}
	var settings checkSettings
	if err := json.Unmarshal(parts[0].Settings, &settings); err != nil {
		return fmt.Errorf("%s: check settings: %v", names[0], err)
	}
	switch settings.Mode {
	case check.ModeCompare, check.ModeUpdate, check.ModeGatesOnly:
	default:
		return fmt.Errorf("%s: check settings: unknown mode %q", names[0], settings.Mode)
	}
	cfg, err := parts[0].config()
	if err != nil {
		return fmt.Errorf("%s: %v", names[0], err)
	}
	var failOn []*check.FailOn
	for _, spec := range settings.FailOn {
		f, err := check.ParseFailOn(spec)
		if err != nil {
			return fmt.Errorf("%s: %v", names[0], err)
		}
		failOn = append(failOn, f)
	}
	var (
		cols    []*check.Collected
		skipped []analyze.FileError // what the walk skipped, listed first
	)
	for i, p := range parts {
		var body checkBody
		if err := p.decodeBody(&body); err != nil {
			return fmt.Errorf("%s: %v", names[i], err)
		}
		if len(body.FailOn) != len(failOn) {
			return fmt.Errorf("%s: %d fail-on observations, %d --fail-on gates", names[i], len(body.FailOn), len(failOn))
		}
		t, err := body.Totals.Totals()
		if err != nil {
			return fmt.Errorf("%s: %v", names[i], err)
		}
		col := &check.Collected{Current: &check.Baseline{Episodes: body.Entries}, Totals: t, Unreadable: body.Unreadable, Diags: body.Diags}
		for _, e := range body.Errors {
			if err := p.checkErrLog(e.Log); err != nil {
				return fmt.Errorf("%s: error: %v", names[i], err)
			}
			if e.Log == -1 {
				skipped = append(skipped, e.FileError)
				continue
			}
			col.Errors = append(col.Errors, e.FileError)
			col.ErrorFile = append(col.ErrorFile, e.Log)
		}
		for _, pf := range body.FailOn {
			f := &check.FailOn{Fired: pf.Fired}
			var files []int
			for _, w := range pf.Where {
				if err := p.checkLog(w.Log); err != nil {
					return fmt.Errorf("%s: fail-on: %v", names[i], err)
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
	res, err := merged.Finish(check.Options{
		Config: cfg, Mode: settings.Mode, Baseline: settings.Baseline, Prune: settings.Prune, Skipped: skipped,
		MaxFalseRatePct: settings.MaxFalseRate, MinSavedPct: settings.MinSaved, MaxForfeit: settings.MaxForfeit,
		FailOn: failOn, Every: listsEvery(format),
	})
	if err != nil {
		return checkError(err, parts[0].Args)
	}
	res.Errors = append(skipped, res.Errors...)
	return writeCheck(opts.IO, res, format, opts.Color, settings.ConfigLine)
}
