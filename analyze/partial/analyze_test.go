package partial

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// writeAnalyzeParts writes n analyze parts of a corpus of n*per logs,
// log i in part i%n+1, one episode each, through AnalyzeStream.
func writeAnalyzeParts(t *testing.T, n, per int) []string {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for k := 1; k <= n; k++ {
		set := &LogSet{Shard: Shard{K: k, N: n}, Total: n * per, Digest: "sha256:test"}
		for log := k - 1; log < n*per; log += n {
			set.Index = append(set.Index, log)
		}
		p, err := New("analyze", AnalyzeSettings{}, rules.Default(), []string{"eps"}, set)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
		s, err := NewAnalyzeStream(nil, name, p)
		if err != nil {
			t.Fatal(err)
		}
		var totals analyze.Totals
		for log := k - 1; log < n*per; log += n {
			if err := s.Episode(log, []byte(fmt.Sprintf(`{"episode_id":"ep-%d"}`, log)), ""); err != nil {
				t.Fatal(err)
			}
			totals.Add(&analyze.Result{}, 1, 0)
		}
		if err := s.Commit(&totals, []Error{}); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

func openAll(t *testing.T, names []string) []*File {
	t.Helper()
	var parts []*File
	for _, name := range names {
		p, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		parts = append(parts, p)
	}
	return parts
}

// TestMergeAnalyzeHoldsOneEpisodePerPart: whatever the number of
// episodes, the merge holds at most a few decoded episodes per part (its
// workers decode mergeAhead ahead), and lists them in log order.
func TestMergeAnalyzeHoldsOneEpisodePerPart(t *testing.T) {
	names := writeAnalyzeParts(t, 4, 50)
	held := 0
	mergeHeld = func(n int) { held = max(held, n) }
	defer func() { mergeHeld = nil }()
	m, err := Merge(openAll(t, names), names)
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.Analyze(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Episodes != 200 || a.Totals.Episodes != 200 {
		t.Fatalf("%d episodes, totals %d; want 200", a.Episodes, a.Totals.Episodes)
	}
	i := 0
	if err := a.Each(true, false, func(js []byte, _ string) error {
		if want := fmt.Sprintf(`{"episode_id":"ep-%d"}`, i); string(js) != want {
			return fmt.Errorf("episode %d is %s, want %s", i, js, want)
		}
		i++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if i != 200 {
		t.Errorf("%d episodes listed, want 200", i)
	}
	if held < 1 || held > len(names)*(mergeAhead+2) {
		t.Errorf("the merge held up to %d decoded episodes at once; want 1 to %d (a few per part, whatever the number of episodes)", held, len(names)*(mergeAhead+2))
	}
}

// TestReadRefuses: a document that is not a sound partial file is
// refused, naming the file and the reason.
func TestReadRefuses(t *testing.T) {
	names := writeAnalyzeParts(t, 1, 2)
	good, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "not a loopbreak partial file: empty"},
		{"array", "[]", "not a loopbreak partial file: not a JSON object"},
		{"truncated", string(good[:len(good)/2]), "truncated partial file"},
		{"newer", strings.Replace(string(good), `"schema_version":2`, `"schema_version":9`, 1), "partial schema version 9; this loopbreak reads version 2"},
		{"older", strings.Replace(string(good), `"schema_version":2`, `"schema_version":1`, 1), "partial schema version 1; this loopbreak reads version 2"},
		{"kind", strings.Replace(string(good), Kind, "other", 1), `kind "other"`},
		{"shard", strings.Replace(string(good), `"shard":{"k":1,"n":1}`, `"shard":{"k":2,"n":1}`, 1), "bad shard 2/1"},
	} {
		_, err := ReadBytes("p.json", []byte(tc.data))
		if err == nil || !strings.HasPrefix(err.Error(), "p.json: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want p.json: …%s…", tc.name, err, tc.want)
		}
	}
	if _, err := ReadBytes("p.json", good); err != nil {
		t.Errorf("good part: %v", err)
	}
	// An analyze body is read by the merge, and what follows it then.
	p, err := ReadBytes("p.json", append(good, "{}"...))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Merge([]*File{p}, []string{"p.json"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Analyze(nil); err == nil || err.Error() != "p.json: not a loopbreak partial file: data after the document" {
		t.Errorf("trailing data: %v", err)
	}
}

// TestMergeRefusesIncompatible: shards of another N, given twice or
// missing, are refused before anything is merged.
func TestMergeRefusesIncompatible(t *testing.T) {
	names := writeAnalyzeParts(t, 3, 2)
	parts := openAll(t, names)
	for _, tc := range []struct {
		parts []*File
		names []string
		want  string
	}{
		{parts[:2], names[:2], "shard 3/3 missing"},
		{[]*File{parts[0], parts[0], parts[1], parts[2]}, []string{names[0], "again", names[1], names[2]}, "shard 1/3 given twice"},
	} {
		if _, err := Merge(tc.parts, tc.names); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v; want %q", err, tc.want)
		}
	}
}
