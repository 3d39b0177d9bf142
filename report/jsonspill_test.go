package report

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestEpisodeFiringsMatchesKept: an episode whose firings were packed as
// the replay produced them (NewEpisodeFirings) and encoded as it is
// written is written byte for byte as one whose firings were kept as
// structs and encoded with it: generated ZorkGPT episodes, the test episodes
// (live runs, quirks), steps, attempts and agents' logs (their detectors
// and tasks), labelled ones, in JSON and JSON Lines.
func TestEpisodeFiringsMatchesKept(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := range 30 {
		s := replaytest.RandomScenario(uint64(900+i), start.Add(time.Duration(i)*3*time.Hour))
		s.NoiseBytes = min(s.NoiseBytes, 512)
		if err := replaytest.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		if b := buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	eps, err := replay.Read(&buf, "gen.jsonl", "d", replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	for _, glob := range []string{"episodes/*/episode_log.jsonl", "steps/*.jsonl", "attempts/*.jsonl", "agents/*/*/*"} {
		m, _ := filepath.Glob(filepath.Join("..", "testdata", glob))
		logs = append(logs, m...)
	}
	for _, path := range logs {
		more, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			continue // not a log of its own (a labels file, a sidecar)
		}
		eps = append(eps, more...)
	}
	formats := map[string]bool{}
	firings := 0
	for i, ep := range eps {
		var lab *analyze.EpisodeLabels
		if i%3 == 1 {
			lab = &analyze.EpisodeLabels{Source: "labels.json", Stuck: []analyze.Span{{From: 2, To: 9}, {From: 15, To: 40}}}
		}
		kept := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true})
		streamed := analyze.Analyze(ep, rules.Default(), analyze.Options{Sink: NewEpisodeFirings})
		if streamed.Firings != nil {
			t.Fatal("firings kept as structs beside the sink")
		}
		if lab != nil {
			kept.Labels, kept.Scores = lab, analyze.ScoreFirings(lab, nil, kept.Firings)
			streamed.Labels, streamed.Scores = lab, analyze.ScoreFirings(lab, nil, kept.Firings)
		}
		formats[ep.Format] = true
		firings += len(kept.Firings)
		for _, lines := range []bool{false, true} {
			var want, got bytes.Buffer
			we := NewEpisode(kept, ep)
			we.Labels = NewEpisodeLabels(kept.Labels, kept.Scores)
			data, err := EncodeEpisode(&we)
			if err != nil {
				t.Fatal(err)
			}
			jw := &JSONWriter{Lines: lines}
			jw.Begin(&want, rules.Default())
			jw.EpisodeJSON(data)
			ge := NewEpisode(streamed, ep)
			ge.Labels = NewEpisodeLabels(streamed.Labels, streamed.Scores)
			data, err = EncodeEpisode(&ge)
			if err != nil {
				t.Fatal(err)
			}
			sink := streamed.Sink.(*EpisodeFirings)
			if sink.Len() != len(kept.Firings) {
				t.Fatalf("%s: %d firings packed, %d kept", ep.Source, sink.Len(), len(kept.Firings))
			}
			jw = &JSONWriter{Lines: lines}
			jw.Begin(&got, rules.Default())
			if err := jw.EpisodeWith(data, sink); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%s %s (lines %v): packed firings differ\n got %.2000s\nwant %.2000s", ep.Source, ep.ID, lines, got.Bytes(), want.Bytes())
			}
		}
		ReleaseFirings(streamed)
	}
	if firings == 0 || !formats[replay.FormatSteps] || !formats[replay.FormatAttempts] {
		t.Fatalf("%d firings, formats %v: the test covers too little", firings, formats)
	}
}

// TestEpisodeFiringsRefused: a firing json.Marshal refuses (a NaN) fails
// its episode's encoding with json.Marshal's error, naming the episode.
func TestEpisodeFiringsRefused(t *testing.T) {
	ep := &replay.Episode{ID: "e", Source: "x.jsonl", Turns: []replay.Turn{{N: 1}}}
	o := analyze.Analyze(ep, rules.Default(), analyze.Options{Sink: NewEpisodeFirings})
	s := o.Sink.(*EpisodeFirings)
	s.Firing(&rules.Firing{Turn: 1, Rule: rules.LocationRevisit, Kind: rules.Penalty, Penalty: math.NaN()}, false)
	e := NewEpisode(o, ep)
	_, err := EncodeEpisode(&e)
	if err == nil || !strings.Contains(err.Error(), "x.jsonl: episode e:") || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("error %v", err)
	}
	ReleaseFirings(o)
}

// TestTimelineMarksMatchesKept: the HTML page of episodes whose firings
// were marked as they came (NewTimelineMarks) is the page of the same
// episodes with their firings kept: generated ZorkGPT episodes, the test
// episodes and agents' logs.
func TestTimelineMarksMatchesKept(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := range 30 {
		s := replaytest.RandomScenario(uint64(700+i), start.Add(time.Duration(i)*3*time.Hour))
		s.NoiseBytes = min(s.NoiseBytes, 512)
		if err := replaytest.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		if b := buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	eps, err := replay.Read(&buf, "gen.jsonl", "d", replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob("../testdata/episodes/*/episode_log.jsonl")
	more, _ := filepath.Glob("../testdata/steps/*.jsonl")
	for _, path := range append(logs, more...) {
		m, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			continue // a steps log needing --field
		}
		eps = append(eps, m...)
	}
	kept := &HTMLReport{MaxStuck: 20}
	marked := &HTMLReport{MaxStuck: 20}
	var totals analyze.Totals
	cuts := 0
	for _, ep := range eps {
		o := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true, Story: true})
		kept.Add(o, ep)
		m := analyze.Analyze(ep, rules.Default(), analyze.Options{Story: true, Sink: NewTimelineMarks})
		if m.Firings != nil {
			t.Fatal("firings kept beside the marks")
		}
		marked.Add(m, ep)
		totals.Add(&o.Result, o.RecordedTurns, ep.Diag.Skipped)
		if o.Termination != nil {
			cuts++
		}
	}
	totals.Finish()
	var want, got bytes.Buffer
	if err := kept.Write(&want, &totals, nil); err != nil {
		t.Fatal(err)
	}
	if err := marked.Write(&got, &totals, nil); err != nil {
		t.Fatal(err)
	}
	if cuts == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%d cuts; pages differ (%d bytes, want %d)", cuts, got.Len(), want.Len())
	}
}
