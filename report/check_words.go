package report

// The words of a check: drift lines, configuration changes and gate
// verdicts, made from check's facts.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
)

// DriftLines are an episode's drift lines, "<label>: <message>".
func DriftLines(e *check.Episode) []string {
	out := make([]string, len(e.Drift))
	for i := range e.Drift {
		out[i] = e.Label + ": " + DriftMessage(e, &e.Drift[i])
	}
	return out
}

// quote marks a value (a path, an episode id, a string from the baseline)
// inside program words: plain for text (escaped whole by the writer),
// JSON, JUnit and workflow commands; a Markdown code span for a PR
// comment, so nothing in a value renders.
type quote func(string) string

func plain(s string) string { return s }

// DriftMessage says what one drift of e means, without the episode's name.
func DriftMessage(e *check.Episode, d *check.Drift) string { return driftMessage(e, d, plain) }

func driftMessage(e *check.Episode, d *check.Drift, q quote) string {
	b, c := e.Baseline, e.Current
	switch d.Field {
	case "episode":
		switch {
		case e.Status == check.StatusNew:
			return "new episode, not in the baseline (" + describeOutcome(c) + ")"
		case e.Unreadable != "":
			return "missing: its log could not be read (" + q(e.Unreadable) + ")"
		}
		return "missing: in the baseline (" + describeOutcome(b) + ") but not among the inputs"
	case "log_hash":
		return fmt.Sprintf("log changed (%s → %s): the recording changed, not the rules", shortHash(d.Baseline), shortHash(d.Current))
	case "source":
		return fmt.Sprintf("log moved: %s → %s", q(d.Baseline), q(d.Current))
	case "recorded_turns":
		return fmt.Sprintf("recorded turns %s → %s", d.Baseline, d.Current)
	case "final_score":
		return fmt.Sprintf("final score %s → %s", num(b.FinalScore), num(c.FinalScore))
	case "termination_turn":
		// The termination line carries the turns saved, as a reviewer reads
		// them together: "termination moved t=60 → t=70 (turns saved 213 → 203)".
		paren := ""
		if b.TurnsSaved != c.TurnsSaved {
			paren = fmt.Sprintf(" (turns saved %d → %d)", b.TurnsSaved, c.TurnsSaved)
		}
		switch {
		case b.TerminationTurn == nil:
			return fmt.Sprintf("would now terminate at t=%d%s", *c.TerminationTurn, paren)
		case c.TerminationTurn == nil:
			return fmt.Sprintf("no longer terminates, was at t=%d%s", *b.TerminationTurn, paren)
		}
		return fmt.Sprintf("termination moved t=%d → t=%d%s", *b.TerminationTurn, *c.TerminationTurn, paren)
	case "turns_saved":
		return fmt.Sprintf("turns saved %s → %s", d.Baseline, d.Current)
	case "checkpoints":
		return fmt.Sprintf("check points %s → %s", describeTurns(b.Checkpoints), describeTurns(c.Checkpoints))
	case "llm_calls_saved":
		return fmt.Sprintf("LLM calls saved %s → %s", d.Baseline, d.Current)
	case "llm_calls_method":
		return fmt.Sprintf("LLM calls %s → %s", q(d.Baseline), q(d.Current))
	case "score_forfeited":
		return fmt.Sprintf("score forfeited %s → %s", num(b.ScoreForfeited), num(c.ScoreForfeited))
	case "false_termination":
		if c.FalseTermination {
			return "now a false termination: the score rose above the score at the termination turn"
		}
		return "no longer a false termination"
	case "censored":
		if c.Censored {
			return "now censored: the live run stopped the recording before the first check point"
		}
		return "no longer censored"
	case "would_reject":
		return fmt.Sprintf("actions that would be rejected %s → %s", d.Baseline, d.Current)
	case "low_confidence":
		return fmt.Sprintf("revisit penalties below 0.3 confidence (could let a rejected action through) %s → %s", d.Baseline, d.Current)
	}
	if k, ok := strings.CutPrefix(d.Field, "firing_counts/"); ok {
		return fmt.Sprintf("%s fired %s → %s times", q(k), q(d.Baseline), q(d.Current))
	}
	return fmt.Sprintf("%s %s → %s", q(d.Field), q(d.Baseline), q(d.Current))
}

func describeOutcome(e *check.Entry) string {
	switch {
	case e.TerminationTurn != nil:
		return fmt.Sprintf("terminates at t=%d, turns saved %d", *e.TerminationTurn, e.TurnsSaved)
	case e.Censored:
		return "censored: the live run stopped first"
	}
	return "never terminates"
}

func shortHash(h string) string {
	const n = len("sha256:") + 12
	if len(h) > n {
		return h[:n] + "…"
	}
	return h
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// describeTurns writes a list of check point turns compactly: "none",
// "t=60", "12 at t=60–80, 190–270 (every 10)": runs of three or more at the
// list's smallest step are ranges.
func describeTurns(xs []int) string {
	switch len(xs) {
	case 0:
		return "none"
	case 1:
		return "t=" + strconv.Itoa(xs[0])
	}
	step := math.MaxInt
	for i := 1; i < len(xs); i++ {
		if d := xs[i] - xs[i-1]; d > 0 && d < step {
			step = d
		}
	}
	var parts []string
	ranged := false
	start := 0
	for i := 1; i <= len(xs); i++ {
		if i < len(xs) && xs[i]-xs[i-1] == step {
			continue
		}
		if i-start >= 3 {
			parts = append(parts, strconv.Itoa(xs[start])+"–"+strconv.Itoa(xs[i-1]))
			ranged = true
		} else {
			for _, x := range xs[start:i] {
				parts = append(parts, strconv.Itoa(x))
			}
		}
		start = i
	}
	s := fmt.Sprintf("%d at t=%s", len(xs), strings.Join(parts, ", "))
	if ranged {
		s += fmt.Sprintf(" (every %d)", step)
	}
	return s
}

// configChangeLine is "key was → now".
func configChangeLine(c check.ConfigChange) string {
	was, now := configChangeValues(c, plain)
	return c.Key + " " + was + " → " + now
}

// configChangeValues are a change's old and new values, quoted, or what
// their absence means.
func configChangeValues(c check.ConfigChange, q quote) (was, now string) {
	was, now = q(c.Baseline), q(c.Current)
	if c.Baseline == "" {
		was = "(not in the baseline)"
	}
	if c.Current == "" {
		now = "(no such key now)"
	}
	return was, now
}

// FormatPercent writes a limit the way the gates take it: "5%", "12.5%".
func FormatPercent(p float64) string {
	return strconv.FormatFloat(p, 'f', -1, 64) + "%"
}

// GateJSON is a gate's verdict in words: check's JSON holds it, and every
// other format shows the same words.
type GateJSON struct {
	Name    string `json:"name"` // the gate as a flag: "max-false-rate", ..., "fail-on SPEC"
	Limit   string `json:"limit"`
	Value   string `json:"value"`
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
}

// describeGate words g; t is the check's totals, the figures the corpus
// gates judged.
func describeGate(g *check.GateResult, t *analyze.Totals) GateJSON {
	return describeGateQ(g, t, plain)
}

func describeGateQ(g *check.GateResult, t *analyze.Totals, q quote) GateJSON {
	// verdict is the figure (what), then why it passes or fails.
	verdict := func(name, limit, value, what, pass, fail string) GateJSON {
		w := GateJSON{Name: name, Limit: limit, Value: value, Passed: g.Passed, Message: what + fail}
		if g.Passed {
			w.Message = what + pass
		}
		return w
	}
	switch g.Kind {
	case check.GateMaxFalseRate:
		limit, value := FormatPercent(g.Limit), fmt.Sprintf("%.1f%%", t.FalseRatePct)
		return verdict(g.Kind, limit, value,
			fmt.Sprintf("false terminations %d of %d terminated episodes (%s)", t.FalseTerminations, t.Terminated, value),
			", at most "+limit+" allowed", " exceed the limit of "+limit)
	case check.GateMinSaved:
		limit, value := FormatPercent(g.Limit), fmt.Sprintf("%.1f%%", t.TurnsSavedPct)
		return verdict(g.Kind, limit, value,
			fmt.Sprintf("turns saved %d of %d recorded turns (%s)", t.TurnsSaved, t.RecordedTurns, value),
			", at least "+limit+" required", ", below the required "+limit)
	case check.GateMaxForfeit:
		limit, value := num(g.Limit), num(t.ScoreForfeited)
		return verdict(g.Kind, limit, value,
			"score forfeited "+value+" in total", ", at most "+limit+" allowed", " exceeds the limit of "+limit)
	}
	return describeFailOn(g.FailOn, g.Passed, q)
}

// describeFailOn words a --fail-on gate: what fired, how often, where.
func describeFailOn(f *check.FailOn, passed bool, q quote) GateJSON {
	what := f.Rule + "/" + f.Kind
	verb, never := " fired", " never fired"
	switch {
	case f.Live:
		what, verb, never = "live runs", " disagree with the replay", " agree with the replay under this configuration"
	case f.Rejected:
		verb, never = " would reject an action", " would never reject an action"
	}
	scope := ""
	if f.Episodes != "" {
		scope = " matching " + q(f.Episodes)
	}
	w := GateJSON{Name: "fail-on " + f.Spec, Limit: "0", Value: strconv.Itoa(f.Fired), Passed: passed}
	if passed {
		if scope != "" {
			scope = " in episodes" + scope
		}
		w.Message = what + never + scope
		return w
	}
	const show = 5
	var list []string
	for i, e := range f.Where {
		if i == show {
			list = append(list, fmt.Sprintf("and %d more", len(f.Where)-show))
			break
		}
		list = append(list, fmt.Sprintf("%s (%d)", q(e.EpisodeID), e.N))
	}
	times := sweepPlural(f.Fired, "time", "times")
	if f.Live {
		times = "on " + sweepPlural(f.Fired, "decision", "decisions")
	}
	w.Message = fmt.Sprintf("%s%s %s in %s%s: %s", what, verb, times, sweepPlural(len(f.Where), "episode", "episodes"), scope, strings.Join(list, ", "))
	return w
}
