package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

func TestScopeIn(t *testing.T) {
	d := t.TempDir()
	base := filepath.Join(d, "check", "b.json")
	cases := []struct {
		paths []string
		in    []string
		out   []string
	}{
		// A directory: its files and those below, not a sibling sharing
		// its name's start.
		{[]string{filepath.Join(d, "eps", "a")}, []string{"../eps/a/episode_log.jsonl", "../eps/a/x/y.jsonl"}, []string{"../eps/ab/episode_log.jsonl", "../eps/b/episode_log.jsonl", "-"}},
		// A file: itself only.
		{[]string{filepath.Join(d, "eps", "b", "episode_log.jsonl")}, []string{"../eps/b/episode_log.jsonl"}, []string{"../eps/b/other.jsonl", "../eps/a/episode_log.jsonl"}},
		// The baseline's directory, and one above it: every source that
		// climbs no higher.
		{[]string{filepath.Join(d, "check")}, []string{"x/episode_log.jsonl", "episode_log.jsonl"}, []string{"../eps/a/episode_log.jsonl", "-"}},
		{[]string{d}, []string{"x/episode_log.jsonl", "../eps/a/episode_log.jsonl"}, []string{"../../elsewhere/episode_log.jsonl", "-"}},
		// Standard input, and two paths.
		{[]string{"-", filepath.Join(d, "eps", "a")}, []string{"-", "../eps/a/e.jsonl"}, []string{"../eps/b/e.jsonl", "x"}},
	}
	for _, c := range cases {
		sc := newScope(base, c.paths)
		for _, src := range c.in {
			if !sc.in(src) {
				t.Errorf("%v: %s out of scope, want in", c.paths, src)
			}
		}
		for _, src := range c.out {
			if sc.in(src) {
				t.Errorf("%v: %s in scope, want out", c.paths, src)
			}
		}
	}
	if newScope(base, nil) != nil || !newScope(base, nil).in("anything") {
		t.Error("no paths: every entry is in scope")
	}
}

// scopedCorpus writes a corpus of n logs and its baseline (an update over
// all of them), returning the logs and options to check them.
func scopedCorpus(t *testing.T, n int) ([]string, Options) {
	t.Helper()
	dir := t.TempDir()
	files, err := replaytest.WriteCorpusCapped(filepath.Join(dir, "eps"), n, 3, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Files: files, Config: rules.Default(), Mode: ModeUpdate, Baseline: filepath.Join(dir, DefaultBaseline)}
	if _, err := Run(opts); err != nil {
		t.Fatal(err)
	}
	return files, opts
}

func entriesOf(t *testing.T, file string) []Entry {
	t.Helper()
	b, err := ReadBaseline(file)
	if err != nil {
		t.Fatal(err)
	}
	return b.Episodes
}

// TestRunScoped checks a few logs against a baseline of many: the
// others are out of scope, counted, not listed, kept by an update, not
// pruned.
func TestRunScoped(t *testing.T) {
	files, opts := scopedCorpus(t, 6)
	all := entriesOf(t, opts.Baseline)
	before, err := os.ReadFile(opts.Baseline)
	if err != nil {
		t.Fatal(err)
	}
	inFile := func(f string) (n int) {
		src := SourceOf(opts.Baseline, f)
		for _, e := range all {
			if e.Source == src {
				n++
			}
		}
		return n
	}
	few := files[:2]
	want := inFile(few[0]) + inFile(few[1])
	if want == 0 || want == len(all) {
		t.Fatalf("corpus: %d of %d entries in the first two logs", want, len(all))
	}

	opts.Mode, opts.Files, opts.Scope, opts.Every = ModeCompare, few, few, true
	res, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() || res.Total() != want || res.OutOfScope != len(all)-want || len(res.Episodes) != want {
		t.Fatalf("scoped compare: total %d, %d out of scope, %d rows, failed %v; want %d and %d", res.Total(), res.OutOfScope, len(res.Episodes), res.Failed(), want, len(all)-want)
	}
	for _, e := range res.Episodes {
		if e.Status != StatusUnchanged || (e.Source != SourceOf(opts.Baseline, few[0]) && e.Source != SourceOf(opts.Baseline, few[1])) {
			t.Errorf("row %s %s %s", e.Label, e.Source, e.Status)
		}
	}

	// Without a scope (the API as before), the rest is missing.
	opts.Scope = nil
	if res, err := Run(opts); err != nil || res.Count(StatusMissing) != len(all)-want || res.OutOfScope != 0 {
		t.Fatalf("unscoped: %v missing, %v", res.Count(StatusMissing), err)
	}
	opts.Scope = few

	// An update of the few keeps the rest, byte for byte.
	opts.Mode = ModeUpdate
	res, err = Run(opts)
	if err != nil || res.Wrote || res.OutOfScope != len(all)-want || res.Failed() {
		t.Fatalf("scoped update: %+v, %v", res, err)
	}
	if after, _ := os.ReadFile(opts.Baseline); !bytes.Equal(after, before) {
		t.Fatal("a scoped update with nothing changed rewrote the baseline")
	}
	// A changed configuration: the few entries change, the rest are
	// kept as they were.
	opts.Config = rules.Default()
	if err := opts.Config.Set("max_turns_stuck", 12, rules.Source{Kind: "flag"}); err != nil {
		t.Fatal(err)
	}
	if res, err = Run(opts); err != nil || !res.Wrote || res.OutOfScope != len(all)-want {
		t.Fatalf("scoped update, new config: %+v, %v", res, err)
	}
	got := entriesOf(t, opts.Baseline)
	if len(got) != len(all) {
		t.Fatalf("%d entries after a scoped update, want %d", len(got), len(all))
	}
	for i := range all {
		if inFile(SourcePath(opts.Baseline, all[i].Source)) > 0 && !newScope(opts.Baseline, few).in(all[i].Source) {
			if !entriesEqual(&got[i], &all[i]) {
				t.Errorf("out-of-scope entry %s (%s) changed by the update", all[i].EpisodeID, all[i].Source)
			}
		}
	}

	// --prune drops an unreadable given log's entries, not the rest.
	if err := os.WriteFile(few[0], []byte{0x1f, 0x8b, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Prune = true
	if res, err = Run(opts); err != nil || len(res.Kept) != 0 || res.OutOfScope != len(all)-want {
		t.Fatalf("scoped prune: %+v, %v", res, err)
	}
	if got := entriesOf(t, opts.Baseline); len(got) != len(all)-inFile(few[0]) {
		t.Fatalf("%d entries after pruning %s, want %d", len(got), few[0], len(all)-inFile(few[0]))
	}
}

func entriesEqual(a, b *Entry) bool {
	var x, y bytes.Buffer
	referenceEncode(a, &x, "")
	referenceEncode(b, &y, "")
	return x.String() == y.String()
}

// TestRunScopedMissing: a given log that is in the baseline but cannot
// be read is missing, and so is a log gone from a given directory.
func TestRunScopedMissing(t *testing.T) {
	files, opts := scopedCorpus(t, 4)
	all := entriesOf(t, opts.Baseline)
	count := func(f string) (n int) {
		for _, e := range all {
			if e.Source == SourceOf(opts.Baseline, f) {
				n++
			}
		}
		return n
	}
	if err := os.WriteFile(files[0], []byte{0x1f, 0x8b, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Mode, opts.Files, opts.Scope = ModeCompare, files[:1], files[:1]
	res, err := Run(opts)
	if err != nil || res.Count(StatusMissing) != count(files[0]) || res.OutOfScope != len(all)-count(files[0]) || !res.Failed() {
		t.Fatalf("unreadable given log: %d missing, %d out of scope, %v", res.Count(StatusMissing), res.OutOfScope, err)
	}
	for _, e := range res.Episodes {
		if e.Status == StatusMissing && e.Unreadable == "" {
			t.Errorf("missing %s without the reason", e.Label)
		}
	}

	// A directory given: a log gone from it is missing, as before.
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	eps := filepath.Dir(filepath.Dir(files[0]))
	opts.Files, opts.Scope = files[1:], []string{eps}
	if res, err = Run(opts); err != nil || res.Count(StatusMissing) != count(files[0]) || res.OutOfScope != 0 {
		t.Fatalf("directory: %d missing, %d out of scope, %v", res.Count(StatusMissing), res.OutOfScope, err)
	}
}

// TestRunScopedMoved: a log moved out of the baseline's paths into the
// path checked is paired with its entry (log moved), as without scoping,
// and an update replaces the old entry.
func TestRunScopedMoved(t *testing.T) {
	files, opts := scopedCorpus(t, 3)
	all := entriesOf(t, opts.Baseline)
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(filepath.Dir(opts.Baseline), "moved", "episode_log.jsonl")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range all {
		if e.Source == SourceOf(opts.Baseline, files[0]) {
			n++
		}
	}
	opts.Mode, opts.Files, opts.Scope = ModeCompare, []string{moved}, []string{filepath.Dir(moved)}
	res, err := Run(opts)
	if err != nil || res.Count(StatusChanged) != n || res.Count(StatusNew) != 0 || res.Count(StatusMissing) != 0 || res.OutOfScope != len(all)-n {
		t.Fatalf("moved: %d changed, %d new, %d missing, %d out of scope, %v; want %d changed", res.Count(StatusChanged), res.Count(StatusNew), res.Count(StatusMissing), res.OutOfScope, err, n)
	}
	for _, e := range res.Episodes {
		if !strings.Contains(e.Drift[0].Baseline, "eps/") {
			t.Errorf("%s: drift %+v, want the log moved from eps/", e.Label, e.Drift)
		}
	}
	opts.Mode = ModeUpdate
	if _, err := Run(opts); err != nil {
		t.Fatal(err)
	}
	got := entriesOf(t, opts.Baseline)
	if len(got) != len(all) {
		t.Fatalf("%d entries after the update, want %d (moved ones replaced)", len(got), len(all))
	}
	for _, e := range got {
		if e.Source == SourceOf(opts.Baseline, files[0]) {
			t.Errorf("the moved log's old entry %s is kept", e.EpisodeID)
		}
	}
}

// TestDecodeCanonicalSkips: entries refused by their source are not
// handed on but counted, and the rest read as without the filter.
func TestDecodeCanonicalSkips(t *testing.T) {
	_, opts := scopedCorpus(t, 5)
	all := entriesOf(t, opts.Baseline)
	keep := all[0].Source
	b, skipped, err := readBaseline(opts.Baseline, func(_, src []byte) bool { return string(src) == keep }, func() func(*Entry) {
		return func(e *Entry) {
			if e.Source != keep {
				t.Errorf("handed %s", e.Source)
			}
		}
	})
	if err != nil || b == nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range all {
		if e.Source != keep {
			n++
		}
	}
	if skipped != n || n == 0 {
		t.Errorf("skipped %d, want %d", skipped, n)
	}
}
