package replaytest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the committed fixtures under testdata/episodes")

const fixtureRoot = "../../testdata/episodes"

// TestFixtures regenerates every committed fixture and compares it byte for
// byte with testdata (go test ./replay/replaytest -update rewrites them).
func TestFixtures(t *testing.T) {
	if *update {
		for _, f := range Fixtures() {
			if err := os.RemoveAll(filepath.Join(fixtureRoot, f.Dir)); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteFixtures(fixtureRoot); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	if err := WriteFixtures(tmp); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range Fixtures() {
		rel := filepath.Join(f.Dir, "episode_log.jsonl")
		got, err := os.ReadFile(filepath.Join(tmp, rel))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(fixtureRoot, rel))
		if err != nil {
			t.Fatalf("%v (run go test ./replay/replaytest -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator output (%d bytes vs %d); run go test ./replay/replaytest -update if the change is intended", rel, len(want), len(got))
		}
		total += int64(len(got))
		if len(got) > 450<<10 {
			t.Errorf("%s is %d bytes; fixtures should stay small", rel, len(got))
		}
	}
	if total > 1800<<10 { // the two live-run fixtures (RULES.md §10) took it past 1.6 MB
		t.Errorf("fixtures total %d bytes, want under ~1.75 MB", total)
	}
}
