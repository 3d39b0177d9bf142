package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if code != ExitError || !strings.Contains(errOut, "eps/A/episode_log.jsonl") || !strings.Contains(errOut, "--prune") {
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
