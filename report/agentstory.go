package report

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// AgentStory is what the text and HTML reports of a steps or attempts log
// read off its firings, tallied as the replay produces them (an
// analyze.FiringSink, made by NewAgentStory for analyze.Options.Sink): the
// headline table and tasks, the first firings the text lists, and each
// detector's lane of the chart. A log of 200,000 firing steps costs a few
// KB per detector, not a 336-byte struct per firing.
type AgentStory struct {
	agentTallies
	n     int            // every firing, resets too (the text's "of N")
	first []rules.Firing // the first maxFiringsListed
	lanes map[*rules.Rule]*agentLane
	// laneAt is lanes' registered rules by Rule.Index (detectorTally.at's
	// reason).
	laneAt [maxRuleSlots]*agentLane
	x      func(turn int) int // the chart's pixel column of a step

	// listing holds every firing, packed, for the verbose text (-v lists
	// them all), each line written as the text is; nil unless
	// NewAgentListing made the story.
	listing *rules.FiringList
	width   int
	ep      *replay.Episode

	// marks are the terminal chart's (NewChartSink); nil without one.
	marks *TimelineMarks
}

// maxFiringsListed is how many firings the text lists without -v.
const maxFiringsListed = 20

// agentLane is one detector's marks on the chart (agentTimelineSVG): its
// count and first maxListed firings exact, the steps it fired at while
// they fit the chart's pixel columns (a mark each), and the columns it
// fired in (a mark each once they do not).
type agentLane struct {
	rule  *rules.Rule
	count int
	at    []laneFiring // the first maxListed
	turns []int        // every firing's step while count <= agentPlotW
	cols  []int        // the distinct columns fired in, in order
}

type laneFiring struct {
	turn int
	kind string
}

// NewAgentStory starts the story of o's steps or attempts log ep (its Ran
// known): an analyze.Options.Sink; nil for a ZorkGPT log.
func NewAgentStory(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	if isZorkGPT(ep) {
		return nil
	}
	return newAgentStory(o, ep)
}

// NewAgentListing is NewAgentStory for the verbose text, which lists every
// firing (Text.Verbose) fitted to width: the story keeps them packed
// (rules.FiringList, a few bytes a firing) and the text writes their lines
// from it, one at a time; the outcome keeps none of them (ListsFirings),
// so a log of 200,000 firing steps costs a few MB, not a struct per
// firing. A ZorkGPT log's
// turn-by-turn trace is written likewise (ZorkTrace).
func NewAgentListing(width int) func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	return func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
		if isZorkGPT(ep) {
			// Its turn-by-turn trace lists them (ZorkTrace).
			return newZorkTrace(ep)
		}
		s := newAgentStory(o, ep)
		s.listing, s.width, s.ep = &rules.FiringList{}, width, ep
		return s
	}
}

// NewChartSink is the analyze.Options.Sink of a text report whose
// episodes are charted too (analyze --chart, or one episode on a
// terminal): a ZorkGPT log's chart marks (TimelineMarks), a steps or
// attempts log's story (NewAgentStory; NewAgentListing when listing)
// with the marks beside it. The chart (NewTimeline) reads the marks, so
// the firings need not be kept for it.
func NewChartSink(listing bool, width int) func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	return func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
		if isZorkGPT(ep) && listing {
			z := newZorkTrace(ep)
			z.marks = newTimelineMarks(ep)
			return z
		}
		if isZorkGPT(ep) {
			return newTimelineMarks(ep)
		}
		s := newAgentStory(o, ep)
		if listing {
			s.listing, s.width, s.ep = &rules.FiringList{}, width, ep
		}
		s.marks = newTimelineMarks(ep)
		return s
	}
}

// ListsFirings says the story lists every firing itself: the outcome
// need not keep them (analyze.Options.KeepFirings).
func (s *AgentStory) ListsFirings() bool { return s.listing != nil }

// firingLine is a firing's line in the text's list of firings.
func firingLine(f *rules.Firing, ep *replay.Episode, width int) string {
	line, _ := appendFiringLine(nil, nil, f, ep, width)
	return string(line)
}

// appendFiringLine appends firingLine(f, ep, width) to line, the words of
// a generic rule's firing appended to desc first (both returned for
// reuse): -v lists millions of firings, and formatted each line cost five
// allocations (ten bytes of garbage for each byte written).
func appendFiringLine(line, desc []byte, f *rules.Firing, ep *replay.Episode, width int) ([]byte, []byte) {
	line = append(line, "    "...)
	head := len(line)
	line = append(line, unitWord(ep)...)
	line = append(line, ' ')
	n := len(line)
	line = strconv.AppendInt(line, int64(f.Turn), 10) // %-5d
	for len(line)-n < 5 {
		line = append(line, ' ')
	}
	line = append(line, ' ')
	head = len(line) - head
	var words string
	if d, ok := appendFiringWords(desc[:0], f); ok {
		// A view of desc (as escape.go's): Term and Wrap return it or a
		// new string, copied into line before desc is written again.
		desc, words = d, unsafe.String(unsafe.SliceData(d), len(d))
	} else {
		words = describeFiring(f, ep)
	}
	line = append(line, Wrap(Term(words), width, 4+head, "        ")...)
	return append(line, '\n'), desc
}

func newAgentStory(o *analyze.Outcome, ep *replay.Episode) *AgentStory {
	s := &AgentStory{lanes: map[*rules.Rule]*agentLane{}, x: agentX(ep)}
	s.start(o, ep)
	return s
}

// agentX is the chart's pixel column of a step of ep (agentTimelineSVG).
func agentX(ep *replay.Episode) func(int) int {
	n := ep.NumTurns()
	if n == 0 {
		return func(int) int { return 0 }
	}
	first, last := ep.TurnAt(0).N, ep.TurnAt(n-1).N
	span := last - first + 1
	return func(t int) int { return int(math.Round(agentLeft + float64(t-first)/float64(span)*agentPlotW)) }
}

// Firing tallies f (an analyze.FiringSink).
func (s *AgentStory) Firing(f *rules.Firing, afterCut bool) {
	if s.marks != nil {
		s.marks.Firing(f, afterCut)
	}
	s.add(f)
	s.n++
	if s.listing != nil {
		s.listing.Add(f, 0)
	}
	if len(s.first) < maxFiringsListed {
		s.first = append(s.first, *f)
	}
	if f.Kind == rules.Reset {
		return // no mark: a reset is progress
	}
	l := s.lane(f.Rule)
	l.count++
	if len(l.at) < maxListed {
		l.at = append(l.at, laneFiring{f.Turn, f.Kind.Name})
	}
	if l.count <= agentPlotW {
		l.turns = append(l.turns, f.Turn)
	} else {
		l.turns = nil // binned: the columns draw it
	}
	// Firings come in step order and the column grows with the step:
	// a column differs from every earlier one once it differs from the last.
	if x := s.x(f.Turn); len(l.cols) == 0 || l.cols[len(l.cols)-1] != x {
		l.cols = append(l.cols, x)
	}
}

// lane returns r's lane, adding it when new.
func (s *AgentStory) lane(r *rules.Rule) *agentLane {
	i := r.Index()
	if uint(i) < uint(len(s.laneAt)) {
		if l := s.laneAt[i]; l != nil && l.rule == r {
			return l
		}
	}
	l := s.lanes[r]
	if l == nil {
		l = &agentLane{rule: r}
		s.lanes[r] = l
	}
	if uint(i) < uint(len(s.laneAt)) && s.laneAt[i] == nil {
		s.laneAt[i] = l
	}
	return l
}

// agentStoryOf is the story of o's steps or attempts log ep: its sink's
// (NewAgentStory), else told from its kept firings (none without them).
func agentStoryOf(o *analyze.Outcome, ep *replay.Episode) *AgentStory {
	if s, ok := o.Sink.(*AgentStory); ok {
		return s
	}
	s := newAgentStory(o, ep)
	for i := range o.Firings {
		s.Firing(&o.Firings[i], false)
	}
	return s
}
