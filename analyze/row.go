package analyze

// Row is what a corpus summary keeps of one episode once it is reported:
// numbers and strings, no maps or slices, so a million episodes cost a
// million small rows (the episode and its Outcome are released).
type Row struct {
	EpisodeID        string
	RecordedEnd      string // shared by Rows: a handful of distinct values
	RecordedTurns    int
	FinalScore       float64
	TerminationTurn  int // with Terminated
	TurnsSaved       int
	LLMCallsSaved    int
	ScoreForfeited   float64
	Terminated       bool
	Censored         bool
	FalseTermination bool
}

// Rows collects the summary rows of a corpus.
type Rows struct {
	List []Row
	ends map[string]string
}

// Add keeps o's row.
func (rs *Rows) Add(o *Outcome) {
	if rs.ends == nil {
		rs.ends = map[string]string{}
	}
	end, ok := rs.ends[o.RecordedEnd]
	if !ok {
		end = o.RecordedEnd
		if len(rs.ends) < 1024 {
			rs.ends[end] = end
		}
	}
	r := Row{
		EpisodeID: o.EpisodeID, RecordedEnd: end, RecordedTurns: o.RecordedTurns, FinalScore: o.FinalScore,
		TurnsSaved: o.TurnsSaved, LLMCallsSaved: o.LLMCallsSaved, ScoreForfeited: o.ScoreForfeited,
		Censored: o.Censored, FalseTermination: o.FalseTermination,
	}
	if o.Termination != nil {
		r.Terminated, r.TerminationTurn = true, o.Termination.Turn
	}
	rs.List = append(rs.List, r)
}
