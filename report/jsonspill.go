package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// EpisodeFirings is an episode's "firings" array (an analyze.FiringSink,
// made by NewEpisodeFirings for analyze.Options.Sink): its firings kept
// packed as the replay produces them (rules.FiringList, a few bytes a
// firing where a Firing is about 300), and encoded only as the episode is
// written, one at a time into one reused Firing and buffer, straight to
// the output: the bytes TestAppendEpisodeMatchesEncodingJSON holds equal
// to json.Marshal's. It also tallies what the rest of the episode's JSON
// reads off the firings (a steps or attempts log's detectors and tasks).
// NewEpisode takes it from the outcome, AppendEpisode leaves the array's
// place in the bytes it encodes, and JSONWriter.EpisodeWith writes the
// whole episode, the firings encoded in that place. Release gives it back
// once written.
type EpisodeFirings struct {
	list rules.FiringList // tagged 1 when after the cut
	enc  jsonEnc          // writeTo's buffer, and its kinds' heads
	err  error
	at   int // where the firings go in the episode's bytes (AppendEpisode)
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

// freeFirings holds released EpisodeFirings for the next episodes: a
// corpus does not allocate, grow and fault in a list for each of its
// episodes (a sync.Pool is emptied at every collection, which a corpus
// of small episodes triggers often); at most 16, each keeping one block
// of packed firings (rules.FiringList.Reset).
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
	s.start(o, ep)
	return s
}

// Firing keeps f (an analyze.FiringSink).
func (s *EpisodeFirings) Firing(f *rules.Firing, afterCut bool) {
	s.add(f)
	if s.err != nil {
		return
	}
	if !finiteFloats(f) {
		// What json.Marshal says of the episode: its first refused
		// value, known before a byte of it is written.
		w := jsonEnc{}
		if w.firing(f, afterCut); w.refused {
			_, s.err = json.Marshal(Firing{Firing: f, AfterCut: afterCut})
			if s.err == nil {
				s.err = fmt.Errorf("firing at %s %d not encodable", f.Unit, f.Turn)
			}
			return
		}
	}
	tag := 0
	if afterCut {
		tag = 1
	}
	s.list.Add(f, tag)
}

// finiteFloats says whether f's floats are all finite: only a NaN or an
// infinity makes the encoding of a firing fail (jsonEnc.float).
func finiteFloats(f *rules.Firing) bool {
	for _, x := range [...]float64{f.Score, f.Penalty, f.Base, f.Adjusted, f.Similarity} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// finish says the first error of encoding.
func (s *EpisodeFirings) finish() error { return s.err }

// firingsChunk is how many encoded bytes writeTo gathers before a write.
const firingsChunk = 32 << 10

// writeTo writes the firings (without the array's brackets), each
// encoded as it is read back.
func (s *EpisodeFirings) writeTo(w io.Writer) error {
	enc := &s.enc
	enc.b = enc.b[:0]
	var f rules.Firing
	it := s.list.Iter()
	for n := 0; it.Next(&f); n++ {
		if n > 0 {
			enc.b = append(enc.b, ',')
		}
		enc.firing(&f, it.Tag() == 1)
		if len(enc.b) >= firingsChunk {
			if _, err := w.Write(enc.b); err != nil {
				return err
			}
			enc.b = enc.b[:0]
		}
	}
	_, err := w.Write(enc.b)
	return err
}

// Len is the number of firings kept.
func (s *EpisodeFirings) Len() int { return s.list.Len() }

// Release keeps s for another episode; s must not be used after.
func (s *EpisodeFirings) Release() {
	if s == nil {
		return
	}
	s.list.Reset()
	s.enc.b, s.enc.refused = s.enc.b[:0], false
	s.err, s.at, s.agentTallies = nil, 0, agentTallies{}
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
