package partial

import (
	"errors"
	"fmt"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
)

// GridArg is one grid flag as given, in command-line order: Flag is
// "--max-stuck", "--check-interval", "--warning-threshold" (Key set) or
// "--grid" (Spec is key=values).
type GridArg struct {
	Flag string
	Key  string
	Spec string
}

// SweepSettings are the flags that shape a sweep's rows: the grid as
// given, --max-false-rate and --by-episode.
type SweepSettings struct {
	Grid         []GridArg `json:"grid"`
	MaxFalseRate *float64  `json:"max_false_rate_pct"`
	ByEpisode    bool      `json:"by_episode"`
	// ConfigLine is the table's first line (the shard knows the
	// configuration's file).
	ConfigLine string `json:"config_line,omitempty"`
}

// SweepBody is a sweep partial's body.
type SweepBody struct {
	// Rows are the exact totals of each row: the baseline, then the grid
	// order.
	Rows   []analyze.TotalsState `json:"rows"`
	Flips  []Flip                `json:"flips"`
	Errors []Error               `json:"errors"`
}

// Flip is a --by-episode flip and the position of its file.
type Flip struct {
	Log       int              `json:"log"`
	EpisodeID string           `json:"episode_id"`
	Source    string           `json:"source"`
	Outcomes  []analyze.Result `json:"outcomes"`
}

// NewSweepBody is the body of a shard's sweep over set's files.
func NewSweepBody(part *sweep.Partial, set *LogSet) (*SweepBody, error) {
	body := &SweepBody{Flips: []Flip{}, Errors: WalkErrors(set)}
	for i := range part.Rows {
		s, err := part.Rows[i].State()
		if err != nil {
			return nil, err
		}
		body.Rows = append(body.Rows, s)
	}
	for i, f := range part.Flips {
		body.Flips = append(body.Flips, Flip{Log: set.Index[part.FlipFile[i]], EpisodeID: f.EpisodeID, Source: f.Source, Outcomes: f.Outcomes})
	}
	for i, e := range part.Errors {
		body.Errors = append(body.Errors, Error{Log: set.Index[part.ErrorFile[i]], FileError: e})
	}
	return body, nil
}

// Sweep merges sweep parts made with settings into what sweep over every
// shard's logs finds; parseGrid reads the grid as the sweep command does.
func (m *Merger) Sweep(settings *SweepSettings, parseGrid func([]GridArg) ([]sweep.Axis, error)) (*sweep.Result, error) {
	cfg, err := m.parts[0].config()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", m.names[0], err)
	}
	axes, err := parseGrid(settings.Grid)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", m.names[0], err)
	}
	var sp []*sweep.Partial
	for i, p := range m.parts {
		var body SweepBody
		if err := p.decodeBody(&body); err != nil {
			return nil, fmt.Errorf("%s: %v", m.names[i], err)
		}
		x := &sweep.Partial{}
		for _, s := range body.Rows {
			t, err := s.Totals()
			if err != nil {
				return nil, fmt.Errorf("%s: %v", m.names[i], err)
			}
			x.Rows = append(x.Rows, t)
		}
		for _, f := range body.Flips {
			if err := p.checkLog(f.Log); err != nil {
				return nil, fmt.Errorf("%s: flip: %v", m.names[i], err)
			}
			x.Flips = append(x.Flips, sweep.Flip{EpisodeID: f.EpisodeID, Source: f.Source, Outcomes: f.Outcomes})
			x.FlipFile = append(x.FlipFile, f.Log)
		}
		for _, e := range body.Errors {
			if err := p.checkErrLog(e.Log); err != nil {
				return nil, fmt.Errorf("%s: error: %v", m.names[i], err)
			}
			x.Errors = append(x.Errors, e.FileError)
			x.ErrorFile = append(x.ErrorFile, e.Log)
		}
		sp = append(sp, x)
	}
	res, err := sweep.Merge(cfg, axes, settings.ByEpisode, settings.MaxFalseRate, sp)
	var pe *sweep.PartError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %v", m.names[pe.Part], pe.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", m.names[0], err)
	}
	return res, nil
}
