// Package replay reads agent logs into a turn model: one table of turns per
// episode, with the diagnostics of what could not be read.
//
// The flow is Read (lines → events, see reader.go) → builder (events → turn
// slots, see builder.go) → Episode.Turns (a gap-free table, see turn.go).
// Rules never see raw events, only turns, so other log formats can feed the
// same rules by producing the same table.
package replay

// LocationKey says what identifies a location in an episode's turn table.
const (
	KeyRoomID   = "room_id"   // Z-machine ids from map/penalty/description events
	KeyRoomName = "room_name" // turn_completed.location, case and spaces folded
)

// Turn is one row of the turn table (RULES.md section 0). Its strings
// are shared with the episode's other turns (one copy per distinct
// action or room), and its flags are packed at the end: episodes of
// millions of turns hold one Turn each.
type Turn struct {
	N int // turn number

	Score float64 // score after the turn

	// Location keys ("" when unknown). Moved is true when the log records a
	// move at this turn (a map_movement_update between two rooms, or a
	// change of name in name-keyed episodes); only such turns teach the map.
	LocStart, LocEnd string

	Action string // action executed, as logged

	Base float64 // critic's unpenalised confidence

	// Counts of events at this turn, int32 as the builder counts them:
	// with the flags they fill 16 bytes of the row, not 32.
	Objectives int32 // objective_completed events
	Rejections int32 // action_rejected events
	LLMCalls   int32 // per-call events (llm_call)

	Filled    bool // synthesised for a gap in the log: changes nothing, has no action
	Moved     bool
	HasAction bool
	HasBase   bool
}

// Episode is one episode's turn table plus what the log says about its end.
type Episode struct {
	ID     string
	Source string // file the episode was read from ("-" for stdin)

	// Turns is contiguous: Turns[i].N == Turns[0].N+i. Empty when the log
	// has no readable turn_completed.
	Turns []Turn

	LocationKey string            // KeyRoomID or KeyRoomName
	RoomNames   map[string]string // location key → display name

	// ObjectiveTurns lists every objective completion, sorted, including
	// ones logged for turns outside the table.
	ObjectiveTurns []int

	// Rejected maps a turn of the table to the actions the critic rejected
	// before the executed one (action_rejected.action, in log order); turns
	// without any are absent. action_novelty checks them too (RULES.md §7).
	Rejected map[int][]string

	// Tail counts events logged for turns after the last turn_completed
	// (a crash mid-turn): they still happened after any termination.
	TailRejections, TailLLMCalls int

	LLMCallsLogged bool // the log records per-call events

	RecordedEnd    string // EndGameOver, EndMaxTurns, EndStuckTermination, EndUnknown
	LiveStopTurn   int    // turn of the live stuck_termination, 0 when none
	HasLiveStop    bool
	LoggedFinal    float64 // episode_completed/finalized final_score when logged
	HasLoggedFinal bool

	// Live lists the live loop-break system's decisions the log carries,
	// by turn (RULES.md §10); nil when it carries none.
	Live []LiveEvent

	Diag Diagnostics

	// Format is the log format the episode was read from (FormatZorkGPT,
	// FormatSteps, FormatAttempts); Preset names the steps mapping
	// (PresetOpenHands, PresetGeminiCLI, "" for fields) and Detected says
	// the format was chosen by --input-format auto.
	Format   string
	Preset   string
	Detected bool

	// Outputs[i] is Turns[i]'s output: the game's reply (zork_response)
	// in a ZorkGPT log read with Options.Outputs, the tool result or the
	// message text of a step. Strings are interned per episode, so an
	// output repeated by a loop is stored once. Nil when not read.
	Outputs []string
	// Steps[i] is what a steps log says about Turns[i] besides its action
	// and output; nil for other formats.
	Steps []StepInfo
	// HasScore: some step of a steps log carries a score, so the progress
	// rules (RULES.md §1–2) apply to it.
	HasScore bool
	// Attempts[i] is record i+1 of an attempts log (Turns[i].N == i+1);
	// nil for other formats.
	Attempts []Attempt

	startKeys      []int32 // see StartKeys
	distinctStarts int
}

// StartKeys numbers the turns' start locations, for rules that compare
// them often: keys[i] is equal for equal Turns[i].LocStart and 0 when it is
// unknown; every key is below distinct. Computed on first use (the reader
// computes it before an episode is shared between goroutines).
func (e *Episode) StartKeys() (keys []int32, distinct int) {
	if len(e.startKeys) != len(e.Turns) {
		e.indexStarts()
	}
	return e.startKeys, e.distinctStarts
}

func (e *Episode) indexStarts() {
	ids := map[string]int32{"": 0}
	e.startKeys = make([]int32, len(e.Turns))
	for i := range e.Turns {
		k, ok := ids[e.Turns[i].LocStart]
		if !ok {
			k = int32(len(ids))
			ids[e.Turns[i].LocStart] = k
		}
		e.startKeys[i] = k
	}
	e.distinctStarts = len(ids)
}

// Output returns turn n's output, "" when none was read.
func (e *Episode) Output(n int) string {
	if len(e.Outputs) == 0 || len(e.Turns) == 0 {
		return ""
	}
	i := n - e.Turns[0].N
	if i < 0 || i >= len(e.Outputs) {
		return ""
	}
	return e.Outputs[i]
}

// How the recording ended.
const (
	EndGameOver         = "game_over"
	EndMaxTurns         = "max_turns"
	EndStuckTermination = "stuck_termination"
	EndUnknown          = "unknown" // no end event: crashed, truncated or still running
)

// RecordedTurns is the last turn with a readable turn_completed (0 if none).
func (e *Episode) RecordedTurns() int {
	if len(e.Turns) == 0 {
		return 0
	}
	return e.Turns[len(e.Turns)-1].N
}

// FinalScore is the score after the last recorded turn.
func (e *Episode) FinalScore() float64 {
	if len(e.Turns) == 0 {
		return 0
	}
	return e.Turns[len(e.Turns)-1].Score
}

// Turn returns the row for turn n, or nil outside the table.
func (e *Episode) Turn(n int) *Turn {
	if len(e.Turns) == 0 {
		return nil
	}
	i := n - e.Turns[0].N
	if i < 0 || i >= len(e.Turns) {
		return nil
	}
	return &e.Turns[i]
}

// RoomName returns a display name for a location key.
func (e *Episode) RoomName(key string) string {
	if n, ok := e.RoomNames[key]; ok && n != "" {
		return n
	}
	if key == "" {
		return "?"
	}
	return key
}

// Diagnostics accounts for everything the reader could not use.
type Diagnostics struct {
	Lines    int      // lines read for this episode (shared lines count for the first episode of a file)
	Skipped  int      // unreadable lines skipped
	Problems []string // first problems, "file:line: reason"
	Notes    []string // non-fatal observations: gaps, repeated turns, missing fields
	Gaps     int      // turns filled in
	Repeated int      // turn numbers logged again by a restarted run
}

// MaxProblems caps how many problems are kept per episode; the count of
// skipped lines stays exact.
const MaxProblems = 5

func (d *Diagnostics) problem(msg string) {
	if len(d.Problems) < MaxProblems {
		d.Problems = append(d.Problems, msg)
	}
}

func (d *Diagnostics) note(msg string) {
	if len(d.Notes) < MaxProblems {
		d.Notes = append(d.Notes, msg)
	}
}
