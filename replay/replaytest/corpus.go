package replaytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// WriteCorpus writes n varied episodes as dir/<episode_id>/episode_log.jsonl
// and returns their paths. Episodes mix endings (turn limit, game over, live
// stuck termination, crash), old name-only logs and id logs with or without
// revisit-penalty and live loop-break events, rejection rates, llm_call
// events, occasional quirks, camping routes, and noise sizes from none to
// lines of several MB. With totalBytes > 0 it stops after the episode that
// brings the total to totalBytes or more. The output is deterministic for a
// given seed (and n, totalBytes).
func WriteCorpus(dir string, n int, seed uint64, totalBytes int64) ([]string, error) {
	return WriteCorpusCapped(dir, n, seed, totalBytes, 0)
}

// WriteCorpusCapped is WriteCorpus with noise lines capped at maxNoise
// bytes (0: uncapped). Benchmarks over many episodes use it to keep a
// corpus of thousands of episodes at a size a disk and a CI run can hold.
func WriteCorpusCapped(dir string, n int, seed uint64, totalBytes int64, maxNoise int) ([]string, error) {
	return WriteCorpusFormat(dir, n, seed, totalBytes, maxNoise, FormatMixed)
}

// Format selects the log format of a corpus's episodes.
type Format string

const (
	// FormatMixed mixes eras as RandomScenario draws them (WriteCorpus).
	FormatMixed Format = ""
	// FormatEarly writes every episode in the June 2025 format
	// (Scenario.EarlyFormat): names-only moves, no ids.
	FormatEarly Format = "early"
	// FormatLive writes every episode as current ZorkGPT does: ids, and a
	// map_movement_update on every turn (Scenario.EveryTurnMoves).
	FormatLive Format = "live"
)

// Formats lists the formats WriteCorpusFormat accepts, for flag help.
var Formats = []Format{FormatMixed, FormatEarly, FormatLive}

// WriteCorpusFormat is WriteCorpusCapped with every episode in format f;
// FormatMixed gives WriteCorpusCapped's corpus byte for byte.
func WriteCorpusFormat(dir string, n int, seed uint64, totalBytes int64, maxNoise int, f Format) ([]string, error) {
	return WriteCorpusContext(context.Background(), dir, n, seed, totalBytes, maxNoise, f)
}

// PartialName is the name an episode log has while it is being written;
// it is renamed to episode_log.jsonl once complete, so a corpus never
// holds a half-written log under the name loopbreak reads.
const PartialName = ".episode_log.jsonl.partial"

// WriteCorpusContext is WriteCorpusFormat stopping when ctx is done: the
// episode being written is removed and the complete ones are returned
// with the context's cause. A partial file left by a killed run
// (PartialName) is overwritten when that episode is written again.
func WriteCorpusContext(ctx context.Context, dir string, n int, seed uint64, totalBytes int64, maxNoise int, f Format) ([]string, error) {
	return WriteCorpusLive(ctx, dir, n, seed, totalBytes, maxNoise, f, LiveConfig{})
}

// LiveConfig is the configuration the live loop-break system of a
// generated corpus runs with; zero values are ZorkGPT's deployed 40 and 10.
type LiveConfig struct {
	MaxTurnsStuck, CheckInterval int
}

// WriteCorpusLive is WriteCorpusContext whose live episodes were recorded
// with the live system configured as live: their score_change,
// objective_progress_reset and stuck_termination events are the ones that
// configuration logs (RULES.md §1, §10). The zero LiveConfig gives
// WriteCorpusContext's corpus byte for byte.
func WriteCorpusLive(ctx context.Context, dir string, n int, seed uint64, totalBytes int64, maxNoise int, f Format, live LiveConfig) ([]string, error) {
	switch f {
	case FormatMixed, FormatEarly, FormatLive:
	default:
		return nil, fmt.Errorf("replaytest: unknown format %q (want early, live or empty for mixed)", f)
	}
	rng := rand.New(rand.NewPCG(seed, 0x636f72707573))
	t := time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(86400)) * time.Second)
	var paths []string
	var total int64
	for i := 0; i < n; i++ {
		s := randomScenario(rng.Uint64(), t, live)
		if maxNoise > 0 {
			s.NoiseBytes = min(s.NoiseBytes, maxNoise)
		}
		s.setFormat(f)
		if ctx.Err() != nil {
			return paths, context.Cause(ctx)
		}
		path := filepath.Join(dir, s.EpisodeID, "episode_log.jsonl")
		partial := filepath.Join(dir, s.EpisodeID, PartialName)
		nb, err := writeFileN(partial, s)
		if err == nil && ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		if err == nil {
			err = os.Rename(partial, path)
		}
		if err != nil {
			os.Remove(partial)
			os.Remove(filepath.Dir(partial)) // only if empty
			return paths, fmt.Errorf("%s: %w", path, err)
		}
		paths = append(paths, path)
		total += nb
		if totalBytes > 0 && total >= totalBytes {
			break
		}
		// the next episode starts after this one (about 5 s a turn) and a pause
		t = t.Add(time.Duration(s.Turns)*5*time.Second + time.Duration(10+rng.IntN(360))*time.Minute)
	}
	return paths, nil
}

// RandomScenario returns a varied, self-consistent episode starting at
// start (its id is start formatted as an episode id). Live loop-break
// episodes never run past the first point where the live rule (40 turns
// stuck, checked every 10) would have stopped them: they end there with a
// stuck termination instead.
func RandomScenario(seed uint64, start time.Time) Scenario {
	return randomScenario(seed, start, LiveConfig{})
}

// randomScenario is RandomScenario with the live system configured as
// live (its draws are the same: the configuration only decides where a
// live episode stops).
func randomScenario(seed uint64, start time.Time, live LiveConfig) Scenario {
	rng := rand.New(rand.NewPCG(seed, 0x72616e646f6d))
	s := Scenario{
		EpisodeID:         start.Format("2006-01-02T15:04:05"),
		Seed:              seed,
		Start:             start.Add(time.Duration(500+rng.IntN(2500)) * time.Millisecond),
		LiveMaxTurnsStuck: live.MaxTurnsStuck,
		LiveCheckInterval: live.CheckInterval,
	}
	switch x := rng.Float64(); {
	case x < 0.3:
		s.Turns = 20 + rng.IntN(100)
	case x < 0.8:
		s.Turns = 120 + rng.IntN(280)
	default:
		s.Turns = 400 + rng.IntN(600)
	}
	// era: old name-only logs, id logs before loop-break, live loop-break
	switch x := rng.Float64(); {
	case x < 0.15:
	case x < 0.5:
		s.WithIDs = true
	default:
		s.WithIDs, s.WithPenaltyEvents, s.LiveLoopBreak = true, true, true
	}
	// score script: bursts of progress separated by stagnation
	score := 0
	for t := 2 + rng.IntN(15); t <= s.Turns; {
		score += []int{5, 10, 10, 15, 25}[rng.IntN(5)]
		s.Scores = append(s.Scores, ScorePoint{t, score})
		if rng.Float64() < 0.6 {
			s.Objectives = append(s.Objectives, t)
		}
		if rng.Float64() < 0.3 && t+1+rng.IntN(6) <= s.Turns {
			o := t + 1 + rng.IntN(6)
			s.Objectives = append(s.Objectives, o)
		}
		if rng.Float64() < 0.5 {
			t += 1 + rng.IntN(15)
		} else {
			t += 20 + rng.IntN(120)
		}
	}
	s.Objectives = dedupeSorted(s.Objectives, s.Turns)
	s.Ending = []Ending{EndMaxTurns, EndMaxTurns, EndMaxTurns, EndGameOver, EndGameOver, EndTruncated}[rng.IntN(6)]
	if s.LiveLoopBreak {
		if cp := firstLiveCheckpoint(&s); cp > 0 {
			s.Turns, s.Ending = cp, EndStuckTermination
			s.Objectives = dedupeSorted(s.Objectives, s.Turns)
		}
	}
	s.RejectionRate = 0.25 * rng.Float64()
	switch x := rng.Float64(); {
	case x < 0.25:
	case x < 0.55:
		s.NoiseBytes = 1<<10 + rng.IntN(7<<10)
	case x < 0.85:
		s.NoiseBytes = 32<<10 + rng.IntN(224<<10)
	case x < 0.97:
		s.NoiseBytes = 512<<10 + rng.IntN(1536<<10)
	default:
		s.NoiseBytes = 3<<20 + rng.IntN(2<<20)
	}
	s.LLMCallEvents = s.WithIDs && rng.Float64() < 0.15
	if rng.Float64() < 0.2 {
		q := &s.Quirks
		q.NaN = rng.Float64() < 0.5
		q.TurnNumberAlias = rng.Float64() < 0.5
		q.Extras = rng.Float64() < 0.5
		q.NoEventType = rng.Float64() < 0.5
		q.NonASCII = rng.Float64() < 0.5
		q.NameVariants = !s.WithIDs && rng.Float64() < 0.5
		if s.Turns > 60 && rng.Float64() < 0.3 {
			q.GapFrom, q.GapLen = 10+rng.IntN(s.Turns/2-10), 1+rng.IntN(4)
		}
		if s.Turns > 60 && rng.Float64() < 0.3 {
			q.RestartAt = s.Turns/2 + rng.IntN(s.Turns/3)
			q.RestartFrom = q.RestartAt - rng.IntN(8)
			if q.GapLen > 0 && q.RestartFrom <= q.GapFrom+q.GapLen {
				q.RestartAt, q.RestartFrom = 0, 0
			}
		}
	}
	// a third of the episodes end camping around one room
	if s.Turns >= 80 && rng.Float64() < 0.33 {
		campFrom := s.Turns/3 + rng.IntN(s.Turns/3)
		if g := s.Quirks; g.GapLen == 0 || g.GapFrom+g.GapLen <= campFrom {
			home := campHomes[rng.IntN(len(campHomes))]
			rooms := []string{home}
			for _, nb := range roomByKey[home].neighbours() {
				if len(nb.dirTo(home)) > 0 && rng.Float64() < 0.8 {
					rooms = append(rooms, nb.key)
				}
			}
			until := s.Turns
			if s.Ending == EndTruncated {
				until++
			}
			s.Route = []Leg{{Until: campFrom}, {Until: until, Home: home, Rooms: rooms}}
		}
	}
	return s
}

var campHomes = []string{"DAM-ROOM", "LIVING-ROOM", "KITCHEN", "TROLL-ROOM", "ROUND-ROOM", "DEEP-CANYON",
	"CELLAR", "FOREST-1", "PATH", "CLEARING", "GALLERY", "RESERVOIR-SOUTH", "MAINTENANCE-ROOM"}

func dedupeSorted(xs []int, maxTurn int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if x >= 1 && x <= maxTurn && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// firstLiveCheckpoint returns the first turn at which the live rule (RULES.md
// rule 1 with the scenario's live configuration, objective progress on)
// would stop the episode, or 0.
func firstLiveCheckpoint(s *Scenario) int {
	maxStuck, interval := s.liveConfig()
	pts := s.sortedScores()
	obj := map[int]bool{}
	for _, o := range s.Objectives {
		obj[o] = true
	}
	lastChange, tracked, lastObj := 0, scoreAt(pts, 1), 0
	if obj[1] {
		lastObj = 1
	}
	for t := 2; t <= s.Turns; t++ {
		if obj[t] {
			lastObj = t
		}
		stuck := t - lastChange
		if sc := scoreAt(pts, t); sc != tracked {
			lastChange, tracked = t, sc
		} else if lastObj > 0 && t-lastObj <= 1 && stuck > 0 {
			lastChange = t
		}
		if t%interval == 0 && t-lastChange >= maxStuck {
			return t
		}
	}
	return 0
}

// setFormat makes a random scenario's log format f, keeping its route,
// scores and length (applied after every random draw, so FormatMixed
// changes nothing).
func (s *Scenario) setFormat(f Format) {
	switch f {
	case FormatEarly:
		s.EarlyFormat = true
		s.WithIDs, s.WithPenaltyEvents, s.LiveLoopBreak, s.LLMCallEvents, s.EveryTurnMoves = false, false, false, false, false
		s.Quirks.RestartAt, s.Quirks.RestartFrom = 0, 0 // the early writer never restarted
		if s.Ending == EndStuckTermination {
			s.Ending = EndMaxTurns // no live loop-break system yet
		}
	case FormatLive:
		s.WithIDs, s.EveryTurnMoves = true, true
	}
}
