package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// analyzeSettings are what an analyze partial keeps of each episode:
// always its JSON object; with Text (the shard's --format text) its text
// report too, uncoloured, with the trace when Verbose.
type analyzeSettings struct {
	Text    bool `json:"text"`
	Verbose bool `json:"verbose"`
	Chart   bool `json:"chart,omitempty"` // --chart: each block ends with its timeline
	ASCII   bool `json:"ascii,omitempty"`
	// ConfigLine is the text report's first line (the shard knows the
	// configuration's file); SummaryOnly: the report is the corpus table
	// alone (several logs in all, no --detail).
	ConfigLine  string `json:"config_line,omitempty"`
	SummaryOnly bool   `json:"summary_only,omitempty"`
}

type analyzeBody struct {
	Totals   analyze.TotalsState `json:"totals"`
	Episodes []partialEpisode    `json:"episodes"`
	Errors   []partialError      `json:"errors"`
}

// partialEpisode is one episode as the final output lists it. Log is the
// position of its file among all the logs: a merge lists episodes in that
// order, as one run does.
type partialEpisode struct {
	Log  int             `json:"log"`
	JSON json.RawMessage `json:"json"`
	Text string          `json:"text,omitempty"`
}

// analyzePartialRun is analyze --partial: the shard's episodes and totals
// into a partial file.
func analyzePartialRun(opts *AnalyzeOptions, cfg *rules.Config, cfgPath string) error {
	set, err := opts.Input.findShard(opts.Paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	text := opts.Format == "text"
	settings := analyzeSettings{Text: text, Verbose: text && opts.Verbose, Chart: text && opts.Chart, ASCII: text && opts.Chart && opts.ASCII}
	if text {
		settings.ConfigLine, settings.SummaryOnly = report.ConfigLine(cfgPath, cfg), opts.summaryOnly(set.Total)
	}
	p, err := newPartial("analyze", settings, cfg, &opts.Input, set)
	if err != nil {
		return err
	}
	var (
		totals analyze.Totals
		body   = analyzeBody{Episodes: []partialEpisode{}, Errors: walkErrors(set)}
		runErr error
		n      int
	)
	read := opts.Input.options()
	// Each shard scores its own episodes; the totals' exact scores merge.
	labels, err := opts.Labels.load(set.Files)
	if err != nil {
		return err
	}
	scored := analyze.ScoredKinds(nil, cfg)
	aopts := analyze.Options{KeepFirings: true, Story: settings.Text}
	// SIGINT/SIGTERM stop the reads; nothing is written then.
	ctx, stop := signalContext()
	defer stop()
	analyze.Files(ctx, set.Files, opts.IO.In, read, opts.Input.Jobs, cfg, aopts, func(fr analyze.FileResult) bool {
		log := set.Index[n]
		if fr.Last { // a file comes in parts
			n++
		}
		if fr.Err != nil {
			if opts.Input.Strict {
				runErr = fr.Err
				return false
			}
			body.Errors = append(body.Errors, partialError{Log: log, FileError: analyze.FileError{Source: fr.Path, Error: fr.Err.Error()}})
			reportFileError(opts.IO, fr.Err)
		}
		for i, ep := range fr.Episodes {
			if err := analyze.StrictErr(read, &ep.Diag); err != nil {
				runErr = err
				return false
			}
			o := fr.Outcomes[i]
			totals.Add(&o.Result, o.RecordedTurns, ep.Diag.Skipped)
			totals.AddLive(o.Live)
			lab, err := labels.For(fr.Path, ep.ID)
			if err != nil {
				runErr = err
				return false
			}
			var scores analyze.Scores
			if lab != nil {
				scores = analyze.ScoreFirings(lab, scored, o.Firings)
				totals.AddLabels(lab, scores)
			}
			pe := partialEpisode{Log: log}
			e := report.NewEpisode(o, ep)
			e.Labels = report.NewEpisodeLabels(lab, scores)
			if pe.JSON, runErr = json.Marshal(e); runErr != nil {
				return false
			}
			if settings.Text && !settings.SummaryOnly {
				var b bytes.Buffer
				text := &report.Text{W: &b, Verbose: settings.Verbose}
				if runErr = text.Episode(o, ep); runErr != nil {
					return false
				}
				if settings.Chart {
					// As one run draws it into a pipe (80 columns or
					// $COLUMNS), into this block.
					chartOpts, ios := *opts, *opts.IO
					ios.Out, chartOpts.IO = &b, &ios
					if runErr = writeChart(&chartOpts, o, ep, cfg); runErr != nil {
						return false
					}
				}
				if runErr = text.EpisodeLabels(lab, scores); runErr != nil {
					return false
				}
				pe.Text = b.String()
			}
			body.Episodes = append(body.Episodes, pe)
		}
		return true
	})
	if ctx.Err() != nil {
		return fmt.Errorf("%v: nothing written", context.Cause(ctx))
	}
	if runErr != nil {
		return runErr
	}
	if body.Totals, err = totals.State(); err != nil {
		return err
	}
	return p.write(opts.IO.Out, opts.Partial.Output, body)
}

// summaryRow is what the text summary reads of an episode's JSON.
type summaryRow struct {
	EpisodeID string `json:"episode_id"`
	Source    string `json:"source"`
	Live      *struct {
		Agrees bool `json:"agrees"`
	} `json:"live"`
	Diagnostics struct {
		Skipped int `json:"skipped"`
	} `json:"diagnostics"`
	RecordedTurns    int                  `json:"recorded_turns"`
	FinalScore       float64              `json:"final_score"`
	RecordedEnd      string               `json:"recorded_end"`
	Termination      *analyze.Termination `json:"termination"`
	TurnsSaved       int                  `json:"turns_saved"`
	LLMCallsSaved    int                  `json:"llm_calls_saved"`
	ScoreForfeited   float64              `json:"score_forfeited"`
	FalseTermination bool                 `json:"false_termination"`
	Censored         bool                 `json:"censored"`
}

// mergeAnalyze prints what analyze over every shard's logs prints.
func mergeAnalyze(opts *MergeOptions, parts []*partialFile, names []string) error {
	var settings analyzeSettings
	if err := json.Unmarshal(parts[0].Settings, &settings); err != nil {
		return fmt.Errorf("%s: analyze settings: %v", names[0], err)
	}
	format := opts.Format
	if format == "" {
		format = "json"
		if settings.Text {
			format = "text"
		}
	}
	if err := checkFormat(format, "text", "json", "jsonl"); err != nil {
		return err
	}
	if format == "text" && !settings.Text {
		return usageErrorf("--format text: the partials keep no text report (their shards ran with --format json or jsonl); merge with --format json or jsonl, or run the shards with --format text")
	}
	cfg, err := parts[0].config()
	if err != nil {
		return fmt.Errorf("%s: %v", names[0], err)
	}
	var (
		totals analyze.Totals
		eps    []partialEpisode
		errs   []partialError
	)
	for i, p := range parts {
		var body analyzeBody
		if err := p.decodeBody(&body); err != nil {
			return fmt.Errorf("%s: %v", names[i], err)
		}
		t, err := body.Totals.Totals()
		if err != nil {
			return fmt.Errorf("%s: %v", names[i], err)
		}
		totals.Merge(&t)
		for _, e := range body.Episodes {
			if err := p.checkLog(e.Log); err != nil {
				return fmt.Errorf("%s: episode: %v", names[i], err)
			}
		}
		for _, e := range body.Errors {
			if err := p.checkErrLog(e.Log); err != nil {
				return fmt.Errorf("%s: error: %v", names[i], err)
			}
		}
		eps = append(eps, body.Episodes...)
		errs = append(errs, body.Errors...)
	}
	// Stable: one file's episodes are in one part, in their order.
	sort.SliceStable(eps, func(i, j int) bool { return eps[i].Log < eps[j].Log })
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Log < errs[j].Log })
	fileErrs := make([]analyze.FileError, len(errs))
	for i := range errs {
		fileErrs[i] = errs[i].FileError
	}
	if len(eps) == 0 {
		return noEpisodesError(parts[0].Args)
	}
	totals.Finish()
	out := opts.IO.Out
	if format != "text" {
		jw := &report.JSONWriter{Lines: format == "jsonl"}
		if err := jw.Begin(out, cfg); err != nil {
			return err
		}
		for _, e := range eps {
			if err := jw.EpisodeJSON(e.JSON); err != nil {
				return err
			}
		}
		if len(fileErrs) == 0 {
			fileErrs = nil
		}
		return jw.End(&totals, fileErrs)
	}
	text := &report.Text{W: out, Color: opts.IO.ColorEnabled(opts.Color), Width: opts.IO.ReportWidth(), Config: settings.ConfigLine}
	if err := text.Header(); err != nil {
		return err
	}
	rows := make([]report.SummaryRow, len(eps))
	for i, e := range eps {
		var r summaryRow
		if err := json.Unmarshal(e.JSON, &r); err != nil {
			return fmt.Errorf("episode %d: %v", i, err)
		}
		rows[i] = report.NewSummaryRow(&analyze.Outcome{EpisodeID: r.EpisodeID, Source: r.Source, RecordedTurns: r.RecordedTurns, FinalScore: r.FinalScore, RecordedEnd: r.RecordedEnd, Termination: r.Termination,
			Result: analyze.Result{TurnsSaved: r.TurnsSaved, LLMCallsSaved: r.LLMCallsSaved, ScoreForfeited: r.ScoreForfeited, FalseTermination: r.FalseTermination, Censored: r.Censored}},
			r.Diagnostics.Skipped)
		if r.Live != nil {
			rows[i].LiveWord = "differs"
			if r.Live.Agrees {
				rows[i].LiveWord = "agrees"
			}
		}
		if _, err := out.Write([]byte(e.Text)); err != nil {
			return err
		}
	}
	if len(rows) > 1 || len(fileErrs) > 0 {
		if settings.SummaryOnly {
			text.Hint = detailHint(rows[0].Source)
		}
		if err := text.Summary(rows, &totals, fileErrs); err != nil {
			return err
		}
		return text.LabelSummary(totals.Labels)
	}
	return nil
}
