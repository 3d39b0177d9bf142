package analyze

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestFilesOrderAndOutcomes runs the pool with more workers than files and
// unreadable files: emit sees input order, errors in their place, and one
// outcome per episode, equal to Analyze's.
func TestFilesOrderAndOutcomes(t *testing.T) {
	dir := t.TempDir()
	paths, err := replaytest.WriteCorpusCapped(dir, 8, 3, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte{0x1f, 0x8b, 0, 0}, 0o644) // gzip magic, broken header
	files := append(paths[:4:4], filepath.Join(dir, "absent.jsonl"), bad)
	files = append(files, paths[4:]...)
	cfg := rules.Default()
	for _, workers := range []int{1, 3, 16} {
		i := 0
		Files(files, nil, replay.Options{}, workers, cfg, Options{}, func(fr FileResult) bool {
			if fr.Path != files[i] || (fr.Err != nil) != (i == 4 || i == 5) || len(fr.Outcomes) != len(fr.Episodes) {
				t.Errorf("workers=%d, file %d: %s err=%v, %d outcomes for %d episodes", workers, i, fr.Path, fr.Err, len(fr.Outcomes), len(fr.Episodes))
			}
			for k, ep := range fr.Episodes {
				if want := Analyze(ep, cfg, Options{}); fr.Outcomes[k].EpisodeID != ep.ID || fr.Outcomes[k].Result != want.Result {
					t.Errorf("workers=%d: %s: outcome %+v, want %+v", workers, ep.ID, fr.Outcomes[k].Result, want.Result)
				}
			}
			i++
			return true
		})
		if i != len(files) {
			t.Errorf("workers=%d: emit called %d times for %d files", workers, i, len(files))
		}
		// Stopping early returns.
		n := 0
		Files(files, nil, replay.Options{}, workers, cfg, Options{}, func(FileResult) bool { n++; return n < 3 })
		if n != 3 {
			t.Errorf("workers=%d: emit called %d times after stopping at 3", workers, n)
		}
	}
}
