package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/loopbreak/loopbreak/report"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/rules"
)

// sweepSettings are the flags that shape a sweep's rows: the grid as
// given, --max-false-rate and --by-episode.
type sweepSettings struct {
	Grid         []GridArg `json:"grid"`
	MaxFalseRate *float64  `json:"max_false_rate_pct"`
	ByEpisode    bool      `json:"by_episode"`
	// ConfigLine is the table's first line (the shard knows the
	// configuration's file).
	ConfigLine string `json:"config_line,omitempty"`
}

type sweepBody struct {
	// Rows are the exact totals of each row: the baseline, then the grid
	// order.
	Rows   []analyze.TotalsState `json:"rows"`
	Flips  []partialFlip         `json:"flips"`
	Errors []partialError        `json:"errors"`
}

// partialFlip is a --by-episode flip and the position of its file.
type partialFlip struct {
	Log       int              `json:"log"`
	EpisodeID string           `json:"episode_id"`
	Source    string           `json:"source"`
	Outcomes  []analyze.Result `json:"outcomes"`
}

// sweepPartialRun is sweep --partial.
func sweepPartialRun(opts *SweepOptions, cfg *rules.Config, cfgPath string) error {
	set, err := opts.Input.findShard(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	settings := sweepSettings{Grid: opts.GridArgs, MaxFalseRate: opts.MaxFalseRate.Ptr(), ByEpisode: opts.ByEpisode, ConfigLine: report.ConfigLine(cfgPath, cfg)}
	p, err := newPartial("sweep", settings, cfg, &opts.Input, set)
	if err != nil {
		return err
	}
	// Each shard scores its own episodes; the rows' exact scores merge.
	labels, err := opts.Labels.load(set.Files)
	if err != nil {
		return err
	}
	part, err := sweep.RunPartial(sweep.Options{
		Files: set.Files, Stdin: opts.IO.In, Read: opts.Input.options(), Workers: opts.Input.Jobs,
		Base: cfg, Axes: opts.Axes, ByEpisode: opts.ByEpisode, Labels: labels,
		OnFile: func(p sweep.Progress) {
			if p.Err != nil {
				fmt.Fprintf(opts.IO.ErrOut, "loopbreak: %v\n", p.Err)
			}
		},
	})
	if err != nil {
		return err
	}
	body := sweepBody{Flips: []partialFlip{}, Errors: walkErrors(set)}
	for i := range part.Rows {
		s, err := part.Rows[i].State()
		if err != nil {
			return err
		}
		body.Rows = append(body.Rows, s)
	}
	for i, f := range part.Flips {
		body.Flips = append(body.Flips, partialFlip{Log: set.Index[part.FlipFile[i]], EpisodeID: f.EpisodeID, Source: f.Source, Outcomes: f.Outcomes})
	}
	for i, e := range part.Errors {
		body.Errors = append(body.Errors, partialError{Log: set.Index[part.ErrorFile[i]], FileError: e})
	}
	return p.write(opts.IO.Out, opts.Partial.Output, body)
}

// mergeSweep prints what sweep over every shard's logs prints.
func mergeSweep(opts *MergeOptions, parts []*partialFile, names []string) error {
	format := opts.Format
	if format == "" {
		format = "table"
	}
	if err := checkFormat(format, "table", "json", "csv"); err != nil {
		return err
	}
	var settings sweepSettings
	if err := json.Unmarshal(parts[0].Settings, &settings); err != nil {
		return fmt.Errorf("%s: sweep settings: %v", names[0], err)
	}
	cfg, err := parts[0].config()
	if err != nil {
		return fmt.Errorf("%s: %v", names[0], err)
	}
	axes, err := parseGridArgs(settings.Grid)
	if err != nil {
		return fmt.Errorf("%s: %v", names[0], err)
	}
	var sp []*sweep.Partial
	for i, p := range parts {
		var body sweepBody
		if err := p.decodeBody(&body); err != nil {
			return fmt.Errorf("%s: %v", names[i], err)
		}
		x := &sweep.Partial{}
		for _, s := range body.Rows {
			t, err := s.Totals()
			if err != nil {
				return fmt.Errorf("%s: %v", names[i], err)
			}
			x.Rows = append(x.Rows, t)
		}
		for _, f := range body.Flips {
			if err := p.checkLog(f.Log); err != nil {
				return fmt.Errorf("%s: flip: %v", names[i], err)
			}
			x.Flips = append(x.Flips, sweep.Flip{EpisodeID: f.EpisodeID, Source: f.Source, Outcomes: f.Outcomes})
			x.FlipFile = append(x.FlipFile, f.Log)
		}
		for _, e := range body.Errors {
			if err := p.checkErrLog(e.Log); err != nil {
				return fmt.Errorf("%s: error: %v", names[i], err)
			}
			x.Errors = append(x.Errors, e.FileError)
			x.ErrorFile = append(x.ErrorFile, e.Log)
		}
		sp = append(sp, x)
	}
	res, err := sweep.Merge(cfg, axes, settings.ByEpisode, settings.MaxFalseRate, sp)
	var pe *sweep.PartError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", names[pe.Part], pe.Err)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", names[0], err)
	}
	if len(res.Rows) > 0 && res.Rows[0].Totals.Episodes == 0 {
		return noEpisodesError(parts[0].Args)
	}
	return writeSweep(opts.IO, res, format, opts.Color, settings.ConfigLine, false)
}
