package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/partial"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// TestAnalyzePartialFiringsStreamed: analyze --partial replays with no
// firing kept (a ZorkGPT episode's -v trace, which lists them turn by
// turn, reads them back from a spill): each episode's firings are kept
// packed for its JSON and encoded as it is written, and its text's story
// and chart tallied beside them; the part holds the bytes encoded from the
// kept firings, an episode of more than 8 MiB of them between two others
// on two workers, and no temporary file is left.
func TestAnalyzePartialFiringsStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30,000-turn episode")
	}
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var steps strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&steps, `{"step": %d, "action": "run_tests", "output": "1 test failed", "error": true, "kind": "action", "score": %d, "location": "repo"}`+"\n", i, i/1000)
	}
	zork := writeFile(t, filepath.Join(dir, "z", "episode_log.jsonl"), stuckLog("Z", 3000))
	agent := writeFile(t, filepath.Join(dir, "s", "steps.jsonl"), steps.String())
	cfg := rules.Default()
	for _, path := range []string{zork, agent} {
		eps, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []partial.AnalyzeSettings{{}, {Text: true}, {Text: true, Verbose: true}, {Text: true, Chart: true},
			{Text: true, Verbose: true, Chart: true}, {Text: true, Verbose: true, SummaryOnly: true}} {
			o := analyze.Analyze(eps[0], cfg, partialAnalyzeOptions(s, nil))
			if n := o.Sink.(*partialSink).json.Len(); n == 0 {
				t.Fatalf("%s %+v: no firings", path, s)
			}
			if o.Firings != nil {
				t.Errorf("%s %+v: %d firings kept", path, s, len(o.Firings))
			}
			o.Sink.(*partialSink).json.Release()
		}
	}

	a := writeFile(t, filepath.Join(dir, "a", "episode_log.jsonl"), stuckLog("A", 20))
	huge := writeFile(t, filepath.Join(dir, "h", "episode_log.jsonl"), stuckLog("H", 30000))
	c := writeFile(t, filepath.Join(dir, "c", "episode_log.jsonl"), stuckLog("C", 20))
	var want []string
	for _, path := range []string{a, huge, c} {
		eps, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			t.Fatal(err)
		}
		o := analyze.Analyze(eps[0], cfg, analyze.Options{KeepFirings: true})
		e := report.NewEpisode(o, eps[0])
		e.Labels = report.NewEpisodeLabels(nil, nil)
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(data))
	}
	if len(want[1]) < 9<<20 {
		t.Fatalf("the huge episode encodes in %d bytes: under 9 MiB", len(want[1]))
	}
	for _, format := range []string{"json", "text"} {
		code, out, errOut := run(t, "", "", "analyze", "--partial", "--format", format, "--detail", "-j", "2", a, huge, c)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", format, code, errOut)
		}
		var part struct {
			Body struct {
				Episodes []partial.Episode `json:"episodes"`
			} `json:"body"`
		}
		if err := json.Unmarshal([]byte(out), &part); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(part.Body.Episodes) != 3 {
			t.Fatalf("%s: %d episodes in the part", format, len(part.Body.Episodes))
		}
		for i, e := range part.Body.Episodes {
			if string(e.JSON) != want[i] {
				t.Errorf("%s: episode %d in the part: %d bytes, want the %d encoded from the kept firings", format, i, len(e.JSON), len(want[i]))
			}
			if (format == "text") != (e.Text != "") {
				t.Errorf("%s: episode %d's text: %.200q", format, i, e.Text)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
