package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shardCorpus is the committed episodes, their test episode (with
// --include-tests) and an unreadable log, so the merged outputs list
// episodes and errors from several shards.
func shardCorpus(t *testing.T) []string {
	t.Helper()
	bad := filepath.Join(t.TempDir(), "broken")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	// The gzip magic bytes without a valid header: a file error.
	if err := os.WriteFile(filepath.Join(bad, "episode_log.jsonl.gz"), []byte("\x1f\x8bnot gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--include-tests", episodesDir, filepath.Dir(bad)}
}

// TestMergeEqualsOneRun runs each command once over the corpus and again
// as N = 1, 2 and 7 shards with --partial, and holds what merge prints,
// in every format of the command, byte for byte equal to the one run:
// stdout, stderr (check's verdict line) and exit code.
func TestMergeEqualsOneRun(t *testing.T) {
	corpus := shardCorpus(t)
	baseline := filepath.Join("..", "testdata", "check", "episodes.baseline.json")
	for _, tc := range []struct {
		name     string
		args     []string // the command and its flags, before the corpus
		formats  []string
		shardFmt string // the shards' --format ("" none)
	}{
		{"analyze-text", []string{"analyze"}, []string{"text", "json", "jsonl"}, "text"},
		{"analyze-verbose", []string{"analyze", "-v"}, []string{"text"}, "text"},
		{"analyze-json", []string{"analyze", "--set", "max_turns_stuck=30"}, []string{"json", "jsonl"}, "json"},
		{"sweep", []string{"sweep", "--max-stuck", "20:60:10", "--check-interval", "5,10", "--by-episode", "--max-false-rate", "20%"}, []string{"table", "json", "csv"}, ""},
		{"check", []string{"check", "--baseline", baseline, "--max-false-rate", "5%", "--fail-on", "camping/detection@2025-11-0[34]*", "--fail-on", "score_adjustment/adjustment:rejected"}, []string{"text", "json", "junit", "github", "markdown"}, ""},
		{"check-gates-only", []string{"check", "--no-baseline", "--min-saved", "10%"}, []string{"text", "json"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 7} {
				dir := t.TempDir()
				var parts []string
				for k := 1; k <= n; k++ {
					part := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
					args := append(append([]string{}, tc.args...), "--shard", fmt.Sprintf("%d/%d", k, n), "--partial", "-o", part)
					if tc.shardFmt != "" {
						args = append(args, "--format", tc.shardFmt)
					}
					if code, out, errOut := run(t, "", "", append(args, corpus...)...); code != 0 || out != "" {
						t.Fatalf("%v: exit %d, stdout %q, stderr %s", args, code, out, errOut)
					}
					parts = append(parts, part)
				}
				for _, f := range tc.formats {
					args := append(append([]string{}, tc.args...), "--format", f, "--color", "never")
					wantCode, want, wantErr := run(t, "", "", append(args, corpus...)...)
					code, got, gotErr := run(t, "", "", append([]string{"merge", "--format", f, "--color", "never"}, parts...)...)
					// The one run reports the unreadable file as it reads
					// it; a merge has nothing to read.
					wantErr = dropFileErrors(wantErr)
					if code != wantCode || got != want || gotErr != wantErr {
						os.WriteFile(filepath.Join(os.TempDir(), "merge-want"), []byte(want), 0o644)
						os.WriteFile(filepath.Join(os.TempDir(), "merge-got"), []byte(got), 0o644)
						t.Fatalf("N=%d --format %s: merge exit %d, stderr %q; one run exit %d, stderr %q; stdout equal: %v (see $TMPDIR/merge-want, merge-got)", n, f, code, gotErr, wantCode, wantErr, got == want)
					}
				}
			}
		})
	}
}

// dropFileErrors removes the lines a run prints on stderr as it meets an
// unreadable file.
func dropFileErrors(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.Contains(l, "episode_log.jsonl.gz") && !strings.HasPrefix(l, "loopbreak check:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}
