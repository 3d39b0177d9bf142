package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labelsDir holds labelled fixtures: four generated episodes, a sidecar
// labels.json for one, and labels.json (the --labels form) labelling two
// more, one of them "never stuck"; the fourth is unlabelled.
const (
	labelsDir  = "../testdata/labels"
	labelsFile = labelsDir + "/labels.json"
)

// TestLabelsGolden pins what analyze and sweep report against labels.
func TestLabelsGolden(t *testing.T) {
	sidecar := labelsDir + "/2025-09-01T17-26-00/episode_log.jsonl"
	grid := []string{"--max-stuck", "25:45:10", "--grid", "camping_threshold=3,5"}
	cases := []struct {
		name string
		args []string
	}{
		{"analyze.txt", []string{"analyze", "--labels", labelsFile, labelsDir}},
		{"analyze.json", []string{"analyze", "--format", "json", "--labels", labelsFile, labelsDir}},
		// Without --labels, the sidecar next to the log still labels it.
		{"analyze-sidecar.txt", []string{"analyze", sidecar}},
		{"sweep.txt", append([]string{"sweep", "--labels", labelsFile}, append(grid, labelsDir)...)},
		{"sweep.json", append([]string{"sweep", "--format", "json", "--labels", labelsFile}, append(grid, labelsDir)...)},
		{"sweep.csv", append([]string{"sweep", "--format", "csv", "--labels", labelsFile}, append(grid, labelsDir)...)},
		{"by-rule.txt", []string{"sweep", "--by-rule", "--labels", labelsFile, "--max-stuck", "30", labelsDir}},
		{"by-rule.csv", []string{"sweep", "--by-rule", "--format", "csv", "--labels", labelsFile, "--max-stuck", "30", labelsDir}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ios, _, out, errOut := Test()
			if code := Main(c.args, ios); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "labels/out/"+c.name, out.String())
		})
	}
}

// TestLabelsSweepEqualsAnalyze: each sweep row's scores equal analyze's
// totals under that row's configuration, count for count.
func TestLabelsSweepEqualsAnalyze(t *testing.T) {
	code, out, errOut := runSweep(t, "sweep", "--format", "json", "--labels", labelsFile, "--max-stuck", "25,35", "--grid", "enable_loop_detection=true,false", labelsDir)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	var doc struct {
		Results []struct {
			Params map[string]any  `json:"params"`
			Labels json.RawMessage `json:"labels"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 5 {
		t.Fatalf("%d rows, want 5", len(doc.Results))
	}
	for i, r := range doc.Results {
		args := []string{"analyze", "--format", "json", "--labels", labelsFile}
		for k, v := range r.Params {
			args = append(args, "--set", fmt.Sprintf("%s=%v", k, v))
		}
		code, aout, errOut := run(t, "", "", append(args, labelsDir)...)
		if code != 0 {
			t.Fatalf("analyze: exit %d: %s", code, errOut)
		}
		var a struct {
			Totals struct {
				Labels json.RawMessage `json:"labels"`
			} `json:"totals"`
		}
		if err := json.Unmarshal([]byte(aout), &a); err != nil {
			t.Fatal(err)
		}
		if len(r.Labels) == 0 || string(compact(t, r.Labels)) != string(compact(t, a.Totals.Labels)) {
			t.Errorf("row %d %v:\nsweep   %s\nanalyze %s", i, r.Params, compact(t, r.Labels), compact(t, a.Totals.Labels))
		}
	}
}

func compact(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	b, _ := json.Marshal(v)
	return b
}

// TestLabelsErrors: a labels file that breaks the format stops the run
// (exit 2) naming file, JSON path and reason, before any output.
func TestLabelsErrors(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), stuckLog("E1", 60))
	overlap := writeFile(t, filepath.Join(dir, "overlap.json"), `{"episodes":{"E1":{"stuck":[{"from":10,"to":30},{"from":30,"to":40}]}}}`)
	// A log of two episodes under a sidecar of the one-episode form.
	two := writeFile(t, filepath.Join(dir, "two", "episode_log.jsonl"), stuckLog("A", 30)+stuckLog("B", 30))
	writeFile(t, filepath.Join(dir, "two", "labels.json"), `{"stuck":[{"from":1,"to":5}]}`)
	badSidecar := writeFile(t, filepath.Join(dir, "bad", "episode_log.jsonl"), stuckLog("E2", 30))
	writeFile(t, filepath.Join(dir, "bad", "labels.json"), `{"stuck":[{"from":-3,"to":5}]}`)

	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"overlap", []string{"analyze", "--labels", overlap, log}, `overlap.json: $.episodes["E1"].stuck[1]: overlaps $.episodes["E1"].stuck[0] (10–30)`},
		{"overlap sweep", []string{"sweep", "--max-stuck", "30", "--labels", overlap, log}, `stuck[1]: overlaps`},
		{"missing", []string{"analyze", "--labels", filepath.Join(dir, "nope.json"), log}, "--labels: open "},
		{"bad sidecar", []string{"analyze", badSidecar}, `bad/labels.json: $.stuck[0].from: must not be negative, got -3`},
		{"one-episode form, two episodes", []string{"analyze", "--format", "json", two}, `labels one episode, but ` + two + ` holds several (A, B)`},
		{"one-episode form, two episodes, sweep", []string{"sweep", "--max-stuck", "30", two}, `holds several (A, B)`},
		{"by-rule without labels", []string{"sweep", "--by-rule", "--max-stuck", "30", log}, "--by-rule: no labelled episodes"},
		{"by-rule and by-episode", []string{"sweep", "--by-rule", "--by-episode", "--format", "csv", "--max-stuck", "30", log}, "choose one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, "", "", c.args...)
			if code != ExitError || !strings.Contains(errOut, c.wantErr) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errOut, c.wantErr)
			}
			if strings.Contains(c.name, "overlap") || strings.Contains(c.name, "sidecar") || strings.Contains(c.name, "missing") {
				if out != "" {
					t.Errorf("output before the error: %q", out)
				}
			}
		})
	}
}

// TestLabelsUnusedWarned: labels for an id no log holds are a warning
// (a typo would otherwise score nothing), not an error.
func TestLabelsUnusedWarned(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "l.json"), `{"episodes":{"2025-09-01T21:24:50":{},"2025-09-01T21:24:5O":{}}}`)
	code, _, errOut := run(t, "", "", "analyze", "--labels", path, labelsDir)
	want := `loopbreak: warning: ` + path + `: $.episodes["2025-09-01T21:24:5O"]: no episode with this id was read` + "\n"
	if code != 0 || errOut != want {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}

// TestLabelsUnlabelledUnchanged: without labels the reports carry no
// scores (JSON labels null, no totals.labels, no extra sweep columns).
func TestLabelsUnlabelledUnchanged(t *testing.T) {
	log := labelsDir + "/2025-09-02T14-20-56/episode_log.jsonl"
	code, out, _ := run(t, "", "", "analyze", "--format", "json", log)
	if code != 0 || !strings.Contains(out, `"labels":null`) || strings.Contains(out, `"labels":{`) {
		t.Errorf("unlabelled analyze: exit %d\n%s", code, out)
	}
	code, out, _ = runSweep(t, "sweep", "--format", "csv", "--max-stuck", "30", log)
	if code != 0 || strings.Contains(out, "labelled") {
		t.Errorf("unlabelled sweep CSV: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(log), "labels.json")); err == nil {
		t.Fatal("fixture unexpectedly labelled")
	}
}

// TestLabelsFixturesGenerated: the labelled logs are the generator's
// output (loopbreak generate -n 3 --max-noise 100B, seeds 11 and 15), so
// they can be rebuilt; the labels were written by hand against them.
func TestLabelsFixturesGenerated(t *testing.T) {
	want := map[string]string{ // fixture directory → seed
		"2025-09-01T17-26-00": "11", "2025-09-01T21-24-50": "11", "2025-09-02T02-15-50": "11",
		"2025-09-02T14-20-56": "15",
	}
	out := map[string]string{}
	for _, seed := range []string{"11", "15"} {
		dir := filepath.Join(t.TempDir(), seed)
		if code, _, errOut := run(t, "", "", "generate", "-n", "3", "--seed", seed, "--max-noise", "100B", dir); code != 0 {
			t.Fatalf("generate: %s", errOut)
		}
		out[seed] = dir
	}
	for fixture, seed := range want {
		got, err := os.ReadFile(filepath.Join(out[seed], fixture[:10]+strings.ReplaceAll(fixture[10:], "-", ":"), "episode_log.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(filepath.Join(labelsDir, fixture, "episode_log.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(have) {
			t.Errorf("%s differs from generate --seed %s", fixture, seed)
		}
	}
}

// TestLabelsShardsMerge: a sweep over shards, each scoring its own
// episodes, merges into the document one run writes, byte for byte.
func TestLabelsShardsMerge(t *testing.T) {
	dir := t.TempDir()
	grid := []string{"--labels", labelsFile, "--max-stuck", "25,35", "--grid", "camping_threshold=3,5", labelsDir}
	var parts []string
	for _, k := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, strings.ReplaceAll(k, "/", "-")+".json")
		if code, _, errOut := runSweep(t, append([]string{"sweep", "--shard", k, "--partial", "-o", out}, grid...)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", k, code, errOut)
		}
		parts = append(parts, out)
	}
	for format, want := range map[string]string{"json": `"labels"`, "table": "F1 camping"} {
		code, merged, errOut := run(t, "", "", append([]string{"merge", "--format", format}, parts...)...)
		if code != 0 {
			t.Fatalf("merge: exit %d: %s", code, errOut)
		}
		_, one, _ := runSweep(t, append([]string{"sweep", "--format", format}, grid...)...)
		if merged != one || !strings.Contains(one, want) {
			t.Errorf("%s: merged shards differ from one run:\n%s\n%s", format, merged, one)
		}
	}
}

// TestLabelsAnalyzeShardsMerge: analyze over shards merges into one run's
// text and JSON, labels included.
func TestLabelsAnalyzeShardsMerge(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		dir := t.TempDir()
		var parts []string
		for _, k := range []string{"1/2", "2/2"} {
			out := filepath.Join(dir, strings.ReplaceAll(k, "/", "-")+".json")
			if code, _, errOut := run(t, "", "", "analyze", "--format", format, "--shard", k, "--partial", "-o", out, "--labels", labelsFile, labelsDir); code != 0 {
				t.Fatalf("shard %s: exit %d: %s", k, code, errOut)
			}
			parts = append(parts, out)
		}
		code, merged, errOut := run(t, "", "", append([]string{"merge", "--format", format}, parts...)...)
		if code != 0 {
			t.Fatalf("merge: exit %d: %s", code, errOut)
		}
		_, one, _ := run(t, "", "", "analyze", "--format", format, "--labels", labelsFile, labelsDir)
		if merged != one || !strings.Contains(one, "labels") {
			t.Errorf("%s: merged shards differ from one run:\n%s", format, merged)
		}
	}
}
