package check

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestFailOnRejectedTallied: a :rejected gate is observed from the
// rejections tallied as the replay produces them (Rejections), never
// from kept firings: check replays with no firing kept, and counts what
// observing every kept firing counts, episode by episode.
func TestFailOnRejectedTallied(t *testing.T) {
	spec := "score_adjustment/adjustment:rejected"
	gate := func() *FailOn {
		f, err := ParseFailOn(spec)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if o := analyzeOptions([]*FailOn{gate()}); o.KeepFirings || o.Sink == nil {
		t.Fatalf("%s: replayed with KeepFirings %v, a sink %v; want the rejections tallied, no firing kept", spec, o.KeepFirings, o.Sink != nil)
	}
	cfg := rules.Default()
	if err := cfg.SetString("enable_loop_detection=true"); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "episodes", "*", "episode_log.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	got := gate()
	col, err := Collect(Options{Files: files, Config: cfg, Mode: ModeGatesOnly, FailOn: []*FailOn{got}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if col == nil {
		t.Fatal("nothing collected")
	}
	want := gate()
	for _, path := range files {
		eps, err := replay.ReadFile(path, nil, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true})
			if o.Sink != nil || o.Firings == nil && o.Counts[rules.Adjustment.Key()] > 0 {
				t.Fatalf("%s: the reference kept no firings", ep.ID)
			}
			want.Observe(o)
		}
	}
	if want.Fired == 0 {
		t.Fatalf("%s: the fixtures reject nothing; the test proves nothing", spec)
	}
	if got.Fired != want.Fired || !reflect.DeepEqual(got.Where, want.Where) {
		t.Errorf("%s: tallied %d in %v, from the kept firings %d in %v", spec, got.Fired, got.Where, want.Fired, want.Where)
	}
}
