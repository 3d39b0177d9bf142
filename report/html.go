package report

// The HTML report: one self-contained file (inline CSS, a small inline
// script, inline SVG; nothing fetched), so it works attached to a CI run.

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
)

//go:embed assets/page.html.tmpl assets/report.css assets/report.js
var assets embed.FS

var pageTemplate = template.Must(template.New("page.html.tmpl").ParseFS(assets, "assets/page.html.tmpl"))

// pageCSP is the page's Content-Security-Policy: nothing loaded from
// anywhere (default-src 'none'), the page's own stylesheet and script
// allowed by their hashes and nothing else inline (no style attribute, no
// handler, no script a value might smuggle in past html/template), no
// <base>, no form. A meta tag, so it holds for a file opened from disk.
var pageCSP = "default-src 'none'; style-src " + cspHash(asset("report.css")) +
	"; script-src " + cspHash(asset("report.js")) + "; base-uri 'none'; form-action 'none'"

// cspHash is the CSP source of an inline element's exact text.
func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

func asset(name string) string {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}

// Limits that keep a report of a large corpus small: a chart draws at most
// MaxChartPoints vertices per series (the caption says when it
// summarises), and names the MaxTitledRuns largest runs of each rule.
const (
	MaxChartPoints = 600
	MaxTitledRuns  = 2
	maxRejectMarks = 40
	// maxOpenEpisodes: more episodes than this and their sections start
	// folded (details without open), so 1,000 episodes are not one
	// 400,000 px page.
	maxOpenEpisodes = 30
)

// htmlCell is one table cell: its text, an optional sort key (numbers)
// and link.
type htmlCell struct {
	Text, Sort, Href string
}

type htmlHead struct {
	Text string
	Num  bool
}

type htmlEpisode struct {
	ID, Anchor, Summary, Caption string
	Cells                        []htmlCell
	SVG                          template.HTML
	Detectors                    *htmlTable // another agent's log: its detectors
	agent                        bool
	// What the page's filters read (report.js): the words a search
	// matches, and whether the episode fired (was cut) and falsely so.
	Search       string
	Fired, False bool
}

// htmlStat is one number of the headline strip: the number, what it
// counts, and an optional detail ("12.5% of 400 turns").
type htmlStat struct {
	Value, Label, Detail string
}

type htmlRow struct {
	Cells []htmlCell
	Rec   bool
}

type htmlSweep struct {
	Chart   template.HTML
	Caption string
	Head    []htmlHead
	Rows    []htmlRow
}

type htmlPage struct {
	Title    string
	Headline []htmlStat // the numbers that matter, above everything
	Intro    []string
	Open     bool        // episodes' sections open: a short page
	Lead     []htmlTable // before the episodes': the detectors of agents' logs
	Head     []htmlHead
	Table    []htmlEpisode // ZorkGPT's episodes, a row each
	Episodes []htmlEpisode // every episode, a section each
	Foot     []htmlCell
	Errors   []analyze.FileError
	Sweep    *htmlSweep
	Footer   string
	CSP      string
	CSS      template.CSS
	JS       template.JS
	Frame    template.HTML // shared by the timelines
	Legend   template.HTML // the timelines' key, once above them
}

// HTMLReport collects analysed episodes and writes them as one page: a
// sortable table, the totals, and a timeline chart per episode. Add keeps
// only the rendered chart of each episode, so memory grows with the
// report's size, not the logs'.
type HTMLReport struct {
	Title    string
	Config   string // what the report assumed (ConfigLine), its first line under the title
	MaxStuck int    // max_turns_stuck, drawn on the stuck counter
	// AgentConfig (AgentConfigLine) replaces Config on a page of other
	// agents' logs only.
	AgentConfig string
	eps         []htmlEpisode
	detectors   *DetectorTotals // the agents' logs (html_agents.go)
}

// Add renders one episode; o must keep its story and either its firings
// or their marks (analyze.Options{Story: true} with KeepFirings, or with
// NewTimelineMarks as the Sink).
func (h *HTMLReport) Add(o *analyze.Outcome, ep *replay.Episode) {
	if !isZorkGPT(ep) {
		h.addAgent(o, ep)
		return
	}
	var tl *Timeline
	if m, ok := o.Sink.(*TimelineMarks); ok {
		tl = m.timeline(o, ep, h.MaxStuck)
	} else {
		tl = NewTimeline(o, ep, h.MaxStuck)
	}
	// The page holds every episode until it is written: an id of any
	// size (agents write 500 KB ones) is shown capped, as the corpus
	// table does.
	id := CappedID(o.EpisodeID)
	tl.EpisodeID = id
	anchor := "ep-" + strconv.Itoa(len(h.eps)+1)
	term, termSort, saved, calls, forf, fals := "-", "", "-", "-", "-", ""
	switch {
	case o.Termination != nil:
		term, termSort = "t="+strconv.Itoa(o.Termination.Turn), strconv.Itoa(o.Termination.Turn)
		saved, calls, forf = strconv.Itoa(o.TurnsSaved), strconv.Itoa(o.LLMCallsSaved), Num(o.ScoreForfeited)
		fals = "no"
		if o.FalseTermination {
			fals = "yes"
		}
	case o.Censored:
		term = "censored"
	}
	live := "-"
	if ep.HasLiveStop {
		live = "t=" + strconv.Itoa(ep.LiveStopTurn)
	}
	switch l := o.Live; {
	case l == nil:
	case l.Agrees():
		live = strings.TrimPrefix(live+", agrees", "-, ")
	default:
		live = strings.TrimPrefix(fmt.Sprintf("%s, disagrees (%d)", live, len(l.Disagreements)), "-, ")
	}
	// Sort keys only where the text is not itself the number.
	num := func(s string) htmlCell { return htmlCell{Text: s} }
	svg, caption := timelineSVG(tl, anchor)
	h.eps = append(h.eps, htmlEpisode{
		ID: id, Anchor: anchor, Summary: episodeSummary(o, ep), Caption: caption, SVG: svg,
		Search: searchWords(id, ep.Source), Fired: o.Termination != nil, False: o.FalseTermination,
		Cells: []htmlCell{
			{Text: id, Href: "#" + anchor},
			num(strconv.Itoa(o.RecordedTurns)), num(Num(o.FinalScore)), {Text: o.RecordedEnd},
			{Text: term, Sort: termSort}, num(saved), num(calls), num(forf), {Text: fals}, {Text: live},
		},
	})
}

var episodeHead = []htmlHead{{"episode", false}, {"turns", true}, {"final score", true}, {"ended by", false},
	{"would terminate", true}, {"turns saved", true}, {"LLM calls saved", true}, {"score forfeited", true}, {"false termination", false}, {"live run", false}}

// Write writes the page with the corpus totals and unreadable files.
func (h *HTMLReport) Write(w io.Writer, t *analyze.Totals, errs []analyze.FileError) error {
	title := h.Title
	if title == "" {
		title = "loopbreak report"
	}
	p := &htmlPage{Title: title, Episodes: h.eps, Errors: errs}
	for _, e := range h.eps {
		if !e.agent {
			p.Table = append(p.Table, e)
		}
	}
	config := h.Config
	if h.detectors != nil {
		// Agents' logs lead with their detectors; ZorkGPT's table, its
		// totals and its key only when the page has ZorkGPT episodes.
		p.Lead = h.agentLead()
		p.Intro = append(p.Intro, h.agentIntro(t))
		p.Headline = h.agentHeadline(t)
		if len(p.Table) == 0 && h.AgentConfig != "" {
			config = h.AgentConfig
		}
	}
	if len(p.Table) > 0 {
		p.Head = episodeHead
		zt := *t
		if h.detectors != nil {
			// The totals of ZorkGPT's episodes alone.
			zt.Episodes -= h.detectors.agents
		}
		p.Intro = append([]string{zorkIntro(&zt)}, p.Intro...)
		p.Headline = zorkHeadline(&zt)
		p.Foot = []htmlCell{{Text: "total"}, {Text: strconv.Itoa(t.RecordedTurns)}, {}, {}, {Text: strconv.Itoa(t.Terminated)},
			{Text: strconv.Itoa(t.TurnsSaved)}, {Text: strconv.Itoa(t.LLMCallsSaved)}, {Text: Num(t.ScoreForfeited)}, {Text: strconv.Itoa(t.FalseTerminations)}, {}}
	}
	if config != "" {
		p.Intro = append([]string{config}, p.Intro...)
	}
	if n := t.LiveDisagreements; n != nil && *n > 0 {
		verb := "disagree"
		if *n == 1 {
			verb = "disagrees"
		}
		p.Intro = append(p.Intro, fmt.Sprintf("%s %s with the replay under this configuration (see each episode's live run).", plural(*n, "live run"), verb))
	}
	if t.LinesSkipped > 0 {
		p.Intro = append(p.Intro, plural(t.LinesSkipped, "unreadable line")+" skipped.")
	}
	return writePage(w, p)
}

// zorkIntro sums ZorkGPT's episodes in a sentence.
func zorkIntro(t *analyze.Totals) string {
	falses := plural(t.FalseTerminations, "false termination")
	if t.Terminated > 0 {
		falses += " (" + pctOf(t.FalseTerminations, t.Terminated) + " of terminated)"
	}
	saved := "no turns recorded"
	if t.RecordedTurns > 0 {
		saved = fmt.Sprintf("%s of %s saved (%s)", Count(t.TurnsSaved), plural(t.RecordedTurns, "turn"), pctOf(t.TurnsSaved, t.RecordedTurns))
	}
	return fmt.Sprintf("%s of %s would have been terminated (%s censored); %s, %s; %s; score forfeited %s.",
		Count(t.Terminated), plural(t.Episodes, "episode"), Count(t.Censored), saved,
		plural(t.LLMCallsSaved, "LLM call"), falses, Num(t.ScoreForfeited))
}

func writePage(w io.Writer, p *htmlPage) error {
	// The CSP's hashes are of exactly these texts, written as they are
	// (html/template does not rewrite CSS or JS typed content).
	p.CSS, p.JS, p.CSP = template.CSS(asset("report.css")), template.JS(asset("report.js")), pageCSP
	// A long page opens with its episodes folded: their headings are the
	// page's index, the search box and toggles (report.js) find one.
	p.Open = len(p.Episodes) <= maxOpenEpisodes
	if len(p.Table) > 0 {
		p.Frame, p.Legend = timelineFrame(), timelineLegend()
	}
	if p.Footer == "" && len(p.Table) == 0 && len(p.Episodes) > 0 {
		p.Footer = "Written by loopbreak. Charts: the score when the log has one, then a lane per detector that ran, marked at each step (attempt) where it would have fired; hover or tap a mark for its firings."
	}
	if p.Footer == "" {
		p.Footer = "Written by loopbreak. Charts: score (solid line), stuck counter (lower line, dashed threshold), hatched stuck periods, warning bands by pattern (dots stagnation, stripes urgent, crosses critical), the cut (dashed red line), later check points (triangles), the live run's stop (dotted green line), runs of firings per rule, and a lane per most-visited room."
	}
	return pageTemplate.Execute(w, p)
}

// episodeSummary is the episode's outcome in one sentence.
func episodeSummary(o *analyze.Outcome, ep *replay.Episode) string {
	s := fmt.Sprintf("%d turns, final score %s, ended by %s. ", o.RecordedTurns, Num(o.FinalScore), o.RecordedEnd)
	switch {
	case o.Termination != nil:
		s += fmt.Sprintf("Would terminate at t=%d (stuck %d turns at score %s), saving %d turns and %d LLM calls", o.Termination.Turn, o.Termination.TurnsStuck, Num(o.Termination.Score), o.TurnsSaved, o.LLMCallsSaved)
		if p := o.ProgressAfter; o.FalseTermination && p.Turn != 0 {
			s += fmt.Sprintf("; a false termination: the score rose %s → %s at t=%d (score %s forfeited).", Num(o.Termination.Score), Num(p.Score), p.Turn, Num(o.ScoreForfeited))
		} else if o.FalseTermination {
			s += fmt.Sprintf("; a false termination: the recording made progress after t=%d (score %s forfeited).", o.Termination.Turn, Num(o.ScoreForfeited))
		} else {
			s += "; no progress after the cut."
		}
	case o.Censored:
		s += fmt.Sprintf("Censored: the live system stopped the run at t=%d first.", ep.LiveStopTurn)
	default:
		s += "Would never terminate."
	}
	if live := liveAgreement(o, ep); live != "" {
		s += " " + live
	}
	if d := &ep.Diag; d.Skipped > 0 {
		s += fmt.Sprintf(" %d of %d log lines unreadable and skipped", d.Skipped, d.Lines)
		if len(d.Problems) > 0 {
			s += " (first: " + d.Problems[0] + ")"
		}
		s += "."
	}
	return s
}

// liveAgreement compares the replay with the live run: every logged
// decision when the log has them (the text report's words), else only
// the cut with the live stop.
func liveAgreement(o *analyze.Outcome, ep *replay.Episode) string {
	if o.Live != nil {
		lines := liveLines(o.Live, o)
		if len(lines) > 4 {
			lines = append(lines[:3], "…")
		}
		return "Live run: " + strings.Join(lines, "; ") + "."
	}
	if !ep.HasLiveStop {
		return ""
	}
	switch {
	case o.Termination == nil:
		return fmt.Sprintf("The live run stopped at t=%d; the replay would not have.", ep.LiveStopTurn)
	case o.Termination.Turn == ep.LiveStopTurn:
		return fmt.Sprintf("The live run stopped at t=%d too: replay and live run agree.", ep.LiveStopTurn)
	}
	return fmt.Sprintf("The live run stopped at t=%d; the replay cuts at t=%d: they disagree.", ep.LiveStopTurn, o.Termination.Turn)
}
