package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// ParquetEpisode is one row of analyze --format parquet: the JSON
// episode's fields (docs/output.md: JSON output) as typed columns, so DuckDB,
// Spark or BigQuery can query outcomes across millions of episodes. The
// firings are a file of their own (ParquetFiring). Ids and sources, of
// any size and one an episode, are not dictionary-encoded: the library
// held a copy of a row group's distinct values and their page, 16 MiB of
// 500 KB ids several times over.
type ParquetEpisode struct {
	EpisodeID             string           `parquet:"episode_id"`
	Source                string           `parquet:"source"`
	RecordedTurns         int64            `parquet:"recorded_turns"`
	FinalScore            float64          `parquet:"final_score"`
	RecordedEnd           string           `parquet:"recorded_end,dict"`
	LocationKey           string           `parquet:"location_key,dict"`
	InputFormat           string           `parquet:"input_format,dict"`
	InputPreset           string           `parquet:"input_preset,dict"`
	InputDetected         bool             `parquet:"input_detected"`
	Terminated            bool             `parquet:"terminated"`
	TerminationTurn       *int64           `parquet:"termination_turn,optional"`
	TerminationTurnsStuck *int64           `parquet:"termination_turns_stuck,optional"`
	TerminationScore      *float64         `parquet:"termination_score,optional"`
	Checkpoints           []int64          `parquet:"checkpoints,list"`
	TurnsSaved            int64            `parquet:"turns_saved"`
	LLMCallsSaved         int64            `parquet:"llm_calls_saved"`
	LLMCallsMethod        string           `parquet:"llm_calls_method,dict"`
	ScoreForfeited        float64          `parquet:"score_forfeited"`
	FalseTermination      bool             `parquet:"false_termination"`
	ProgressAfterTurn     *int64           `parquet:"progress_after_turn,optional"`
	ProgressAfterScore    *float64         `parquet:"progress_after_score,optional"`
	ObjectivesAfter       int64            `parquet:"objectives_after"`
	Censored              bool             `parquet:"censored"`
	Warnings              int64            `parquet:"warnings"`
	WouldReject           int64            `parquet:"would_reject"`
	LowConfidence         int64            `parquet:"low_confidence"`
	Loops                 int64            `parquet:"loops"`
	FalseAlarms           int64            `parquet:"false_alarms"`
	FiringCounts          map[string]int64 `parquet:"firing_counts"`
	// LiveAgrees is null without live events; Live is the JSON's live
	// object (disagreements, explained_by), null likewise.
	LiveAgrees *bool   `parquet:"live_agrees,optional"`
	Live       *string `parquet:"live,optional"`
	// Detectors and Tasks are the JSON's headline table and tasks of a
	// steps or attempts log, null for ZorkGPT logs.
	Detectors *string `parquet:"detectors,optional"`
	Tasks     *string `parquet:"tasks,optional"`
	// Labels is the JSON's labels object (null when unlabelled).
	Labels                 *string  `parquet:"labels,optional"`
	DiagnosticsLines       int64    `parquet:"lines"`
	DiagnosticsSkipped     int64    `parquet:"lines_skipped"`
	DiagnosticsGapTurns    int64    `parquet:"gap_turns"`
	DiagnosticsRepeatTurns int64    `parquet:"repeated_turns"`
	Problems               []string `parquet:"problems,list"`
	Notes                  []string `parquet:"notes,list"`
}

// ParquetFiring is one row of --parquet-firings: one firing, its
// episode, and its kind's fields as the JSON object the firing JSON holds
// (json_extract(fields, '$.adjusted') in DuckDB), since each kind has its
// own fields.
//
// Its ids and sources repeat, one an episode's firings: they are
// dictionary-encoded (a 500 KB id stored once a row group, not once a
// page), and a row group ends once its distinct ids and sources pass
// parquetDictBytes, which bounds the dictionary the library holds.
type ParquetFiring struct {
	EpisodeID string `parquet:"episode_id,dict"`
	Source    string `parquet:"source,dict"`
	Turn      int64  `parquet:"turn"`
	Rule      string `parquet:"rule,dict"`
	Kind      string `parquet:"kind,dict"`
	Origin    string `parquet:"origin,dict"`
	Fields    string `parquet:"fields,json"`
	AfterCut  bool   `parquet:"after_cut"`
}

// NewParquetEpisode is the Parquet row of an episode's JSON form.
func NewParquetEpisode(e *Episode) ParquetEpisode {
	p := ParquetEpisode{
		EpisodeID: e.EpisodeID, Source: e.Source, RecordedTurns: int64(e.RecordedTurns), FinalScore: e.FinalScore,
		RecordedEnd: e.RecordedEnd, LocationKey: e.LocationKey, Terminated: e.Termination != nil,
		Checkpoints: make([]int64, len(e.Checkpoints)), TurnsSaved: int64(e.TurnsSaved), LLMCallsSaved: int64(e.LLMCallsSaved),
		LLMCallsMethod: e.LLMCallsMethod, ScoreForfeited: e.ScoreForfeited, FalseTermination: e.FalseTermination,
		ObjectivesAfter: int64(e.ObjectivesAfter), Censored: e.Censored, Warnings: int64(e.Warnings),
		WouldReject: int64(e.WouldReject), LowConfidence: int64(e.LowConfidence), Loops: int64(e.Loops), FalseAlarms: int64(e.FalseAlarms), FiringCounts: make(map[string]int64, len(e.FiringCounts)),
		DiagnosticsLines: int64(e.Diagnostics.Lines), DiagnosticsSkipped: int64(e.Diagnostics.Skipped),
		DiagnosticsGapTurns: int64(e.Diagnostics.GapTurns), DiagnosticsRepeatTurns: int64(e.Diagnostics.RepeatedTurns),
		Problems: e.Diagnostics.Problems, Notes: e.Diagnostics.Notes,
	}
	if t := e.Termination; t != nil {
		turn, stuck, score := int64(t.Turn), int64(t.TurnsStuck), t.Score
		p.TerminationTurn, p.TerminationTurnsStuck, p.TerminationScore = &turn, &stuck, &score
	}
	if pa := e.ProgressAfter; pa != nil {
		turn, score := int64(pa.Turn), pa.Score
		p.ProgressAfterTurn, p.ProgressAfterScore = &turn, &score
	}
	if e.Live != nil {
		agrees := e.Live.Agrees
		p.LiveAgrees = &agrees
		if data, err := json.Marshal(e.Live); err == nil {
			s := string(data)
			p.Live = &s
		}
	}
	if in := e.Input; in != nil {
		p.InputFormat, p.InputPreset, p.InputDetected = in.Format, in.Preset, in.Detected
	}
	if e.Detectors != nil {
		if data, err := json.Marshal(e.Detectors); err == nil {
			s := string(data)
			p.Detectors = &s
		}
	}
	if e.Tasks != nil {
		if data, err := json.Marshal(e.Tasks); err == nil {
			s := string(data)
			p.Tasks = &s
		}
	}
	if e.Labels != nil {
		if data, err := json.Marshal(e.Labels); err == nil {
			s := string(data)
			p.Labels = &s
		}
	}
	for i, c := range e.Checkpoints {
		p.Checkpoints[i] = int64(c.Turn)
	}
	for k, n := range e.FiringCounts {
		p.FiringCounts[k] = int64(n)
	}
	return p
}

// ParquetWriter streams rows of T into a Parquet file, a row group at a
// time, so memory does not grow with the corpus. A row group ends at
// parquetRowGroup rows or once its rows' strings pass parquetGroupBytes:
// the library holds a row group's pages until it ends, and rows of 500
// KB ids (agents write them) would otherwise make 8,192 of them (2,000
// such episodes once took 9.7 GB). Rows reach the library in batches of
// at most parquetBatchRows rows or parquetBatchBytes of strings: it
// encodes each batch it is given as one page at least, and a row group
// given whole became one page of all its ids, copied several times over
// as it was encoded.
type ParquetWriter[T any] struct {
	w    *parquet.GenericWriter[T]
	zstd *parquetZstd
	buf  []T // the batch
	// The strings of the batch's rows, and the rows and strings of the
	// current row group; dictBytes, its dictionary's (ParquetFiring's
	// ids and sources, counted when they change from a row to the next).
	bufBytes, groupRows, groupBytes, dictBytes int
	lastID, lastSource                         string
}

// parquetRowGroup bounds the rows of a row group.
const parquetRowGroup = 8192

// parquetGroupBytes bounds the string bytes of a row group's rows; a
// corpus of ordinary ids (tens of bytes) never reaches it, so its files
// are as before.
const parquetGroupBytes = 16 << 20

// parquetDictBytes bounds the distinct ids and sources of a row group
// of firings (ParquetFiring): the library holds them in its dictionary,
// and their page, until the row group ends. A row group of ordinary ids
// (tens of bytes, thousands of firings an episode) never reaches it.
const parquetDictBytes = 1 << 20

// parquetBatchRows and parquetBatchBytes bound a batch handed to the
// library.
const (
	parquetBatchRows  = 1024
	parquetBatchBytes = 1 << 20
)

// NewParquetWriter starts a Parquet file on w; zstd, as DuckDB, Spark
// and BigQuery all read it.
func NewParquetWriter[T any](w io.Writer) *ParquetWriter[T] {
	codec := &parquetZstd{}
	return &ParquetWriter[T]{zstd: codec, w: parquet.NewGenericWriter[T](w,
		parquet.Compression(codec),
		// Row groups are ended by Write, never by the library.
		parquet.MaxRowsPerRowGroup(1<<62),
		// Ids and sources can be any size (agents write 500 KB ids): the
		// library would keep each row group's least and greatest whole in
		// the footer's statistics until the file ends, and copy them into
		// every page header. Readers do without them (they only skip row
		// groups by range).
		parquet.SkipPageBounds("episode_id"), parquet.SkipPageBounds("source"),
		parquet.SkipPageStatistics("episode_id"), parquet.SkipPageStatistics("source"),
		parquet.CreatedBy("loopbreak", "", ""),
		parquet.KeyValueMetadata("loopbreak.schema_version", strconv.Itoa(SchemaVersion)),
	)}
}

// Write adds one row.
func (p *ParquetWriter[T]) Write(row T) error {
	n := rowStrings(row)
	if f, ok := any(row).(ParquetFiring); ok {
		// Dictionary-encoded: a value costs its bytes once a row group.
		// The value a row group ends on is not counted again in the next
		// (which holds it too): a row group's dictionary holds at most
		// parquetDictBytes and one id and source.
		d := 0
		if f.EpisodeID != p.lastID {
			d += len(f.EpisodeID)
			p.lastID = f.EpisodeID
		}
		if f.Source != p.lastSource {
			d += len(f.Source)
			p.lastSource = f.Source
		}
		n += d
		p.dictBytes += d
	}
	p.buf = append(p.buf, row)
	p.bufBytes += n
	p.groupRows++
	p.groupBytes += n
	if p.groupRows >= parquetRowGroup || p.groupBytes >= parquetGroupBytes || p.dictBytes >= parquetDictBytes {
		// Ends the row group here.
		if err := p.flush(); err != nil {
			return err
		}
		p.groupRows, p.groupBytes, p.dictBytes = 0, 0, 0
		return p.w.Flush()
	}
	if len(p.buf) >= parquetBatchRows || p.bufBytes >= parquetBatchBytes {
		return p.flush()
	}
	return nil
}

// rowStrings is the bytes of a row's strings, those that can be any size.
func rowStrings(row any) int {
	switch r := row.(type) {
	case ParquetEpisode:
		n := len(r.EpisodeID) + len(r.Source)
		for _, s := range r.Problems {
			n += len(s)
		}
		for _, s := range r.Notes {
			n += len(s)
		}
		for _, s := range []*string{r.Live, r.Detectors, r.Tasks, r.Labels} {
			if s != nil {
				n += len(*s)
			}
		}
		return n
	case ParquetFiring:
		return len(r.Fields) // its id and source are counted by Write
	}
	return 0
}

func (p *ParquetWriter[T]) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	_, err := p.w.Write(p.buf)
	clear(p.buf)
	p.buf, p.bufBytes = p.buf[:0], 0
	return err
}

// Close writes what is buffered and the file's footer.
func (p *ParquetWriter[T]) Close() error {
	defer p.zstd.Close()
	if err := p.flush(); err != nil {
		return err
	}
	return p.w.Close()
}

// NewParquetFirings are the firing rows of an episode's JSON form.
func NewParquetFirings(e *Episode) ([]ParquetFiring, error) {
	rows := make([]ParquetFiring, len(e.Firings))
	for i := range e.Firings {
		f := e.Firings[i].Firing
		var b bytes.Buffer
		b.WriteByte('{')
		for k, field := range f.Kind.Fields {
			if k > 0 {
				b.WriteByte(',')
			}
			writeString(&b, field)
			b.WriteByte(':')
			v, err := json.Marshal(FieldValue(f, field))
			if err != nil {
				return nil, err
			}
			b.Write(v)
		}
		b.WriteByte('}')
		rows[i] = ParquetFiring{EpisodeID: e.EpisodeID, Source: e.Source, Turn: int64(f.Turn), Rule: f.Rule.Name, Kind: f.Kind.Name,
			Origin: f.Rule.Origin, Fields: b.String(), AfterCut: e.Firings[i].AfterCut}
	}
	return rows, nil
}
