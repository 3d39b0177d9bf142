package cmd

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// analyzeBody is an analyze partial's body. A shard writes it as it goes
// (episodes first: analyzePartialRun) and the merge reads it as it goes
// (scanAnalyzeBody), members in any order: earlier shards wrote the
// totals first, from a body held whole.
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
		totals  analyze.Totals
		errs    = walkErrors(set)
		runErr  error
		n       int
		lastLog = -1
		written int
	)
	read := opts.Input.options()
	// Each shard scores its own episodes; the totals' exact scores merge.
	labels, err := opts.Labels.load(set.Files)
	if err != nil {
		return err
	}
	scored := analyze.ScoredKinds(nil, cfg)
	aopts := analyze.Options{KeepFirings: true, Story: settings.Text}
	// Episodes are written as they come, the totals and errors after
	// them (the body's member order is free: a reader takes any).
	out, err := p.stream(opts.IO.Out, opts.Partial.Output)
	if err != nil {
		return err
	}
	defer out.abort()
	out.raw([]byte(`"episodes":[`))
	var line []byte
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
			errs = append(errs, partialError{Log: log, FileError: analyze.FileError{Source: fr.Path, Error: fr.Err.Error()}})
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
			// The merge reads each part in log order (mergeAnalyze):
			// Files emits in input order, and Index grows with it.
			if log < lastLog {
				runErr = fmt.Errorf("partial: log %d after log %d", log, lastLog) // a bug
				return false
			}
			lastLog = log
			e := report.NewEpisode(o, ep)
			e.Labels = report.NewEpisodeLabels(lab, scores)
			js, err := json.Marshal(e)
			if err != nil {
				runErr = err
				return false
			}
			if written > 0 {
				out.raw([]byte{','})
			}
			written++
			// As json.Marshal(partialEpisode{...}) writes it; js is
			// compact already.
			line = fmt.Appendf(line[:0], `{"log":%d,"json":`, log)
			line = append(line, js...)
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
				if b.Len() > 0 {
					t, err := json.Marshal(b.String())
					if err != nil {
						runErr = err
						return false
					}
					line = append(append(line, `,"text":`...), t...)
				}
			}
			out.raw(append(line, '}'))
		}
		return true
	})
	if ctx.Err() != nil {
		return fmt.Errorf("%v: nothing written", context.Cause(ctx))
	}
	if runErr != nil {
		return runErr
	}
	state, err := totals.State()
	if err != nil {
		return err
	}
	out.raw([]byte("]"))
	if err := out.member(false, "totals", state); err != nil {
		return err
	}
	if err := out.member(false, "errors", errs); err != nil {
		return err
	}
	return out.commit()
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

// mergeAnalyze prints what analyze over every shard's logs prints,
// holding one episode per part at a time (and, for the text summary, one
// row per episode). Each part lists its episodes in log order, so the
// order of one run is a k-way merge by log of the parts' lists; ties go
// to the part named first, as a stable sort of the parts in argument
// order. A first pass reads every part through, checking it and keeping
// its totals and unreadable files, so that a bad part stops the merge
// before it prints anything; the second prints the episodes, reading
// them again, one at a time.
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
		totals   analyze.Totals
		errs     []partialError
		rows     *mergeRows
		scans    = make([]*analyzeScan, len(parts))
		episodes int
		texts    bool
	)
	if format == "text" {
		rows = &mergeRows{}
	}
	for i, p := range parts {
		s, err := p.scanAnalyzeBody(rows)
		if err != nil {
			return fmt.Errorf("%s: %v", names[i], err)
		}
		totals.Merge(&s.totals)
		errs = append(errs, s.errs...)
		scans[i] = s
		episodes += s.episodes
		texts = texts || s.texts
	}
	// Stable: the walk's errors (-1) first, then each log's in its order.
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Log < errs[j].Log })
	fileErrs := make([]analyze.FileError, len(errs))
	for i := range errs {
		fileErrs[i] = errs[i].FileError
	}
	if episodes == 0 {
		return noEpisodesError(parts[0].Args)
	}
	totals.Finish()
	m := &episodeMerge{parts: parts, names: names, scans: scans, keepJSON: format != "text", keepText: format == "text"}
	out := opts.IO.Out
	if format != "text" {
		// Buffered: an episode is written in a few pieces (JSONWriter).
		bw := bufio.NewWriterSize(out, 64<<10)
		jw := &report.JSONWriter{Lines: format == "jsonl"}
		if err := jw.Begin(bw, cfg); err != nil {
			return err
		}
		if err := m.run(func(e *mergeEpisode) error { return jw.EpisodeJSON(e.JSON.data) }); err != nil {
			bw.Flush() // what was merged before the failure, as unbuffered
			return err
		}
		if len(fileErrs) == 0 {
			fileErrs = nil
		}
		if err := jw.End(&totals, fileErrs); err != nil {
			return err
		}
		return bw.Flush()
	}
	text := &report.Text{W: out, Color: opts.IO.ColorEnabled(opts.Color), Width: opts.IO.ReportWidth(), Config: settings.ConfigLine}
	if err := text.Header(); err != nil {
		return err
	}
	if texts { // else (the corpus table alone) there is nothing to read again
		if err := m.run(func(e *mergeEpisode) error {
			_, err := io.WriteString(out, e.Text.text)
			return err
		}); err != nil {
			return err
		}
	}
	if episodes > 1 || len(fileErrs) > 0 {
		summary := rows.sorted()
		if settings.SummaryOnly {
			text.Hint = detailHint(summary[0].Source)
		}
		if err := text.Summary(summary, &totals, fileErrs); err != nil {
			return err
		}
		return text.LabelSummary(totals.Labels)
	}
	return nil
}

// analyzeScan is what the first pass keeps of an analyze part.
type analyzeScan struct {
	totals   analyze.Totals
	errs     []partialError
	episodes int
	texts    bool  // some episode has a text report
	at       int64 // the offset of the episodes array in the part's source; -1: none
}

// scanAnalyzeBody reads an analyze part's body through (then the rest of
// the document): its totals and errors, and each episode, checked and let
// go (with rows, its summary row kept).
func (p *partialFile) scanAnalyzeBody(rows *mergeRows) (*analyzeScan, error) {
	if !p.bodyNext {
		return nil, errors.New("analyze body: read twice") // a bug, not an input
	}
	dec := p.dec
	s := &analyzeScan{at: -1}
	var state analyze.TotalsState
	bodyErr := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return p.syntaxError(err)
		}
		return fmt.Errorf("analyze body: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, bodyErr(err)
	}
	switch tok {
	case nil: // null: nothing, as an empty object
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, bodyErr(err)
			}
			key, _ := tok.(string)
			if seen[key] {
				return nil, fmt.Errorf("analyze body: %q given twice", key)
			}
			seen[key] = true
			switch key {
			case "totals":
				err = dec.Decode(&state)
			case "errors":
				err = dec.Decode(&s.errs)
			case "episodes":
				err = s.scanEpisodes(p, rows)
			default:
				err = fmt.Errorf("json: unknown field %q", key)
			}
			if err != nil {
				return nil, bodyErr(err)
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, bodyErr(err)
		}
	default:
		return nil, bodyErr(fmt.Errorf("json: cannot read %v as an analyze body", tok))
	}
	if err := p.readBodyEnd(); err != nil {
		return nil, err
	}
	if s.totals, err = state.Totals(); err != nil {
		return nil, err
	}
	for _, e := range s.errs {
		if err := p.checkErrLog(e.Log); err != nil {
			return nil, fmt.Errorf("error: %v", err)
		}
	}
	return s, nil
}

// scanEpisodes reads the episodes array: each episode is decoded, checked
// (its log in range and not before the previous one's) and let go.
func (s *analyzeScan) scanEpisodes(p *partialFile, rows *mergeRows) error {
	tok, err := p.dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("json: cannot read %v as episodes", tok)
	}
	s.at = p.dec.InputOffset() - 1
	last := -1
	var e scanEpisode
	for p.dec.More() {
		e = scanEpisode{}
		if rows != nil {
			e.JSON.row = &summaryRow{}
		}
		if err := p.dec.Decode(&e); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return err
			}
			return fmt.Errorf("episode %d: %v", s.episodes, err)
		}
		if err := p.checkLog(e.Log); err != nil {
			return fmt.Errorf("episode %d: %v", s.episodes, err)
		}
		if e.Log < last {
			return fmt.Errorf("episode %d: log %d after log %d: a part lists its episodes in log order", s.episodes, e.Log, last)
		}
		last = e.Log
		if rows != nil {
			if !e.JSON.seen {
				return fmt.Errorf("episode %d: no json", s.episodes)
			}
			rows.add(e.Log, e.JSON.row)
		}
		s.texts = s.texts || e.Text.nonEmpty
		s.episodes++
	}
	_, err = p.dec.Token()
	return err
}

// scanEpisode is a partialEpisode as the first pass reads it: the JSON
// scanned (with a row, read into it), the text checked to be a string.
type scanEpisode struct {
	Log  int        `json:"log"`
	JSON rowJSON    `json:"json"`
	Text textProbed `json:"text"`
}

type rowJSON struct {
	row  *summaryRow
	seen bool
}

func (r *rowJSON) UnmarshalJSON(b []byte) error {
	r.seen = true
	if r.row == nil {
		return nil
	}
	return json.Unmarshal(b, r.row)
}

type textProbed struct{ nonEmpty bool }

func (t *textProbed) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
	case b[0] == '"':
		t.nonEmpty = len(b) > 2
	default:
		return errors.New("json: text: not a string")
	}
	return nil
}

// mergeEpisode is a partialEpisode as the second pass reads it: what the
// format prints, the rest only scanned.
type mergeEpisode struct {
	Log  int      `json:"log"`
	JSON keptJSON `json:"json"`
	Text keptText `json:"text"`
}

type keptJSON struct {
	keep bool
	data []byte // reused from episode to episode
}

func (k *keptJSON) UnmarshalJSON(b []byte) error {
	if k.keep {
		k.data = append(k.data[:0], b...)
	}
	return nil
}

type keptText struct {
	keep bool
	text string
}

func (k *keptText) UnmarshalJSON(b []byte) error {
	if k.keep {
		k.text = ""
		return json.Unmarshal(b, &k.text)
	}
	return nil
}

// episodeMerge is the second pass: a cursor per part on its next episode,
// in a heap by (log, part).
type episodeMerge struct {
	parts              []*partialFile
	names              []string
	scans              []*analyzeScan
	keepJSON, keepText bool
	heap               []*episodeCursor
	held               int // cursors holding an episode
}

// episodeCursor reads one part's episodes, one at a time, into ep.
type episodeCursor struct {
	part int
	dec  *json.Decoder
	left int // episodes the first pass counted, not yet read
	ep   mergeEpisode
	full bool // ep holds an episode
}

// mergeHeld, when set (tests), is told after each episode read how many
// decoded episodes the merge holds.
var mergeHeld func(int)

// run calls print with every episode of the parts in log order.
func (m *episodeMerge) run(print func(*mergeEpisode) error) error {
	m.heap = m.heap[:0]
	for i, s := range m.scans {
		if s.episodes == 0 {
			continue
		}
		p := m.parts[i]
		c := &episodeCursor{part: i, left: s.episodes, dec: json.NewDecoder(io.NewSectionReader(p.src, s.at, p.size-s.at))}
		c.dec.DisallowUnknownFields()
		c.ep.JSON.keep, c.ep.Text.keep = m.keepJSON, m.keepText
		if tok, err := c.dec.Token(); err != nil || tok != json.Delim('[') {
			return m.changed(i, fmt.Errorf("no episodes at byte %d (%v)", s.at, err))
		}
		if err := m.next(c); err != nil {
			return err
		}
		m.heap = append(m.heap, c)
	}
	heap.Init(m)
	for len(m.heap) > 0 {
		c := m.heap[0]
		if err := print(&c.ep); err != nil {
			return err
		}
		if c.left == 0 {
			heap.Pop(m)
			c.full = false
			m.held--
			continue
		}
		if err := m.next(c); err != nil {
			return err
		}
		heap.Fix(m, 0)
	}
	return nil
}

// next reads c's next episode.
func (m *episodeMerge) next(c *episodeCursor) error {
	c.ep.Log, c.ep.JSON.data, c.ep.Text.text = 0, c.ep.JSON.data[:0], ""
	if !c.dec.More() {
		return m.changed(c.part, errors.New("fewer episodes than the first reading"))
	}
	if err := c.dec.Decode(&c.ep); err != nil {
		return m.changed(c.part, err)
	}
	c.left--
	if !c.full {
		c.full = true
		m.held++
	}
	if mergeHeld != nil {
		mergeHeld(m.held)
	}
	return nil
}

// changed is an error of the second reading of a part that the first
// found sound.
func (m *episodeMerge) changed(part int, err error) error {
	return fmt.Errorf("%s: changed while merging: %v", m.names[part], err)
}

// heap.Interface, by (log, part): a stable k-way merge.
func (m *episodeMerge) Len() int { return len(m.heap) }
func (m *episodeMerge) Less(i, j int) bool {
	a, b := m.heap[i], m.heap[j]
	return a.ep.Log < b.ep.Log || (a.ep.Log == b.ep.Log && a.part < b.part)
}
func (m *episodeMerge) Swap(i, j int) { m.heap[i], m.heap[j] = m.heap[j], m.heap[i] }
func (m *episodeMerge) Push(x any)    { m.heap = append(m.heap, x.(*episodeCursor)) }
func (m *episodeMerge) Pop() any {
	c := m.heap[len(m.heap)-1]
	m.heap = m.heap[:len(m.heap)-1]
	return c
}

// mergeRows are the text summary's rows, part after part, with their
// logs; sorted stably by log they are in the order of one run.
type mergeRows struct {
	rows []report.SummaryRow
	logs []int
}

func (r *mergeRows) add(log int, s *summaryRow) {
	row := report.NewSummaryRow(&analyze.Outcome{EpisodeID: s.EpisodeID, Source: s.Source, RecordedTurns: s.RecordedTurns, FinalScore: s.FinalScore, RecordedEnd: s.RecordedEnd, Termination: s.Termination,
		Result: analyze.Result{TurnsSaved: s.TurnsSaved, LLMCallsSaved: s.LLMCallsSaved, ScoreForfeited: s.ScoreForfeited, FalseTermination: s.FalseTermination, Censored: s.Censored}},
		s.Diagnostics.Skipped)
	if s.Live != nil {
		row.LiveWord = "differs"
		if s.Live.Agrees {
			row.LiveWord = "agrees"
		}
	}
	r.rows = append(r.rows, row)
	r.logs = append(r.logs, log)
}

// sorted sorts in place (no second copy of the rows) and returns them.
func (r *mergeRows) sorted() []report.SummaryRow {
	sort.Stable(r)
	return r.rows
}

func (r *mergeRows) Len() int           { return len(r.rows) }
func (r *mergeRows) Less(i, j int) bool { return r.logs[i] < r.logs[j] }
func (r *mergeRows) Swap(i, j int) {
	r.rows[i], r.rows[j] = r.rows[j], r.rows[i]
	r.logs[i], r.logs[j] = r.logs[j], r.logs[i]
}
