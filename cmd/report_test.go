package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportFlags(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), stuckLog("E1", 60))
	for _, c := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no -o", []string{"report", log}, "-o is required: a file to write, or - for standard output"},
		{"no args", []string{"report", "-o", "-"}, "requires at least 1 arg"},
		{"bad set", []string{"report", "-o", "-", "--set", "max_turns_stuk=30", log}, "unknown key"},
		{"missing directory", []string{"report", "-o", filepath.Join(dir, "absent", "r.html"), log}, "absent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := run(t, dir, "", c.args...)
			if code != 2 || !strings.Contains(stderr, c.wantErr) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, c.wantErr)
			}
		})
	}
}

func TestReportRunF(t *testing.T) {
	ios, _, _, _ := Test()
	var got *ReportOptions
	c := NewCmdReport(ios, func(o *ReportOptions) error { got = o; return nil })
	c.SetArgs([]string{"-o", "r.html", "--title", "Nightly", "--set", "max_turns_stuck=30", "--include-tests", "--strict", "-j", "2", "a", "b"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Output != "r.html" || got.Title != "Nightly" || !got.Input.IncludeTests || !got.Input.Strict || got.Input.Jobs != 2 ||
		strings.Join(got.Paths, ",") != "a,b" || strings.Join(got.Config.Sets, ",") != "max_turns_stuck=30" {
		t.Errorf("options %+v", got)
	}
}

func TestReportOutput(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, filepath.Join(dir, "ep", "episode_log.jsonl"), stuckLog("E1", 60))

	// -o - writes the page to stdout.
	code, stdout, stderr := run(t, dir, "", "report", "-o", "-", "--title", "Nightly <run>", log)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"<!DOCTYPE html>", "<title>Nightly &lt;run&gt;</title>", `<svg class="tl"`, `<table class="sortable" id="episodes">`, "1 of 1 episode would have been terminated"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("page lacks %q", want)
		}
	}

	// A file: written whole, nothing else left in its directory, and
	// --set reaches the charts (the cut moves with max_turns_stuck).
	out := filepath.Join(dir, "out", "report.html")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, dir, "", "report", "-o", out, "--set", "max_turns_stuck=30", log)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cut := func(args ...string) string {
		_, out, _ := run(t, dir, "", append([]string{"analyze", "--format", "json"}, args...)...)
		_, after, ok := strings.Cut(out, `"termination":{"turn":`)
		turn, _, _ := strings.Cut(after, ",")
		if !ok || turn == "" {
			t.Fatalf("no termination in analyze's JSON: %.300s", out)
		}
		return turn
	}
	at30, at40 := cut("--set", "max_turns_stuck=30", log), cut(log)
	if at30 == at40 {
		t.Fatalf("max_turns_stuck 30 and 40 both cut at t=%s: the test shows nothing", at30)
	}
	if !strings.Contains(string(page), "the replay terminates at t="+at30+"<") || !strings.HasSuffix(string(page), "</html>\n") {
		t.Errorf("report of max_turns_stuck=30 lacks analyze's cut at t=%s, or its end", at30)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Errorf("%d files beside the report, want none", len(ents)-1)
	}
}

func TestSweepHTMLFlag(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "eps", "a", "episode_log.jsonl"), stuckLog("A", 60))
	writeFile(t, filepath.Join(dir, "eps", "b", "episode_log.jsonl"), stuckLog("B", 45))
	eps := filepath.Join(dir, "eps")

	// A file beside the table.
	page := filepath.Join(dir, "sweep.html")
	code, stdout, stderr := run(t, dir, "", "sweep", "-q", "--max-stuck", "30,40", "--html", page, eps)
	if code != 0 || !strings.Contains(stdout, "max stuck") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<svg class="sw"`, `<table class="sortable" id="configurations">`, `class="pf"`, `class="base"`, `class="rec"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("sweep page lacks %q", want)
		}
	}
	// --html - writes the page instead of the table.
	code, stdout, _ = run(t, dir, "", "sweep", "-q", "--max-stuck", "30,40", "--html", "-", eps)
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") || strings.Contains(stdout, "─") {
		t.Errorf("--html -: exit %d, stdout %.200q", code, stdout)
	}
}
