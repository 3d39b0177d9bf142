package partial

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// AnalyzeSettings are what an analyze partial keeps of each episode:
// always its JSON object; with Text (the shard's --format text) its text
// report too, uncoloured, with the trace when Verbose.
type AnalyzeSettings struct {
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

// AnalyzeBody is an analyze partial's body. A shard writes it as it goes
// (episodes first: AnalyzeStream) and the merge reads it as it goes
// (scanAnalyzeBody), members in any order: earlier shards wrote the
// totals first, from a body held whole.
type AnalyzeBody struct {
	Totals   analyze.TotalsState `json:"totals"`
	Episodes []Episode           `json:"episodes"`
	Errors   []Error             `json:"errors"`
}

// Episode is one episode as the final output lists it. Log is the
// position of its file among all the logs: a merge lists episodes in that
// order, as one run does.
type Episode struct {
	Log  int             `json:"log"`
	JSON json.RawMessage `json:"json"`
	Text string          `json:"text,omitempty"`
}

// AnalyzeStream writes an analyze partial as the shard goes: episodes as
// they come, the totals and errors after them (the body's member order is
// free: a reader takes any).
type AnalyzeStream struct {
	s       *Stream
	line    []byte
	text    *bufio.Writer // an episode's text, to its escaping (stringWriter)
	written int
	lastLog int
}

// NewAnalyzeStream starts p, an analyze partial, to the file output or
// (""/"-") out.
func NewAnalyzeStream(out io.Writer, output string, p *File) (*AnalyzeStream, error) {
	s, err := NewStream(out, output, p)
	if err != nil {
		return nil, err
	}
	s.Raw([]byte(`"episodes":[`))
	return &AnalyzeStream{s: s, lastLog: -1}, nil
}

// Episode adds an episode of log (a position among all the logs, never
// before the previous one's): its JSON object, compact, and its text
// report ("": none).
func (a *AnalyzeStream) Episode(log int, js []byte, text string) error {
	var writeText func(w io.Writer) error
	if text != "" {
		writeText = func(w io.Writer) error {
			_, err := io.WriteString(w, text)
			return err
		}
	}
	return a.EpisodeTo(log, func(w io.Writer) error {
		_, err := w.Write(js)
		return err
	}, writeText)
}

// EpisodeTo is Episode with the JSON object written by writeJSON and the
// text by writeText (nil: none; nothing written is none too), so an
// episode's firings can be streamed into its JSON (report.EpisodeFirings)
// and its text rendered into the part, escaped as it comes, rather than
// either be held whole.
func (a *AnalyzeStream) EpisodeTo(log int, writeJSON, writeText func(w io.Writer) error) error {
	// The merge reads each part in log order (MergeAnalyze): a shard
	// reads its files in input order, and log positions grow with it.
	if log < a.lastLog {
		return fmt.Errorf("partial: log %d after log %d", log, a.lastLog) // a bug
	}
	a.lastLog = log
	if a.written > 0 {
		a.s.Raw([]byte{','})
	}
	a.written++
	// As json.Marshal(Episode{...}) writes it; the JSON is compact already.
	a.line = fmt.Appendf(a.line[:0], `{"log":%d,"json":`, log)
	a.s.Raw(a.line)
	if err := writeJSON(a.s.w); err != nil {
		return err
	}
	if writeText != nil {
		sw := &stringWriter{w: a.s.w, head: `,"text":"`}
		if a.text == nil {
			a.text = bufio.NewWriterSize(sw, 64<<10)
		}
		a.text.Reset(sw)
		err := writeText(a.text)
		if err == nil {
			err = a.text.Flush()
		}
		if err == nil {
			err = sw.Close()
		}
		if err != nil {
			return err
		}
	}
	a.s.Raw([]byte{'}'})
	return nil
}

// Commit ends the episodes with the totals and errors and puts the part
// in place.
func (a *AnalyzeStream) Commit(totals *analyze.Totals, errs []Error) error {
	state, err := totals.State()
	if err != nil {
		return err
	}
	a.s.Raw([]byte("]"))
	if err := a.s.Member(false, "totals", state); err != nil {
		return err
	}
	if err := a.s.Member(false, "errors", errs); err != nil {
		return err
	}
	return a.s.Commit()
}

// Abort writes nothing, unless committed.
func (a *AnalyzeStream) Abort() { a.s.Abort() }

// EpisodeRow is what the text summary reads of an episode's JSON.
type EpisodeRow struct {
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

// AnalyzeMerge is analyze parts read through once, checked: what one run
// over every shard's logs totals, and its episodes to list (Each).
type AnalyzeMerge struct {
	Config *rules.Config  // the parts'
	Totals analyze.Totals // finished
	// Errors are the unreadable files, the walk's first, then by log.
	Errors []analyze.FileError
	// Episodes counts the episodes; Texts says some has a text report.
	Episodes int
	Texts    bool

	parts []*File
	names []string
	scans []*analyzeScan
}

// Analyze merges analyze parts, holding a few episodes per part at a
// time. Each part lists its episodes in log order, so the order of one
// run is a k-way merge by log of the parts' lists; ties go to the part
// named first, as a stable sort of the parts in argument order. This
// first pass reads every part through, checking it and keeping its
// totals and unreadable files, so that a bad part stops the merge before
// anything is printed; Each then reads the episodes again. Parts are read
// on workers, in parallel (up to GOMAXPROCS); the first bad part in
// argument order is the one reported. row, when not nil, is given each
// episode's summary row, part after part (the rows are held until every
// part is read).
func (m *Merger) Analyze(row func(log int, r *EpisodeRow)) (*AnalyzeMerge, error) {
	cfg, err := m.parts[0].config()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", m.names[0], err)
	}
	a := &AnalyzeMerge{Config: cfg, parts: m.parts, names: m.names, scans: make([]*analyzeScan, len(m.parts))}
	scanErrs := make([]error, len(m.parts))
	rows := make([][]loggedRow, len(m.parts))
	parallel(len(m.parts), func(i int) {
		var add func(int, *EpisodeRow)
		if row != nil {
			add = func(log int, r *EpisodeRow) { rows[i] = append(rows[i], loggedRow{log, r}) }
		}
		a.scans[i], scanErrs[i] = m.parts[i].scanAnalyzeBody(add)
	})
	var errs []Error
	for i, s := range a.scans {
		if err := scanErrs[i]; err != nil {
			return nil, fmt.Errorf("%s: %v", m.names[i], err)
		}
		if s.totals.Episodes != s.episodes {
			return nil, fmt.Errorf("%s: its totals count %d episodes, it lists %d", m.names[i], s.totals.Episodes, s.episodes)
		}
		if err := a.Totals.MergeChecked(&s.totals); err != nil {
			return nil, fmt.Errorf("%s: %v", m.names[i], err)
		}
		errs = append(errs, s.errs...)
		a.Episodes += s.episodes
		a.Texts = a.Texts || s.texts
	}
	for i := range rows {
		for _, r := range rows[i] {
			row(r.log, r.row)
		}
		rows[i] = nil
	}
	// Stable: the walk's errors (-1) first, then each log's in its order.
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Log < errs[j].Log })
	a.Errors = make([]analyze.FileError, len(errs))
	for i := range errs {
		a.Errors[i] = errs[i].FileError
	}
	a.Totals.Finish()
	return a, nil
}

// loggedRow is a summary row and its log, held until its part's turn.
type loggedRow struct {
	log int
	row *EpisodeRow
}

// analyzeScan is what the first pass keeps of an analyze part.
type analyzeScan struct {
	totals   analyze.Totals
	errs     []Error
	episodes int
	texts    bool   // some episode has a text report
	at       int64  // the offset of the episodes array in the part's source; -1: none
	end      int64  // the offset just past its last episode
	sum      uint64 // hashRange of [at, end)
}

// scanAnalyzeBody reads an analyze part's body through (then the rest of
// the document): its totals and errors, and each episode, checked and let
// go (with row, its summary row given to it).
func (p *File) scanAnalyzeBody(row func(int, *EpisodeRow)) (*analyzeScan, error) {
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
				err = s.scanEpisodes(p, row)
				dec = p.dec // one reading on after the array (scanEpisodesFast)
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
func (s *analyzeScan) scanEpisodes(p *File, row func(int, *EpisodeRow)) error {
	tok, err := p.dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("json: cannot read %v as episodes", tok)
	}
	s.at = p.dec.InputOffset() - 1
	if fastEpisodes && s.scanEpisodesFast(p, row) {
		return nil
	}
	last := -1
	var e scanEpisode
	for p.dec.More() {
		e = scanEpisode{}
		if row != nil {
			e.JSON.row = &EpisodeRow{}
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
		if row != nil {
			if !e.JSON.seen {
				return fmt.Errorf("episode %d: no json", s.episodes)
			}
			row(e.Log, e.JSON.row)
		}
		s.texts = s.texts || e.Text.nonEmpty
		s.episodes++
	}
	// What the second reading will read again (to the last episode's
	// end), hashed: it reads without checking (episodes.go).
	s.end = p.dec.InputOffset()
	if _, err = p.dec.Token(); err != nil {
		return err
	}
	s.sum, err = hashRange(p.src, s.at, s.end)
	return err
}

// scanEpisode is an Episode as the first pass reads it: the JSON
// scanned (with a row, read into it), the text checked to be a string.
type scanEpisode struct {
	Log  int        `json:"log"`
	JSON rowJSON    `json:"json"`
	Text textProbed `json:"text"`
}

type rowJSON struct {
	row  *EpisodeRow
	seen bool
}

func (r *rowJSON) UnmarshalJSON(b []byte) error {
	r.seen = true
	if r.row == nil {
		return nil
	}
	return json.Unmarshal(rowMembers(b), r.row)
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
