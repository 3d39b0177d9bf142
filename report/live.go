package report

import (
	"fmt"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// LiveJSON is the JSON form of an episode's live comparison (docs/output.md:
// JSON output, "live").
type LiveJSON struct {
	Events        int                `json:"events"`
	Agrees        bool               `json:"agrees"`
	Disagreements []DisagreementJSON `json:"disagreements"`
	ExplainedBy   []LiveSettingJSON  `json:"explained_by"`
}

// DisagreementJSON is one decision the live log and the replay do not
// share; Live and Replay use the live event's field names, null when only
// the other side has the decision.
type DisagreementJSON struct {
	Turn   int            `json:"turn"`
	Kind   string         `json:"kind"`
	Live   map[string]any `json:"live"`
	Replay map[string]any `json:"replay"`
}

// LiveSettingJSON is one stuck_check_interval and the max_turns_stuck
// range [lo, hi] that reproduce the live run.
type LiveSettingJSON struct {
	StuckCheckInterval int    `json:"stuck_check_interval"`
	MaxTurnsStuck      [2]int `json:"max_turns_stuck"`
}

// NewLive builds the JSON form of a live comparison; nil stays nil.
func NewLive(l *analyze.Live) *LiveJSON {
	if l == nil {
		return nil
	}
	j := &LiveJSON{Events: l.Events, Agrees: l.Agrees(), Disagreements: []DisagreementJSON{}, ExplainedBy: []LiveSettingJSON{}}
	for _, d := range l.Disagreements {
		j.Disagreements = append(j.Disagreements, DisagreementJSON{Turn: d.Turn, Kind: d.Kind, Live: liveFields(d.Live), Replay: replayFields(d.Kind, d.Replay)})
	}
	for _, s := range l.ExplainedBy {
		j.ExplainedBy = append(j.ExplainedBy, LiveSettingJSON(s))
	}
	return j
}

// liveFields are the compared fields a live line carries.
func liveFields(e *replay.LiveEvent) map[string]any {
	if e == nil {
		return nil
	}
	m := map[string]any{}
	switch e.Kind {
	case replay.LiveStuckTermination:
		putInt(m, "turns_stuck", e.Stuck, e.HasStuck)
		putNum(m, "score", e.Score, e.HasScore)
	case replay.LiveScoreChange:
		putNum(m, "old_score", e.OldScore, e.HasOldScore)
		putNum(m, "new_score", e.Score, e.HasScore)
		putInt(m, "was_stuck_for", e.Stuck, e.HasStuck)
	case replay.LiveObjectiveReset:
		putInt(m, "was_stuck_for", e.Stuck, e.HasStuck)
	case replay.LiveGeminiLoop:
		m["rule"] = e.Rule
	case replay.LivePenalty:
		putNum(m, "base_confidence", e.Base, e.HasBase)
		putNum(m, "adjusted_confidence", e.Adjusted, e.HasAdjusted)
		putInt(m, "recent_visits", e.Visits, e.HasVisits)
	}
	return m
}

// replayFields are the replay firing's values under the live names.
func replayFields(kind string, f *rules.Firing) map[string]any {
	if f == nil {
		return nil
	}
	m := map[string]any{}
	switch kind {
	case replay.LiveStuckTermination:
		m["turns_stuck"], m["score"] = f.TurnsStuck, f.Score
	case replay.LiveScoreChange:
		m["new_score"], m["was_stuck_for"] = f.Score, f.TurnsStuck
	case replay.LiveObjectiveReset:
		m["was_stuck_for"] = f.TurnsStuck
	case replay.LiveGeminiLoop:
		m["rule"] = f.Rule.Name
	case replay.LivePenalty:
		putNum(m, "base_confidence", f.Base, f.HasBase)
		putNum(m, "adjusted_confidence", f.Adjusted, f.HasBase)
		m["recent_visits"] = f.Visits
	case replay.LiveOpenHandsStuck, replay.LiveOpenHandsV1Stuck, replay.LiveOpenHandsV1Nudge:
		m["check"] = f.Rule.Name
	case replay.LiveClineWarning, replay.LiveClineStop, replay.LiveRooRefusal:
		m["check"] = f.Rule.Name + "/" + f.Kind.Name
	}
	return m
}

func putInt(m map[string]any, k string, v int, ok bool) {
	if ok {
		m[k] = v
	}
}

func putNum(m map[string]any, k string, v float64, ok bool) {
	if ok {
		m[k] = Round(v, 4) // confidences: no float noise
	}
}

// liveLine words the comparison in one line, then the disagreements and
// what the live run's configuration may have been.
func liveLines(l *analyze.Live, o *analyze.Outcome) []string {
	what := fmt.Sprintf("not terminated (%d live decisions logged)", l.Events)
	if l.Stop != nil && l.Stop.Kind == replay.LiveOpenHandsStuck {
		what = fmt.Sprintf("stopped at step %d (AgentStuckInLoopError)", l.Stop.Turn)
	} else if l.Stop != nil && l.Stop.Kind == replay.LiveOpenHandsV1Stuck {
		what = fmt.Sprintf("stopped at step %d (execution_status stuck)", l.Stop.Turn)
	} else if l.Stop != nil && l.Stop.Kind == replay.LiveClineStop {
		what = fmt.Sprintf("stopped at step %d (mistake_limit_reached)", l.Stop.Turn)
	} else if l.Stop != nil && l.Stop.Kind == replay.LiveRooRefusal {
		what = fmt.Sprintf("refused the call at step %d (tool repetition limit)", l.Stop.Turn)
	} else if l.Stop != nil {
		what = fmt.Sprintf("terminated at t=%d", l.Stop.Turn)
		if l.Stop.HasStuck {
			what += fmt.Sprintf(" (stuck %s)", plural(l.Stop.Stuck, "turn"))
		}
	}
	if l.Agrees() {
		return []string{what + " — the replay agrees"}
	}
	out := []string{fmt.Sprintf("%s — the replay disagrees (%s)", what, plural(len(l.Disagreements), "decision"))}
	if l.TerminationDisagrees() {
		switch {
		case o.Termination != nil:
			out = append(out, fmt.Sprintf("this configuration terminates at t=%d (stuck %s)", o.Termination.Turn, plural(o.Termination.TurnsStuck, "turn")))
		case o.Censored:
			out = append(out, "this configuration would not have terminated by then")
		default:
			out = append(out, "this configuration never terminates")
		}
	}
	if l.PenaltyOff() {
		// One cause explains them all: say it instead of listing them.
		return append(out, "the log has no location_penalty_applied: the live run had the revisit penalty off (enable_location_penalty = false agrees)")
	}
	const show = 5
	for i, d := range l.Disagreements {
		if i == show {
			out = append(out, fmt.Sprintf("… and %d more (--format json lists all)", len(l.Disagreements)-show))
			break
		}
		at := fmt.Sprintf("t=%d", d.Turn)
		if d.Kind == replay.LiveOpenHandsStuck || d.Kind == replay.LiveOpenHandsV1Stuck || d.Kind == replay.LiveOpenHandsV1Nudge ||
			d.Kind == replay.LiveClineWarning || d.Kind == replay.LiveClineStop || d.Kind == replay.LiveRooRefusal {
			at = fmt.Sprintf("step %d", d.Turn)
		}
		out = append(out, fmt.Sprintf("%s %s: %s", at, d.Kind, describeDisagreement(&d)))
	}
	if l.TerminationDisagrees() {
		out = append(out, explainWords(l.ExplainedBy, l.Interval))
	}
	return out
}

func describeDisagreement(d *analyze.LiveDisagreement) string {
	side := func(m map[string]any) string {
		if m == nil {
			return "none"
		}
		var keys []string
		for _, k := range liveFieldOrder[d.Kind] {
			if v, ok := m[k]; ok {
				switch x := v.(type) {
				case float64:
					v = Num(x)
					if k == "base_confidence" || k == "adjusted_confidence" {
						v = Num2(x)
					}
				}
				keys = append(keys, fmt.Sprintf("%s %v", k, v))
			}
		}
		if len(keys) == 0 {
			return "logged"
		}
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("live %s; replay %s", side(liveFields(d.Live)), side(replayFields(d.Kind, d.Replay)))
}

var liveFieldOrder = map[string][]string{
	replay.LiveStuckTermination: {"turns_stuck", "score"},
	replay.LiveScoreChange:      {"old_score", "new_score", "was_stuck_for"},
	replay.LiveObjectiveReset:   {"was_stuck_for"},
	replay.LivePenalty:          {"base_confidence", "adjusted_confidence", "recent_visits"},
	replay.LiveGeminiLoop:       {"rule"},
	replay.LiveOpenHandsStuck:   {"check"},
	replay.LiveOpenHandsV1Stuck: {"check"},
	replay.LiveOpenHandsV1Nudge: {"check"},
	replay.LiveClineWarning:     {"check"},
	replay.LiveClineStop:        {"check"},
	replay.LiveRooRefusal:       {"check"},
}

// explainWords says which settings reproduce the live run, the
// configuration's own interval first.
func explainWords(set []analyze.LiveSetting, interval int) string {
	if len(set) == 0 {
		return "no stuck_check_interval and max_turns_stuck within ZorkGPT's bounds reproduce the live run"
	}
	rng := func(s analyze.LiveSetting) string {
		if s.MaxTurnsStuck[0] == s.MaxTurnsStuck[1] {
			return fmt.Sprint(s.MaxTurnsStuck[0])
		}
		return fmt.Sprintf("%d–%d", s.MaxTurnsStuck[0], s.MaxTurnsStuck[1])
	}
	lead := 0
	for i, s := range set {
		if s.StuckCheckInterval == interval {
			lead = i
		}
	}
	s := set[lead]
	w := fmt.Sprintf("the live run matches max_turns_stuck %s with stuck_check_interval %d", rng(s), s.StuckCheckInterval)
	var others []string
	for i, o := range set {
		if i != lead && len(others) < 3 {
			others = append(others, fmt.Sprintf("%s with %d", rng(o), o.StuckCheckInterval))
		}
	}
	if n := len(set) - 1; n > 0 {
		more := ""
		if n > len(others) {
			more = fmt.Sprintf(", %d more in --format json", n-len(others))
		}
		w += fmt.Sprintf(" (or %s%s)", strings.Join(others, ", "), more)
	}
	return w
}

// agentLiveLines words an agent log's live detections (Gemini CLI's
// recovery prompts) against the replay: where the agent's own detector
// fired, then each disagreement.
func agentLiveLines(l *analyze.Live, ep *replay.Episode) []string {
	const show = 5
	var at []string
	for i, e := range ep.Live {
		if i == show {
			at = append(at, fmt.Sprintf("… (%d in all)", len(ep.Live)))
			break
		}
		at = append(at, fmt.Sprintf("%d (%s)", e.Turn, e.Rule))
	}
	what := "the agent's detector fired at step " + strings.Join(at, ", ")
	if l.Agrees() {
		return []string{what + " — the replay agrees"}
	}
	out := []string{fmt.Sprintf("%s — the replay disagrees (%s)", what, plural(len(l.Disagreements), "decision"))}
	for i, d := range l.Disagreements {
		if i == show {
			out = append(out, fmt.Sprintf("… and %d more (--format json lists all)", len(l.Disagreements)-show))
			break
		}
		out = append(out, fmt.Sprintf("step %d %s: %s", d.Turn, d.Kind, describeDisagreement(&d)))
	}
	return out
}
