package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// agentLog reads and analyses one of the committed logs of other agents.
func agentLog(t *testing.T, path string) (*analyze.Outcome, *replay.Episode) {
	t.Helper()
	eps, err := replay.ReadFile(filepath.Join("..", "testdata", path), nil, replay.Options{Format: replay.FormatAuto})
	if err != nil || len(eps) != 1 {
		t.Fatalf("read %s: %d episodes, %v", path, len(eps), err)
	}
	o := analyze.Analyze(eps[0], rules.Default(), analyze.Options{KeepFirings: true, Story: true})
	return o, eps[0]
}

// A corpus of agents' logs leads with its detectors, names its agents and
// says nothing of ZorkGPT's termination.
func TestAgentCorpus(t *testing.T) {
	var (
		d    DetectorTotals
		tot  analyze.Totals
		rows CorpusRows
	)
	for _, p := range []string{"steps/openhands/events.jsonl", "steps/openhands/trajectory.json"} {
		o, ep := agentLog(t, p)
		d.Add(o, ep)
		tot.Add(&o.Result, o.RecordedTurns, 0)
		rows.Add(NewSummaryRow(o, 0))
	}
	tot.Finish()
	var b bytes.Buffer
	r := &Text{W: &b, Config: "config: zorkgpt thresholds", AgentConfig: "config: agents", Detectors: &d}
	if err := r.Corpus(&rows, &tot, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"config: agents\n", "Corpus: 2 logs of OpenHands", " monologue ", "OpenHands' detectors: ", "false alarms unknown"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, not := range []string{"zorkgpt thresholds", "terminated", "other agents", "turns saved", "countdown"} {
		if strings.Contains(out, not) {
			t.Errorf("%q in\n%s", not, out)
		}
	}
	if !d.AgentsOnly() {
		t.Error("AgentsOnly: false")
	}
	o, ep := agentLog(t, "../testdata/episodes/2025-11-04T09-35-24/episode_log.jsonl")
	d.Add(o, ep)
	if d.AgentsOnly() {
		t.Error("AgentsOnly with a ZorkGPT episode")
	}
}

// The terminal timeline of an agent's log draws a lane per detector that
// ran, marked where it fired, and no stuck counter.
func TestAgentTimeline(t *testing.T) {
	o, ep := agentLog(t, "steps/openhands/events.jsonl")
	var b bytes.Buffer
	if err := WriteTimeline(&b, NewTimeline(o, ep, 40), TimelineOptions{Width: 60}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	fired := map[string]bool{}
	for _, f := range o.Firings {
		fired[f.Rule.Name] = f.Kind != rules.Reset || fired[f.Rule.Name]
	}
	for _, r := range o.Ran {
		var lane string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), r.Name+" ") {
				lane = l
			}
		}
		if lane == "" {
			t.Errorf("no lane for %s in\n%s", r.Name, out)
			continue
		}
		if got := strings.Contains(lane, "●"); got != fired[r.Name] {
			t.Errorf("%s: marked %v, fired %v: %q", r.Name, got, fired[r.Name], lane)
		}
	}
	for _, not := range []string{"stuck", "terminates", "score"} {
		if strings.Contains(out, not) {
			t.Errorf("%q in\n%s", not, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 60 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

// The HTML page of agents' logs leads with their detectors and marks each
// firing in a lane of its detector.
func TestAgentHTML(t *testing.T) {
	h := &HTMLReport{Config: "config: zorkgpt thresholds", AgentConfig: "config: agents"}
	var tot analyze.Totals
	o, ep := agentLog(t, "steps/gemini-cli/session.json")
	h.Add(o, ep)
	tot.Add(&o.Result, o.RecordedTurns, 0)
	tot.Finish()
	var b bytes.Buffer
	if err := h.Write(&b, &tot, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<table class="sortable" id="detectors">`, `id="logs"`, "config: agents", `data-rule="tool_cycle" data-firings="2"`, "Gemini CLI&#39;s detectors"} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q in the page", want)
		}
	}
	for _, not := range []string{"zorkgpt thresholds", `id="episodes"`, "never terminate", "lb-frame"} {
		if strings.Contains(page, not) {
			t.Errorf("%q in the page", not)
		}
	}
}
