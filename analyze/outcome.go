// Package analyze turns a replay of the rules over one episode into facts:
// its Outcome (termination, check points, counts, story) and the Result
// every command totals (savings, false termination, censoring; RULES.md
// "Outcome of an episode"). Files runs a corpus on an ordered worker pool
// and Totals sums Results. Sweeps and checks are the subpackages
// analyze/sweep and analyze/check; package report words the facts.
package analyze

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// LLM call counting methods.
const (
	CallsLogged    = "logged"    // per-call llm_call events counted
	CallsEstimated = "estimated" // 4 per turn plus 2 per rejected action
)

// Termination is the first check point of progress_velocity.
type Termination struct {
	Turn       int     `json:"turn"`
	TurnsStuck int     `json:"turns_stuck"`
	Score      float64 `json:"score"`
}

// Checkpoint is one termination check point.
type Checkpoint struct {
	Turn       int `json:"turn"`
	TurnsStuck int `json:"turns_stuck"`
}

// Outcome is what one configuration would have done to one episode.
type Outcome struct {
	EpisodeID      string
	Source         string
	RecordedTurns  int
	FinalScore     float64
	RecordedEnd    string
	LocationKey    string
	Termination    *Termination
	Checkpoints    []Checkpoint
	LLMCallsMethod string

	// Result holds the figures Totals adds up (turns and calls saved,
	// false termination, censoring, warnings, would-reject).
	Result

	// Counts is the number of firings per "rule/kind".
	Counts map[string]int
	// Ran lists the rules replayed over the episode (enabled and applying
	// to its format), in registry order.
	Ran []*rules.Rule

	// Firings is every firing in turn order, when Options.KeepFirings.
	Firings []rules.Firing
	// Story is the firings compressed for a reader, when Options.Story.
	Story *Story
	// Sink is what Options.Sink made for this episode and gave every
	// firing to, for the renderer to read; nil without Options.Sink.
	Sink FiringSink

	// Live compares the replay with the live system's logged decisions;
	// nil when the log has none (RULES.md §10).
	Live *Live

	// Labels are the episode's labels and Scores how its firings fared
	// against them, when Files looked them up (Options.Labels); nil when
	// it is unlabelled.
	Labels *EpisodeLabels
	Scores Scores

	// progressed is, for an attempts log, whether each attempt's task
	// progressed later (tasksProgressed), once a firing was judged: the
	// outcome's AlarmJudge and the report's share it.
	progressed []bool
	// rose is, for a log judged by its score, whether the score rose
	// after each turn (scoreRose) when it had roseTurns turns, likewise
	// shared.
	rose      []uint64
	roseTurns int
}

// Options control what Analyze keeps.
type Options struct {
	KeepFirings bool
	Story       bool // build Outcome.Story (as the firings come: they need not be kept)
	// Rules is the rule set to replay; nil means rules.Registry.
	Rules []*rules.Rule
	// Render, when set, renders each outcome on the worker that analysed
	// it (Files: FileResult.Rendered), so output is encoded in parallel
	// and emit only writes bytes. It must be safe for concurrent use.
	Render func(o *Outcome, ep *replay.Episode) ([]byte, error)
	// Labels, when set, has Files look up each episode's labels by its
	// file's path and score its firings as the replay produces them (so
	// they need not be kept) on the worker, before Render: Outcome.Labels and Outcome.Scores, a
	// lookup's error in FileResult.LabelErrs.
	Labels *Labels
	// RenderLast says Render is the last reader of an outcome's firings:
	// Files then reuses their memory for the worker's next episode, so a
	// corpus does not allocate (and fault in, and collect) a fresh firing
	// list for each of its episodes. Outcome.Firings is nil once rendered.
	RenderLast bool
	// Sink, when set, makes for each episode (its outcome's Ran known)
	// what is given every firing as the replay produces it, with whether
	// it is after the cut (Outcome.AfterCut): an output can encode the
	// firings as they come instead of keeping them (KeepFirings), so an
	// episode of millions of firings is not held as structs.
	Sink func(o *Outcome, ep *replay.Episode) FiringSink
	// ReleaseOutputs has Files let go of an episode's outputs once it is
	// analysed and rendered (replay.Episode.ReleaseOutputs), before it
	// waits for its turn to be emitted: emit must not read them.
	ReleaseOutputs bool
	// Regular, when set, says by index which of Files' files the walk
	// stat'ed and found regular files (partial.LogSet.Regular): they are
	// read without a stat of their own (replay.StreamRegularFile).
	Regular []bool
	// Sizes, when set, gives by index the size of Files' regular files
	// at the walk's stat, -1 for others (partial.LogSet.Sizes): runs of
	// small files go to a worker together (fileBatches), one hand-off
	// for several files.
	Sizes []int64
}

// FiringSink takes an episode's firings in turn order (Options.Sink).
type FiringSink interface {
	Firing(f *rules.Firing, afterCut bool)
}

// A FiringLister is a FiringSink that may list every firing itself (the
// verbose text of a steps log): when ListsFirings, the outcome does not
// keep them even with Options.KeepFirings.
type FiringLister interface {
	ListsFirings() bool
}

// Analyze replays the rules over ep under cfg and computes its outcome.
func Analyze(ep *replay.Episode, cfg *rules.Config, opts Options) *Outcome {
	o, _ := analyzeInto(context.Background(), ep, cfg, opts, nil, nil, nil)
	return o
}

// scratch is a worker's memory that analyzeInto reuses from one episode
// to the next: a corpus does not allocate, grow and fault in fresh lists
// and replay state for each of its episodes.
type scratch struct {
	firings    []rules.Firing // Outcome.Firings, with firingList
	firingList bool           // Outcome.Firings may be firings (Options.RenderLast: the outcome lets go of them once rendered)
	live       []rules.Firing // the firings the live system logs too (compareLive copies what it keeps)

	run   episodeRun          // the replay's state (analyzeInto)
	fire  func(*rules.Firing) // run.fire, bound once
	story storyBuilder        // its run index and resets (Options.Story)
}

// maxReusedFirings bounds the lists a worker keeps for its next episode
// (Options.RenderLast): about 20 MB each.
const maxReusedFirings = 1 << 16

// keep takes back an analysed episode's lists for the next, unless one
// huge episode grew them: that would stay allocated to the end.
func (sc *scratch) keep(firings, live []rules.Firing) {
	if sc.firingList && cap(firings) <= maxReusedFirings {
		sc.firings = firings[:0]
	}
	if cap(live) <= maxReusedFirings {
		sc.live = live[:0]
	}
}

// appendFiring appends f, doubling a full list: append grows a large one
// by a quarter, allocating (and faulting in) about five times what it
// ends up holding.
func appendFiring(fs []rules.Firing, f *rules.Firing) []rules.Firing {
	if len(fs) == cap(fs) {
		fs = slices.Grow(fs, max(len(fs), 32))
	}
	return append(fs, *f)
}

// analyzeInto is Analyze reusing sc's lists (nil: fresh ones), scoring
// the firings against lab (nil: unlabelled) as they come, for the kinds
// scored (Outcome.Labels, Outcome.Scores). Once ctx is done the replay
// stops within a few hundred turns and the error is ctx's cause; the
// outcome is then nil.
func analyzeInto(ctx context.Context, ep *replay.Episode, cfg *rules.Config, opts Options, sc *scratch, lab *EpisodeLabels, scored []string) (*Outcome, error) {
	var r *episodeRun
	var live []rules.Firing // firings the live system logs too
	var story *storyBuilder
	if sc != nil {
		r, live, story = &sc.run, sc.live[:0], &sc.story
		if sc.fire == nil {
			sc.fire = r.fire // bound once: a method value allocates
		}
	} else {
		r = &episodeRun{}
	}
	o := &Outcome{
		EpisodeID:     ep.ID,
		Source:        ep.Source,
		RecordedTurns: ep.RecordedTurns(),
		FinalScore:    ep.FinalScore(),
		RecordedEnd:   ep.RecordedEnd,
		LocationKey:   ep.LocationKey,
		Counts:        map[string]int{},
	}
	if sc != nil && sc.firingList {
		o.Firings = sc.firings[:0]
	}
	set := opts.Rules
	if set == nil {
		set = rules.Registry
	}
	o.Ran = make([]*rules.Rule, 0, len(set)) // one allocation, not a doubling
	for _, r := range set {
		if r.Enabled(cfg) && r.AppliesTo(ep, cfg) {
			o.Ran = append(o.Ran, r)
		}
	}
	var scorer *Scorer
	if lab != nil {
		scorer = NewScorer(lab, scored)
	}
	keep := opts.KeepFirings
	if opts.Sink != nil {
		o.Sink = opts.Sink(o, ep)
		if l, ok := o.Sink.(FiringLister); ok && l.ListsFirings() {
			keep = false
		}
	}
	if opts.Story {
		if story == nil {
			story = &storyBuilder{}
		}
		story.reset(o)
		story.agent = !isZorkGPTLog(ep)
	} else {
		story = nil
	}
	judge, _ := o.AlarmJudge(ep)
	*r = episodeRun{o: o, ep: ep, live: live, story: story, scorer: scorer, judge: judge, keep: keep}
	var err error
	fire := r.fire
	if sc != nil {
		fire = sc.fire
	}
	if rr, ok := ep.Stepped.(*rules.ReadReplay); ok {
		// Replayed as it was read (Files): the outputs are gone, the
		// firings wait in the replay.
		err = rr.Finish(ep, cfg, opts.Rules, fire)
	} else {
		err = rules.RunContextRef(ctx, ep, cfg, opts.Rules, fire)
	}
	r.kinds.countsInto(o.Counts)
	live, fired := r.live, r.fired
	*r = episodeRun{} // holds nothing of this episode for the next
	if err != nil {
		return nil, err
	}
	if len(o.Firings) == 0 {
		o.Firings = nil // as without a buffer: no firings is nil
	}
	fired.Termination = o.Termination
	o.LLMCallsMethod = CallsEstimated
	if ep.LLMCallsLogged {
		o.LLMCallsMethod = CallsLogged
	}
	var tail Tail
	tail.Reset(ep)
	o.Result = tail.Result(fired)
	o.Live = compareLive(ep, live, cfg)
	if sc != nil {
		sc.keep(o.Firings, live)
	}
	if opts.Story {
		o.Story = story.finish(ep, cfg)
	}
	if lab != nil {
		o.Labels, o.Scores = lab, scorer.Scores()
	}
	return o, nil
}

// episodeRun is what analyzeInto's report callback (fire) reads and
// updates as the rules replay an episode, in one object: a closure
// capturing each of them allocated each, an episode. A worker's is its
// scratch's, fire bound to it once.
type episodeRun struct {
	o      *Outcome
	ep     *replay.Episode
	live   []rules.Firing // firings the live system logs too
	fired  Fired
	kinds  kindCounts // o.Counts as the firings come, added to the map once (countsInto)
	story  *storyBuilder
	scorer *Scorer
	judge  func(n int) bool
	keep   bool
}

// fire takes the replay's next firing.
func (r *episodeRun) fire(f *rules.Firing) {
	o, ep := r.o, r.ep
	if ep.Live != nil && liveKind(ep, f) != "" {
		r.live = appendFiring(r.live, f)
	}
	r.kinds.add(f)
	switch f.Kind {
	case rules.Termination:
		o.Termination = &Termination{Turn: f.Turn, TurnsStuck: f.TurnsStuck, Score: f.Score}
	case rules.Checkpoint:
		o.Checkpoints = append(o.Checkpoints, Checkpoint{Turn: f.Turn, TurnsStuck: f.TurnsStuck})
	}
	// Firings come in turn order, the termination first within its
	// turn: a later firing is after the cut once it is known. Told once
	// for the counts and the sink (the termination is set above).
	after := o.AfterCut(f)
	if !after {
		r.fired.Count(f)
		r.fired.CountLoop(f, r.judge)
	}
	if r.story != nil {
		r.story.add(f, after)
	}
	if r.scorer != nil {
		r.scorer.Add(f)
	}
	if o.Sink != nil {
		// f is reused for the next firing (ReadReplay.Finish's, or
		// rules.RunContextRef's): a sink copies what it keeps.
		o.Sink.Firing(f, after)
	}
	if r.keep {
		o.Firings = appendFiring(o.Firings, f)
	}
}

// AfterCut says whether f fired after the turn where this configuration
// would have terminated the episode: the run would not have lived to see
// it (RULES.md "Outcome": after the cut), so the counts an outcome reports
// leave it out, though it is still listed.
func (o *Outcome) AfterCut(f *rules.Firing) bool {
	return o.Termination != nil && f.Turn > o.Termination.Turn
}

// Fired is what a replay's firings decide under one configuration: where
// it would have terminated the episode, and the firings totals count (only
// those at or before the termination turn).
type Fired struct {
	Termination   *Termination // the first check point; nil: none
	Warnings      int          // stuck_warnings/warning firings
	WouldReject   int          // score adjustments below rejection_threshold (RULES.md §6)
	LowConfidence int          // revisit penalties leaving the critic's confidence below 0.3 (§3)
	Loops         int          // loop firings of the generic and peer rules (rules.Firing.IsLoop)
	FalseAlarms   int          // of which the agent made progress after (AlarmJudge)
}

// CountLoop adds f to Loops when it is a loop firing of the generic or
// peer rules, and to FalseAlarms when judge (AlarmJudge's, nil when the
// log cannot tell) says the agent made progress after it. The caller
// decides whether f is before the cut.
func (fd *Fired) CountLoop(f *rules.Firing, judge func(n int) bool) {
	if f.IsLoop() {
		fd.Loops++
		if judge != nil && judge(f.Turn) {
			fd.FalseAlarms++
		}
	}
}

// Count adds f to the counts it belongs to. The caller decides whether f
// is before the cut.
func (fd *Fired) Count(f *rules.Firing) {
	switch {
	case f.Kind == rules.Warning:
		fd.Warnings++
	case f.Kind == rules.Adjustment && f.Rejected:
		// Only rule 6 rejects: it adjusts the critic's score, which ZorkGPT
		// compares with its threshold. A revisit penalty lowers confidence.
		fd.WouldReject++
	case IsLowConfidence(f):
		fd.LowConfidence++
	}
}

// IsLowConfidence says whether f is a revisit penalty leaving the critic's
// confidence below 0.3, where ZorkGPT's rejection override could let a
// rejected action through (RULES.md §3).
func IsLowConfidence(f *rules.Firing) bool {
	return f.Kind == rules.Penalty && f.LowConfidence
}

// Tail reads what an episode recorded after a termination turn. The
// first termination it settles is read off the turns after it; a second
// (a sweep settles every configuration against one Tail) computes suffix
// sums once, 24 bytes a turn, so the rest cost O(1). A single analysis of
// an episode of millions of turns never holds them.
type Tail struct {
	ep      *replay.Episode
	settled int // terminations settled since Reset
	// sufCalls[i], sufRej[i]: LLM calls and rejections of turns i.. on;
	// sufMax[i]: the highest score of turns i.. on. Valid once settled > 1.
	sufCalls, sufRej []int
	sufMax           []float64
}

// Reset starts reading ep, keeping the scratch space.
func (t *Tail) Reset(ep *replay.Episode) {
	t.ep, t.settled = ep, 0
}

// Result computes what terminating the episode where f says (RULES.md
// "Outcome of an episode") yields. Analyze and sweeps both settle outcomes
// here.
func (t *Tail) Result(f Fired) Result {
	ep := t.ep
	r := Result{Warnings: f.Warnings, WouldReject: f.WouldReject, LowConfidence: f.LowConfidence, Loops: f.Loops, FalseAlarms: f.FalseAlarms}
	if ep.HasLiveStop && (f.Termination == nil || ep.LiveStopTurn < f.Termination.Turn) {
		// The live system stopped the recording before this configuration
		// would have: what it would have done later is unknowable.
		r.Censored = true
	}
	if f.Termination == nil {
		return r
	}
	if t.settled++; t.settled == 2 {
		t.prepare()
	}
	T := f.Termination.Turn
	idx := T - ep.TurnAt(0).N
	r.Terminated, r.TerminationTurn = true, T
	r.TurnsSaved = ep.RecordedTurns() - T
	r.ScoreForfeited = ep.FinalScore() - f.Termination.Score
	// The game's score rose above the score at the cut: the recording made
	// progress after it. A decrease (a death) is not progress, nor is an
	// objective completion alone; those are counted, not judged.
	if n := ep.NumTurns(); idx+1 < n && (t.settled == 1 || t.sufMax[idx+1] > f.Termination.Score) {
		for i := idx + 1; i < n; i++ {
			if t := ep.TurnAt(i); t.Score > f.Termination.Score {
				r.ProgressAfter = Progress{Turn: t.N, Score: t.Score}
				break
			}
		}
	}
	r.FalseTermination = r.ProgressAfter.Turn != 0
	r.ObjectivesAfter = len(ep.ObjectiveTurns) - sort.SearchInts(ep.ObjectiveTurns, T+1)
	calls, rejections := t.after(idx)
	if ep.LLMCallsLogged {
		r.LLMCallsSaved = ep.TailLLMCalls + calls
	} else {
		r.LLMCallsSaved = 4*r.TurnsSaved + 2*(ep.TailRejections+rejections)
	}
	return r
}

// after returns the LLM calls and rejections of the turns after
// Turns[idx].
func (t *Tail) after(idx int) (calls, rejections int) {
	if t.settled > 1 {
		return t.sufCalls[idx+1], t.sufRej[idx+1]
	}
	for i := idx + 1; i < t.ep.NumTurns(); i++ {
		z := t.ep.ZorkAt(i)
		calls += int(z.LLMCalls)
		rejections += int(z.Rejections)
	}
	return calls, rejections
}

// prepare fills the suffix sums and maxima.
func (t *Tail) prepare() {
	ep := t.ep
	n := ep.NumTurns()
	if cap(t.sufCalls) < n+1 {
		t.sufCalls, t.sufRej, t.sufMax = make([]int, n+1), make([]int, n+1), make([]float64, n+1)
	}
	t.sufCalls, t.sufRej, t.sufMax = t.sufCalls[:n+1], t.sufRej[:n+1], t.sufMax[:n+1]
	t.sufCalls[n], t.sufRej[n], t.sufMax[n] = 0, 0, math.Inf(-1)
	for i := n - 1; i >= 0; i-- {
		z := ep.ZorkAt(i)
		t.sufCalls[i] = t.sufCalls[i+1] + int(z.LLMCalls)
		t.sufRej[i] = t.sufRej[i+1] + int(z.Rejections)
		t.sufMax[i] = max(t.sufMax[i+1], ep.TurnAt(i).Score)
	}
}

// Result is what one configuration does to one episode: the figures
// Totals adds up. Sweeps keep one per episode and configuration.
type Result struct {
	Terminated       bool
	TerminationTurn  int
	TurnsSaved       int
	LLMCallsSaved    int
	ScoreForfeited   float64
	FalseTermination bool // ProgressAfter is set
	Censored         bool
	// ProgressAfter is the first turn after the termination turn whose
	// score is above the score at termination (Turn 0: none).
	ProgressAfter Progress
	// ObjectivesAfter counts objective completions after the termination
	// turn: reported, but not progress of the game itself.
	ObjectivesAfter int
	// Counts of firings at or before the termination turn (all firings
	// when there is none).
	Warnings      int // stuck_warnings/warning firings
	WouldReject   int // score adjustments that would have rejected the action
	LowConfidence int // revisit penalties that could let a rejected action through
	Loops         int // loop firings of the generic and peer rules
	FalseAlarms   int // of which the agent made progress after (AlarmJudge)
}

// Progress is a turn and the score after it.
type Progress struct {
	Turn  int     `json:"turn"`
	Score float64 `json:"score"`
}

// Outcome classes of a Result, as sweep --by-episode reports them.
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

// kindCounts counts an episode's firings by kind as they come, a
// registered kind's in its slot (Kind.Index), the slots used marked in a
// word: Outcome.Counts' map took a string hash and an assignment at each
// firing (a steps log fires tens of thousands of times), and a short list
// searched by pointer, which this replaced, some 12 instructions. A kind
// outside the registry, reported by another rule, or past the slots, is
// counted by its key.
type kindCounts struct {
	n     [kindSlots]int
	used  uint64 // bit i: n[i] counts
	other map[string]int
}

// kindSlots is how many registered kinds kindCounts and kindTally count in
// place (the bits of their used word); the registry has 31.
const kindSlots = 64

func (c *kindCounts) add(f *rules.Firing) {
	if i := uint(f.Kind.Index()); i < kindSlots && f.Kind.Rule() == f.Rule {
		c.n[i]++
		c.used |= 1 << i
		return
	}
	if c.other == nil {
		c.other = map[string]int{}
	}
	c.other[f.KindKey()]++
}

// countsInto adds the counts to counts, keyed as Firing.KindKey keys them.
func (c *kindCounts) countsInto(counts map[string]int) {
	for u := c.used; u != 0; u &= u - 1 {
		i := bits.TrailingZeros64(u)
		counts[rules.KindAt(i).Key()] += c.n[i]
	}
	for k, n := range c.other {
		counts[k] += n
	}
}
