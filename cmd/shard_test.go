package cmd

import (
	"fmt"
	"io"
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
		{"sweep --max-stuck 30 -o part.json " + episodesDir, "loopbreak: -o: only with --partial\n"},
		{"check -o part.json " + episodesDir, "loopbreak: -o: only with --partial\n"},
		{"analyze -o part.json " + episodesDir, "loopbreak: -o: only with --partial or --format parquet\n"},
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

// TestShardAssignment holds the shards of a tree to a partition of its
// logs, the same whatever the tree is mounted as, and stable when logs are
// added: no log already there changes shard.
func TestShardAssignment(t *testing.T) {
	mk := func(root string, names ...string) {
		for _, n := range names {
			p := filepath.Join(root, n, "episode_log.jsonl")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("2025-11-%02dT%02d", i%28+1, i))
	}
	a, b := t.TempDir(), t.TempDir()
	mk(a, names...)
	mk(b, names...)
	const n = 7
	shards := func(root string) map[string]int {
		got := map[string]int{}
		for k := 1; k <= n; k++ {
			in := &inputFlags{Shard: shardFlag{K: k, N: n}}
			set, err := in.findShard([]string{root}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if set.Total < len(names) {
				t.Fatalf("shard %d/%d: Total %d, want every log", k, n, set.Total)
			}
			for _, f := range set.Files {
				rel, _ := filepath.Rel(root, f)
				if prev, dup := got[rel]; dup {
					t.Fatalf("%s in shards %d and %d", rel, prev, k)
				}
				got[rel] = k
			}
		}
		return got
	}
	sa, sb := shards(a), shards(b)
	if len(sa) != len(names) {
		t.Fatalf("the shards read %d of %d logs", len(sa), len(names))
	}
	used := map[int]bool{}
	for rel, k := range sa {
		used[k] = true
		if sb[rel] != k {
			t.Errorf("%s: shard %d under %s, %d under %s", rel, k, a, sb[rel], b)
		}
	}
	if len(used) < n-1 {
		t.Errorf("40 logs fell into %d of %d shards", len(used), n)
	}
	mk(a, "2026-01-01T00", "0000-first", "zzzz-last")
	after := shards(a)
	for rel, k := range sa {
		if after[rel] != k {
			t.Errorf("adding logs moved %s from shard %d to %d", rel, k, after[rel])
		}
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
