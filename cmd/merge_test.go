package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze/partial"
	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// shardCorpus is the committed episodes, their test episode (with
// --include-tests), 30 generated episodes and an unreadable log, so the merged outputs list
// episodes and errors from several shards.
func shardCorpus(t *testing.T) []string {
	t.Helper()
	bad := filepath.Join(t.TempDir(), "broken")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	// The gzip magic bytes without a valid header: a file error.
	if err := os.WriteFile(filepath.Join(bad, "episode_log.jsonl.gz"), []byte("\x1f\x8bnot gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	// And a generated corpus, so 7 shards each get several logs.
	gen := filepath.Join(t.TempDir(), "gen")
	if _, err := replaytest.WriteCorpusCapped(gen, 30, 12, 0, 2048); err != nil {
		t.Fatal(err)
	}
	return []string{"--include-tests", episodesDir, gen, filepath.Dir(bad)}
}

// TestMergeEqualsOneRun runs each command once over the corpus and again
// as N = 1, 2 and 7 shards with --partial, and holds what merge prints,
// in every format of the command, byte for byte equal to the one run:
// stdout, stderr (check's verdict line) and exit code.
func TestMergeEqualsOneRun(t *testing.T) {
	corpus := shardCorpus(t)
	baseline := filepath.Join("..", "testdata", "check", "episodes.baseline.json")
	for _, tc := range []struct {
		name     string
		args     []string // the command and its flags, before the corpus
		formats  []string
		shardFmt string // the shards' --format ("" none)
	}{
		{"analyze-text", []string{"analyze"}, []string{"text", "json", "jsonl"}, "text"},
		{"analyze-verbose", []string{"analyze", "-v"}, []string{"text"}, "text"},
		{"analyze-chart", []string{"analyze", "--chart", "--ascii"}, []string{"text"}, "text"},
		{"analyze-json", []string{"analyze", "--set", "max_turns_stuck=30"}, []string{"json", "jsonl"}, "json"},
		{"sweep", []string{"sweep", "--max-stuck", "20:60:10", "--check-interval", "5,10", "--by-episode", "--max-false-rate", "20%"}, []string{"table", "json", "csv"}, ""},
		{"check", []string{"check", "--baseline", baseline, "--max-false-rate", "5%", "--fail-on", "camping/detection@2025-11-0[34]*", "--fail-on", "score_adjustment/adjustment:rejected", "--fail-on", "live"}, []string{"text", "json", "junit", "github", "markdown"}, ""},
		{"check-gates-only", []string{"check", "--no-baseline", "--min-saved", "10%"}, []string{"text", "json"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 7} {
				dir := t.TempDir()
				var parts []string
				for k := 1; k <= n; k++ {
					part := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
					args := append(append([]string{}, tc.args...), "--shard", fmt.Sprintf("%d/%d", k, n), "--partial", "-o", part)
					if tc.shardFmt != "" {
						args = append(args, "--format", tc.shardFmt)
					}
					if code, out, errOut := run(t, "", "", append(args, corpus...)...); code != 0 || out != "" {
						t.Fatalf("%v: exit %d, stdout %q, stderr %s", args, code, out, errOut)
					}
					parts = append(parts, part)
				}
				for _, f := range tc.formats {
					args := append(append([]string{}, tc.args...), "--format", f, "--color", "never")
					wantCode, want, wantErr := run(t, "", "", append(args, corpus...)...)
					code, got, gotErr := run(t, "", "", append([]string{"merge", "--format", f, "--color", "never"}, parts...)...)
					// The one run reports the unreadable file as it reads
					// it; a merge has nothing to read.
					wantErr = dropFileErrors(wantErr)
					if code != wantCode || got != want || gotErr != wantErr {
						os.WriteFile(filepath.Join(os.TempDir(), "merge-want"), []byte(want), 0o644)
						os.WriteFile(filepath.Join(os.TempDir(), "merge-got"), []byte(got), 0o644)
						t.Fatalf("N=%d --format %s: merge exit %d, stderr %q; one run exit %d, stderr %q; stdout equal: %v (see $TMPDIR/merge-want, merge-got)", n, f, code, gotErr, wantCode, wantErr, got == want)
					}
				}
			}
		})
	}
}

// dropFileErrors removes the lines a run prints on stderr as it meets an
// unreadable file.
func dropFileErrors(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.Contains(l, "episode_log.jsonl.gz") && !strings.HasPrefix(l, "loopbreak check:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}

// TestMergeRefuses pins the errors of parts that one run could not have
// produced together, or that are not partials at all (exit 2, the file
// named).
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	part := func(name string, args ...string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		args = append(args, "--partial", "-o", p)
		if code, _, errOut := run(t, "", "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return p
	}
	p1 := part("p1.json", "analyze", "--format", "json", "--shard", "1/2", episodesDir)
	p2 := part("p2.json", "analyze", "--format", "json", "--shard", "2/2", episodesDir)
	other := map[string]string{
		"config":   part("config.json", "analyze", "--format", "json", "--set", "max_turns_stuck=30", "--shard", "2/2", episodesDir),
		"n":        part("n.json", "analyze", "--format", "json", "--shard", "2/3", episodesDir),
		"text":     part("text.json", "analyze", "--shard", "2/2", episodesDir),
		"sweep":    part("sweep.json", "sweep", "--max-stuck", "30", "--shard", "2/2", episodesDir),
		"inputs":   part("inputs.json", "analyze", "--format", "json", "--include-tests", "--shard", "2/2", episodesDir),
		"unshared": part("one.json", "analyze", "--format", "json", episodesDir),
	}
	newer := filepath.Join(dir, "newer.json")
	data, _ := os.ReadFile(p2)
	os.WriteFile(newer, []byte(strings.Replace(string(data), `"schema_version":2,`, `"schema_version":3,"new":true,`, 1)), 0o644)
	report := filepath.Join(dir, "report.json")
	_, out, _ := run(t, "", "", "analyze", "--format", "json", episodesDir)
	os.WriteFile(report, []byte(out), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{p1}, "cannot merge: shard 2/2 missing"},
		{[]string{p1, p1}, fmt.Sprintf("cannot merge: shard 1/2 given twice (%s and %s)", p1, p1)},
		{[]string{p1, other["config"]}, fmt.Sprintf("cannot merge: %s was made with another configuration than %s (max_turns_stuck = 30, not 40)", other["config"], p1)},
		{[]string{p1, other["n"]}, fmt.Sprintf("cannot merge: %s is shard 2/3, %s is of 2 shards", other["n"], p1)},
		{[]string{p1, other["text"]}, fmt.Sprintf(`cannot merge: %s was made with other analyze settings than %s ({"text":true,"verbose":false,"config_line":"config: defaults (no config found) · max_turns_stuck 40 · every 10 turns · warnings from 20","summary_only":true}, not {"text":false,"verbose":false})`, other["text"], p1)},
		{[]string{p1, other["sweep"]}, fmt.Sprintf("cannot merge: %s is a partial of sweep, %s of analyze", other["sweep"], p1)},
		{[]string{p1, other["unshared"]}, fmt.Sprintf("cannot merge: %s is shard 1/1, %s is of 2 shards", other["unshared"], p1)},
		{[]string{p1, newer}, newer + ": partial schema version 3; this loopbreak reads version 2"},
		{[]string{report}, report + `: not a loopbreak partial file: json: unknown field "episodes"`},
		{[]string{"--format", "csv", p1, p2}, `--format "csv": want one of text, json, jsonl`},
		{[]string{"--format", "text", p1, p2}, "--format text: the partials keep no text report (their shards ran with --format json or jsonl); merge with --format json or jsonl, or run the shards with --format text"},
		{[]string{"--format", "yaml", p1, p2}, `--format "yaml": want one of text, json, jsonl, table, csv, junit, github, markdown`},
	} {
		code, out, errOut := run(t, "", "", append([]string{"merge"}, tc.args...)...)
		if code != ExitError || out != "" || errOut != "loopbreak: "+tc.want+"\n" {
			t.Errorf("merge %v: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", tc.args, code, out, errOut, "loopbreak: "+tc.want)
		}
	}
	// Inputs differ: same N, other logs.
	code, _, errOut := run(t, "", "", "merge", p1, other["inputs"])
	if code != ExitError || !strings.Contains(errOut, "was made from other inputs than "+p1) || !strings.Contains(errOut, "run every shard over the same arguments") {
		t.Errorf("other inputs: exit %d, stderr %q", code, errOut)
	}
}

// FuzzReadPartial feeds the partial reader and merge anything: they must
// never panic, and every error must name the file. Seeds are real parts.
func FuzzReadPartial(f *testing.F) {
	dir := f.TempDir()
	for i, args := range [][]string{
		{"analyze", "--shard", "1/1", episodesDir},
		{"analyze", "--format", "json", episodesDir + "/2025-11-04T09-35-24"},
		{"sweep", "--max-stuck", "30,40", "--by-episode", episodesDir},
		{"check", "--no-baseline", "--fail-on", "camping/detection", "--max-forfeit", "10", episodesDir},
	} {
		p := filepath.Join(dir, fmt.Sprintf("seed-%d.json", i))
		ios, _, _, errOut := Test()
		if code := Main(append(args, "--partial", "-o", p), ios); code != 0 {
			f.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"kind":"loopbreak-partial","schema_version":2,"command":"sweep","settings":{"grid":[{"Flag":"--max-stuck","Key":"max_turns_stuck","Spec":"30"}]},"config":{},"shard":{"k":1,"n":1},"inputs":{"logs":1,"digest":""},"shard_logs":[0],"body":{"rows":[]}}`))
	const name = "part-fuzz.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := partial.ReadBytes(name, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name+": ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var s partial.CheckSettings
		if p.Command == "check" && (json.Unmarshal(p.Settings, &s) != nil || s.Mode != "gates-only") {
			return // a fuzzed baseline path must not be read or written
		}
		if p.Command == "sweep" {
			// A grid of millions of rows is valid, and as slow to merge
			// as to sweep: not this fuzzer's business.
			var ss partial.SweepSettings
			if json.Unmarshal(p.Settings, &ss) == nil {
				var grid []GridArg
				for _, g := range ss.Grid {
					grid = append(grid, GridArg(g))
				}
				if axes, err := parseGridArgs(grid); err == nil {
					n := 1
					for _, ax := range axes {
						n *= len(ax.Values)
					}
					if n > 1000 {
						return
					}
				}
			}
		}
		p.Shard = partial.Shard{K: 1, N: 1}
		ios, _, out, _ := Test()
		err = mergeParts(&MergeOptions{IO: ios, Paths: []string{name}, Color: "never"}, []*partial.File{p})
		var fe *failError
		if err != nil && !errors.As(err, &fe) {
			if !strings.HasPrefix(err.Error(), name+": ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			// A bad part is found before anything is printed.
			if out.Len() > 0 && p.Command == "analyze" {
				t.Fatalf("%d bytes printed before the error %v", out.Len(), err)
			}
		}
	})
}

// TestMergeCheckUpdate: check --update over shards writes, at merge, the
// baseline one run writes, byte for byte, and says the same.
func TestMergeCheckUpdate(t *testing.T) {
	dir := t.TempDir()
	one, merged := filepath.Join(dir, "one.json"), filepath.Join(dir, "merged.json")
	code, want, errOut := run(t, "", "", "check", "--update", "--baseline", one, episodesDir)
	if code != 0 {
		t.Fatalf("check --update: exit %d: %s", code, errOut)
	}
	var parts []string
	for k := 1; k <= 3; k++ {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
		if code, _, errOut := run(t, "", "", "check", "--update", "--baseline", merged, "--shard", fmt.Sprintf("%d/3", k), "--partial", "-o", p, episodesDir); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", k, code, errOut)
		}
		parts = append(parts, p)
	}
	if _, err := os.Stat(merged); err == nil {
		t.Fatal("a shard wrote the baseline; only the merge may")
	}
	// Without --update the merge writes nothing (issue 23: it wrote the
	// baseline a part names).
	code, _, errOut = run(t, "", "", append([]string{"merge"}, parts...)...)
	if code != ExitError || !strings.Contains(errOut, "merge them with --update") {
		t.Fatalf("merge without --update: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(merged); err == nil {
		t.Fatal("merge without --update wrote the baseline")
	}
	code, got, errOut := run(t, "", "", append([]string{"merge", "--update", "--baseline", merged}, parts...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if strings.ReplaceAll(got, merged, one) != want {
		t.Errorf("merge said\n%s\none run said\n%s", got, want)
	}
	a, _ := os.ReadFile(one)
	b, err := os.ReadFile(merged)
	if err != nil || string(a) != string(b) {
		t.Errorf("the merged baseline differs from one run's (err %v)", err)
	}
}

// TestPartialGolden pins the partial format of a small sweep: a change
// to it shows here, and wants schema_version raised if old parts would
// no longer merge.
func TestPartialGolden(t *testing.T) {
	p := filepath.Join(t.TempDir(), "part.json")
	ep := filepath.ToSlash(filepath.Join(episodesDir, "2025-11-06T08-00-00", "episode_log.jsonl"))
	if code, _, errOut := run(t, "", "", "sweep", "--max-stuck", "30,40", "--by-episode", "--shard", "1/1", "--partial", "-o", p, ep); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(data, &v)
	pretty, _ := json.MarshalIndent(v, "", "  ")
	golden(t, "merge/sweep-part.json", string(pretty)+"\n")
}

// TestMergeNoEpisodes: parts that hold no episode at all merge into the
// error one run gives (exit 2, naming the arguments), whatever the shard
// count; a shard without episodes is no error by itself.
func TestMergeNoEpisodes(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "eps")
	p := filepath.Join(logs, "quiet", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"event_type":"something_else","episode_id":"x"}`+"\n"), 0o644)
	for _, args := range [][]string{
		{"analyze", "--format", "json"},
		{"sweep", "--max-stuck", "30"},
		{"check", "--no-baseline"},
	} {
		wantCode, _, wantErr := run(t, "", "", append(args, logs)...)
		if wantCode != ExitError || !strings.Contains(wantErr, "no episodes in "+logs) {
			t.Fatalf("%v: exit %d, stderr %q", args, wantCode, wantErr)
		}
		var parts []string
		for k := 1; k <= 2; k++ {
			part := filepath.Join(dir, fmt.Sprintf("%s-%d.json", args[0], k))
			if code, _, errOut := run(t, "", "", append(args, "--shard", fmt.Sprintf("%d/2", k), "--partial", "-o", part, logs)...); code != 0 {
				t.Fatalf("%v shard %d: exit %d: %s", args, k, code, errOut)
			}
			parts = append(parts, part)
		}
		code, out, errOut := run(t, "", "", append([]string{"merge"}, parts...)...)
		if code != ExitError || out != "" || !strings.HasSuffix(errOut, "loopbreak: no episodes in "+logs+"\n") {
			t.Errorf("%v: merge exit %d, stdout %q, stderr %q; one run %q", args, code, out, errOut, wantErr)
		}
	}
}

// TestMergeWritesOnlyWhereItsFlagsSay (issue 23 item 4): a check
// --update part carries its shards' baseline path; merge used to create
// directories and write a baseline there, an absolute or ../ path taken
// from the part, with no flag asking for a write. Now it writes only with
// --update, only at --baseline, which must be the shards' path.
func TestMergeWritesOnlyWhereItsFlagsSay(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "ci", "base.json")
	evil := filepath.Join(dir, "elsewhere", "deep", "planted.json")
	var parts, forged []string
	for k := 1; k <= 2; k++ {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
		if code, _, errOut := run(t, "", "", "check", "--update", "--baseline", base, "--shard", fmt.Sprintf("%d/2", k), "--partial", "-o", p, episodesDir); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", k, code, errOut)
		}
		parts = append(parts, p)
		data, _ := os.ReadFile(p)
		want, _ := json.Marshal(base)
		evilJSON, _ := json.Marshal(evil)
		f := filepath.Join(dir, fmt.Sprintf("forged-%d.json", k))
		os.WriteFile(f, []byte(strings.Replace(string(data), `"baseline":`+string(want), `"baseline":`+string(evilJSON), 1)), 0o644)
		forged = append(forged, f)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{forged, "merge them with --update"},
		{append([]string{"--update"}, forged...), "the shards were given --baseline " + evil},
		{append([]string{"--update", "--baseline", base}, forged...), "the shards were given --baseline " + evil},
		{append([]string{"--update", "--baseline", base + "x"}, parts...), "the shards were given --baseline " + base},
	} {
		code, out, errOut := run(t, "", "", append([]string{"merge"}, tc.args...)...)
		if code != ExitError || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("merge %v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); err == nil {
		t.Error("the merge created the directory a part named")
	}
	if _, err := os.Stat(base); err == nil {
		t.Error("a refused merge wrote the baseline")
	}
	if code, _, errOut := run(t, "", "", append([]string{"merge", "--update", "--baseline", base}, parts...)...); code != 0 {
		t.Fatalf("merge --update --baseline: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(base); err != nil {
		t.Errorf("merge --update --baseline wrote no baseline: %v", err)
	}
	// Flags of check on other commands' partials.
	sw := filepath.Join(dir, "sweep.json")
	run(t, "", "", "sweep", "--max-stuck", "30", "--partial", "-o", sw, episodesDir)
	if code, _, errOut := run(t, "", "", "merge", "--update", sw); code != ExitError || !strings.Contains(errOut, "only for the partials of check, not of sweep") {
		t.Errorf("merge --update of sweep partials: exit %d, %s", code, errOut)
	}
}

// TestMergeRefusesRelabelledSweepPart (issue 23 item 10): a sweep part
// relabelled as the other shard (one shard doubled, one missing) merged
// with exit 0; its rows say nothing of its logs, its shard_logs do.
func TestMergeRefusesRelabelledSweepPart(t *testing.T) {
	dir := t.TempDir()
	p1 := filepath.Join(dir, "part-1.json")
	if code, _, errOut := run(t, "", "", "sweep", "--max-stuck", "30", "--shard", "1/2", "--partial", "-o", p1, episodesDir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(p1)
	p2 := filepath.Join(dir, "relabelled.json")
	os.WriteFile(p2, []byte(strings.Replace(string(data), `"shard":{"k":1,"n":2}`, `"shard":{"k":2,"n":2}`, 1)), 0o644)
	code, out, errOut := run(t, "", "", "merge", p1, p2)
	if code != ExitError || out != "" || !strings.Contains(errOut, "a part is not the shard it says it is") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
