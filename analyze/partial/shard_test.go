package partial

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

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
			set, err := Select([]string{root}, SelectOptions{Shard: Shard{K: k, N: n}, Match: func(name string) bool { return name == "episode_log.jsonl" }})
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
