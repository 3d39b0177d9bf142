package report

// Rendering of `loopbreak check`: one result model (Check), written as
// text, JSON, JUnit XML, GitHub workflow commands or Markdown.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

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
func checkHeadline(c *check.Result) string { return checkHeadlineQ(c, plain) }

func checkHeadlineQ(c *check.Result, q quote) string {
	var parts []string
	n := c.Total()
	switch c.Mode {
	case check.ModeCompare:
		if d := c.Drifted(); d == 0 {
			parts = append(parts, fmt.Sprintf("%s match %s", plural(n, "episode"), q(c.Baseline)))
		} else {
			parts = append(parts, fmt.Sprintf("%d of %s drifted from %s (%d changed, %d new, %d missing)",
				d, plural(n, "episode"), q(c.Baseline), c.Count(check.StatusChanged), c.Count(check.StatusNew), c.Count(check.StatusMissing)))
		}
	case check.ModeUpdate:
		removed := c.Count(check.StatusMissing) - c.KeptEntries()
		kept := n - removed
		if c.Wrote {
			parts = append(parts, fmt.Sprintf("wrote %s: %s (%d changed, %d added, %d removed)",
				q(c.Baseline), plural(kept, "episode"), c.Count(check.StatusChanged), c.Count(check.StatusNew), removed))
		} else {
			parts = append(parts, fmt.Sprintf("%s is up to date: %s", q(c.Baseline), plural(kept, "episode")))
		}
		if k := c.KeptEntries(); k > 0 {
			what := "entries"
			if k == 1 {
				what = "entry"
			}
			parts = append(parts, fmt.Sprintf("kept %d %s of unreadable logs unchanged (--prune drops them)", k, what))
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
			keys = append(keys, q(ch.Key))
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Count(n) + " " + word + "s"
}

// Count writes a count for people: thousands separated (494,822).
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// CorpusLine sums the corpus in one sentence (the figures the gates use).
func CorpusLine(t *analyze.Totals) string {
	return fmt.Sprintf("%s, %d terminated (%d censored); %d of %d turns saved (%.1f%%); %d of %d terminations false (%.1f%%); score forfeited %s",
		plural(t.Episodes, "episode"), t.Terminated, t.Censored, t.TurnsSaved, t.RecordedTurns, t.TurnsSavedPct,
		t.FalseTerminations, t.Terminated, t.FalseRatePct, Num(t.ScoreForfeited)) + saturated(t)
}

// saturated flags a score total held at the float64 limit.
func saturated(t *analyze.Totals) string {
	if t.ScoreOverflow {
		return " (saturated: the sum exceeds the float64 range)"
	}
	return ""
}

func configIntro(c *check.Result) string {
	if c.Mode == check.ModeUpdate {
		return "The configuration differs from the previous baseline's:"
	}
	return "The configuration differs from the baseline's (this explains outcome drift):"
}

func skippedLine(e *check.Episode) string { return skippedLineQ(e, plain) }

func skippedLineQ(e *check.Episode, q quote) string {
	s := fmt.Sprintf("%s: %s skipped, the episode is still compared", q(e.Label), plural(e.Skipped, "unreadable line"))
	if len(e.Problems) > 0 {
		s += " (first: " + q(e.Problems[0]) + ")"
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
//
// The configuration line (what was assumed, as every text report says)
// comes second: CI logs and people look for the verdict first. Lines wrap
// at words to width (0: no limit, as off a terminal).
func WriteCheckText(out io.Writer, c *check.Result, useColor bool, configLine string, width int) error {
	mk := colorMaker(useColor)
	bold, red, green, yellow := mk(color.Bold), mk(color.FgRed, color.Bold), mk(color.FgGreen, color.Bold), mk(color.FgYellow)
	// Each line is escaped whole (Term) before it is coloured: a line's
	// values (episode ids, paths, keys from the baseline) stay on it.
	w := &errWriter{w: TermWriter(out, useColor)}
	verdict := green.Sprint(checkVerdict(c))
	if c.Failed() {
		verdict = red.Sprint(checkVerdict(c))
	}
	// item wraps a line of a list, its continuation under its text.
	item := func(s string) string { return Wrap(s, width, 2, "    ") }
	fmt.Fprintf(w, "%s: %s\n", verdict, Wrap(Term(checkHeadline(c)), width, utf8.RuneCountInString(checkVerdict(c))+2, ""))
	if configLine != "" {
		fmt.Fprintf(w, "%s\n", Wrap(Term(configLine), width, 0, "  "))
	}
	if line := OutOfScopeLine(c); line != "" {
		fmt.Fprintf(w, "%s\n", Wrap(line, width, 0, ""))
	}
	if len(c.Config) > 0 {
		fmt.Fprintf(w, "\n%s\n", yellow.Sprint(Wrap(configIntro(c), width, 0, "")))
		for _, ch := range c.Config {
			fmt.Fprintf(w, "  %s\n", item(Term(configChangeLine(ch))))
		}
	}
	// Every drift line, "<episode>: <message>", in order, read from the
	// result's rows as they are written (a million new episodes are not
	// held as lines).
	head := "Drift:"
	if c.Mode == check.ModeUpdate {
		head = "Changes written to the baseline:"
	}
	headed := false
	err := c.EachEpisode(func(e *check.Episode) error {
		for _, l := range DriftLines(e) {
			if !headed {
				fmt.Fprintf(w, "\n%s\n", bold.Sprint(head))
				headed = true
			}
			fmt.Fprintf(w, "  %s\n", item(Term(l)))
		}
		return w.err
	})
	if err != nil {
		return err
	}
	if len(c.Gates) > 0 {
		fmt.Fprintf(w, "\n%s\n", bold.Sprint("Policy gates:"))
		for _, g := range c.Gates {
			mark := green.Sprint("pass")
			if !g.Passed {
				mark = red.Sprint("FAIL")
			}
			gw := describeGate(&g, c.Totals)
			fmt.Fprintf(w, "  %s  %s\n", mark, Wrap(Term(gw.Name+": "+gw.Message), width, 8, "        "))
		}
	}
	first := true
	err = c.EachEpisode(func(e *check.Episode) error {
		if e.Skipped > 0 {
			if first {
				fmt.Fprintf(w, "\n%s\n", bold.Sprint("Unreadable lines:"))
				first = false
			}
			fmt.Fprintf(w, "  %s\n", yellow.Sprint(item(Term(skippedLine(e)))))
		}
		return w.err
	})
	if err != nil {
		return err
	}
	if len(c.Errors) > 0 {
		fmt.Fprintf(w, "\n%s\n", bold.Sprint("Unreadable files:"))
		for _, e := range c.Errors {
			fmt.Fprintf(w, "  %s\n", red.Sprint(item(Term(e.Source+": "+e.Error))))
		}
	}
	fmt.Fprintf(w, "\n%s\n", Wrap("Corpus: "+CorpusLine(c.Totals)+".", width, 0, ""))
	return w.err
}

// OutOfScopeLine says how many baseline entries a check left out, their
// logs outside the paths it was given; "" when none.
func OutOfScopeLine(c *check.Result) string {
	if c.OutOfScope == 0 {
		return ""
	}
	what := "entries"
	if c.OutOfScope == 1 {
		what = "entry"
	}
	kept := "not compared"
	if c.Mode == check.ModeUpdate {
		kept = "kept unchanged"
	}
	return fmt.Sprintf("%d baseline %s out of scope (logs outside the paths given): %s", c.OutOfScope, what, kept)
}

// CheckJSON is the document `check --format json` writes.
type CheckJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Result        string `json:"result"` // "pass" or "fail": exit 0 or 1
	Summary       string `json:"summary"`
	Mode          string `json:"mode"`
	Baseline      string `json:"baseline"` // "" with --no-baseline
	Wrote         bool   `json:"wrote"`    // update: the baseline file was written
	// OutOfScope counts the baseline entries whose logs lie outside the
	// paths checked: not compared, kept by an update (absent when none).
	OutOfScope    int                 `json:"out_of_scope,omitempty"`
	ConfigChanges []ConfigChangeJSON  `json:"config_changes"`
	Episodes      []CheckEpisodeJSON  `json:"episodes"`
	Gates         []GateJSON          `json:"gates"`
	Totals        *analyze.Totals     `json:"totals"`
	Errors        []analyze.FileError `json:"errors"`
}

// DriftJSON is one drift in CheckJSON: check.Drift and its message. The
// values are JSON values of their own types (50, [150, 160], null), not
// strings; a side that is absent (a new or missing episode, a key that
// appeared) is left out.
type DriftJSON struct {
	Field    string          `json:"field"`
	Baseline json.RawMessage `json:"baseline,omitempty"`
	Current  json.RawMessage `json:"current,omitempty"`
	Message  string          `json:"message"` // in words, without the episode's name
}

// ConfigChangeJSON is check.ConfigChange with its values typed as
// DriftJSON's are.
type ConfigChangeJSON struct {
	Key      string          `json:"key"`
	Baseline json.RawMessage `json:"baseline,omitempty"`
	Current  json.RawMessage `json:"current,omitempty"`
}

// jsonValue is a baseline literal as a JSON value: itself when it is JSON,
// else as a string; nil (left out) when absent.
func jsonValue(lit string) json.RawMessage {
	if lit == "" {
		return nil
	}
	if json.Valid([]byte(lit)) {
		return json.RawMessage(lit)
	}
	b, _ := json.Marshal(lit)
	return b
}

// CheckEpisodeJSON is one episode in CheckJSON.
type CheckEpisodeJSON struct {
	EpisodeID    string      `json:"episode_id"`
	Source       string      `json:"source"` // relative to the baseline's directory
	Path         string      `json:"path"`   // from the working directory
	Status       string      `json:"status"` // unchanged, changed, new, missing, unchecked
	Drift        []DriftJSON `json:"drift"`
	LinesSkipped int         `json:"lines_skipped"`
	Problems     []string    `json:"problems"`
}

// WriteCheckJSON writes the result as one indented JSON document. The
// episodes are encoded one at a time as they are read from the result,
// between the rest of the document's two halves: the bytes are those of
// encoding the whole document, without holding a row per episode.
func WriteCheckJSON(out io.Writer, c *check.Result) error {
	doc := CheckJSON{
		SchemaVersion: CheckSchemaVersion, Result: strings.ToLower(checkVerdict(c)), Summary: CheckSummary(c),
		Mode: c.Mode, Wrote: c.Wrote, OutOfScope: c.OutOfScope,
		ConfigChanges: []ConfigChangeJSON{}, Totals: Rounded(c.Totals), Errors: c.Errors,
	}
	for _, cc := range c.Config {
		doc.ConfigChanges = append(doc.ConfigChanges, ConfigChangeJSON{Key: cc.Key, Baseline: jsonValue(cc.Baseline), Current: jsonValue(cc.Current)})
	}
	if c.Mode != check.ModeGatesOnly {
		doc.Baseline = c.Baseline
	}
	doc.Gates = []GateJSON{}
	for i := range c.Gates {
		doc.Gates = append(doc.Gates, describeGate(&c.Gates[i], c.Totals))
	}
	if doc.Errors == nil {
		doc.Errors = []analyze.FileError{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	// Episodes nil is encoded as null: the only top-level "episodes" key,
	// as a string's newlines are escaped.
	const hole = "\n  \"episodes\": null"
	whole := b.Bytes()
	at := bytes.Index(whole, []byte(hole)) + len(hole) - len("null")
	w := &errWriter{w: out}
	w.Write(whole[:at])
	n := 0
	var eb bytes.Buffer
	ee := json.NewEncoder(&eb)
	ee.SetIndent("    ", "  ")
	ee.SetEscapeHTML(false)
	err := c.EachEpisode(func(e *check.Episode) error {
		d := []DriftJSON{}
		for j := range e.Drift {
			x := &e.Drift[j]
			d = append(d, DriftJSON{Field: x.Field, Baseline: jsonValue(x.Baseline), Current: jsonValue(x.Current), Message: DriftMessage(e, x)})
		}
		eb.Reset()
		if n == 0 {
			eb.WriteString("[\n    ")
		} else {
			eb.WriteString(",\n    ")
		}
		n++
		if err := ee.Encode(CheckEpisodeJSON{
			EpisodeID: e.EpisodeID, Source: e.Source, Path: e.Path, Status: e.Status,
			Drift: d, LinesSkipped: e.Skipped, Problems: nonNil(e.Problems),
		}); err != nil {
			return err
		}
		w.Write(bytes.TrimSuffix(eb.Bytes(), []byte("\n")))
		return w.err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		io.WriteString(w, "[]")
	} else {
		io.WriteString(w, "\n  ]")
	}
	w.Write(whole[at+len("null"):])
	return w.err
}
