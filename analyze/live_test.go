package analyze

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// liveEp is turns 1..last, a new room every turn (no revisit penalty),
// score 0 until t=10 and 5 from t=10: rule 1 resets at t=10 after 10
// stuck turns, then is stuck t-10 turns.
func liveEp(last int, live ...replay.LiveEvent) *replay.Episode {
	var ts []replay.Row
	for n := 1; n <= last; n++ {
		s := 0.0
		if n >= 10 {
			s = 5
		}
		loc := strconv.Itoa(n)
		ts = append(ts, replay.Row{N: n, Score: s, LocStart: loc, LocEnd: loc, Action: "a" + loc, HasAction: true})
	}
	ep := withRows(&replay.Episode{ID: "live", LocationKey: replay.KeyRoomID, Live: live}, ts)
	for _, e := range live {
		if e.Kind == replay.LiveStuckTermination {
			ep.HasLiveStop, ep.LiveStopTurn, ep.RecordedEnd = true, e.Turn, replay.EndStuckTermination
		}
	}
	return ep
}

func scoreChange(turn, stuck int) replay.LiveEvent {
	return replay.LiveEvent{Kind: replay.LiveScoreChange, Turn: turn, Stuck: stuck, HasStuck: true, Score: 5, HasScore: true}
}

func stop(turn, stuck int) replay.LiveEvent {
	return replay.LiveEvent{Kind: replay.LiveStuckTermination, Turn: turn, Stuck: stuck, HasStuck: true, Score: 5, HasScore: true}
}

type dis struct {
	turn       int
	kind       string
	live, repl bool // which side has the decision
}

// TestLive compares the replay with the live log as RULES.md §10 says,
// under the default configuration (max_turns_stuck 40, every 10 turns).
// The expected settings are worked out by hand in each case.
func TestLive(t *testing.T) {
	cases := []struct {
		name    string
		ep      *replay.Episode
		dis     []dis
		explain []LiveSetting // nil: not checked beyond being empty when dis has no termination
	}{
		{"no live events: no comparison", liveEp(50), nil, nil},
		{"deployed defaults: score change at 10, terminated at 50 after 40",
			liveEp(50, scoreChange(10, 10), stop(50, 40)), []dis{}, nil},
		{"a field the line lacks is not compared",
			liveEp(50, replay.LiveEvent{Kind: replay.LiveScoreChange, Turn: 10}, replay.LiveEvent{Kind: replay.LiveStuckTermination, Turn: 50}), []dis{}, nil},
		{"score change with another stuck count: disagrees, termination agrees",
			liveEp(50, scoreChange(10, 9), stop(50, 40)), []dis{{10, replay.LiveScoreChange, true, true}}, nil},
		{"live score change the replay lacks, and a missing one",
			liveEp(50, scoreChange(11, 11), stop(50, 40)), []dis{{10, replay.LiveScoreChange, false, true}, {11, replay.LiveScoreChange, true, false}}, nil},
		// Recorded with max_turns_stuck 30: stopped at t=40 after 30 turns.
		// 40 must be a check point (interval 1, 2, 4, 5, 8, 10, 20, 40),
		// max_turns_stuck at most 30 and above every earlier check point's
		// count (c < 10: c; c >= 10: c-10). Interval 40 has no earlier check
		// point but needs max_turns_stuck >= 40 > 30.
		{"recorded with max_turns_stuck 30: the termination disagrees, settings explain it",
			liveEp(40, scoreChange(10, 10), stop(40, 30)), []dis{{40, replay.LiveStuckTermination, true, false}},
			[]LiveSetting{{1, [2]int{30, 30}}, {2, [2]int{29, 30}}, {4, [2]int{27, 30}}, {5, [2]int{26, 30}},
				{8, [2]int{23, 30}}, {10, [2]int{21, 30}}, {20, [2]int{20, 30}}}},
		{"a termination whose own stuck count differs: no setting reproduces it",
			liveEp(40, scoreChange(10, 10), stop(40, 25)), []dis{{40, replay.LiveStuckTermination, true, false}}, []LiveSetting{}},
		{"a score change disagreeing too: no setting reproduces the run",
			liveEp(40, scoreChange(10, 9), stop(40, 30)), []dis{{10, replay.LiveScoreChange, true, true}, {40, replay.LiveStuckTermination, true, false}}, []LiveSetting{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Analyze(c.ep, ocCfg(t), Options{})
			if c.dis == nil {
				if o.Live != nil {
					t.Fatalf("Live = %+v, want nil", o.Live)
				}
				return
			}
			if o.Live == nil {
				t.Fatal("Live = nil")
			}
			var got []dis
			for _, d := range o.Live.Disagreements {
				got = append(got, dis{d.Turn, d.Kind, d.Live != nil, d.Replay != nil})
			}
			if len(got) != len(c.dis) || len(got) > 0 && !reflect.DeepEqual(got, c.dis) {
				t.Errorf("disagreements %+v, want %+v", got, c.dis)
			}
			if o.Live.Agrees() != (len(c.dis) == 0) || o.Live.Events != len(c.ep.Live) {
				t.Errorf("agrees %v, events %d", o.Live.Agrees(), o.Live.Events)
			}
			want := c.explain
			if want == nil {
				want = []LiveSetting(nil)
			}
			if !reflect.DeepEqual(o.Live.ExplainedBy, want) {
				t.Errorf("explained by %v, want %v", o.Live.ExplainedBy, want)
			}
		})
	}
}

// A live run that never terminated, where the replay would: every
// interval explains it with max_turns_stuck above all its check points'
// counts (interval 10: 0, 10, 20, 30, 40 at t=10..50, so 41 on).
func TestLiveNoStopExplained(t *testing.T) {
	o := Analyze(liveEp(50, scoreChange(10, 10)), ocCfg(t), Options{})
	if o.Live == nil || !o.Live.TerminationDisagrees() {
		t.Fatalf("Live = %+v, want a termination disagreement", o.Live)
	}
	set := o.Live.ExplainedBy
	if len(set) != 100 || set[9] != (LiveSetting{10, [2]int{41, 1000}}) || set[0] != (LiveSetting{1, [2]int{41, 1000}}) || set[99] != (LiveSetting{100, [2]int{100, 1000}}) {
		t.Errorf("explained by %d settings: %v …", len(set), set[:min(len(set), 10)])
	}
}

// explained_by answers a question about the live system, which terminates
// whatever enable_velocity_detection says, and it asks only that every live
// record be reproduced: turning rule 1 off, or a reset the replay has and
// the live log lacks, leaves the answer as it is; two live stops cannot
// come from one setting. Same run as TestLive's "recorded with
// max_turns_stuck 30".
func TestLiveExplainedBy(t *testing.T) {
	max30 := []LiveSetting{{1, [2]int{30, 30}}, {2, [2]int{29, 30}}, {4, [2]int{27, 30}}, {5, [2]int{26, 30}},
		{8, [2]int{23, 30}}, {10, [2]int{21, 30}}, {20, [2]int{20, 30}}}
	cases := []struct {
		name string
		ep   *replay.Episode
		cfg  *rules.Config
		want []LiveSetting
	}{
		{"rule 1 off in the replay", liveEp(40, scoreChange(10, 10), stop(40, 30)), ocCfg(t, "enable_velocity_detection", false), max30},
		{"a replayed score change the live log lacks", liveEp(40, stop(40, 30)), ocCfg(t), max30},
		{"two live stops", liveEp(40, stop(20, 10), scoreChange(10, 10), stop(40, 30)), ocCfg(t), []LiveSetting{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Analyze(c.ep, c.cfg, Options{})
			if o.Live == nil || !o.Live.TerminationDisagrees() {
				t.Fatalf("Live = %+v, want a termination disagreement", o.Live)
			}
			if !reflect.DeepEqual(o.Live.ExplainedBy, c.want) {
				t.Errorf("explained by %v, want %v", o.Live.ExplainedBy, c.want)
			}
		})
	}
}

// Revisit penalties agree when adjusted is within 1e-6 and the visits
// match; a replayed penalty at a turn the log skipped (a gap) is not
// missing from the live log.
func TestLivePenalties(t *testing.T) {
	ep := liveEp(12)
	ep.Zork = make([]replay.ZorkRow, len(ep.Turns))
	for i := range ep.Turns { // rooms a, b, a, b, ...: revisits from t=3
		ep.Turns[i].LocStart = ep.Sym(string(rune('a' + i%2)))
		ep.Turns[i].LocEnd = ep.Turns[i].LocStart
		ep.Zork[i].Base, ep.Turns[i].HasBase = 0.9, true
	}
	ep.Turns[11].Filled = true // t=12 a gap
	// t=3: 1 visit (0.7); t=4: 1 (0.7); t=5..: 2 visits (0.5).
	pen := func(turn, visits int, adjusted float64) replay.LiveEvent {
		return replay.LiveEvent{Kind: replay.LivePenalty, Turn: turn, Visits: visits, HasVisits: true, Adjusted: adjusted, HasAdjusted: true, Base: 0.9, HasBase: true}
	}
	ep.Live = []replay.LiveEvent{scoreChange(10, 10), pen(3, 1, 0.7+5e-7), pen(4, 2, 0.5), pen(5, 2, 0.5), pen(6, 2, 0.51),
		pen(7, 2, 0.5), pen(8, 2, 0.5), pen(10, 2, 0.5), pen(11, 2, 0.5)}
	o := Analyze(ep, ocCfg(t), Options{})
	var got []dis
	for _, d := range o.Live.Disagreements {
		got = append(got, dis{d.Turn, d.Kind, d.Live != nil, d.Replay != nil})
	}
	want := []dis{{4, replay.LivePenalty, true, true}, {6, replay.LivePenalty, true, true}, {9, replay.LivePenalty, false, true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("disagreements %+v, want %+v", got, want)
	}
	if o.Live.Penalties != 8 || o.Live.PenaltyOff() {
		t.Errorf("penalties %d, penalty off %v; want 8, false", o.Live.Penalties, o.Live.PenaltyOff())
	}
	// The same run logged without any penalty: the live penalty was off,
	// and every replayed penalty (t=3..11, the gap aside) is missing.
	ep.Live = ep.Live[:1]
	o = Analyze(ep, ocCfg(t), Options{})
	if len(o.Live.Disagreements) != 9 || !o.Live.PenaltyOff() {
		t.Errorf("%d disagreements, penalty off %v; want 9, true", len(o.Live.Disagreements), o.Live.PenaltyOff())
	}
}

// Cline's and Roo Code's firings are held against their own agent's
// verdicts only: the same firing in another agent's log has no live kind.
func TestLiveKindClineRoo(t *testing.T) {
	cases := []struct {
		preset string
		f      rules.Firing
		want   string
	}{
		{replay.PresetCline, rules.Firing{Rule: rules.ClineRepeat, Kind: rules.ClineFeedback}, replay.LiveClineWarning},
		{replay.PresetCline, rules.Firing{Rule: rules.ClineRepeat, Kind: rules.ClineStop}, replay.LiveClineStop},
		{replay.PresetRoo, rules.Firing{Rule: rules.RooRepeat, Kind: rules.RooStop}, replay.LiveRooRefusal},
		{replay.PresetRoo, rules.Firing{Rule: rules.ClineRepeat, Kind: rules.ClineStop}, ""},
		{replay.PresetCline, rules.Firing{Rule: rules.RooRepeat, Kind: rules.RooStop}, ""},
		{replay.PresetGeminiCLI, rules.Firing{Rule: rules.ClineRepeat, Kind: rules.ClineFeedback}, ""},
	}
	for _, c := range cases {
		ep := &replay.Episode{Preset: c.preset}
		if got := liveKind(ep, &c.f); got != c.want {
			t.Errorf("%s %s/%s: %q, want %q", c.preset, c.f.Rule.Name, c.f.Kind.Name, got, c.want)
		}
	}
}
