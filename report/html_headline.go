package report

// The headline strip of the HTML page: the three numbers a reader came
// for, before any table. ZorkGPT's logs: turns and LLM calls saved and
// false terminations; other agents' logs: detectors that fired, their
// firings, and loops against false alarms (or the live run's agreement
// when no log has a score to judge by).

import (
	"fmt"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
)

// statOf is "n of d (p%)", without a percentage of nothing: "0 of 0
// (0.0%)" says less than no detail at all.
func statOf(n, d int, what string) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf("%s of %s (%s)", Count(n), plural(d, what), pctOf(n, d))
}

// word is the noun of a plural() count without its number: "turn saved"
// or "turns saved" as n asks.
func word(n int, w string) string {
	return strings.TrimPrefix(plural(n, w), Count(n)+" ")
}

func zorkHeadline(t *analyze.Totals) []htmlStat {
	return []htmlStat{
		{Count(t.TurnsSaved), word(t.TurnsSaved, "turn") + " saved", statOf(t.TurnsSaved, t.RecordedTurns, "recorded turn")},
		{Count(t.LLMCallsSaved), word(t.LLMCallsSaved, "LLM call") + " saved", ""},
		{Count(t.FalseTerminations), word(t.FalseTerminations, "false termination"), statOf(t.FalseTerminations, t.Terminated, "terminated episode")},
	}
}

func (h *HTMLReport) agentHeadline(t *analyze.Totals) []htmlStat {
	d := h.detectors
	fired, firings, judged := 0, 0, false
	for _, c := range d.rows {
		if c.logs > 0 {
			fired++
		}
		firings += c.firings
		judged = judged || c.judged
	}
	out := []htmlStat{
		{Count(fired), word(fired, "detector") + " fired", fmt.Sprintf("of %d that ran", len(d.rows))},
		{Count(firings), word(firings, "firing"), "on " + plural(d.agents, "log")},
	}
	if judged {
		return append(out, htmlStat{Count(t.Loops), word(t.Loops, "loop"), "against " + plural(t.FalseAlarms, "false alarm")})
	}
	if n := t.LiveDisagreements; n != nil {
		return append(out, htmlStat{Count(*n), word(*n, "live disagreement"), "with the replay"})
	}
	return append(out, htmlStat{Count(t.Loops), word(t.Loops, "loop"), "false alarms unknown: no score"})
}

// searchWords is what the page's search box matches an episode by.
func searchWords(id, source string) string {
	return strings.ToLower(id + " " + source)
}
