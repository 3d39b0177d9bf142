package cmd

import (
	"strings"
	"testing"
)

// The timeline shows on a terminal for one episode, or with --chart; never
// in a pipe by default, nor for a corpus.
func TestAnalyzeChart(t *testing.T) {
	const one = "../testdata/episodes/2025-11-04T09-35-24/episode_log.jsonl"
	for _, c := range []struct {
		name  string
		tty   bool
		args  []string
		chart bool
	}{
		{"pipe", false, []string{one}, false},
		{"terminal", true, []string{one}, true},
		{"terminal corpus", true, []string{"../testdata/episodes"}, false},
		{"pipe --chart", false, []string{"--chart", one}, true},
		{"terminal --format json", true, []string{"--format", "json", one}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, _, out, errOut := Test()
			ios.StdoutTTY, ios.Width = c.tty, 60
			code := Main(append([]string{"analyze", "--color", "never"}, c.args...), ios)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got := strings.Contains(out.String(), "  Timeline (t=1–273")
			if got != c.chart {
				t.Fatalf("timeline shown = %v, want %v:\n%s", got, c.chart, out)
			}
			if got && !strings.Contains(out.String(), "1 column = 7 turns") {
				t.Errorf("timeline not 60 columns wide:\n%s", out)
			}
		})
	}
	ios, _, out, _ := Test()
	if Main([]string{"analyze", "--chart", "--ascii", one}, ios); !strings.Contains(out.String(), "X cut t=60") {
		t.Errorf("--ascii: no ASCII cut mark:\n%s", out)
	}
}

func TestAnalyzeChartFlags(t *testing.T) {
	for _, args := range [][]string{{"--chart", "--format", "json"}, {"--ascii", "--format", "jsonl"}} {
		code, _, stderr := run(t, "", "", append(append([]string{"analyze"}, args...), "x.jsonl")...)
		if code != 2 || !strings.Contains(stderr, "--chart and --ascii draw in the text report, not with --format") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
