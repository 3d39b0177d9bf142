package analyze

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
		Warnings: o.Counts["stuck_warnings/warning"], WouldReject: o.WouldReject,
	}
	if o.Termination != nil {
		r.Terminated, r.TerminationTurn = true, o.Termination.Turn
	}
	return r
}
