package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An episode path pasted with the colons of its id (2025-11-04T09:35:24,
// as reports print it) where the directory has dashes (ZorkGPT's
// 2025-11-04T09-35-24) gets the path that exists.
func TestColonPathHint(t *testing.T) {
	for _, args := range [][]string{
		{"analyze", "../testdata/episodes/2025-11-04T09:35:24"},
		{"analyze", "../testdata/episodes/2025-11-04T09:35:24/episode_log.jsonl"},
		{"sweep", "--max-stuck", "30,40", "../testdata/episodes/2025-11-04T09:35:24"},
		{"check", "--no-baseline", "../testdata/episodes/2025-11-04T09:35:24"},
		{"report", "-o", filepath.Join(t.TempDir(), "x.html"), "../testdata/episodes/2025-11-04T09:35:24"},
	} {
		want := strings.ReplaceAll(args[len(args)-1], "09:35:24", "09-35-24")
		code, _, errOut := run(t, "", "", args...)
		if code != ExitError || !strings.Contains(errOut, "no such file or directory; did you mean "+want+"?") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	// No guess when the dashed path does not exist either.
	if _, _, errOut := run(t, "", "", "analyze", "../testdata/episodes/2025-11-04T09:35:25"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a guess that does not exist: %q", errOut)
	}
}

// A scan that found only test episode directories (test_*, test-*),
// which scans skip, says so and how to read them.
func TestIncludeTestsHint(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "test_smoke", "episode_log.jsonl"), stuckLog("smoke", 30))
	writeFile(t, filepath.Join(dir, "test-agent", "run.jsonl"), mustRead(t, stepsLog))
	code, _, errOut := run(t, "", "", "analyze", dir)
	if code != ExitError || !strings.Contains(errOut, "2 logs in test episode directories (test_*, test-*), which scans skip: --include-tests reads them") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	if code, out, errOut := run(t, "", "", "analyze", "--include-tests", dir); code != 0 || !strings.Contains(out, "smoke") {
		t.Errorf("--include-tests: exit %d, %s", code, errOut)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
