package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardUsageErrors pins what a bad --shard, or a flag that needs
// another, tells the user (exit 2).
func TestShardUsageErrors(t *testing.T) {
	for _, tc := range []struct{ args, stderr string }{
		{"sweep --max-stuck 30 --shard 3 x", "loopbreak: invalid argument \"3\" for \"--shard\" flag: want K/N, e.g. 1/4 for the first of 4 shards\nRun 'loopbreak sweep --help' for usage.\n"},
		{"analyze --shard a/b x", "loopbreak: invalid argument \"a/b\" for \"--shard\" flag: want K/N, e.g. 1/4 for the first of 4 shards\nRun 'loopbreak analyze --help' for usage.\n"},
		{"analyze --shard 0/4 x", "loopbreak: invalid argument \"0/4\" for \"--shard\" flag: the shard number K must be from 1 to 4, got 0\nRun 'loopbreak analyze --help' for usage.\n"},
		{"check --shard 5/4 x", "loopbreak: invalid argument \"5/4\" for \"--shard\" flag: the shard number K must be from 1 to 4, got 5\nRun 'loopbreak check --help' for usage.\n"},
		{"analyze --shard 1/0 x", "loopbreak: invalid argument \"1/0\" for \"--shard\" flag: the shard count N must be at least 1, got 0\nRun 'loopbreak analyze --help' for usage.\n"},
		{"analyze --shard 1/2 -", "loopbreak: --shard: standard input (-) cannot be split between shards; name files or directories\n"},
		{"merge --color blue x.json", "loopbreak: --color \"blue\": want auto, always or never\n"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			code, out, errOut := run(t, "", "", strings.Fields(tc.args)...)
			if code != ExitError || out != "" || errOut != tc.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, out, errOut, tc.stderr)
			}
		})
	}
}

// TestOutputFileErrors: a part or Parquet file that cannot be written is
// named; a run that fails leaves no file, not even a temporary one.
func TestOutputFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "part.json")
	code, _, errOut := run(t, "", "", "sweep", "--max-stuck", "30", "--partial", "-o", missing, episodesDir)
	if code != ExitError || errOut != "loopbreak: writing "+missing+": no such file or directory\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out := filepath.Join(dir, "eps.parquet")
	code, _, errOut = run(t, "", "", "analyze", "--strict", "--format", "parquet", "-o", out, episodesDir)
	if code != ExitError || strings.Contains(errOut, "writing") {
		t.Errorf("strict: exit %d, stderr %q", code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
