package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/outfile"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// EpisodeFirings is an episode's "firings" array encoded as the replay
// produces them (an analyze.FiringSink, made by NewEpisodeFirings for
// analyze.Options.Sink): the bytes TestAppendEpisodeMatchesEncodingJSON
// holds equal to json.Marshal's, spilled past a bound to a temporary file
// (outfile.Spill), so an episode of millions of firings costs the bound,
// not 300-byte structs and its whole document. It also tallies what the
// rest of the episode's JSON reads off the firings (a steps or attempts
// log's detectors and tasks). NewEpisode takes it from the outcome,
// AppendEpisode leaves the array's place in the bytes it encodes, and
// JSONWriter.EpisodeWith writes the whole episode, the firings streamed in
// that place. Release gives it back once written.
type EpisodeFirings struct {
	enc   jsonEnc
	spill outfile.Spill
	n     int
	err   error
	at    int // where the firings go in the episode's bytes (AppendEpisode)
	bound int
	agentTallies
}

// agentTallies are what an episode's JSON reads off the firings besides
// the firings themselves: a steps or attempts log's detectors and tasks,
// tallied as the firings come (nil for ZorkGPT logs).
type agentTallies struct {
	det   *detectorTally
	tasks *taskTally
}

func (a *agentTallies) start(o *analyze.Outcome, ep *replay.Episode) {
	a.det, a.tasks = nil, nil
	if !isZorkGPT(ep) {
		judge, basis := o.AlarmJudge(ep)
		a.det = newDetectorTally(o, judge, basis)
		if ep.Format == replay.FormatAttempts {
			a.tasks = &taskTally{}
		}
	}
}

func (a *agentTallies) add(f *rules.Firing) {
	if a.det != nil {
		a.det.add(f)
	}
	if a.tasks != nil {
		a.tasks.add(f)
	}
}

func (a *agentTallies) tallies() *agentTallies { return a }

// tallied is a sink that tallies for the episode's JSON (agentTallies).
type tallied interface{ tallies() *agentTallies }

// firingSpillBound is how many encoded bytes an episode's firings hold in
// memory before they go to a temporary file; 0 for
// outfile.DefaultSpillBound (tests spill small episodes).
var firingSpillBound = 0

// freeFirings holds released EpisodeFirings for the next episodes: a
// corpus does not allocate, grow and fault in a buffer for each of its
// episodes (a sync.Pool is emptied at every collection, which a corpus
// of small episodes triggers often); at most 16, each keeping 1 MiB at most.
var freeFirings = make(chan *EpisodeFirings, 16)

// NewEpisodeFirings starts the firings of o's episode ep (its Ran known):
// an analyze.Options.Sink.
func NewEpisodeFirings(o *analyze.Outcome, ep *replay.Episode) analyze.FiringSink {
	var s *EpisodeFirings
	select {
	case s = <-freeFirings:
	default:
		s = new(EpisodeFirings)
	}
	// The encoder's buffer holds the firings up to the bound, the spill
	// (all file) those before.
	s.bound = firingSpillBound
	if s.bound <= 0 {
		s.bound = outfile.DefaultSpillBound
	}
	s.spill.Bound = 1
	s.start(o, ep)
	return s
}

// Firing encodes f (an analyze.FiringSink).
func (s *EpisodeFirings) Firing(f *rules.Firing, afterCut bool) {
	s.add(f)
	if s.err != nil {
		return
	}
	if s.n > 0 {
		s.enc.b = append(s.enc.b, ',')
	}
	s.n++
	s.enc.firing(f, afterCut)
	if s.enc.refused {
		// What json.Marshal says of the episode: its first refused value.
		_, s.err = json.Marshal(Firing{Firing: f, AfterCut: afterCut})
		if s.err == nil {
			s.err = fmt.Errorf("firing at %s %d not encodable", f.Unit, f.Turn)
		}
		return
	}
	if len(s.enc.b) >= s.bound {
		// Past the bound: to the temporary file, and the buffer starts
		// again (an episode holds about a bound in memory, however
		// large).
		if _, err := s.spill.Write(s.enc.b); err != nil {
			s.err = fmt.Errorf("holding the episode's firings: %w", err)
		}
		s.enc.b = s.enc.b[:0]
	}
}

// finish says the first error of encoding or spilling.
func (s *EpisodeFirings) finish() error { return s.err }

// writeTo writes the encoded firings (without the array's brackets): the
// spilled ones, then those still in memory.
func (s *EpisodeFirings) writeTo(w io.Writer) error {
	if _, err := s.spill.WriteTo(w); err != nil {
		return err
	}
	_, err := w.Write(s.enc.b)
	return err
}

// Len is the number of firings given.
func (s *EpisodeFirings) Len() int { return s.n }

// Spilled says whether the firings went past memory's bound to a
// temporary file.
func (s *EpisodeFirings) Spilled() bool { return s.spill.Spilled() }

// maxKeptFirings bounds the memory a released EpisodeFirings keeps for
// its next episode: one huge episode's is not held to the end of a run.
const maxKeptFirings = 1 << 20

// Release removes the temporary file, if any, and keeps s for another
// episode; s must not be used after.
func (s *EpisodeFirings) Release() {
	if s == nil {
		return
	}
	s.spill.Reset(0)
	if cap(s.enc.b) > maxKeptFirings {
		s.enc.b = nil
	}
	s.enc.b, s.enc.refused = s.enc.b[:0], false
	s.n, s.err, s.at, s.agentTallies = 0, nil, 0, agentTallies{}
	select {
	case freeFirings <- s:
	default:
	}
}

// ReleaseFirings releases the EpisodeFirings o's Sink is, if it is one.
func ReleaseFirings(o *analyze.Outcome) {
	if s, ok := o.Sink.(*EpisodeFirings); ok {
		s.Release()
		o.Sink = nil
	}
}

// EpisodeWith writes one episode encoded by AppendEpisode from an outcome
// whose firings went to s: data's bytes with the firings in their place.
// The episode was encoded whole (s holds them all) before a byte is
// written.
func (j *JSONWriter) EpisodeWith(data []byte, s *EpisodeFirings) error {
	if err := j.separator(); err != nil {
		return err
	}
	if err := s.WriteEpisode(j.w, data); err != nil {
		return err
	}
	return j.lineEnd()
}

// WriteEpisode writes data, an episode AppendEpisode encoded from an
// outcome whose firings went to s, with the firings in their place
// (an analyze partial's episode, as JSONWriter.EpisodeWith).
func (s *EpisodeFirings) WriteEpisode(w io.Writer, data []byte) error {
	if _, err := w.Write(data[:s.at]); err != nil {
		return err
	}
	if err := s.writeTo(w); err != nil {
		return err
	}
	_, err := w.Write(data[s.at:])
	return err
}
