package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestMergeEqualsRun splits a corpus's files over parts in an interleaved
// order and holds Merge of their RunPartials equal to Run over all the
// files: rows, recommendation, flips and errors in file order.
func TestMergeEqualsRun(t *testing.T) {
	dir := t.TempDir()
	files, err := replaytest.WriteCorpusCapped(dir, 12, 9, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte{0x1f, 0x8b, 0, 0}, 0o644)
	files = append(files[:5], append([]string{bad}, files[5:]...)...)
	limit := 30.0
	axes := []Axis{mustAxis(t, "max_turns_stuck", "20:60:20"), mustAxis(t, "stuck_check_interval", "5,10")}
	opts := Options{Files: files, Workers: 2, Base: rules.Default(), Axes: axes, ByEpisode: true, MaxFalseRatePct: &limit}
	want, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Flips) == 0 || len(want.Errors) != 1 {
		t.Fatalf("the corpus should flip some episodes and have one error: %d flips, %v", len(want.Flips), want.Errors)
	}
	for _, n := range []int{1, 3} {
		var parts []*Partial
		for k := range n {
			var mine, index []int
			for i := range files {
				if i%n == k {
					mine = append(mine, i)
				}
			}
			o := opts
			o.Files = nil
			for _, i := range mine {
				o.Files = append(o.Files, files[i])
				index = append(index, i)
			}
			p, err := RunPartial(o)
			if err != nil {
				t.Fatal(err)
			}
			// Indexes into o.Files, as RunPartial gives them, to indexes
			// into files, as Merge wants them.
			for j := range p.FlipFile {
				p.FlipFile[j] = index[p.FlipFile[j]]
			}
			for j := range p.ErrorFile {
				p.ErrorFile[j] = index[p.ErrorFile[j]]
			}
			parts = append(parts, p)
		}
		// Shards arrive in any order.
		parts[0], parts[len(parts)-1] = parts[len(parts)-1], parts[0]
		got, err := Merge(rules.Default(), axes, true, &limit, parts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("N=%d: merged result differs from one run:\n got %+v\nwant %+v", n, got, want)
		}
	}
	if _, err := Merge(rules.Default(), axes[:1], true, &limit, []*Partial{{Rows: make([]analyze.Totals, 7)}}); err == nil {
		t.Error("a part with more rows than the grid merged")
	}
}
