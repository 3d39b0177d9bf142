package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// episodesDir is the committed fixtures, relative to this package.
const episodesDir = "../testdata/episodes"

// golden compares got with testdata/<name> (replaytest.Golden).
func golden(t *testing.T, name, got string) {
	t.Helper()
	replaytest.Golden(t, filepath.Join("..", "testdata", name), got, *update, "go test ./cmd -update")
}

// TestAnalyzeGolden runs analyze on every committed episode, as text and
// JSON, and on the two documented incidents with the thresholds the
// design documents discuss.
func TestAnalyzeGolden(t *testing.T) {
	entries, err := os.ReadDir(episodesDir)
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name string
		args []string
	}
	var cases []tc
	for _, e := range entries {
		p := filepath.ToSlash(filepath.Join(episodesDir, e.Name(), "episode_log.jsonl"))
		cases = append(cases,
			tc{"analyze/" + e.Name() + ".txt", []string{"analyze", p}},
			tc{"analyze/" + e.Name() + ".json", []string{"analyze", "--format", "json", p}},
		)
	}
	incident1 := filepath.ToSlash(filepath.Join(episodesDir, "2025-11-03T12-38-53", "episode_log.jsonl"))
	incident2 := filepath.ToSlash(filepath.Join(episodesDir, "2025-11-04T09-35-24", "episode_log.jsonl"))
	cases = append(cases,
		// The design spec's scenario: max_turns_stuck = 30.
		tc{"analyze/incident-2025-11-03-max30.txt", []string{"analyze", "--set", "max_turns_stuck=30", incident1}},
		// The implementation report's figures: 40 turns, checks every 10.
		tc{"analyze/incident-2025-11-04-verbose.txt", []string{"analyze", "-v", incident2}},
		// A live run recorded with max_turns_stuck 30 agrees with a replay
		// under the configuration it ran with (RULES.md §10).
		tc{"analyze/live-2025-11-10-max30.txt", []string{"analyze", "--set", "max_turns_stuck=30", filepath.ToSlash(filepath.Join(episodesDir, "2025-11-10T21-05-00", "episode_log.jsonl"))}},
		tc{"analyze/corpus.txt", []string{"analyze", episodesDir}},
		tc{"analyze/corpus-with-tests.jsonl", []string{"analyze", "--format", "jsonl", "--include-tests", episodesDir}},
		tc{"analyze/no-objective-progress.txt", []string{"analyze", "--set", "enable_objective_based_progress=false", "--set", "max_turns_stuck=20", "--set", "stuck_warning_threshold=10", episodesDir}},
	)
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
			ios, _, out, errOut := Test()
			if code := Main(c.args, ios); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out.String())
		})
	}
}

// TestWidthGolden runs the text reports as on a terminal of 120, 80 and 60
// columns (colour off, to keep the goldens readable): tables hide columns
// by priority and prose wraps, and no line is wider than the terminal.
func TestWidthGolden(t *testing.T) {
	incident := filepath.ToSlash(filepath.Join(episodesDir, "2025-11-04T09-35-24", "episode_log.jsonl"))
	cases := []struct {
		name string
		args []string
	}{
		{"episode", []string{"analyze", "--color", "never", incident}},
		{"verbose", []string{"analyze", "--color", "never", "-v", incident}},
		{"corpus", []string{"analyze", "--color", "never", episodesDir}},
		{"sweep", []string{"sweep", "--color", "never", "-q", "--max-stuck", "20:60:10", "--check-interval", "5,10", episodesDir}},
		{"sweep-by-episode", []string{"sweep", "--color", "never", "-q", "--max-stuck", "30:50:10", "--grid", "enable_objective_based_progress=true,false", "--by-episode", episodesDir}},
	}
	for _, width := range []int{120, 80, 60} {
		for _, c := range cases {
			name := fmt.Sprintf("width/%s-%d.txt", c.name, width)
			t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
				ios, _, out, errOut := Test()
				ios.StdoutTTY, ios.Width = true, width
				if code := Main(c.args, ios); code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				golden(t, name, out.String())
				for i, l := range strings.Split(out.String(), "\n") {
					if n := utf8.RuneCountInString(l); n > width {
						t.Errorf("line %d is %d wide, over %d: %q", i+1, n, width, l)
					}
				}
			})
		}
	}
}

// Off a terminal the report keeps its fixed layout whatever $COLUMNS says:
// scripts get the same bytes everywhere.
func TestNoWidthOffTerminal(t *testing.T) {
	run := func(cols string) string {
		ios, _, out, errOut := Test()
		ios.Getenv = func(k string) string {
			if k == "COLUMNS" {
				return cols
			}
			return ""
		}
		if code := Main([]string{"analyze", episodesDir}, ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out.String()
	}
	if a, b := run("40"), run(""); a != b {
		t.Errorf("COLUMNS changed the output off a terminal:\n%s\n---\n%s", a, b)
	}
}
