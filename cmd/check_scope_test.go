package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckScopedToPaths: a check of some logs against a baseline of
// more is scoped to the paths given: the rest is counted in one line
// (text) or a field (JSON), not listed missing; a sharded check given
// the same paths merges to the same report.
func TestCheckScopedToPaths(t *testing.T) {
	dir := t.TempDir()
	checkEpisodes(t, filepath.Join(dir, "eps"))
	writeFile(t, filepath.Join(dir, "other", "D", "episode_log.jsonl"), checkLog("D", 50, map[int]int{3: 5}))
	writeFile(t, filepath.Join(dir, "other", "E", "episode_log.jsonl"), checkLog("E", 30, map[int]int{3: 5}))
	if code, out, errOut := runCheck(t, dir, "--update", "eps", "other"); code != 0 {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut := runCheck(t, dir, "eps/A/episode_log.jsonl")
	lines := strings.Split(out, "\n")
	if code != 0 || lines[0] != "PASS: 1 episode match loopbreak.baseline.json" || lines[2] != "4 baseline entries out of scope (logs outside the paths given): not compared" {
		t.Fatalf("one log: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCheck(t, dir, "--format", "json", "eps")
	if code != 0 || !strings.Contains(out, "\n  \"out_of_scope\": 2,\n") || strings.Contains(out, `"missing"`) {
		t.Fatalf("json: exit %d\n%s", code, out)
	}
	// Both directories: every entry in scope, no line.
	if code, out, _ = runCheck(t, dir, "eps", "other"); code != 0 || strings.Contains(out, "out of scope") {
		t.Fatalf("whole corpus: exit %d\n%s", code, out)
	}

	// Shards given eps/ each check their share of its logs; merged, the
	// report is the unsharded one (other/ out of scope, eps/ compared).
	_, want, _ := runCheck(t, dir, "eps")
	var parts []string
	for _, k := range []string{"1/2", "2/2"} {
		p := filepath.Join(dir, "part"+k[:1]+".json")
		if code, out, errOut := runCheck(t, dir, "--shard", k, "--partial", "-o", p, "eps"); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s%s", k, code, out, errOut)
		}
		parts = append(parts, p)
	}
	code, got, errOut := run(t, dir, "", append([]string{"merge"}, parts...)...)
	if code != 0 || got != want || !strings.Contains(want, "2 baseline entries out of scope") {
		t.Fatalf("merge: exit %d\n%s%s\nwant\n%s", code, got, errOut, want)
	}
}
