package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

func TestCheckGrid(t *testing.T) {
	base := rules.Default()
	var ge *GridError
	if err := CheckGrid(base, nil); !errors.As(err, &ge) || err.Error() != "no key to sweep" {
		t.Errorf("no axes: %v", err)
	}
	axes := []Axis{mustAxis(t, "max_turns_stuck", "10"), mustAxis(t, "stuck_warning_threshold", "20")}
	if err := CheckGrid(base, axes); !errors.As(err, &ge) ||
		err.Error() != "every combination of the grid violates a constraint, e.g. max_turns_stuck=10 stuck_warning_threshold=20: stuck_warning_threshold (20) must be < max_turns_stuck (10)" {
		t.Errorf("all skipped: %v", err)
	}
	if err := CheckGrid(base, axes[:1]); err == nil {
		t.Error("max_turns_stuck=10 with the default warning threshold 20 should be refused")
	}
}

// TestRun sweeps a small corpus: the baseline row first with the base's
// values, each row's totals equal to analyzing with its configuration,
// progress per file, an unreadable file left out (or, with Strict, the
// error).
func TestRun(t *testing.T) {
	dir := t.TempDir()
	files, err := replaytest.WriteCorpusCapped(dir, 6, 5, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte{0x1f, 0x8b, 0, 0}, 0o644)
	files = append(files, bad)

	var progress []Progress
	opts := Options{Files: files, Workers: 2, Base: rules.Default(), ByEpisode: true,
		Axes:   []Axis{mustAxis(t, "max_turns_stuck", "20,60"), mustAxis(t, "stuck_warning_threshold", "15")},
		OnFile: func(p Progress) { progress = append(progress, p) }}
	res, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || !res.Rows[0].Baseline || res.Rows[0].Params[0].Value != 40 || res.Rows[0].Params[1].Value != 20 ||
		res.Rows[2].Params[0].Value != 60 || len(res.Errors) != 1 || res.Errors[0].Source != bad {
		t.Fatalf("rows %+v errors %v", res.Rows, res.Errors)
	}
	if len(progress) != len(files) || progress[len(files)-1].Files != len(files) || progress[len(files)-1].Err == nil ||
		progress[len(files)-1].Episodes != res.Rows[0].Totals.Episodes {
		t.Errorf("progress %+v", progress)
	}
	// Each row is what analyze totals under that row's configuration.
	configs := []*rules.Config{rules.Default()}
	points, _, _ := ExpandGrid(rules.Default(), opts.Axes)
	for _, p := range points {
		configs = append(configs, p.Config)
	}
	for r, cfg := range configs {
		var want analyze.Totals
		analyze.Files(context.Background(), files[:len(files)-1], nil, replay.Options{}, 1, cfg, analyze.Options{}, func(fr analyze.FileResult) bool {
			for i, o := range fr.Outcomes {
				want.Add(&o.Result, o.RecordedTurns, fr.Episodes[i].Diag.Skipped)
			}
			return true
		})
		want.Finish()
		got := res.Rows[r].Totals
		if got.Episodes != want.Episodes || got.TurnsSaved != want.TurnsSaved || got.FalseTerminations != want.FalseTerminations ||
			got.MedianTurnsSaved != want.MedianTurnsSaved || got.Warnings != want.Warnings {
			t.Errorf("row %d: %+v, want %+v", r, got, want)
		}
	}
	if res.Recommendation.Row < 0 || !res.Rows[res.Recommendation.Row].Recommended {
		t.Errorf("recommendation %+v", res.Recommendation)
	}
	for _, f := range res.Flips {
		if len(f.Outcomes) != len(res.Rows) || !flips(f.Outcomes) {
			t.Errorf("flip %+v", f)
		}
	}

	opts.Read.Strict = true
	if _, err := Run(opts); err == nil {
		t.Error("strict: no error for an unreadable file")
	}
}
