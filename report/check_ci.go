package report

// check for CI tools: JUnit XML, GitHub workflow commands, Markdown.

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/loopbreak/loopbreak/analyze/check"
)

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
//
// The episodes' testcases are encoded one at a time as they are read from
// the result, in the place of one marked testcase of the rest of the
// document: the bytes are those of encoding the whole document.
func WriteCheckJUnit(dst io.Writer, c *check.Result) error {
	s := junitSuite{Name: "loopbreak check", Time: "0"}
	s.Properties = append(s.Properties, junitProperty{"mode", c.Mode})
	if c.Mode != check.ModeGatesOnly {
		s.Properties = append(s.Properties, junitProperty{"baseline", c.Baseline})
	}
	for _, ch := range c.Config {
		s.Properties = append(s.Properties, junitProperty{"config_change." + ch.Key, configChangeLine(ch)})
	}
	episodeCase := func(e *check.Episode) junitCase {
		tc := junitCase{Classname: "loopbreak.episode", Name: e.Label, Time: "0"}
		if len(e.Drift) > 0 {
			lines := DriftLines(e)
			if c.Mode == check.ModeCompare {
				msg := DriftMessage(e, &e.Drift[0])
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
		return tc
	}
	// The counts first, the cases below.
	err := c.EachEpisode(func(e *check.Episode) error {
		s.Tests++
		if len(e.Drift) > 0 && c.Mode == check.ModeCompare {
			s.Failures++
		}
		return nil
	})
	if err != nil {
		return err
	}
	const mark = "loopbreak.episodes-go-here" // no character XML escapes
	s.Cases = append(s.Cases, junitCase{Classname: mark})
	for _, g := range c.Gates {
		gw := describeGate(&g, c.Totals)
		tc := junitCase{Classname: "loopbreak.policy", Name: gw.Name, Time: "0"}
		if g.Passed {
			tc.SystemOut = cdata(gw.Message)
		} else {
			tc.Failure = &junitFailure{Message: gw.Message, Type: "policy", Text: xmlChars(gw.Name + ": " + gw.Message)}
		}
		s.Cases = append(s.Cases, tc)
	}
	for _, tc := range s.Cases[1:] {
		s.Tests++
		if tc.Failure != nil {
			s.Failures++
		}
	}
	out := []string{CheckSummary(c)}
	if len(c.Config) > 0 {
		out = append(out, configIntro(c))
		for _, ch := range c.Config {
			out = append(out, "  "+configChangeLine(ch))
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
	// The marked testcase, on its own line: its classname is the only
	// one of its kind (the others are loopbreak.episode and .policy).
	hole := regexp.MustCompile(`\n *<testcase classname="` + regexp.QuoteMeta(mark) + `"[^\n]*</testcase>`).FindIndex(data)
	if hole == nil {
		return fmt.Errorf("junit: no place for the episodes' testcases")
	}
	w := &errWriter{w: dst}
	io.WriteString(w, xml.Header)
	w.Write(data[:hole[0]])
	var tc bytes.Buffer
	testcase := xml.StartElement{Name: xml.Name{Local: "testcase"}}
	err = c.EachEpisode(func(e *check.Episode) error {
		tc.Reset()
		enc := xml.NewEncoder(&tc)
		enc.Indent("    ", "  ")
		if err := enc.EncodeElement(episodeCase(e), testcase); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
		io.WriteString(w, "\n")
		w.Write(tc.Bytes())
		return w.err
	})
	if err != nil {
		return err
	}
	w.Write(data[hole[1]:])
	io.WriteString(w, "\n")
	return w.err
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
			chs = append(chs, configChangeLine(ch))
		}
		ghCommand(w, "warning", "", "loopbreak config", configIntro(c)+" "+strings.Join(chs, ", "))
	}
	driftCmd, driftTitle := "error", "loopbreak drift"
	if c.Mode == check.ModeUpdate {
		driftCmd, driftTitle = "notice", "loopbreak baseline updated"
	}
	err := c.EachEpisode(func(e *check.Episode) error {
		for _, l := range DriftLines(e) {
			ghCommand(w, driftCmd, e.Path, driftTitle, l)
		}
		if e.Skipped > 0 {
			ghCommand(w, "warning", e.Path, "loopbreak unreadable lines", skippedLine(e))
		}
		return w.err
	})
	if err != nil {
		return err
	}
	for _, g := range c.Gates {
		if !g.Passed {
			gw := describeGate(&g, c.Totals)
			ghCommand(w, "error", "", "loopbreak policy", gw.Name+": "+gw.Message)
		}
	}
	for _, e := range c.Errors {
		ghCommand(w, "warning", e.Source, "loopbreak unreadable file", e.Error)
	}
	return w.err
}

// In a PR comment every value (episode id, path, key, a string from the
// baseline, a reader's problem) is a code span (MarkdownCode), so no
// image, link, mention, emphasis or HTML in it renders; the program's own
// words around it are plain. Lines are escaped whole (Term), so nothing
// breaks a table row or a list item.

// escapeCell makes a line safe in a Markdown table cell: on one line, and
// "|" escaped (GFM splits a row at "|" before it reads code spans, and
// unescapes "\|" inside them).
func escapeCell(s string) string {
	return strings.ReplaceAll(Term(s), "|", `\|`)
}

// mdCode is a value as a code span in a table cell.
func mdCode(s string) string { return escapeCell(MarkdownCode(s)) }

// WriteCheckMarkdown writes a PR comment: a heading with the verdict, the
// summary, configuration changes, a table of drift (changed, new and
// missing episodes only) and a table of policy gates.
func WriteCheckMarkdown(out io.Writer, c *check.Result) error {
	w := &errWriter{w: out}
	icon := "✅"
	if c.Failed() {
		icon = "❌"
	}
	fmt.Fprintf(w, "### %s loopbreak check: %s\n\n%s.\n", icon, checkVerdict(c), Term(checkHeadlineQ(c, MarkdownCode)))
	if len(c.Config) > 0 {
		fmt.Fprintf(w, "\n%s\n\n", configIntro(c))
		for _, ch := range c.Config {
			was, now := configChangeValues(ch, MarkdownCode)
			fmt.Fprintf(w, "- %s: %s → %s\n", MarkdownCode(ch.Key), was, now)
		}
	}
	if c.Drifted() > 0 {
		fmt.Fprintf(w, "\n| episode | status | change |\n| --- | --- | --- |\n")
		err := c.EachEpisode(func(e *check.Episode) error {
			for j := range e.Drift {
				name, status := "", ""
				if j == 0 {
					name, status = mdCode(e.Label), e.Status
				}
				fmt.Fprintf(w, "| %s | %s | %s |\n", name, status, escapeCell(driftMessage(e, &e.Drift[j], MarkdownCode)))
			}
			return w.err
		})
		if err != nil {
			return err
		}
	}
	if len(c.Gates) > 0 {
		fmt.Fprintf(w, "\n| policy gate | limit | value | result |\n| --- | ---: | ---: | --- |\n")
		for _, g := range c.Gates {
			res := "✅ pass"
			if !g.Passed {
				res = "❌ **fail**"
			}
			gw := describeGateQ(&g, c.Totals, MarkdownCode)
			fmt.Fprintf(w, "| %s | %s | %s | %s: %s |\n", mdCode(gw.Name), escapeCell(gw.Limit), escapeCell(gw.Value), res, escapeCell(gw.Message))
		}
	}
	var notes []string // the episodes with unreadable lines: a few
	err := c.EachEpisode(func(e *check.Episode) error {
		if e.Skipped > 0 {
			notes = append(notes, skippedLineQ(e, MarkdownCode))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, e := range c.Errors {
		notes = append(notes, "unreadable file "+MarkdownCode(e.Source)+": "+MarkdownCode(e.Error))
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n")
		for _, n := range notes {
			fmt.Fprintf(w, "- ⚠️ %s\n", Term(n))
		}
	}
	fmt.Fprintf(w, "\n**Corpus:** %s.\n", escapeCell(CorpusLine(c.Totals)))
	return w.err
}
