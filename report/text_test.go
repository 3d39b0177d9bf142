package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// stuckEpisode is 60 turns at score 5 (one rise at turn 55), pacing
// between two rooms: terminated at t=40, a false termination, with
// warnings, revisit penalties and oscillation along the way.
func stuckEpisode() *replay.Episode {
	ep := &replay.Episode{ID: "E1", Source: "eps/E1/episode_log.jsonl", LocationKey: replay.KeyRoomID,
		RoomNames: map[string]string{"1": "Kitchen", "2": "Attic"}, RecordedEnd: "max_turns",
		Diag: replay.Diagnostics{Lines: 300, Skipped: 1, Problems: []string{"eps/E1/episode_log.jsonl:7: not JSON"}}}
	for n := 1; n <= 60; n++ {
		from, to := "1", "2"
		if n%2 == 0 {
			from, to = "2", "1"
		}
		score := 5.0
		if n >= 55 {
			score = 9
		}
		ep.AppendRows(replay.Row{N: n, Score: score, LocStart: from, LocEnd: to, Moved: true,
			Action: "go", HasAction: true, Base: 0.6, HasBase: true})
	}
	return ep
}

func renderEpisode(t *testing.T, ep *replay.Episode, text *Text) string {
	t.Helper()
	var b bytes.Buffer
	text.W = &b
	o := analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true, Story: true})
	if err := text.Episode(o, ep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestTextEpisode(t *testing.T) {
	got := renderEpisode(t, stuckEpisode(), &Text{})
	for _, want := range []string{
		"Episode E1\n  source             eps/E1/episode_log.jsonl\n",
		"  recorded           60 turns, final score 9, ended by max_turns; locations by room ids\n",
		"  would terminate    at t=40 (stuck 40 turns at score 5)\n",
		"  turns saved        20 of 60 (33.3%)\n",
		"  LLM calls saved    80 (estimated: 4 per turn + 2 per rejected action)\n",
		"  score forfeited    4 (score 5 at the cut, 9 at the end)\n",
		"  false termination  yes: score rose 5 → 9 at t=55\n",
		"  log lines          300 read, 1 skipped\n    eps/E1/episode_log.jsonl:7: not JSON\n",
		"  check points       t=40, stuck 40 turns\n  after the cut      t=50, stuck 50 turns\n",
		"\n  Stuck periods\n",
		"\n  Countdown warnings (would have been shown)\n    t=20–55      stagnation t=20–29, urgent t=30–34, critical t=35–55 (after the cut from t=41)\n",
		// What ZorkGPT would have done first, counted up to the cut by hand:
		// penalties at t=3–40 (38), below 0.3 from t=5 on (2 visits, 0.6-0.4).
		"\n  Penalties and hints ZorkGPT would have given (would have fired)\n    up to t=40: 38 revisit penalties, 36 low confidence (below 0.3: could let a rejected action through",
		"after cut: firings after t=40, which the terminated run would never have seen\n",
		" location_revisit  Kitchen           t=3–59       29              18         10\n",
		// Then the design's proposals: oscillation from t=4 (37 up to t=40 of
		// 57), camping from t=9 (32 of 52).
		"\n  Proposed rules (loop-break design; not in ZorkGPT)\n    up to t=40: 37 oscillation and 32 camping detections, 0 score adjustments, 0 would reject the action\n",
		" oscillation  Kitchen ↔ Attic   t=4–60       57            0             0         20\n",
		" from  to  turns  score\n  ──────────────────────────\n      1  54     54      5\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "Turn by turn") || strings.Contains(got, "\x1b[") {
		t.Errorf("trace or colour without asking:\n%s", got)
	}
	if !strings.HasSuffix(got, "\n\n") {
		t.Errorf("an episode ends with a blank line:\n%q", got[len(got)-20:])
	}

	// -v adds the turn-by-turn trace; colour only when told.
	v := renderEpisode(t, stuckEpisode(), &Text{Verbose: true, Color: true})
	for _, want := range []string{"Turn by turn", "TERMINATE (stuck 40 turns)", "Kitchen → Attic", "\x1b["} {
		if !strings.Contains(v, want) {
			t.Errorf("verbose: missing %q", want)
		}
	}
	// MaxRuns keeps the largest runs and says so.
	few := renderEpisode(t, stuckEpisode(), &Text{MaxRuns: 1})
	if !strings.Contains(few, "(the 1 largest of ") {
		t.Errorf("MaxRuns 1:\n%s", few)
	}
}

func TestTextEpisodeEnds(t *testing.T) {
	cases := []struct {
		name string
		o    analyze.Outcome
		ep   replay.Episode
		want string
	}{
		{"never", analyze.Outcome{}, replay.Episode{}, "  would terminate    never\n"},
		{"censored", analyze.Outcome{Result: analyze.Result{Censored: true}}, replay.Episode{LiveStopTurn: 30},
			"  would terminate    unknown: censored (the live system stopped the run at t=30 first)\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := (&Text{W: &b}).Episode(&c.o, &c.ep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) || strings.Contains(b.String(), "turns saved") {
			t.Errorf("%s:\n%s", c.name, b.String())
		}
	}
}

func TestTextSummary(t *testing.T) {
	rows := []SummaryRow{
		NewSummaryRow(&analyze.Outcome{EpisodeID: "E1", RecordedTurns: 60, FinalScore: 9, RecordedEnd: "max_turns", Termination: &analyze.Termination{Turn: 40},
			Result: analyze.Result{Terminated: true, TurnsSaved: 20, LLMCallsSaved: 80, ScoreForfeited: 4, FalseTermination: true}}, 1),
		NewSummaryRow(&analyze.Outcome{EpisodeID: "E2", RecordedTurns: 30, FinalScore: 2.5, RecordedEnd: "stuck_termination", Result: analyze.Result{Censored: true}}, 0),
	}
	var tot analyze.Totals
	tot.Add(&analyze.Result{Terminated: true, TurnsSaved: 20, LLMCallsSaved: 80, ScoreForfeited: 4, FalseTermination: true}, 60, 1)
	tot.Add(&analyze.Result{Censored: true}, 30, 0)
	tot.Finish()
	var b bytes.Buffer
	err := (&Text{W: &b}).Summary(rows, &tot, []analyze.FileError{{Source: "bad.jsonl.gz", Error: "gzip: invalid header"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `Corpus: 2 episodes
 episode  turns  final  ended              cut       saved  calls saved  forfeited  false  live
────────────────────────────────────────────────────────────────────────────────────────────────
 E1          60      9  max_turns              t=40     20           80          4  yes
 E2          30    2.5  stuck_termination  censored      -            -          -
────────────────────────────────────────────────────────────────────────────────────────────────
 total       90                                   1     20           80          4  1

1 of 2 episodes would have been terminated (1 censored); 20 of 90 turns saved (22.2%), 80 LLM calls; 1 false termination (100% of terminated); score forfeited 4.
Up to each termination: 0 countdown warnings; 0 low-confidence revisit penalties (could let a rejected action through ZorkGPT's rejection override); the proposed score adjustments would reject 0 actions.
1 unreadable line skipped: E1 (1).
unreadable: bad.jsonl.gz: gzip: invalid header
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A table fitted to a terminal hides columns by priority, then wraps or
// cuts prose, and never writes a line wider than asked.
func TestGridFits(t *testing.T) {
	g := &Grid{Indent: "  ", Cols: []Col{{Head: "turn", Align: R}, {Head: "where", Align: L, Cut: true}, {Head: "extra", Align: R, Drop: 1}, {Head: "fired", Align: L, Wrap: true}}}
	for i := 0; i < 5; i++ {
		g.Rows = append(g.Rows, []string{strconv.Itoa(i), "Behind House of the Great Underground Empire", "12345", "revisit ×3 0.74→0.14 low confidence; camping Forest ×6; repeated action"})
	}
	for _, width := range []int{120, 80, 60, 40} {
		var b bytes.Buffer
		hidden, err := g.Render(&b, width)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line of %d: %q", width, n, l)
			}
		}
		if width <= 60 && (len(hidden) != 1 || hidden[0] != "extra") {
			t.Errorf("width %d: hidden %v, want [extra]", width, hidden)
		}
		if !strings.Contains(b.String(), "repeated") {
			t.Errorf("width %d: the wrapped column lost words:\n%s", width, b.String())
		}
	}
}

// The live run line (RULES.md §10): agreement in one line; a disagreeing
// termination with what this configuration does and which settings
// reproduce the live run, the configuration's own interval first.
func TestTextLiveRun(t *testing.T) {
	stop := &replay.LiveEvent{Kind: replay.LiveStuckTermination, Turn: 50, Stuck: 30, HasStuck: true, Score: 25, HasScore: true}
	cases := []struct {
		name string
		o    analyze.Outcome
		want string
	}{
		{"agrees", analyze.Outcome{Live: &analyze.Live{Events: 9, Stop: &replay.LiveEvent{Kind: replay.LiveStuckTermination, Turn: 60, Stuck: 40, HasStuck: true}}},
			"  live run           terminated at t=60 (stuck 40 turns) — the replay agrees\n"},
		{"agrees without a live stop", analyze.Outcome{Live: &analyze.Live{Events: 3}},
			"  live run           not terminated (3 live decisions logged) — the replay agrees\n"},
		{"termination disagrees", analyze.Outcome{Result: analyze.Result{Censored: true}, Live: &analyze.Live{Events: 9, Stop: stop, Interval: 10,
			Disagreements: []analyze.LiveDisagreement{{Turn: 50, Kind: replay.LiveStuckTermination, Live: stop}},
			ExplainedBy:   []analyze.LiveSetting{{StuckCheckInterval: 1, MaxTurnsStuck: [2]int{30, 30}}, {StuckCheckInterval: 2, MaxTurnsStuck: [2]int{29, 30}}, {StuckCheckInterval: 5, MaxTurnsStuck: [2]int{26, 30}}, {StuckCheckInterval: 10, MaxTurnsStuck: [2]int{21, 30}}, {StuckCheckInterval: 25, MaxTurnsStuck: [2]int{25, 30}}}}},
			"  live run           terminated at t=50 (stuck 30 turns) — the replay disagrees (1 decision)\n" +
				"    this configuration would not have terminated by then\n" +
				"    t=50 stuck_termination: live turns_stuck 30, score 25; replay none\n" +
				"    the live run matches max_turns_stuck 21–30 with stuck_check_interval 10 (or 30 with 1, 29–30 with 2, 26–30 with 5, 1 more in --format json)\n"},
		{"no penalty logged: the live penalty was off", analyze.Outcome{Live: &analyze.Live{Events: 2,
			Disagreements: []analyze.LiveDisagreement{{Turn: 3, Kind: replay.LivePenalty, Replay: &rules.Firing{Visits: 1}}}}},
			"  live run           not terminated (2 live decisions logged) — the replay disagrees (1 decision)\n" +
				"    the log has no location_penalty_applied: the live run had the revisit penalty off (enable_location_penalty = false agrees)\n"},
		{"nothing reproduces it", analyze.Outcome{Termination: &analyze.Termination{Turn: 60, TurnsStuck: 40}, Live: &analyze.Live{Events: 2, Interval: 10,
			Disagreements: []analyze.LiveDisagreement{{Turn: 60, Kind: replay.LiveStuckTermination}}, ExplainedBy: []analyze.LiveSetting{}}},
			"    this configuration terminates at t=60 (stuck 40 turns)\n    t=60 stuck_termination: live none; replay none\n" +
				"    no stuck_check_interval and max_turns_stuck within ZorkGPT's bounds reproduce the live run\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := (&Text{W: &b}).Episode(&c.o, &replay.Episode{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: missing\n%s\nin\n%s", c.name, c.want, b.String())
		}
	}
}

// The first line of a report says what was assumed.
func TestConfigLine(t *testing.T) {
	cfg := rules.Default()
	if got, want := ConfigLine("", cfg), "config: defaults (no config found) · max_turns_stuck 40 · every 10 turns · warnings from 20"; got != want {
		t.Errorf("defaults:\n got %q\nwant %q", got, want)
	}
	for _, kv := range []string{"max_turns_stuck=30", "enable_stuck_warnings=false"} {
		if err := cfg.SetString(kv); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := ConfigLine("proj/pyproject.toml", cfg), "config: proj/pyproject.toml [tool.zorkgpt.loop_break] · max_turns_stuck 30 (--set) · every 10 turns · warnings off"; got != want {
		t.Errorf("file and --set:\n got %q\nwant %q", got, want)
	}
	if err := cfg.SetString("enable_velocity_detection=false"); err != nil {
		t.Fatal(err)
	}
	if got, want := ConfigLine("loopbreak.toml", cfg), "config: loopbreak.toml [loop_break] · termination off · warnings off"; got != want {
		t.Errorf("termination off:\n got %q\nwant %q", got, want)
	}
}
