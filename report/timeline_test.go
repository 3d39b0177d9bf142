package report

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// readEpisode reads a bundled episode log (one episode per file).
func readEpisode(t *testing.T, id string) *replay.Episode {
	t.Helper()
	eps, err := replay.ReadFile(filepath.Join("..", "testdata", "episodes", id, "episode_log.jsonl"), nil, replay.Options{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("read %s: %d episodes, %v", id, len(eps), err)
	}
	return eps[0]
}

func timelineOf(ep *replay.Episode) *Timeline {
	cfg := rules.Default()
	o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true, Story: true})
	return NewTimeline(o, ep, rules.MaxTurnsStuck.Get(cfg))
}

// golden compares got with testdata/<name> (replaytest.Golden).
func golden(t *testing.T, name, got string) {
	t.Helper()
	replaytest.Golden(t, filepath.Join("testdata", name), got, *update, "go test ./report -update")
}

func TestWriteTimelineGolden(t *testing.T) {
	for _, c := range []struct {
		id    string
		width int
		ascii bool
	}{
		{"2025-11-04T09-35-24", 120, false},
		{"2025-11-04T09-35-24", 80, false},
		{"2025-11-04T09-35-24", 60, false},
		{"2025-11-04T09-35-24", 80, true},
		{"2025-11-06T08-00-00", 80, false}, // the live run stopped it
	} {
		name := fmt.Sprintf("%s-%d", c.id, c.width)
		if c.ascii {
			name += "-ascii"
		}
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTimeline(&b, timelineOf(readEpisode(t, c.id)), TimelineOptions{Width: c.width, ASCII: c.ascii}); err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				if n := len([]rune(line)); n > c.width {
					t.Errorf("line %d is %d columns wide, over %d: %q", i+1, n, c.width, line)
				}
				if c.ascii && strings.ContainsFunc(line, func(r rune) bool { return r > 127 && r != '–' }) {
					t.Errorf("line %d is not ASCII: %q", i+1, line)
				}
			}
			golden(t, filepath.Join("timeline", name+".golden"), b.String())
		})
	}
}

func TestTimelineFacts(t *testing.T) {
	tl := timelineOf(stuckEpisode())
	if tl.Cut != 40 || fmt.Sprint(tl.Checks) != "[50]" {
		t.Errorf("cut %d, later check points %v; want 40, [50]", tl.Cut, tl.Checks)
	}
	// Score 5 from turn 1: the counter runs from the start until the rise
	// at turn 55 resets it.
	for _, c := range []struct{ turn, stuck int }{{1, 1}, {40, 40}, {54, 54}, {55, 0}, {60, 5}} {
		if got := tl.Stuck[c.turn-1]; got != c.stuck {
			t.Errorf("stuck counter at t=%d = %d, want %d", c.turn, got, c.stuck)
		}
	}
	if tl.Urgency[19] != urgencyStagnation || tl.Urgency[36] != urgencyCritical || tl.Urgency[58] != urgencyNone {
		t.Errorf("urgency at t=20, 37, 59 = %d, %d, %d", tl.Urgency[19], tl.Urgency[36], tl.Urgency[58])
	}
	if tl.Fired[rules.Oscillation] == nil || tl.Fired[rules.LocationRevisit] == nil {
		t.Errorf("no oscillation or revisit strip: %v", tl.Fired)
	}
}

func TestWriteTimelineEmpty(t *testing.T) {
	var b bytes.Buffer
	ep := &replay.Episode{ID: "E0"}
	if err := WriteTimeline(&b, timelineOf(ep), TimelineOptions{}); err != nil || b.String() != "  (no turns to draw)\n" {
		t.Errorf("got %q, %v", b.String(), err)
	}
}
