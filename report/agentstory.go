package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/outfile"
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
	x     func(turn int) int // the chart's pixel column of a step

	// listing holds every firing's line of the verbose text (-v lists
	// them all), written as the firings come, past a bound to a
	// temporary file; nil unless NewAgentListing made the story.
	listing *outfile.Spill
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
// firing (Text.Verbose) fitted to width: their lines are written as the
// firings come, past 8 MiB to a temporary file (outfile.Spill), and the
// outcome keeps none of them (ListsFirings), so a log of 200,000 firing
// steps costs that bound, not a struct per firing. A ZorkGPT log's
// turn-by-turn trace is written likewise (ZorkTrace).
func NewAgentListing(width int) func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	return func(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
		if isZorkGPT(ep) {
			// Its turn-by-turn trace lists them (ZorkTrace).
			return newZorkTrace(ep)
		}
		s := newAgentStory(o, ep)
		s.listing, s.width, s.ep = &outfile.Spill{}, width, ep
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
			s.listing, s.width, s.ep = &outfile.Spill{}, width, ep
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
	head := fmt.Sprintf("%s %-5d ", unitWord(ep), f.Turn)
	return fmt.Sprintf("    %s%s\n", head, Wrap(Term(describeFiring(f, ep)), width, 4+len(head), strings.Repeat(" ", 8)))
}

func newAgentStory(o *analyze.Outcome, ep *replay.Episode) *AgentStory {
	s := &AgentStory{lanes: map[*rules.Rule]*agentLane{}, x: agentX(ep)}
	s.start(o, ep)
	return s
}

// agentX is the chart's pixel column of a step of ep (agentTimelineSVG).
func agentX(ep *replay.Episode) func(int) int {
	n := len(ep.Turns)
	if n == 0 {
		return func(int) int { return 0 }
	}
	first, last := ep.Turns[0].N, ep.Turns[n-1].N
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
		s.listing.Write([]byte(firingLine(f, s.ep, s.width))) // an error stays in the spill (Err)
	}
	if len(s.first) < maxFiringsListed {
		s.first = append(s.first, *f)
	}
	if f.Kind == rules.Reset {
		return // no mark: a reset is progress
	}
	l := s.lanes[f.Rule]
	if l == nil {
		l = &agentLane{}
		s.lanes[f.Rule] = l
	}
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
