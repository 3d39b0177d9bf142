package cmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// An update that cannot read one log keeps that log's entries and fails
// naming the file; --prune drops them on purpose.
func TestCheckUpdateKeepsUnreadable(t *testing.T) {
	dir := updatedCorpus(t)
	bl := filepath.Join(dir, "loopbreak.baseline.json")
	before, _ := os.ReadFile(bl)
	// A corrupt gzip stream: unreadable whoever runs the test (root too).
	writeFile(t, filepath.Join(dir, "eps", "A", "episode_log.jsonl"), "\x1f\x8bnot gzip")
	code, out, errOut := runCheck(t, dir, "--update", "eps")
	if code != ExitError || !strings.Contains(errOut, "eps/A/episode_log.jsonl") || !strings.Contains(errOut, "--prune") ||
		!strings.HasPrefix(out, "FAIL: loopbreak.baseline.json is up to date: 3 episodes; kept 1 entry of unreadable logs unchanged") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	after, _ := os.ReadFile(bl)
	if string(after) != string(before) {
		t.Errorf("A's entry changed or was dropped:\n%s", after)
	}
	code, out, errOut = runCheck(t, dir, "--update", "--prune", "eps")
	after, _ = os.ReadFile(bl)
	if code != ExitOK || strings.Contains(string(after), `"episode_id": "A"`) || !strings.Contains(string(after), `"episode_id": "B"`) {
		t.Errorf("--prune: exit %d\n%s%s\n%s", code, out, errOut, after)
	}
}

// No episodes at all is an error, not a pass over nothing.
func TestNoEpisodes(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--no-baseline", "-"},
		{"analyze", "-"},
		{"sweep", "--max-stuck", "30,40", "-"},
	} {
		code, out, errOut := run(t, "", "", args...)
		if code != ExitError || !strings.Contains(errOut, "no episodes in") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}

// hugeLog is checkLog's B (terminated at t=50, scoring again at 70) with
// legal but huge scores: lo from turn 3, hi from turn 70.
func hugeLog(id, lo, hi string) string {
	s := checkLog(id, 80, map[int]int{3: 5, 70: 10})
	s = strings.ReplaceAll(s, `"score":5,`, `"score":`+lo+`,`)
	s = strings.ReplaceAll(s, `"score":10,`, `"score":`+hi+`,`)
	return strings.ReplaceAll(s, `"final_score":10`, `"final_score":`+hi)
}

// Huge scores never make a non-finite number: JSON output stays whole,
// totals are finite and flagged, and a baseline compares clean with
// itself.
func TestHugeScores(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "eps", "H1", "episode_log.jsonl"), hugeLog("H1", "5", "1.7e308"))
	writeFile(t, filepath.Join(dir, "eps", "H2", "episode_log.jsonl"), hugeLog("H2", "5", "1.7e308"))
	writeFile(t, filepath.Join(dir, "eps", "H3", "episode_log.jsonl"), hugeLog("H3", "-1.7e308", "1.7e308"))
	t.Chdir(dir)
	code, out, errOut := run(t, "", "", "analyze", "--format", "json", "eps")
	var doc struct {
		Episodes []struct {
			ScoreForfeited float64 `json:"score_forfeited"`
		} `json:"episodes"`
		Totals map[string]any `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != ExitOK || err != nil {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if len(doc.Episodes) != 3 || doc.Totals["score_forfeited"] != math.MaxFloat64 || doc.Totals["score_overflow"] != true {
		t.Errorf("episodes %+v, totals %v", doc.Episodes, doc.Totals)
	}
	if code, out, errOut := runCheck(t, "", "--update", "eps"); code != ExitOK {
		t.Fatalf("update: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile("loopbreak.baseline.json")
	if strings.Contains(string(data), "null,") && strings.Contains(string(data), `"score_forfeited": null`) {
		t.Errorf("baseline stores null:\n%s", data)
	}
	code, out, errOut = runCheck(t, "", "eps")
	if code != ExitOK || !strings.Contains(out, "score forfeited 1.7976931348623157e+308 (saturated: the sum exceeds the float64 range)") {
		t.Errorf("compare with itself: exit %d\n%s%s", code, out, errOut)
	}
}

// An empty log or one without loop-break events is a file error naming
// it: alone it is "no episodes" (exit 2); for --update it keeps the
// baseline entry of the episode it held.
func TestNoEventsFiles(t *testing.T) {
	dir := updatedCorpus(t)
	t.Chdir(dir)
	empty := writeFile(t, filepath.Join("x", "empty.jsonl"), "")
	if code, _, errOut := run(t, "", "", "analyze", empty); code != ExitError || !strings.Contains(errOut, "no loop-break events in "+empty) || !strings.Contains(errOut, "no episodes in") {
		t.Errorf("analyze empty: exit %d, %s", code, errOut)
	}
	writeFile(t, filepath.Join("eps", "C", "episode_log.jsonl"), `{"level": "INFO", "message": "not ZorkGPT"}`+"\n")
	before, _ := os.ReadFile("loopbreak.baseline.json")
	code, out, errOut := runCheck(t, "", "--update", "eps")
	after, _ := os.ReadFile("loopbreak.baseline.json")
	if code != ExitError || !strings.Contains(errOut, "no loop-break events in eps/C/episode_log.jsonl") || string(after) != string(before) {
		t.Errorf("update: exit %d\n%s%s", code, out, errOut)
	}
}

// A --strict failure after some episodes were written still leaves one
// whole JSON document (its errors name the failure), never half of one.
func TestAnalyzeJSONWholeOnError(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "a", "episode_log.jsonl"), stuckLog("A", 20))
	bad := writeFile(t, filepath.Join(dir, "b", "episode_log.jsonl"), stuckLog("B", 20)+"{not json\n"+stuckLog("B", 20))
	code, out, errOut := run(t, "", "", "analyze", "--strict", "--format", "json", "-j", "1", good, bad)
	if code != ExitError || !json.Valid([]byte(out)) || !strings.Contains(out, bad) {
		t.Errorf("exit %d, valid JSON %v\n%.300s\n%s", code, json.Valid([]byte(out)), out, errOut)
	}
}

// TestAnalyzeJSONHugeEpisodeStreamed: an episode whose firings encode in
// more than 8 MiB (once a spill's bound; now kept packed and encoded as
// written) is written, in JSON and JSON Lines and between two other
// episodes on two workers, byte for byte as its firings kept and encoded
// whole would be, and no temporary file is left.
func TestAnalyzeJSONHugeEpisodeStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30,000-turn episode")
	}
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	a := writeFile(t, filepath.Join(dir, "a", "episode_log.jsonl"), stuckLog("A", 20))
	huge := writeFile(t, filepath.Join(dir, "h", "episode_log.jsonl"), stuckLog("H", 30000))
	c := writeFile(t, filepath.Join(dir, "c", "episode_log.jsonl"), stuckLog("C", 20))
	var want []string
	for _, path := range []string{a, huge, c} {
		eps, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			t.Fatal(err)
		}
		o := analyze.Analyze(eps[0], rules.Default(), analyze.Options{KeepFirings: true})
		e := report.NewEpisode(o, eps[0])
		e.Labels = report.NewEpisodeLabels(nil, nil)
		data, err := report.EncodeEpisode(&e)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(data))
	}
	if len(want[1]) < 9<<20 {
		t.Fatalf("the huge episode encodes in %d bytes: under 9 MiB", len(want[1]))
	}
	code, out, errOut := run(t, "", "", "analyze", "--format", "jsonl", "-j", "2", a, huge, c)
	if code != ExitOK || out != strings.Join(want, "\n")+"\n" {
		t.Errorf("jsonl: exit %d, %d bytes, want %d: %s", code, len(out), len(strings.Join(want, "\n"))+1, errOut)
	}
	code, out, errOut = run(t, "", "", "analyze", "--format", "json", "-j", "2", a, huge, c)
	if code != ExitOK || !strings.Contains(out, "\n"+strings.Join(want, ",\n")+"\n],\"totals\"") {
		t.Errorf("json: exit %d, %d bytes: %s", code, len(out), errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
