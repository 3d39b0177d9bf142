// Package replay reads agent logs into a turn model: one table of turns per
// episode, with the diagnostics of what could not be read.
//
// The flow is Read (lines → events, see reader.go) → builder (events → turn
// slots, see builder.go) → Episode.Turns (a gap-free table, see turn.go).
// Rules never see raw events, only turns, so other log formats can feed the
// same rules by producing the same table.
package replay

import (
	"fmt"
	"sync"
	"time"
)

// LocationKey says what identifies a location in an episode's turn table.
const (
	KeyRoomID   = "room_id"   // Z-machine ids from map/penalty/description events
	KeyRoomName = "room_name" // turn_completed.location, case and spaces folded
)

// Sym numbers a string of an episode's symbol table: within an episode
// equal strings have equal Syms, and 0 is "". A turn row holds Syms, not
// strings (4 bytes, not 16), so rules compare locations and actions as
// integers; Episode.Str spells one out.
type Sym uint32

// Turn is one row of the turn table (RULES.md section 0). Sessions of
// millions of turns hold one each, so a row is 32 bytes: strings are Syms
// of the episode (one copy per distinct action or room), the flags are
// packed at the end, and what only a ZorkGPT log records of a turn is in
// a table of its own (ZorkRow), which other episodes do not have.
type Turn struct {
	N int // turn number

	Score float64 // score after the turn

	// Location keys (0, "", when unknown). Moved is true when the log
	// records a move at this turn (a map_movement_update between two
	// rooms, or a change of name in name-keyed episodes); only such turns
	// teach the map.
	LocStart, LocEnd Sym

	Action Sym // action executed, as logged

	Filled    bool // synthesised for a gap in the log: changes nothing, has no action
	Moved     bool
	HasAction bool
	// HasBase: the critic's confidence was logged (Episode.ZorkOf(t).Base);
	// a flag of the row, where it costs no byte, so rules ask the ZorkGPT
	// table only for the turns that have one.
	HasBase bool
}

// ZorkRow is what a ZorkGPT log records of a turn that other logs do not:
// Episode.Zork[i] is Turns[i]'s.
type ZorkRow struct {
	Base float64 // critic's unpenalised confidence, when Turn.HasBase

	// Counts of events at this turn, int32 as the builder counts them.
	Rejections int32 // action_rejected events
	LLMCalls   int32 // per-call events (llm_call)
}

// Row is a Turn with its strings spelled out: how a turn table is written
// by hand (Episode.AppendRows) and read whole (Episode.Row).
type Row struct {
	N                        int
	Score, Base              float64
	LocStart, LocEnd, Action string
	Rejections, LLMCalls     int32
	Filled, Moved            bool
	HasAction, HasBase       bool
}

// Episode is one episode's turn table plus what the log says about its end.
type Episode struct {
	ID     string
	Source string // file the episode was read from ("-" for stdin)

	// Turns is contiguous: Turns[i].N == Turns[0].N+i. Empty when the log
	// has no readable turn_completed, and for an attempts log: its turn i+1
	// is attempt i and nothing else, {N: i+1}, made by TurnAt and TurnRef
	// when asked for, never kept (a row of 32 bytes an attempt was 42 MB
	// of a 200 MB log's). Code that may be given an attempts episode reads
	// the turns through NumTurns and TurnAt (or TurnRef); RecordedTurns,
	// FinalScore and Turn read both.
	Turns []Turn

	LocationKey string // KeyRoomID or KeyRoomName
	// RoomNames maps a location key to its display name. A ZorkGPT
	// episode makes it at its first RoomName (rooms): a report names a
	// few rooms, if any, and a map of an episode of millions of rooms
	// cost 5% of reading it (issue 23).
	RoomNames map[string]string
	rooms     *lazyRooms

	// ObjectiveTurns lists every objective completion by its turn, sorted,
	// including ones logged for turns outside the table: a turn with two
	// completions is listed twice.
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

	// OpenHands is an OpenHands log's controller history, event by event,
	// for the StuckDetector replay (openhands.go); nil for other logs.
	OpenHands []OpenHandsEvent
	// OpenHandsV1 is an OpenHands V1 log's events, for its StuckDetector
	// replay (openhands_v1.go); nil for other logs. Of an episode replayed
	// as it is read (Stepped) it holds the events from the
	// V1Dropped-th recorded on: those replayed are let go as the replay
	// moves on (stepTable.historyStepped). V1Events reads them by the
	// index they were recorded at.
	OpenHandsV1 []OpenHandsV1Event
	V1Dropped   int

	Diag Diagnostics

	// Format is the log format the episode was read from (FormatZorkGPT,
	// FormatSteps, FormatAttempts); Preset names the steps mapping
	// (PresetOpenHands, PresetGeminiCLI, "" for fields) and Detected says
	// the format was chosen by --input-format auto.
	Format   string
	Preset   string
	Detected bool

	// Outputs[i] is Turns[i]'s output (Output spells it out): the game's
	// reply (zork_response) in a ZorkGPT log read with Options.Outputs,
	// the tool result or the message text of a step. A Sym, so an output
	// repeated by a loop is stored once. Nil when not read; empty when
	// read but no turn has one.
	Outputs []Sym
	// Zork[i] is what a ZorkGPT log records of Turns[i] besides the row
	// (ZorkOf reads it); nil for other formats, whose turns have none of
	// it: a steps session's table is its rows and its Steps.
	Zork []ZorkRow
	// Steps[i] is what a steps log says about Turns[i] besides its action
	// and output; nil for other formats.
	Steps []StepInfo
	// wideExits holds the exit codes of Steps past int32, by index.
	wideExits map[int]int
	// HasScore: some step of a steps log carries a score, so the progress
	// rules (RULES.md §1–2) apply to it.
	HasScore bool
	// attempts.at(i) is record i+1 of an attempts log (turn i+1, TurnAt(i)),
	// read by Attempt(i), nattempts of them; none for other
	// formats. In pages, as the reader reads them: one array of them made
	// at the end held the log's rows twice at its peak. attemptShapes
	// are what its rows share (strings, lists, zone), attemptLists and
	// attemptZones their lists and locations (attempt_rows.go).
	attempts      paged[attemptRow]
	nattempts     int
	attemptShapes paged[attemptShape]
	nshapes       int
	attemptLists  [][]string
	attemptZones  []*time.Location

	syms symtab // the strings of the episode's Syms

	// Stepped replayed the turns as they were read (Options.Stepper):
	// the outputs were not kept (Outputs is nil). Nil for an episode
	// read whole.
	Stepped TurnStepper
	// stepping is the output of the turn Stepped is stepping. streamed:
	// the OpenHands history's strings are in hist, a table of their own
	// made anew as the replay moves on (stepTable.historyStepped), not in
	// syms, which keeps every string to the end.
	stepping stepOutput
	streamed bool
	// outputsRecycled says the outputs in the step table's copies are
	// dead once stepped, so a block holding only outputs handed over and
	// stepped is written over from its start (stepTable.added,
	// outputCopies.recycleStepped): a stepper's detectors copy what they
	// keep of an output (OutputsRecycled, detect.Step.OutputTransient),
	// and the reader that sets it (a steps log's) keeps no output it
	// hands over. Each output written into a new block was a page first
	// touched: on a steps log of 100 MB, 51 MB of blocks and half the
	// run's page faults. (Claude Code's reader writes texts it hands over
	// later or not at all, between those it hands: its blocks were mixed
	// at 11,529 of 11,961 checks on 20 MB, so it does not set it.)
	outputsRecycled bool
	hist            symtab
	// acts holds the actions and canonical calls of a Stepped episode's
	// turns (their Syms carry actTag), made anew as the replay moves on
	// (stepTable.actionsStepped): nothing reads a turn's action once it
	// is replayed, and the actions of a session of agents' calls are
	// nearly all distinct (their arguments), so a table that kept them
	// held 16 MB of a 200 MB OpenHands V1 session.
	acts symtab

	startKeys  []int32 // see StartKeys
	startSyms  []Sym
	keyedTurns int // turns when they were computed
}

// Str returns the string s stands for in this episode ("" for 0, and for
// a Sym the episode does not have).
func (e *Episode) Str(s Sym) string {
	if s&actTag != 0 {
		return e.acts.str(s &^ actTag)
	}
	return e.syms.str(s)
}

// actTag marks a Sym of Episode.acts. A table's Syms stay far below it:
// a string costs at least its 12-byte symRef.
const actTag Sym = 1 << 31

// V1Events returns the OpenHands V1 events from the from-th recorded on
// (OpenHandsV1), none when from is past them. Only the events of turns
// replayed are let go, so a replay that takes them in order as it steps
// never asks for one let go: V1Events panics on that misuse.
func (e *Episode) V1Events(from int) []OpenHandsV1Event {
	if from < e.V1Dropped {
		panic(fmt.Sprintf("%s: OpenHands V1 event %d asked for, let go after its replay (%d are)", e.Source, from, e.V1Dropped))
	}
	return e.OpenHandsV1[min(from-e.V1Dropped, len(e.OpenHandsV1)):]
}

// Sym returns the Sym of str in this episode, adding it to the table if
// new: how a turn table is written by hand. Not safe once the episode is
// shared between goroutines.
func (e *Episode) Sym(str string) Sym {
	if e.syms.ids.n == 0 && e.syms.len() > 1 {
		// Built episodes keep their strings, not the table that interned
		// them.
		e.syms.reindex()
	}
	return e.syms.sym(str)
}

// ZorkAt returns Zork[i], the zero ZorkRow when the episode has none.
func (e *Episode) ZorkAt(i int) ZorkRow {
	if uint(i) < uint(len(e.Zork)) {
		return e.Zork[i]
	}
	return ZorkRow{}
}

// ZorkOf returns turn t's ZorkRow (t is a row of Turns, which is
// contiguous), the zero ZorkRow when the episode has none.
func (e *Episode) ZorkOf(t *Turn) ZorkRow {
	if len(e.Zork) == 0 {
		return ZorkRow{}
	}
	return e.ZorkAt(t.N - e.Turns[0].N)
}

// Row returns turn t of this episode with its strings spelled out.
func (e *Episode) Row(t *Turn) Row {
	z := e.ZorkOf(t)
	return Row{N: t.N, Score: t.Score, Base: z.Base,
		LocStart: e.Str(t.LocStart), LocEnd: e.Str(t.LocEnd), Action: e.Str(t.Action),
		Rejections: z.Rejections, LLMCalls: z.LLMCalls,
		Filled: t.Filled, Moved: t.Moved, HasAction: t.HasAction, HasBase: t.HasBase}
}

// AppendRows adds rows to the turn table, interning their strings. The
// episode gets a Zork table at the first row with a base or a count
// (zero rows for the turns before it).
func (e *Episode) AppendRows(rows ...Row) {
	for _, r := range rows {
		e.Turns = append(e.Turns, Turn{N: r.N, Score: r.Score,
			LocStart: e.Sym(r.LocStart), LocEnd: e.Sym(r.LocEnd), Action: e.Sym(r.Action),
			Filled: r.Filled, Moved: r.Moved, HasAction: r.HasAction, HasBase: r.HasBase})
		z := ZorkRow{Base: r.Base, Rejections: r.Rejections, LLMCalls: r.LLMCalls}
		if e.Zork != nil || z != (ZorkRow{}) {
			if e.Zork == nil {
				e.Zork = make([]ZorkRow, len(e.Turns)-1, len(e.Turns))
			}
			e.Zork = append(e.Zork, z)
		}
	}
}

// StartKeys numbers the turns' start locations densely, for rules that
// count them in arrays (Syms are not dense: they number actions and
// outputs too). keys[Turns[i].LocStart] is the location's key, 1 and up in
// order of first appearance, 0 when it is unknown; syms[k] is key k's
// location, so len(syms) bounds the keys. Both are indexed by Sym or key,
// not by turn: a few bytes per distinct string, not 4 per turn. Computed
// on first use (the reader computes them before an episode is shared
// between goroutines).
func (e *Episode) StartKeys() (keys []int32, syms []Sym) {
	if e.keyedTurns != len(e.Turns) || len(e.startKeys) != max(1, e.syms.len()) {
		e.indexStarts()
	}
	return e.startKeys, e.startSyms
}

func (e *Episode) indexStarts() {
	e.startKeys = make([]int32, max(1, e.syms.len()))
	// The locations are counted first (marked -1), so the list is made
	// once at its size: grown by append it was most of an episode's
	// allocations here, 100,000 small episode files in a directory.
	n := 1
	for i := range e.Turns {
		if s := e.Turns[i].LocStart; s != 0 && e.startKeys[s] == 0 {
			e.startKeys[s] = -1
			n++
		}
	}
	e.startSyms = make([]Sym, 1, n)
	for i := range e.Turns {
		if s := e.Turns[i].LocStart; s != 0 && e.startKeys[s] < 0 {
			e.startKeys[s] = int32(len(e.startSyms))
			e.startSyms = append(e.startSyms, s)
		}
	}
	e.keyedTurns = len(e.Turns)
}

// HistoryStr returns the string s stands for in e's OpenHands history
// (OpenHandsEvent's and OpenHandsV1Event's Syms). Sym 0, "" in either
// table, is told inline: most V0 events have no text, and each was a
// call of some 25 instructions.
func (e *Episode) HistoryStr(s Sym) string {
	if s == 0 {
		return ""
	}
	return e.historyStr(s)
}

// historyStr is HistoryStr of a Sym past 0.
func (e *Episode) historyStr(s Sym) string {
	if e.streamed {
		return e.hist.str(s)
	}
	return e.syms.str(s)
}

// history is the table the OpenHands history's strings are interned in.
func (e *Episode) history() *symtab {
	if e.streamed {
		return &e.hist
	}
	return &e.syms
}

// Output returns turn n's output, "" when none was read. The output of
// the turn being stepped (a replay as read asks for no other) is told
// inline, where its call was some 16 instructions a turn; the others are
// storedOutput's.
func (e *Episode) Output(n int) string {
	if e.stepping.out != "" && e.stepping.n == n {
		return e.stepping.out
	}
	return e.storedOutput(n)
}

// OutputsRecycled says the string Output returns for the turn being
// stepped is written over once it is stepped (a steps log replayed as
// read, outputsRecycled): a rule that keeps it past the step keeps a
// copy (detect.Step.OutputTransient).
func (e *Episode) OutputsRecycled() bool { return e.outputsRecycled }

// storedOutput is Output of a turn not being stepped: Outputs' Sym.
func (e *Episode) storedOutput(n int) string {
	if len(e.Outputs) == 0 || len(e.Turns) == 0 {
		return ""
	}
	i := n - e.Turns[0].N
	if i < 0 || i >= len(e.Outputs) {
		return ""
	}
	return e.Str(e.Outputs[i])
}

// How the recording ended.
const (
	EndGameOver         = "game_over"
	EndMaxTurns         = "max_turns"
	EndStuckTermination = "stuck_termination"
	EndUnknown          = "unknown" // no end event: crashed, truncated or still running
)

// NumTurns is the number of turns: len(Turns), or an attempts log's
// attempts, whose turns Turns does not keep.
func (e *Episode) NumTurns() int {
	if len(e.Turns) == 0 {
		return e.nattempts
	}
	return len(e.Turns)
}

// TurnAt returns turn i of the table (0 <= i < NumTurns()): Turns[i], or
// an attempts log's turn i+1, {N: i+1} and nothing else.
func (e *Episode) TurnAt(i int) Turn {
	if len(e.Turns) == 0 && i >= 0 && i < e.nattempts {
		return Turn{N: i + 1}
	}
	return e.Turns[i]
}

// TurnRef is TurnAt(i) by pointer: &Turns[i], or spare holding an
// attempts log's turn i+1 (a loop stepping the turns gives one spare for
// all).
func (e *Episode) TurnRef(i int, spare *Turn) *Turn {
	if i < len(e.Turns) {
		return &e.Turns[i]
	}
	*spare = e.TurnAt(i)
	return spare
}

// RecordedTurns is the last turn with a readable turn_completed (0 if
// none); an attempts log's last attempt.
func (e *Episode) RecordedTurns() int {
	if len(e.Turns) == 0 {
		return e.nattempts
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

// Turn returns the row for turn n, or nil outside the table. An
// attempts log's turn is made anew (TurnAt): changing it changes nothing.
func (e *Episode) Turn(n int) *Turn {
	if len(e.Turns) == 0 {
		if n < 1 || n > e.nattempts {
			return nil
		}
		t := e.TurnAt(n - 1)
		return &t
	}
	i := n - e.Turns[0].N
	if i < 0 || i >= len(e.Turns) {
		return nil
	}
	return &e.Turns[i]
}

// lazyRooms is what a ZorkGPT episode's RoomNames is made from, once.
type lazyRooms struct {
	once  sync.Once
	namer roomNamer
}

// RoomName returns a display name for a location key. Safe for
// concurrent use (the reports of one episode may be written at once).
func (e *Episode) RoomName(key string) string {
	if r := e.rooms; r != nil {
		r.once.Do(func() {
			e.RoomNames = r.namer.names(&e.syms)
			r.namer = roomNamer{}
		})
	}
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
	if d.noteRoom() {
		d.Notes = append(d.Notes, msg)
	}
}

// noteRoom says whether a note would still be kept. A note made on a
// hot path is formatted only then: a steps log with thousands of gaps
// formatted each (fmt.Sprintf, ~600 instructions) for the first five
// to be kept.
func (d *Diagnostics) noteRoom() bool { return len(d.Notes) < MaxProblems }
