package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
)

// sample is a failing comparison: one changed episode, one missing, one
// unchanged with unreadable lines, one failed gate and one passed.
func sample(mode string) *check.Result {
	tot := &analyze.Totals{Episodes: 3, Terminated: 1, RecordedTurns: 200, TurnsSaved: 20, TurnsSavedPct: 10, FalseTerminations: 1, FalseRatePct: 100, ScoreForfeited: 3}
	ep := func(id, status string, d ...check.Drift) check.Episode {
		return check.Episode{EpisodeID: id, Label: id, Source: "eps/" + id + "/episode_log.jsonl", Status: status, Drift: d,
			Path: "ci/eps/" + id + "/episode_log.jsonl"}
	}
	t60, t70 := 60, 70
	e1 := ep("E1", check.StatusChanged,
		check.Drift{Field: "termination_turn", Baseline: "60", Current: "70"},
		check.Drift{Field: "llm_calls_saved", Baseline: "852", Current: "812"})
	e1.Baseline = &check.Entry{EpisodeID: "E1", TerminationTurn: &t60, TurnsSaved: 213, LLMCallsSaved: 852}
	e1.Current = &check.Entry{EpisodeID: "E1", TerminationTurn: &t70, TurnsSaved: 203, LLMCallsSaved: 812}
	e2 := ep("E2", check.StatusMissing, check.Drift{Field: "episode", Baseline: "eps/E2/episode_log.jsonl"})
	e2.Baseline, e2.Unreadable = &check.Entry{EpisodeID: "E2"}, "gzip: invalid header"
	quiet := ep("E3", check.StatusUnchanged)
	quiet.Skipped, quiet.Problems = 2, []string{"ci/eps/E3/episode_log.jsonl:7: not JSON"}
	return &check.Result{
		Mode: mode, Baseline: "ci/loopbreak.baseline.json",
		Episodes: []check.Episode{e1, e2, quiet},
		Config:   []check.ConfigChange{{Key: "max_turns_stuck", Baseline: "40", Current: "50"}},
		Gates: []check.GateResult{
			{Kind: check.GateMaxFalseRate, Limit: 5, Passed: false},
			{Kind: check.GateMaxForfeit, Limit: 10, Passed: true},
		},
		Totals: tot,
		Errors: []analyze.FileError{{Source: "ci/eps/E2/episode_log.jsonl", Error: "gzip: invalid header"}},
	}
}

func TestCheckVerdicts(t *testing.T) {
	c := sample(check.ModeCompare)
	if !c.Failed() || c.Drifted() != 2 || c.GatesFailed() != 1 {
		t.Fatalf("failed=%v drifted=%d gates=%d", c.Failed(), c.Drifted(), c.GatesFailed())
	}
	if got, want := CheckSummary(c), "FAIL: 2 of 3 episodes drifted from ci/loopbreak.baseline.json (1 changed, 0 new, 1 missing); configuration differs from the baseline's (max_turns_stuck); 1 of 2 policy gates failed"; got != want {
		t.Errorf("summary\n got %s\nwant %s", got, want)
	}
	// Update: drift is what was written, not a failure; the gate still fails.
	u := sample(check.ModeUpdate)
	u.Wrote = true
	if got, want := CheckSummary(u), "FAIL: wrote ci/loopbreak.baseline.json: 2 episodes (1 changed, 0 added, 1 removed); configuration changed (max_turns_stuck); 1 of 2 policy gates failed"; got != want {
		t.Errorf("update summary\n got %s\nwant %s", got, want)
	}
	u.Gates = u.Gates[1:]
	if u.Failed() {
		t.Error("update with drift and passing gates fails")
	}
	u.Wrote = false
	if got, want := CheckSummary(u), "PASS: ci/loopbreak.baseline.json is up to date: 2 episodes; configuration changed (max_turns_stuck); 1 policy gate passed"; got != want {
		t.Errorf("update summary\n got %s\nwant %s", got, want)
	}
	g := &check.Result{Mode: check.ModeGatesOnly, Totals: &analyze.Totals{}, Episodes: []check.Episode{{}}}
	if got, want := CheckSummary(g), "PASS: 1 episode checked against policy gates only (no baseline)"; got != want {
		t.Errorf("gates-only summary %q", got)
	}
	p := &check.Result{Mode: check.ModeCompare, Baseline: "b.json", Totals: &analyze.Totals{}, Episodes: []check.Episode{{}, {}}}
	if got, want := CheckSummary(p), "PASS: 2 episodes match b.json"; got != want {
		t.Errorf("pass summary %q", got)
	}
}

func TestCheckText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCheckText(&b, sample(check.ModeCompare), false, "", 0); err != nil {
		t.Fatal(err)
	}
	want := `FAIL: 2 of 3 episodes drifted from ci/loopbreak.baseline.json (1 changed, 0 new, 1 missing); configuration differs from the baseline's (max_turns_stuck); 1 of 2 policy gates failed

The configuration differs from the baseline's (this explains outcome drift):
  max_turns_stuck 40 → 50

Drift:
  E1: termination moved t=60 → t=70 (turns saved 213 → 203)
  E1: LLM calls saved 852 → 812
  E2: missing: its log could not be read (gzip: invalid header)

Policy gates:
  FAIL  max-false-rate: false terminations 1 of 1 terminated episodes (100.0%) exceed the limit of 5%
  pass  max-forfeit: score forfeited 3 in total, at most 10 allowed

Unreadable lines:
  E3: 2 unreadable lines skipped, the episode is still compared (first: ci/eps/E3/episode_log.jsonl:7: not JSON)

Unreadable files:
  ci/eps/E2/episode_log.jsonl: gzip: invalid header

Corpus: 3 episodes, 1 terminated (0 censored); 20 of 200 turns saved (10.0%); 1 of 1 terminations false (100.0%); score forfeited 3.
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteCheckText(&b, sample(check.ModeCompare), true, "", 0)
	if !strings.Contains(b.String(), "\x1b[") {
		t.Error("no colour with color=true")
	}
}

func TestCheckJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCheckJSON(&b, sample(check.ModeCompare)); err != nil {
		t.Fatal(err)
	}
	var doc CheckJSON
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Result != "fail" || doc.SchemaVersion != CheckSchemaVersion || len(doc.Episodes) != 3 || string(doc.Episodes[0].Drift[0].Current) != "70" ||
		doc.Episodes[2].LinesSkipped != 2 || len(doc.Gates) != 2 || len(doc.Errors) != 1 || doc.ConfigChanges[0].Key != "max_turns_stuck" {
		t.Errorf("document %+v", doc)
	}
	if strings.Contains(b.String(), "null") {
		t.Errorf("null where an empty list belongs:\n%s", b.String())
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got := escapeData("50% done\r\nnext: a,b"); got != "50%25 done%0D%0Anext: a,b" {
		t.Errorf("escapeData: %q", got)
	}
	if got := escapeProperty("a:b,c%\n"); got != "a%3Ab%2Cc%25%0A" {
		t.Errorf("escapeProperty: %q", got)
	}
	var b bytes.Buffer
	ghCommand(&b, "error", "eps/2025-11-04T09:35:24,x/episode_log.jsonl", "loopbreak drift", "E: 100% moved\nagain")
	if got, want := b.String(), "::error file=eps/2025-11-04T09%3A35%3A24%2Cx/episode_log.jsonl,title=loopbreak drift::E: 100%25 moved%0Aagain\n"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	b.Reset()
	ghCommand(&b, "notice", "-", "t", "m")
	if b.String() != "::notice title=t::m\n" {
		t.Errorf("stdin gets a file property: %q", b.String())
	}
}

func TestCheckGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCheckGitHub(&b, sample(check.ModeCompare)); err != nil {
		t.Fatal(err)
	}
	want := `::notice title=loopbreak check::FAIL: 2 of 3 episodes drifted from ci/loopbreak.baseline.json (1 changed, 0 new, 1 missing); configuration differs from the baseline's (max_turns_stuck); 1 of 2 policy gates failed
::warning title=loopbreak config::The configuration differs from the baseline's (this explains outcome drift): max_turns_stuck 40 → 50
::error file=ci/eps/E1/episode_log.jsonl,title=loopbreak drift::E1: termination moved t=60 → t=70 (turns saved 213 → 203)
::error file=ci/eps/E1/episode_log.jsonl,title=loopbreak drift::E1: LLM calls saved 852 → 812
::error file=ci/eps/E2/episode_log.jsonl,title=loopbreak drift::E2: missing: its log could not be read (gzip: invalid header)
::warning file=ci/eps/E3/episode_log.jsonl,title=loopbreak unreadable lines::E3: 2 unreadable lines skipped, the episode is still compared (first: ci/eps/E3/episode_log.jsonl:7: not JSON)
::error title=loopbreak policy::max-false-rate: false terminations 1 of 1 terminated episodes (100.0%25) exceed the limit of 5%25
::warning file=ci/eps/E2/episode_log.jsonl,title=loopbreak unreadable file::gzip: invalid header
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Update: the changes written are notices, not errors.
	b.Reset()
	u := sample(check.ModeUpdate)
	u.Gates = nil
	WriteCheckGitHub(&b, u)
	if strings.Contains(b.String(), "::error") || !strings.Contains(b.String(), "::notice file=ci/eps/E1/episode_log.jsonl,title=loopbreak baseline updated::E1: termination moved") {
		t.Errorf("update annotations:\n%s", b.String())
	}
}

func TestCheckMarkdown(t *testing.T) {
	c := sample(check.ModeCompare)
	c.Episodes[0].Drift[1] = check.Drift{Field: "source", Baseline: "a | b", Current: "c\nd"}
	var b bytes.Buffer
	if err := WriteCheckMarkdown(&b, c); err != nil {
		t.Fatal(err)
	}
	// Values are code spans (paths, keys, values, problems); a newline
	// in one is shown as \n and a "|" escaped for the table.
	want := "### ❌ loopbreak check: FAIL\n\n" +
		"2 of 3 episodes drifted from `ci/loopbreak.baseline.json` (1 changed, 0 new, 1 missing); configuration differs from the baseline's (`max_turns_stuck`); 1 of 2 policy gates failed.\n\n" +
		"The configuration differs from the baseline's (this explains outcome drift):\n\n" +
		"- `max_turns_stuck`: `40` → `50`\n\n" +
		"| episode | status | change |\n| --- | --- | --- |\n" +
		"| `E1` | changed | termination moved t=60 → t=70 (turns saved 213 → 203) |\n" +
		"|  |  | log moved: `a \\| b` → `c\\nd` |\n" +
		"| `E2` | missing | missing: its log could not be read (`gzip: invalid header`) |\n\n" +
		"| policy gate | limit | value | result |\n| --- | ---: | ---: | --- |\n" +
		"| `max-false-rate` | 5% | 100.0% | ❌ **fail**: false terminations 1 of 1 terminated episodes (100.0%) exceed the limit of 5% |\n" +
		"| `max-forfeit` | 10 | 3 | ✅ pass: score forfeited 3 in total, at most 10 allowed |\n\n" +
		"- ⚠️ `E3`: 2 unreadable lines skipped, the episode is still compared (first: `ci/eps/E3/episode_log.jsonl:7: not JSON`)\n" +
		"- ⚠️ unreadable file `ci/eps/E2/episode_log.jsonl`: `gzip: invalid header`\n\n" +
		"**Corpus:** 3 episodes, 1 terminated (0 censored); 20 of 200 turns saved (10.0%); 1 of 1 terminations false (100.0%); score forfeited 3.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// A backtick no longer ends the code span (it was dropped before,
	// and the value rendered as Markdown).
	if mdCode("a`b|c") != "``a`b\\|c``" {
		t.Errorf("mdCode with a backtick: %q", mdCode("a`b|c"))
	}
}

// TestCheckJUnitHostileText: ids and messages with markup, control
// characters and a CDATA terminator still give well-formed XML that reads
// back to the same text.
func TestCheckJUnitHostileText(t *testing.T) {
	c := sample(check.ModeCompare)
	c.Episodes[0].Label = `E1 <&"x"> ` + "\x01"
	c.Episodes[0].Drift[0] = check.Drift{Field: "source", Baseline: "]]> here", Current: "& <there>\x00"}
	var b bytes.Buffer
	if err := WriteCheckJUnit(&b, c); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	tc := doc.Suites[0].Cases[0]
	if tc.Name != `E1 <&"x"> `+"\uFFFD" {
		t.Errorf("name %q", tc.Name)
	}
	if tc.Failure == nil || !strings.HasPrefix(tc.Failure.Message, "log moved: ]]> here → & <there>\uFFFD (and 1 more)") ||
		!strings.Contains(tc.Failure.Text, "log moved: ]]> here → & <there>\uFFFD\n") {
		t.Errorf("failure %+v", tc.Failure)
	}
}

// The text report says what it assumed on its second line, after the
// verdict CI logs are searched for.
func TestCheckTextConfigLine(t *testing.T) {
	var b bytes.Buffer
	line := "config: defaults (no config found) · max_turns_stuck 40 · every 10 turns · warnings from 20"
	if err := WriteCheckText(&b, sample(check.ModeCompare), false, line, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "FAIL: ") || lines[1] != line {
		t.Errorf("first lines %q, want the verdict then %q", lines[:min(len(lines), 2)], line)
	}
}
