package report

// Rendering of `loopbreak check`: one result model (Check), written as
// text, JSON, JUnit XML, GitHub workflow commands or Markdown.

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fatih/color"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
)

// checkVerdict is PASS or FAIL.
func checkVerdict(c *check.Result) string {
	if c.Failed() {
		return "FAIL"
	}
	return "PASS"
}

// checkHeadline says what happened in one line, without the verdict.
func checkHeadline(c *check.Result) string {
	var parts []string
	n := len(c.Episodes)
	switch c.Mode {
	case check.ModeCompare:
		if d := c.Drifted(); d == 0 {
			parts = append(parts, fmt.Sprintf("%s match %s", plural(n, "episode"), c.Baseline))
		} else {
			parts = append(parts, fmt.Sprintf("%d of %s drifted from %s (%d changed, %d new, %d missing)",
				d, plural(n, "episode"), c.Baseline, c.Count(check.StatusChanged), c.Count(check.StatusNew), c.Count(check.StatusMissing)))
		}
	case check.ModeUpdate:
		kept := n - c.Count(check.StatusMissing)
		if c.Wrote {
			parts = append(parts, fmt.Sprintf("wrote %s: %s (%d changed, %d added, %d removed)",
				c.Baseline, plural(kept, "episode"), c.Count(check.StatusChanged), c.Count(check.StatusNew), c.Count(check.StatusMissing)))
		} else {
			parts = append(parts, fmt.Sprintf("%s is up to date: %s", c.Baseline, plural(kept, "episode")))
		}
	default:
		parts = append(parts, plural(n, "episode")+" checked against policy gates only (no baseline)")
	}
	if len(c.Config) > 0 {
		// The usual explanation of drift, so it belongs in the one line.
		var keys []string
		for i, ch := range c.Config {
			if i == 3 {
				keys = append(keys, fmt.Sprintf("%d more", len(c.Config)-3))
				break
			}
			keys = append(keys, ch.Key)
		}
		what := "configuration differs from the baseline's"
		if c.Mode == check.ModeUpdate {
			what = "configuration changed"
		}
		parts = append(parts, what+" ("+strings.Join(keys, ", ")+")")
	}
	if g := len(c.Gates); g > 0 {
		if f := c.GatesFailed(); f > 0 {
			parts = append(parts, fmt.Sprintf("%d of %s failed", f, plural(g, "policy gate")))
		} else {
			parts = append(parts, plural(g, "policy gate")+" passed")
		}
	}
	return strings.Join(parts, "; ")
}

// CheckSummary is the verdict and the headline: "PASS: 8 episodes match ...".
func CheckSummary(c *check.Result) string { return checkVerdict(c) + ": " + checkHeadline(c) }

// driftLines are every drift line, "<episode>: <message>", in order.
func driftLines(c *check.Result) []string {
	var out []string
	for i := range c.Episodes {
		out = append(out, c.Episodes[i].Lines()...)
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// CorpusLine sums the corpus in one sentence (the figures the gates use).
func CorpusLine(t *analyze.Totals) string {
	return fmt.Sprintf("%s, %d terminated (%d censored); %d of %d turns saved (%.1f%%); %d of %d terminations false (%.1f%%); score forfeited %s",
		plural(t.Episodes, "episode"), t.Terminated, t.Censored, t.TurnsSaved, t.RecordedTurns, t.TurnsSavedPct,
		t.FalseTerminations, t.Terminated, t.FalseRatePct, Num(t.ScoreForfeited))
}

func configIntro(c *check.Result) string {
	if c.Mode == check.ModeUpdate {
		return "The configuration differs from the previous baseline's:"
	}
	return "The configuration differs from the baseline's (this explains outcome drift):"
}

func skippedLine(e *check.Episode) string {
	s := fmt.Sprintf("%s: %s skipped, the episode is still compared", e.Label, plural(e.Skipped, "unreadable line"))
	if len(e.Problems) > 0 {
		s += " (first: " + e.Problems[0] + ")"
	}
	return s
}

// colorMaker returns a constructor of colours switched on or off as told:
// fatih/color decides from os.Stdout alone, and reports are written to
// injected writers.
func colorMaker(on bool) func(...color.Attribute) *color.Color {
	return func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
}

// WriteCheckText writes the human report: the summary line first, then
// configuration changes, drift, gates, unreadable input and the corpus.
func WriteCheckText(out io.Writer, c *check.Result, useColor bool) error {
	mk := colorMaker(useColor)
	bold, red, green, yellow := mk(color.Bold), mk(color.FgRed, color.Bold), mk(color.FgGreen, color.Bold), mk(color.FgYellow)
	w := &errWriter{w: out}
	verdict := green.Sprint(checkVerdict(c))
	if c.Failed() {
		verdict = red.Sprint(checkVerdict(c))
	}
	fmt.Fprintf(w, "%s: %s\n", verdict, checkHeadline(c))
	if len(c.Config) > 0 {
		fmt.Fprintf(w, "\n%s\n", yellow.Sprint(configIntro(c)))
		for _, ch := range c.Config {
			fmt.Fprintf(w, "  %s\n", ch)
		}
	}
	if lines := driftLines(c); len(lines) > 0 {
		head := "Drift:"
		if c.Mode == check.ModeUpdate {
			head = "Changes written to the baseline:"
		}
		fmt.Fprintf(w, "\n%s\n", bold.Sprint(head))
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if len(c.Gates) > 0 {
		fmt.Fprintf(w, "\n%s\n", bold.Sprint("Policy gates:"))
		for _, g := range c.Gates {
			mark := green.Sprint("pass")
			if !g.Passed {
				mark = red.Sprint("FAIL")
			}
			fmt.Fprintf(w, "  %s  %s: %s\n", mark, g.Name, g.Message)
		}
	}
	first := true
	for i := range c.Episodes {
		if e := &c.Episodes[i]; e.Skipped > 0 {
			if first {
				fmt.Fprintf(w, "\n%s\n", bold.Sprint("Unreadable lines:"))
				first = false
			}
			fmt.Fprintf(w, "  %s\n", yellow.Sprint(skippedLine(e)))
		}
	}
	if len(c.Errors) > 0 {
		fmt.Fprintf(w, "\n%s\n", bold.Sprint("Unreadable files:"))
		for _, e := range c.Errors {
			fmt.Fprintf(w, "  %s\n", red.Sprintf("%s: %s", e.Source, e.Error))
		}
	}
	fmt.Fprintf(w, "\nCorpus: %s.\n", CorpusLine(c.Totals))
	return w.err
}

// CheckJSON is the document `check --format json` writes.
type CheckJSON struct {
	SchemaVersion int                  `json:"schema_version"`
	Result        string               `json:"result"` // "pass" or "fail": exit 0 or 1
	Summary       string               `json:"summary"`
	Mode          string               `json:"mode"`
	Baseline      string               `json:"baseline"` // "" with --no-baseline
	Wrote         bool                 `json:"wrote"`    // update: the baseline file was written
	ConfigChanges []check.ConfigChange `json:"config_changes"`
	Episodes      []CheckEpisodeJSON   `json:"episodes"`
	Gates         []check.GateResult   `json:"gates"`
	Totals        *analyze.Totals      `json:"totals"`
	Errors        []analyze.FileError  `json:"errors"`
}

// CheckEpisodeJSON is one episode in CheckJSON.
type CheckEpisodeJSON struct {
	EpisodeID    string        `json:"episode_id"`
	Source       string        `json:"source"` // relative to the baseline's directory
	Path         string        `json:"path"`   // from the working directory
	Status       string        `json:"status"` // unchanged, changed, new, missing, unchecked
	Drift        []check.Drift `json:"drift"`
	LinesSkipped int           `json:"lines_skipped"`
	Problems     []string      `json:"problems"`
}

// WriteCheckJSON writes the result as one indented JSON document.
func WriteCheckJSON(w io.Writer, c *check.Result) error {
	doc := CheckJSON{
		SchemaVersion: SchemaVersion, Result: strings.ToLower(checkVerdict(c)), Summary: CheckSummary(c),
		Mode: c.Mode, Wrote: c.Wrote,
		ConfigChanges: c.Config, Gates: c.Gates, Totals: c.Totals, Errors: c.Errors,
		Episodes: make([]CheckEpisodeJSON, len(c.Episodes)),
	}
	if c.Mode != check.ModeGatesOnly {
		doc.Baseline = c.Baseline
	}
	if doc.ConfigChanges == nil {
		doc.ConfigChanges = []check.ConfigChange{}
	}
	if doc.Gates == nil {
		doc.Gates = []check.GateResult{}
	}
	if doc.Errors == nil {
		doc.Errors = []analyze.FileError{}
	}
	for i := range c.Episodes {
		e := &c.Episodes[i]
		d := e.Drift
		if d == nil {
			d = []check.Drift{}
		}
		doc.Episodes[i] = CheckEpisodeJSON{
			EpisodeID: e.EpisodeID, Source: e.Source, Path: e.Path, Status: e.Status,
			Drift: d, LinesSkipped: e.Skipped, Problems: nonNil(e.Problems),
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// JUnit XML, as the common schema (Jenkins' junit-10.xsd) defines it: the
// element order and attributes below are the ones it allows.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  *junitText      `xml:"system-out"`
	SystemErr  *junitText      `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure"`
	SystemOut *junitText    `xml:"system-out"`
	SystemErr *junitText    `xml:"system-err"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitText is multi-line text kept readable in a CDATA section.
type junitText struct {
	Text string `xml:",cdata"`
}

// cdata makes s safe for a CDATA section (encoding/xml splits "]]>"
// itself): characters XML 1.0 does not allow become U+FFFD; nil for "".
func cdata(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{xmlChars(s)}
}

func xmlChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// WriteCheckJUnit writes one testsuite with a testcase per episode
// (classname loopbreak.episode, failing with its drift) and one per policy
// gate (classname loopbreak.policy). Times are 0 so the file is stable.
func WriteCheckJUnit(w io.Writer, c *check.Result) error {
	s := junitSuite{Name: "loopbreak check", Time: "0"}
	s.Properties = append(s.Properties, junitProperty{"mode", c.Mode})
	if c.Mode != check.ModeGatesOnly {
		s.Properties = append(s.Properties, junitProperty{"baseline", c.Baseline})
	}
	for _, ch := range c.Config {
		s.Properties = append(s.Properties, junitProperty{"config_change." + ch.Key, ch.String()})
	}
	for i := range c.Episodes {
		e := &c.Episodes[i]
		tc := junitCase{Classname: "loopbreak.episode", Name: e.Label, Time: "0"}
		if len(e.Drift) > 0 {
			lines := e.Lines()
			if c.Mode == check.ModeCompare {
				msg := e.Drift[0].Message
				if len(e.Drift) > 1 {
					msg += fmt.Sprintf(" (and %d more)", len(e.Drift)-1)
				}
				tc.Failure = &junitFailure{Message: msg, Type: "drift", Text: xmlChars(strings.Join(lines, "\n"))}
			} else {
				tc.SystemOut = cdata("written to the baseline:\n" + strings.Join(lines, "\n"))
			}
		}
		if e.Skipped > 0 {
			tc.SystemErr = cdata(skippedLine(e))
		}
		s.Cases = append(s.Cases, tc)
	}
	for _, g := range c.Gates {
		tc := junitCase{Classname: "loopbreak.policy", Name: g.Name, Time: "0"}
		if g.Passed {
			tc.SystemOut = cdata(g.Message)
		} else {
			tc.Failure = &junitFailure{Message: g.Message, Type: "policy", Text: xmlChars(g.Name + ": " + g.Message)}
		}
		s.Cases = append(s.Cases, tc)
	}
	for _, tc := range s.Cases {
		s.Tests++
		if tc.Failure != nil {
			s.Failures++
		}
	}
	out := []string{CheckSummary(c)}
	if len(c.Config) > 0 {
		out = append(out, configIntro(c))
		for _, ch := range c.Config {
			out = append(out, "  "+ch.String())
		}
	}
	out = append(out, "Corpus: "+CorpusLine(c.Totals)+".")
	s.SystemOut = cdata(strings.Join(out, "\n"))
	var errs []string
	for _, e := range c.Errors {
		errs = append(errs, "unreadable: "+e.Source+": "+e.Error)
	}
	s.SystemErr = cdata(strings.Join(errs, "\n"))
	doc := junitSuites{Name: "loopbreak", Tests: s.Tests, Failures: s.Failures, Time: "0", Suites: []junitSuite{s}}
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, xml.Header+string(data)+"\n")
	return err
}

// GitHub workflow commands:
// https://docs.github.com/actions/reference/workflow-commands-for-github-actions

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func ghCommand(w io.Writer, cmd, file, title, msg string) {
	props := []string{}
	if file != "" && file != "-" {
		props = append(props, "file="+escapeProperty(file))
	}
	props = append(props, "title="+escapeProperty(title))
	fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg))
}

// WriteCheckGitHub writes workflow commands: a notice with the summary,
// an error per drift line (on the episode's log file) and per failed gate,
// warnings for configuration changes and unreadable input. In update mode
// drift lines are notices: they were written to the baseline.
func WriteCheckGitHub(out io.Writer, c *check.Result) error {
	w := &errWriter{w: out}
	ghCommand(w, "notice", "", "loopbreak check", CheckSummary(c))
	if len(c.Config) > 0 {
		var chs []string
		for _, ch := range c.Config {
			chs = append(chs, ch.String())
		}
		ghCommand(w, "warning", "", "loopbreak config", configIntro(c)+" "+strings.Join(chs, ", "))
	}
	driftCmd, driftTitle := "error", "loopbreak drift"
	if c.Mode == check.ModeUpdate {
		driftCmd, driftTitle = "notice", "loopbreak baseline updated"
	}
	for i := range c.Episodes {
		e := &c.Episodes[i]
		for _, l := range e.Lines() {
			ghCommand(w, driftCmd, e.Path, driftTitle, l)
		}
		if e.Skipped > 0 {
			ghCommand(w, "warning", e.Path, "loopbreak unreadable lines", skippedLine(e))
		}
	}
	for _, g := range c.Gates {
		if !g.Passed {
			ghCommand(w, "error", "", "loopbreak policy", g.Name+": "+g.Message)
		}
	}
	for _, e := range c.Errors {
		ghCommand(w, "warning", e.Source, "loopbreak unreadable file", e.Error)
	}
	return w.err
}

// escapeCell makes text safe in a Markdown table cell.
func escapeCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

func mdCode(s string) string {
	if strings.Contains(s, "`") {
		return escapeCell(s)
	}
	return "`" + escapeCell(s) + "`"
}

// WriteCheckMarkdown writes a PR comment: a heading with the verdict, the
// summary, configuration changes, a table of drift (changed, new and
// missing episodes only) and a table of policy gates.
func WriteCheckMarkdown(out io.Writer, c *check.Result) error {
	w := &errWriter{w: out}
	icon := "✅"
	if c.Failed() {
		icon = "❌"
	}
	fmt.Fprintf(w, "### %s loopbreak check: %s\n\n%s.\n", icon, checkVerdict(c), escapeCell(checkHeadline(c)))
	if len(c.Config) > 0 {
		fmt.Fprintf(w, "\n%s\n\n", configIntro(c))
		for _, ch := range c.Config {
			was, now := ch.Baseline, ch.Current
			if was == "" {
				was = "(not in the baseline)"
			}
			if now == "" {
				now = "(no such key now)"
			}
			fmt.Fprintf(w, "- %s: %s → %s\n", mdCode(ch.Key), escapeCell(was), escapeCell(now))
		}
	}
	if c.Drifted() > 0 {
		fmt.Fprintf(w, "\n| episode | status | change |\n| --- | --- | --- |\n")
		for i := range c.Episodes {
			e := &c.Episodes[i]
			for j, d := range e.Drift {
				name, status := "", ""
				if j == 0 {
					name, status = mdCode(e.Label), e.Status
				}
				fmt.Fprintf(w, "| %s | %s | %s |\n", name, status, escapeCell(d.Message))
			}
		}
	}
	if len(c.Gates) > 0 {
		fmt.Fprintf(w, "\n| policy gate | limit | value | result |\n| --- | ---: | ---: | --- |\n")
		for _, g := range c.Gates {
			res := "✅ pass"
			if !g.Passed {
				res = "❌ **fail**"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s: %s |\n", mdCode(g.Name), escapeCell(g.Limit), escapeCell(g.Value), res, escapeCell(g.Message))
		}
	}
	var notes []string
	for i := range c.Episodes {
		if e := &c.Episodes[i]; e.Skipped > 0 {
			notes = append(notes, skippedLine(e))
		}
	}
	for _, e := range c.Errors {
		notes = append(notes, "unreadable file "+e.Source+": "+e.Error)
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n")
		for _, n := range notes {
			fmt.Fprintf(w, "- ⚠️ %s\n", escapeCell(n))
		}
	}
	fmt.Fprintf(w, "\n**Corpus:** %s.\n", escapeCell(CorpusLine(c.Totals)))
	return w.err
}
