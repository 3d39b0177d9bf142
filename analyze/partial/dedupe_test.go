package partial

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDedupeSameFile: a log reached twice (the same path spelled two
// ways, a symbolic link, a hard link, a directory link) is read once;
// different files with equal contents are not merged.
func TestDedupeSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a", "episode_log.jsonl")
	b := filepath.Join(dir, "b", "episode_log.jsonl")
	for _, f := range []string{a, b} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sym := filepath.Join(dir, "sym.jsonl")
	hard := filepath.Join(dir, "hard.jsonl")
	dirLink := filepath.Join(dir, "alink")
	if err := os.Symlink(a, sym); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if err := os.Link(a, hard); err != nil {
		t.Skipf("link: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "a"), dirLink); err != nil {
		t.Fatal(err)
	}
	var d dedupe
	for _, tc := range []struct {
		path         string
		dup, regular bool // regular: a file kept, its stat's verdict
	}{
		{a, false, true},
		{filepath.Join(dir, "a", ".", "episode_log.jsonl"), true, false},
		{sym, true, false},
		{hard, true, false},
		{filepath.Join(dirLink, "episode_log.jsonl"), true, false},
		{b, false, true}, // same bytes, another file
		{"-", false, false},
		{"-", true, false},
		{dir, false, false}, // a directory (an event store) is stat'ed again when read
	} {
		wantSize := int64(-1)
		if tc.regular {
			wantSize = 3 // "{}\n": the stat's size, for batching small files
		}
		if dup, regular, size := d.dup(tc.path); dup != tc.dup || regular != tc.regular || size != wantSize {
			t.Errorf("dup(%s) = %v, %v, %d; want %v, %v, %d", tc.path, dup, regular, size, tc.dup, tc.regular, wantSize)
		}
	}
}

// TestSelectDedupesLinks: Select reads a log reached through a link and
// through its directory once, and counts it once among the inputs.
func TestSelectDedupesLinks(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "eps", "e1", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(log), 0o755)
	os.WriteFile(log, []byte("{}\n"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(log, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	set, err := Select([]string{filepath.Join(dir, "eps"), link}, SelectOptions{Match: func(n string) bool { return n == "episode_log.jsonl" }})
	if err != nil {
		t.Fatal(err)
	}
	if set.Total != 1 || len(set.Files) != 1 {
		t.Errorf("Total %d, files %v; want the log once", set.Total, set.Files)
	}
}

// BenchmarkDedupe: N distinct files cost N lookups (it was N²/2
// os.SameFile calls: issue 25).
func BenchmarkDedupe(b *testing.B) {
	dir := b.TempDir()
	var paths []string
	for i := range 10000 {
		p := filepath.Join(dir, fmt.Sprintf("f%05d", i))
		os.WriteFile(p, nil, 0o644)
		paths = append(paths, p)
	}
	b.ResetTimer()
	for range b.N {
		var d dedupe
		for _, p := range paths {
			d.dup(p)
		}
	}
}
