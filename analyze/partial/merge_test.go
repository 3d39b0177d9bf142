package partial

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// edited writes a copy of a part with one replacement made (which must
// apply) and returns its name.
func edited(t *testing.T, name, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %s", name, old)
	}
	out := filepath.Join(filepath.Dir(name), "edited-"+filepath.Base(name))
	if err := os.WriteFile(out, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// mergeAnalyze opens, merges and reads analyze parts through; the error
// of the first step that fails.
func mergeAnalyze(t *testing.T, names []string) error {
	t.Helper()
	var parts []*File
	for _, name := range names {
		p, err := Open(name)
		if err != nil {
			return err
		}
		defer p.Close()
		parts = append(parts, p)
	}
	m, err := Merge(parts, names)
	if err != nil {
		return err
	}
	_, err = m.Analyze(nil)
	return err
}

// TestMergeRefusesRelabelledPart (issue 23 item 10): a part relabelled as
// another shard used to merge with exit 0, one shard doubled and one
// missing; its shard_logs give it away, and so do episodes of logs a part
// does not cover.
func TestMergeRefusesRelabelledPart(t *testing.T) {
	names := writeAnalyzeParts(t, 2, 3)
	relabelled := edited(t, names[0], `"shard":{"k":1,"n":2}`, `"shard":{"k":2,"n":2}`)
	err := mergeAnalyze(t, []string{names[0], relabelled})
	if err == nil || !strings.Contains(err.Error(), "both cover log 0: a part is not the shard it says it is") {
		t.Errorf("relabelled part: %v", err)
	}
	// Its shard_logs made to match its new label, its episodes still shard 1's.
	forged := edited(t, relabelled, `"shard_logs":[0,2,4]`, `"shard_logs":[1,3,5]`)
	err = mergeAnalyze(t, []string{names[0], forged})
	if err == nil || !strings.HasPrefix(err.Error(), forged+": ") || !strings.Contains(err.Error(), "log 0 is not one of shard 2/2's") {
		t.Errorf("relabelled part with its shard_logs: %v", err)
	}
	short := edited(t, names[1], `"shard_logs":[1,3,5]`, `"shard_logs":[1,3]`)
	err = mergeAnalyze(t, []string{names[0], short})
	if err == nil || !strings.Contains(err.Error(), "the parts cover 5 of the 6 logs") {
		t.Errorf("a log covered by no part: %v", err)
	}
	unordered := edited(t, names[1], `"shard_logs":[1,3,5]`, `"shard_logs":[3,1,5]`)
	if err := mergeAnalyze(t, []string{names[0], unordered}); err == nil || !strings.Contains(err.Error(), "out of range or out of order") {
		t.Errorf("shard_logs out of order: %v", err)
	}
	if err := mergeAnalyze(t, names); err != nil {
		t.Errorf("the parts as written: %v", err)
	}
}

// TestMergeRefusesImpossibleCounts (issue 23 item 10): negative counts,
// totals that do not count the episodes listed, and sums that would wrap
// are refused, naming the part; they used to print turns_saved
// 9223372036854775805 of 1137.
func TestMergeRefusesImpossibleCounts(t *testing.T) {
	names := writeAnalyzeParts(t, 2, 3)
	negative := edited(t, names[1], `"lines_skipped":0`, `"lines_skipped":-5`)
	if err := mergeAnalyze(t, []string{names[0], negative}); err == nil || err.Error() != negative+": totals: lines_skipped is negative (-5)" {
		t.Errorf("negative count: %v", err)
	}
	more := edited(t, names[1], `"episodes":3`, `"episodes":4`)
	if err := mergeAnalyze(t, []string{names[0], more}); err == nil || err.Error() != more+": its totals count 4 episodes, it lists 3" {
		t.Errorf("totals of more episodes than listed: %v", err)
	}

	// Two parts whose turns saved add up past the largest int.
	dir := t.TempDir()
	var big []string
	for k := 1; k <= 2; k++ {
		set := &LogSet{Shard: Shard{K: k, N: 2}, Total: 2, Digest: "sha256:test", Index: []int{k - 1}}
		p, err := New("analyze", AnalyzeSettings{}, rules.Default(), []string{"eps"}, set)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, fmt.Sprintf("big-%d.json", k))
		s, err := NewAnalyzeStream(nil, name, p)
		if err != nil {
			t.Fatal(err)
		}
		var totals analyze.Totals
		totals.Add(&analyze.Result{Terminated: true, TurnsSaved: math.MaxInt/2 + 1}, math.MaxInt/2+1, 0)
		if err := s.Episode(k-1, []byte(`{}`), ""); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(&totals, []Error{}); err != nil {
			t.Fatal(err)
		}
		big = append(big, name)
	}
	if err := mergeAnalyze(t, big); err == nil || !strings.HasPrefix(err.Error(), big[1]+": totals: ") || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("sums past the largest int: %v", err)
	}
}
