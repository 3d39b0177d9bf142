package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestAgentStoryAsKeptFirings holds a steps or attempts log's text report
// and HTML page, told from the firings as they came (AgentStory, nothing
// kept), byte-equal to those told from every firing kept: a log of few
// firings, one past the 20 the text lists, one past the chart's pixel
// columns (binned lanes) and an attempts log with tasks.
func TestAgentStoryAsKeptFirings(t *testing.T) {
	dir := t.TempDir()
	steps := func(name string, n, every int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			action := fmt.Sprintf("edit_%d", i)
			if i%every == 0 {
				action = "run_tests"
			}
			fmt.Fprintf(&b, `{"step": %d, "action": %q, "output": "1 test failed", "error": true, "kind": "action", "score": %d, "location": "repo"}`+"\n", i, action, i/1000)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := []string{
		steps("few.jsonl", 12, 1),
		steps("some.jsonl", 400, 3),
		steps("many.jsonl", 5000, 1),
		filepath.Join("..", "testdata", "attempts", "autopilot.jsonl"),
	}
	for _, path := range paths {
		eps, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
		if err != nil {
			t.Fatal(err)
		}
		ep := eps[0]
		kept := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true, Story: true})
		told := analyze.Analyze(ep, rules.Default(), analyze.Options{Story: true, Sink: NewAgentStory})
		if told.Firings != nil || len(kept.Firings) == 0 {
			t.Fatalf("%s: %d firings kept with a story sink; %d without", path, len(told.Firings), len(kept.Firings))
		}
		render := func(o *analyze.Outcome) (string, string) {
			var text bytes.Buffer
			if err := (&Text{W: &text, Width: 100}).Episode(o, ep); err != nil {
				t.Fatal(err)
			}
			h := &HTMLReport{}
			h.Add(o, ep)
			var page bytes.Buffer
			if err := h.Write(&page, &analyze.Totals{Episodes: 1}, nil); err != nil {
				t.Fatal(err)
			}
			return text.String(), page.String()
		}
		wantText, wantPage := render(kept)
		gotText, gotPage := render(told)
		if gotText != wantText {
			t.Errorf("%s: text told as the firings came:\n%s\nfrom the kept firings:\n%s", path, gotText, wantText)
		}
		if gotPage != wantPage {
			t.Errorf("%s: the HTML page told as the firings came differs from the kept firings'", path)
		}
		if len(kept.Firings) > maxFiringsListed && !strings.Contains(gotText, fmt.Sprintf("(the first 20 of %d; -v lists all)", len(kept.Firings))) {
			t.Errorf("%s: %d firings, text does not say it lists the first 20", path, len(kept.Firings))
		}
		if strings.HasSuffix(path, "many.jsonl") && !strings.Contains(gotPage, "Summarised: more steps or firings") {
			t.Errorf("%s: lanes not binned", path)
		}
		if ep.Format == replay.FormatAttempts && !strings.Contains(gotText, "Tasks (task_attempts would have fired)") {
			t.Errorf("%s: no tasks", path)
		}
		// -v lists every firing, from the story's packed list, not from
		// kept firings.
		for _, width := range []int{0, 60} {
			verbose := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true, Story: true, Sink: NewAgentListing(width)})
			if verbose.Firings != nil {
				t.Errorf("%s: %d firings kept for -v's listing", path, len(verbose.Firings))
			}
			var want, got bytes.Buffer
			if err := (&Text{W: &want, Width: width, Verbose: true}).Episode(kept, ep); err != nil {
				t.Fatal(err)
			}
			if err := (&Text{W: &got, Width: width, Verbose: true}).Episode(verbose, ep); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s: -v text (width %d) listed as the firings came:\n%s\nfrom the kept firings:\n%s", path, width, got.String(), want.String())
			}
			if strings.Count(got.String(), "\n    step ")+strings.Count(got.String(), "\n    attempt ") < len(kept.Firings) && width == 0 {
				t.Errorf("%s: -v lists fewer than its %d firings", path, len(kept.Firings))
			}
		}

		// Each lane against the kept firings: count, the first listed,
		// every step while they fit, the distinct columns.
		s := told.Sink.(*AgentStory)
		x := agentX(ep)
		for _, r := range kept.Ran {
			var turns, cols []int
			var at []laneFiring
			for _, f := range kept.Firings {
				if f.Rule != r || f.Kind == rules.Reset {
					continue
				}
				turns = append(turns, f.Turn)
				if len(at) < maxListed {
					at = append(at, laneFiring{f.Turn, f.Kind.Name})
				}
				if c := x(f.Turn); len(cols) == 0 || cols[len(cols)-1] != c {
					cols = append(cols, c)
				}
			}
			l := s.lanes[r]
			if l == nil {
				if len(turns) > 0 {
					t.Errorf("%s: no lane for %s, %d firings", path, r.Name, len(turns))
				}
				continue
			}
			count := len(turns)
			if count > agentPlotW {
				turns = nil // binned: the columns draw it
			}
			if l.count != count || !slices.Equal(l.at, at) || !slices.Equal(l.turns, turns) || !slices.Equal(l.cols, cols) || len(l.cols) > agentPlotW+1 {
				t.Errorf("%s: lane %s: %d firings at %v, steps %v, columns %v; want at %v, steps %v, columns %v", path, r.Name, l.count, l.at, l.turns, l.cols, at, turns, cols)
			}
		}
	}
}

// TestAppendFiringLine: a firing's line appended (appendFiringLine, what
// -v writes for each firing) is the line formatted as it was with fmt,
// for every kind of every rule, odd values and widths.
func TestAppendFiringLine(t *testing.T) {
	// The words as fmt formatted them before appendFiringWords.
	describe := func(f *rules.Firing, ep *replay.Episode) string {
		switch f.Kind {
		case rules.Termination:
			return fmt.Sprintf("TERMINATE (stuck %s)", plural(f.TurnsStuck, "turn"))
		case rules.Checkpoint:
			return fmt.Sprintf("check point (stuck %s)", plural(f.TurnsStuck, "turn"))
		case rules.Reset:
			cause := strings.ReplaceAll(strings.TrimSuffix(f.Cause, "_reset"), "_", " ")
			return fmt.Sprintf("reset: %s after %s", cause, plural(f.TurnsStuck, "turn"))
		case rules.Warning:
			if f.TurnsUntilDeath < 0 {
				return fmt.Sprintf("warning %s (limit passed %s ago)", f.Urgency, plural(-f.TurnsUntilDeath, "turn"))
			}
			return fmt.Sprintf("warning %s (%s left)", f.Urgency, plural(f.TurnsUntilDeath, "turn"))
		}
		switch f.Rule {
		case rules.SignatureRepeat:
			return fmt.Sprintf("signature_repeat: %q", f.Signature)
		case rules.FuzzyRepeat:
			return fmt.Sprintf("fuzzy_repeat: similarity %.4f to %s %d", f.Similarity, f.Unit, f.MatchedStep)
		case rules.TaskAttempts:
			return fmt.Sprintf("task_attempts: %s %s (%d attempts) → %s", f.TaskID, f.LoopType, f.AttemptCount, f.Recommendation)
		case rules.ToolCycle:
			return fmt.Sprintf("tool_cycle/%s: cycle of %d", f.Kind.Name, f.CycleLength)
		}
		return describeFiring(f, ep)
	}
	old := func(f *rules.Firing, ep *replay.Episode, width int) string {
		head := fmt.Sprintf("%s %-5d ", unitWord(ep), f.Turn)
		return fmt.Sprintf("    %s%s\n", head, Wrap(Term(describe(f, ep)), width, 4+len(head), strings.Repeat(" ", 8)))
	}
	odd := []string{"", "a", "run_tests|error:TypeError-auth.ts:45", "é \"q\" \x01 → ::x", strings.Repeat("long words here ", 12)}
	floats := []float64{0, 1, 0.90476, -0.00005, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e21}
	var line, desc []byte
	lines := 0
	for _, ep := range []*replay.Episode{{Format: replay.FormatSteps}, {Format: replay.FormatAttempts}, {}} {
		for i, turn := range []int{0, 7, -3, 12345, 1234567, 1, 999, -1000} {
			for _, r := range rules.Registry {
				for _, k := range r.Kinds {
					s := odd[i%len(odd)]
					f := rules.Firing{Turn: turn, Rule: r, Kind: k, Unit: rules.UnitOf(ep), Signature: s, TaskID: s, LoopType: odd[(i+1)%len(odd)],
						Recommendation: odd[(i+2)%len(odd)], Cause: []string{"score_change", "objective_progress_reset", "x_y_reset_z"}[i%3], Urgency: "high",
						TurnsUntilDeath: []int{1, -1, 0, -2500, 999, 1000, 12}[i%7],
						MatchedStep:     turn - 1, AttemptCount: i, CycleLength: i + 2, TurnsStuck: turn, Visits: 3, Base: 0.5, Adjusted: 0.25, HasBase: i%2 == 0,
						Pattern: [2]string{"a", "b"}, Location: s, Action: s, Proposal: rules.ProposalRejected}
					for j, width := range []int{0, 40, 80} {
						for _, x := range floats[j%2:] {
							f.Similarity = x
							line, desc = appendFiringLine(line[:0], desc, &f, ep, width)
							if want := old(&f, ep, width); string(line) != want {
								t.Fatalf("%s/%s width %d:\n got %q\nwant %q", r.Name, k.Name, width, line, want)
							}
							lines++
						}
					}
				}
			}
		}
	}
	if lines < 300 {
		t.Fatalf("%d lines: the test covers too little", lines)
	}
}
