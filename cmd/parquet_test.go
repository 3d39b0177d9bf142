package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/loopbreak/loopbreak/report"
)

// jsonDoc is analyze --format json, decoded loosely.
type jsonDoc struct {
	Episodes []map[string]any `json:"episodes"`
	Totals   map[string]any   `json:"totals"`
}

// parquetFixture runs analyze --format parquet over the corpus and the JSON
// output beside it.
func parquetFixture(t *testing.T) (eps, firings string, doc jsonDoc) {
	t.Helper()
	dir := t.TempDir()
	eps, firings = filepath.Join(dir, "episodes.parquet"), filepath.Join(dir, "firings.parquet")
	code, out, errOut := run(t, "", "", "analyze", "--include-tests", "--format", "parquet", "-o", eps, "--parquet-firings", firings, episodesDir)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, "", "", "analyze", "--include-tests", "--format", "json", episodesDir)
	if code != 0 {
		t.Fatalf("json: exit %d, stderr %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return eps, firings, doc
}

// parquetCovers are the JSON episode's fields that ParquetEpisode
// carries (firings go to --parquet-firings).
var parquetCovers = map[string]bool{
	"episode_id": true, "source": true, "recorded_turns": true, "final_score": true, "recorded_end": true,
	"location_key": true, "termination": true, "checkpoints": true, "turns_saved": true, "llm_calls_saved": true,
	"llm_calls_method": true, "score_forfeited": true, "false_termination": true, "censored": true,
	"firing_counts": true, "would_reject": true, "diagnostics": true, "firings": true,
	"progress_after": true, "objectives_after": true, "warnings": true, "low_confidence": true, "live": true, "labels": true,
	"diagnostics.lines": true, "diagnostics.skipped": true, "diagnostics.problems": true, "diagnostics.notes": true,
	"diagnostics.gap_turns": true, "diagnostics.repeated_turns": true,
	"input": true, "loops": true, "false_alarms": true, "detectors": true, "tasks": true,
}

// TestParquetEqualsJSON reads the Parquet files back with the library and
// holds every row to the JSON output: one row per episode with the same
// values, one row per firing with the same fields.
func TestParquetEqualsJSON(t *testing.T) {
	epsFile, firingsFile, doc := parquetFixture(t)
	rows, err := parquet.ReadFile[report.ParquetEpisode](epsFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(doc.Episodes) || len(rows) < 8 {
		t.Fatalf("%d rows, %d episodes in the JSON", len(rows), len(doc.Episodes))
	}
	num := func(v any) int64 { return int64(v.(float64)) }
	var wantFirings []report.ParquetFiring
	for i, r := range rows {
		e := doc.Episodes[i]
		diag := e["diagnostics"].(map[string]any)
		want := report.ParquetEpisode{
			EpisodeID: e["episode_id"].(string), Source: e["source"].(string), RecordedTurns: num(e["recorded_turns"]),
			FinalScore: e["final_score"].(float64), RecordedEnd: e["recorded_end"].(string), LocationKey: e["location_key"].(string),
			Checkpoints: []int64{}, TurnsSaved: num(e["turns_saved"]), LLMCallsSaved: num(e["llm_calls_saved"]),
			LLMCallsMethod: e["llm_calls_method"].(string), ScoreForfeited: e["score_forfeited"].(float64),
			FalseTermination: e["false_termination"].(bool), Censored: e["censored"].(bool), WouldReject: num(e["would_reject"]),
			ObjectivesAfter: num(e["objectives_after"]), Warnings: num(e["warnings"]), LowConfidence: num(e["low_confidence"]),
			Loops: num(e["loops"]), FalseAlarms: num(e["false_alarms"]),
			FiringCounts: map[string]int64{}, DiagnosticsLines: num(diag["lines"]), DiagnosticsSkipped: num(diag["skipped"]),
			DiagnosticsGapTurns: num(diag["gap_turns"]), DiagnosticsRepeatTurns: num(diag["repeated_turns"]), Problems: []string{}, Notes: []string{},
		}
		// Every field of the JSON has a column: a field added to the
		// JSON episode fails here until ParquetEpisode carries it.
		for k := range e {
			if !parquetCovers[k] {
				t.Errorf("JSON field %q has no Parquet column (report.ParquetEpisode)", k)
			}
		}
		for k := range diag {
			if !parquetCovers["diagnostics."+k] {
				t.Errorf("JSON field diagnostics.%s has no Parquet column (report.ParquetEpisode)", k)
			}
		}
		if in, ok := e["input"].(map[string]any); ok {
			want.InputFormat, want.InputDetected = in["format"].(string), in["detected"].(bool)
			if p, ok := in["preset"].(string); ok {
				want.InputPreset = p
			}
		}
		if term, ok := e["termination"].(map[string]any); ok {
			turn, stuck, score := num(term["turn"]), num(term["turns_stuck"]), term["score"].(float64)
			want.Terminated, want.TerminationTurn, want.TerminationTurnsStuck, want.TerminationScore = true, &turn, &stuck, &score
		}
		if pa, ok := e["progress_after"].(map[string]any); ok {
			turn, score := num(pa["turn"]), pa["score"].(float64)
			want.ProgressAfterTurn, want.ProgressAfterScore = &turn, &score
		}
		if live, ok := e["live"].(map[string]any); ok {
			agrees := live["agrees"].(bool)
			want.LiveAgrees = &agrees
			if r.Live == nil {
				t.Errorf("row %d: no live column", i)
			} else {
				var got any
				json.Unmarshal([]byte(*r.Live), &got)
				if !reflect.DeepEqual(got, any(live)) {
					t.Errorf("row %d: live %s, want %v", i, *r.Live, live)
				}
			}
			want.Live = r.Live // compared above, as objects
		}
		if e["labels"] != nil {
			t.Errorf("row %d: labels %v in an unlabelled fixture", i, e["labels"])
		}
		for _, c := range e["checkpoints"].([]any) {
			want.Checkpoints = append(want.Checkpoints, num(c.(map[string]any)["turn"]))
		}
		for k, v := range e["firing_counts"].(map[string]any) {
			want.FiringCounts[k] = num(v)
		}
		for _, p := range diag["problems"].([]any) {
			want.Problems = append(want.Problems, p.(string))
		}
		for _, n := range diag["notes"].([]any) {
			want.Notes = append(want.Notes, n.(string))
		}
		// The library reads an empty list back as nil.
		if len(r.Checkpoints) == 0 {
			r.Checkpoints = []int64{}
		}
		if len(r.Problems) == 0 {
			r.Problems = []string{}
		}
		if len(r.Notes) == 0 {
			r.Notes = []string{}
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, r, want)
		}
		for _, f := range e["firings"].([]any) {
			m := f.(map[string]any)
			pf := report.ParquetFiring{EpisodeID: want.EpisodeID, Source: want.Source, Turn: num(m["turn"]), Rule: m["rule"].(string), Kind: m["kind"].(string),
				Origin: m["origin"].(string), AfterCut: m["after_cut"].(bool)}
			for _, k := range []string{"turn", "rule", "kind", "origin", "after_cut"} {
				delete(m, k)
			}
			b, _ := json.Marshal(m) // keys sorted: compared as objects below
			pf.Fields = string(b)
			wantFirings = append(wantFirings, pf)
		}
	}
	got, err := parquet.ReadFile[report.ParquetFiring](firingsFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(wantFirings) || len(got) == 0 {
		t.Fatalf("%d firing rows, %d firings in the JSON", len(got), len(wantFirings))
	}
	for i := range got {
		var g, w any
		if err := json.Unmarshal([]byte(got[i].Fields), &g); err != nil {
			t.Fatalf("firing %d: fields %q: %v", i, got[i].Fields, err)
		}
		json.Unmarshal([]byte(wantFirings[i].Fields), &w)
		gf, wf := got[i], wantFirings[i]
		gf.Fields, wf.Fields = "", ""
		if gf != wf || !reflect.DeepEqual(g, w) {
			t.Fatalf("firing %d:\n got %+v %s\nwant %+v %s", i, got[i], got[i].Fields, wantFirings[i], wantFirings[i].Fields)
		}
	}
}

// TestParquetUsageErrors pins the flags Parquet needs.
func TestParquetUsageErrors(t *testing.T) {
	for _, tc := range []struct{ args, stderr string }{
		{"analyze --format parquet " + episodesDir, "loopbreak: --format parquet: give the file with -o (Parquet is not written to a pipe)\n"},
		{"analyze --format parquet -o - " + episodesDir, "loopbreak: --format parquet: give the file with -o (Parquet is not written to a pipe)\n"},
		{"analyze --format parquet --partial -o x " + episodesDir, "loopbreak: --partial and --format parquet: choose one (each shard can write its own Parquet file)\n"},
		{"analyze --parquet-firings f.parquet " + episodesDir, "loopbreak: --parquet-firings: only with --format parquet\n"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			code, out, errOut := run(t, "", "", strings.Fields(tc.args)...)
			if code != ExitError || out != "" || errOut != tc.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, out, errOut, tc.stderr)
			}
		})
	}
}

// TestParquetDuckDB queries the files with DuckDB, when it is at hand: the
// duckdb CLI on PATH, or node with @duckdb/node-api installed under
// $LOOPBREAK_DUCKDB_NODE (npm install --prefix DIR @duckdb/node-api).
func TestParquetDuckDB(t *testing.T) {
	query := duckDB(t)
	epsFile, firingsFile, doc := parquetFixture(t)
	got := query(fmt.Sprintf(`select count(*) || ',' || sum(turns_saved) || ',' || count(termination_turn) || ',' || sum(firing_counts['location_revisit/penalty']) from '%s'`, epsFile))
	penalties := 0.0
	for _, e := range doc.Episodes {
		penalties += e["firing_counts"].(map[string]any)["location_revisit/penalty"].(float64)
	}
	want := fmt.Sprintf("%d,%d,%d,%d", len(doc.Episodes), int(doc.Totals["turns_saved"].(float64)), int(doc.Totals["terminated"].(float64)), int(penalties))
	if got != want {
		t.Errorf("DuckDB over episodes: %s, want %s (episodes, turns saved, terminated, penalties)", got, want)
	}
	got = query(fmt.Sprintf(`select count(*) from '%s' where rule = 'location_revisit' and kind = 'penalty' and json_extract(fields, '$.visits') is not null`, firingsFile))
	if got != strconv.Itoa(int(penalties)) {
		t.Errorf("DuckDB over firings: %s penalties with visits, want %d", got, int(penalties))
	}
}

// duckDB finds a way to run a DuckDB query returning one value, or skips.
func duckDB(t *testing.T) func(string) string {
	t.Helper()
	if cli, err := exec.LookPath("duckdb"); err == nil {
		return func(q string) string {
			out, err := exec.Command(cli, "-noheader", "-list", "-c", q).CombinedOutput()
			if err != nil {
				t.Fatalf("duckdb: %v: %s", err, out)
			}
			return strings.TrimSpace(string(out))
		}
	}
	dir := os.Getenv("LOOPBREAK_DUCKDB_NODE")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		t.Skip("no DuckDB: neither the duckdb CLI on PATH nor $LOOPBREAK_DUCKDB_NODE (a directory where `npm install @duckdb/node-api` ran) with node")
	}
	script := filepath.Join(dir, "loopbreak-query.mjs")
	const js = `import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const r = await (await db.connect()).runAndReadAll(process.argv[2]);
console.log(String(r.getRows()[0][0]));
`
	if err := os.WriteFile(script, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(q string) string {
		out, err := exec.Command(node, script, q).CombinedOutput()
		if err != nil {
			t.Fatalf("node DuckDB: %v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// TestParquetDetectorsWithoutFirings: an episode's row is the same with
// and without --parquet-firings; a steps or attempts log's detectors and
// tasks count its firings either way (without the firings file they were
// once tallied over nothing: 0 firings, no tasks).
func TestParquetDetectorsWithoutFirings(t *testing.T) {
	dir := t.TempDir()
	logs := []string{filepath.Join("..", "testdata", "attempts", "autopilot.jsonl"), filepath.Join("..", "testdata", "steps", "agent.jsonl")}
	plain, with, firings := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "f.parquet")
	if code, _, errOut := run(t, "", "", append([]string{"analyze", "--format", "parquet", "-o", plain}, logs...)...); code != ExitOK {
		t.Fatal(errOut)
	}
	if code, _, errOut := run(t, "", "", append([]string{"analyze", "--format", "parquet", "-o", with, "--parquet-firings", firings}, logs...)...); code != ExitOK {
		t.Fatal(errOut)
	}
	a, err := parquet.ReadFile[report.ParquetEpisode](plain)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parquet.ReadFile[report.ParquetEpisode](with)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || len(a) != 2 {
		t.Fatalf("rows differ without --parquet-firings:\n%+v\n%+v", a, b)
	}
	for _, r := range a {
		if r.Detectors == nil || !regexp.MustCompile(`"firings":[1-9]`).MatchString(*r.Detectors) {
			t.Errorf("%s: detectors %v", r.EpisodeID, r.Detectors)
		}
		if r.InputFormat == "attempts" && (r.Tasks == nil || !strings.Contains(*r.Tasks, `"task_id":"auth"`)) {
			t.Errorf("%s: tasks %v", r.EpisodeID, r.Tasks)
		}
	}
}
