package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/sweep"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// svgNode is an element of a parsed SVG, with its attributes and
// children, enough to check structure.
type svgNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []svgNode  `xml:",any"`
}

func (n *svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *svgNode) walk(f func(*svgNode)) {
	f(n)
	for i := range n.Children {
		n.Children[i].walk(f)
	}
}

var svgRe = regexp.MustCompile(`(?s)<svg class="(tl|sw)".*?</svg>`)

// parseSVGs parses every chart in a page as XML.
func parseSVGs(t *testing.T, page string) []svgNode {
	t.Helper()
	var out []svgNode
	for _, s := range svgRe.FindAllString(page, -1) {
		var n svgNode
		if err := xml.Unmarshal([]byte(s), &n); err != nil {
			t.Fatalf("chart is not well-formed XML: %v\n%.300s", err, s)
		}
		out = append(out, n)
	}
	return out
}

var numRe = regexp.MustCompile(`-?[0-9.]+(?:e[-+]?[0-9]+)?|NaN|Inf`)

// checkCoordinates fails on NaN or infinite coordinates and on any outside
// the chart's viewBox.
func checkCoordinates(t *testing.T, svg *svgNode) {
	t.Helper()
	vb := strings.Fields(svg.attr("viewBox"))
	if len(vb) != 4 {
		t.Fatalf("viewBox %q", svg.attr("viewBox"))
	}
	w, _ := strconv.ParseFloat(vb[2], 64)
	h, _ := strconv.ParseFloat(vb[3], 64)
	svg.walk(func(n *svgNode) {
		for _, a := range n.Attrs {
			switch a.Name.Local {
			case "x", "y", "width", "height", "cx", "cy", "r", "d":
			default:
				continue
			}
			for _, s := range numRe.FindAllString(a.Value, -1) {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("<%s %s=%q>: %q is not a number", n.XMLName.Local, a.Name.Local, a.Value, s)
					return
				}
				// Path commands are relative or absolute; either way no
				// number exceeds the chart's size.
				if math.Abs(v) > max(w, h)+1 {
					t.Errorf("<%s %s=%q>: %v outside the %vx%v chart", n.XMLName.Local, a.Name.Local, a.Value, v, w, h)
					return
				}
			}
		}
	})
}

// classes counts elements by class.
func classes(svg *svgNode) map[string]int {
	m := map[string]int{}
	svg.walk(func(n *svgNode) {
		for _, c := range strings.Fields(n.attr("class")) {
			m[c]++
		}
	})
	return m
}

// bundledReport renders the report of testdata/episodes and says how many
// episodes it holds.
func bundledReport(t *testing.T) (string, int) {
	t.Helper()
	cfg := rules.Default()
	h := &HTMLReport{MaxStuck: rules.MaxTurnsStuck.Get(cfg), Config: ConfigLine("", cfg)}
	var tot analyze.Totals
	files, err := replay.FindLogs([]string{filepath.Join("..", "testdata", "episodes")}, false)
	if err != nil {
		t.Fatal(err)
	}
	analyze.Files(context.Background(), files, nil, replay.Options{}, 2, cfg, analyze.Options{KeepFirings: true, Story: true}, func(fr analyze.FileResult) bool {
		for i, ep := range fr.Episodes {
			tot.Add(&fr.Outcomes[i].Result, fr.Outcomes[i].RecordedTurns, ep.Diag.Skipped)
			tot.AddLive(fr.Outcomes[i].Live)
			h.Add(fr.Outcomes[i], ep)
		}
		return true
	})
	tot.Finish()
	var b bytes.Buffer
	if err := h.Write(&b, &tot, nil); err != nil {
		t.Fatal(err)
	}
	return b.String(), tot.Episodes
}

// chartOf finds the chart of an episode by its title.
func chartOf(t *testing.T, svgs []svgNode, id string) *svgNode {
	t.Helper()
	for i := range svgs {
		for _, c := range svgs[i].Children {
			if c.XMLName.Local == "title" && c.Text == "Timeline of episode "+id {
				return &svgs[i]
			}
		}
	}
	t.Fatalf("no chart of %s", id)
	return nil
}

func TestHTMLReportCharts(t *testing.T) {
	page, episodes := bundledReport(t)
	svgs := parseSVGs(t, page)
	if len(svgs) != episodes || episodes < 8 {
		t.Fatalf("%d charts, want one per bundled episode (%d)", len(svgs), episodes)
	}
	for _, svg := range svgs {
		var title, desc string
		for _, c := range svg.Children {
			switch c.XMLName.Local {
			case "title":
				title = c.Text
			case "desc":
				desc = c.Text
			}
		}
		if !strings.HasPrefix(title, "Timeline of episode ") || !strings.HasPrefix(desc, "Turns ") || svg.attr("role") != "img" {
			t.Errorf("chart without a title, desc or role: %q %q", title, desc)
		}
		checkCoordinates(t, &svg)
		c := classes(&svg)
		for _, want := range []string{"sc", "st", "th", "ln"} {
			if c[want] == 0 {
				t.Errorf("%s: no %q element", title, want)
			}
		}
		// Every mark and band explains itself on hover.
		svg.walk(func(n *svgNode) {
			cl := n.attr("class")
			if cl == "sp" || cl == "rr" || strings.HasPrefix(cl, "w") || strings.HasPrefix(cl, "run") || cl == "cut" || cl == "live" || cl == "ck" {
				if len(n.Children) == 0 || n.Children[0].XMLName.Local != "title" || n.Children[0].Text == "" {
					t.Errorf("%s: <%s class=%q> has no <title>", title, n.XMLName.Local, cl)
				}
			}
		})
	}
	// The terminated incident: the cut, later check points, warnings of
	// every urgency, stuck periods.
	c := classes(chartOf(t, svgs, "2025-11-04T09:35:24"))
	if c["cut"] != 1 || c["ck"] != 1 || c["w1"] == 0 || c["w2"] == 0 || c["w3"] == 0 || c["sp"] != 3 {
		t.Errorf("2025-11-04T09:35:24: classes %v", c)
	}
	// The live run's stop, and the agreement in words.
	if c := classes(chartOf(t, svgs, "2025-11-06T08:00:00")); c["live"] != 1 {
		t.Errorf("2025-11-06T08:00:00: no live stop: %v", c)
	}
	// Fidelity's facts: the live run's agreement in words and marks, the
	// first progress after a false termination's cut.
	if !strings.Contains(page, "Live run: terminated at t=80 (stuck 40 turns) — the replay agrees.") {
		t.Error("no live-run agreement sentence")
	}
	if c := classes(chartOf(t, svgs, "2025-11-10T21:05:00")); c["ld"] != 1 || c["live"] != 1 {
		t.Errorf("2025-11-10T21:05:00 (a live stop the replay lacks): classes %v", c)
	}
	if c := classes(chartOf(t, svgs, "2025-11-04T09:35:24")); c["pa"] != 1 {
		t.Errorf("2025-11-04T09:35:24: no mark of the progress after the cut: %v", c)
	}
	for _, want := range []string{"the score rose 10 → 15 at t=90", ">t=50, disagrees (1)<", "live runs disagree with the replay under this configuration"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(page, "1 of 124 log lines unreadable and skipped (first: ") {
		t.Error("the episode with a truncated line does not say so")
	}
	// One key above the charts, well-formed, naming every mark.
	key := regexp.MustCompile(`(?s)<svg class="tl key".*?</svg>`).FindString(page)
	var k svgNode
	if err := xml.Unmarshal([]byte(key), &k); err != nil {
		t.Fatalf("key: %v", err)
	}
	for _, want := range []string{"stuck period", "critical warning", "cut: replay stops", "live run stopped", "would reject", "in a room"} {
		if !strings.Contains(key, ">"+want+"<") {
			t.Errorf("the key does not name %q", want)
		}
	}
	// Self-contained: nothing fetched.
	for _, bad := range []string{"<link", "src=", "@import", "url(http", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: it must not fetch anything", bad)
		}
	}
	if n := strings.Count(page, "<tr>"); n != 1+episodes+1 {
		t.Errorf("%d table rows, want a header, %d episodes and the total", n, episodes)
	}
}

// A long episode is summarised: at most MaxChartPoints vertices per line,
// MaxChartRuns runs, and the caption says so.
func TestHTMLReportSummarisesLongEpisodes(t *testing.T) {
	ep := &replay.Episode{ID: `long <&"'> one`, LocationKey: replay.KeyRoomID, RecordedEnd: replay.EndMaxTurns}
	for n := 1; n <= 5000; n++ {
		loc := strconv.Itoa(n % 2) // oscillating all along
		if n%50 < 20 {
			loc = strconv.Itoa(2 + n%17)
		}
		ep.AppendRows(replay.Row{N: n, Score: float64(n / 5 % 7), LocStart: loc, LocEnd: loc, Moved: true, Action: "go " + strconv.Itoa(n%3), HasAction: true})
	}
	cfg := rules.Default()
	o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true, Story: true})
	h := &HTMLReport{MaxStuck: 40}
	h.Add(o, ep)
	var b bytes.Buffer
	if err := h.Write(&b, &analyze.Totals{}, nil); err != nil {
		t.Fatal(err)
	}
	svgs := parseSVGs(t, b.String())
	if len(svgs) != 1 {
		t.Fatalf("%d charts", len(svgs))
	}
	checkCoordinates(t, &svgs[0])
	chartOf(t, svgs, `long <&"'> one`) // escaped, and read back whole
	lanes := 0
	svgs[0].walk(func(n *svgNode) {
		switch n.attr("class") {
		case "sc", "st":
			if v := strings.Count(n.attr("d"), "l"); v > MaxChartPoints {
				t.Errorf("%s line has %d vertices, over %d", n.attr("class"), v, MaxChartPoints)
			}
		case "ln":
			lanes += strings.Count(n.attr("d"), "h")
		}
	})
	if lanes > MaxChartPoints {
		t.Errorf("room lanes have %d segments, over %d", lanes, MaxChartPoints)
	}
	for _, want := range []string{"Summarised:", "the score line is summarised to 600 points", "room lanes show"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("caption does not say %q", want)
		}
	}
	if len(b.String()) > 40_000 {
		t.Errorf("a 5,000-turn episode takes %d bytes", len(b.String()))
	}
}

func TestSeries(t *testing.T) {
	idx, v, summ := series([]float64{0, 0, 0, 5, 5, 1, 2, 3, 4}, 100)
	if summ || len(idx) != 6 || idx[2] != 3 || v[3] != 5 || idx[5] != 8 {
		t.Errorf("series kept %v %v %v; want the ends and the turns where the slope changes", idx, v, summ)
	}
}

func TestSweepHTML(t *testing.T) {
	files, err := replay.FindLogs([]string{filepath.Join("..", "testdata", "episodes")}, false)
	if err != nil {
		t.Fatal(err)
	}
	ax, err := sweep.ParseAxis("max_turns_stuck", "30:60:10")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sweep.Run(sweep.Options{Files: files, Base: rules.Default(), Axes: []sweep.Axis{ax}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSweepHTML(&b, res, "", ""); err != nil {
		t.Fatal(err)
	}
	svgs := parseSVGs(t, b.String())
	if len(svgs) != 1 {
		t.Fatalf("%d charts, want 1", len(svgs))
	}
	checkCoordinates(t, &svgs[0])
	c := classes(&svgs[0])
	pareto := 0
	for _, r := range res.Rows {
		if r.Pareto && !r.Baseline {
			pareto++
		}
	}
	if c["base"] != 1 || c["rec"] != 1 || c["pf"] != pareto || c["pt"]+c["pf"]+c["base"] != len(res.Rows) {
		t.Errorf("classes %v for %d rows, %d efficient", c, len(res.Rows), pareto)
	}
	if !strings.Contains(b.String(), `<tr class="rec">`) || !strings.Contains(b.String(), "recommended: ") {
		t.Error("the recommendation is not marked in the table and chart")
	}
}

// An episode without turns still gets its row and a sentence, no chart.
func TestHTMLReportEmptyEpisode(t *testing.T) {
	ep := &replay.Episode{ID: "E0", RecordedEnd: replay.EndUnknown}
	h := &HTMLReport{MaxStuck: 40}
	h.Add(analyze.Analyze(ep, rules.Default(), analyze.Options{KeepFirings: true, Story: true}), ep)
	var b bytes.Buffer
	if err := h.Write(&b, &analyze.Totals{Episodes: 1}, []analyze.FileError{{Source: "x.jsonl", Error: "gzip: invalid header"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, `<svg class="tl"`) || !strings.Contains(page, "No turns were recorded.") || !strings.Contains(page, "unreadable: x.jsonl: gzip: invalid header") {
		t.Errorf("page of an empty episode:\n%s", page)
	}
}

// The page says what it assumed first, under its title and headline, as
// the text report does.
func TestHTMLConfigLine(t *testing.T) {
	page, _ := bundledReport(t)
	if !strings.Contains(page, "<h1>loopbreak report</h1>\n<div class=\"headline\" id=\"headline\">") {
		t.Error("no headline strip under the title")
	}
	want := `</p></div>
<p class="totals">config: defaults (no config found) · max_turns_stuck 40 · every 10 turns · warnings from 20</p>`
	if !strings.Contains(page, want) {
		i := strings.Index(page, "<h1>")
		t.Errorf("page head:\n%s\nwant\n%s", page[i:min(len(page), i+300)], want)
	}
}

// The headline's three numbers: plurals by count, and no percentage of
// nothing.
func TestHTMLHeadline(t *testing.T) {
	for _, c := range []struct {
		name string
		t    analyze.Totals
		want []htmlStat
	}{
		{"nothing cut", analyze.Totals{Episodes: 2}, []htmlStat{
			{"0", "turns saved", ""}, {"0", "LLM calls saved", ""}, {"0", "false terminations", ""}}},
		{"one of each", analyze.Totals{Episodes: 1, RecordedTurns: 4, TurnsSaved: 1, LLMCallsSaved: 1, Terminated: 1, FalseTerminations: 1}, []htmlStat{
			{"1", "turn saved", "1 of 4 recorded turns (25.0%)"}, {"1", "LLM call saved", ""}, {"1", "false termination", "1 of 1 terminated episode (100.0%)"}}},
		{"thousands", analyze.Totals{Episodes: 1000, RecordedTurns: 494822, TurnsSaved: 12345, LLMCallsSaved: 49382, Terminated: 2, FalseTerminations: 0}, []htmlStat{
			{"12,345", "turns saved", "12,345 of 494,822 recorded turns (2.5%)"}, {"49,382", "LLM calls saved", ""}, {"0", "false terminations", "0 of 2 terminated episodes (0.0%)"}}},
	} {
		got := zorkHeadline(&c.t)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// An episode with no turns: no percentage of nothing in the totals.
	if got := zorkIntro(&analyze.Totals{Episodes: 1}); strings.Contains(got, "0 of 0") || strings.Contains(got, "%") {
		t.Errorf("totals of an empty episode: %q", got)
	}
	page, _ := bundledReport(t)
	if strings.Contains(page, "0 of 0") || strings.Contains(page, "1 false terminations") {
		t.Error("a percentage of nothing or a wrong plural on the page")
	}
}

// A detector grid (fuzzy_threshold: only loops and false alarms change,
// every row terminating alike) is plotted by what ranks it: loops caught
// up, false alarms across, a row catching more drawn higher; not by turns
// saved, the same for every row.
func TestSweepHTMLDetectorGrid(t *testing.T) {
	files, err := replay.FindLogs([]string{filepath.Join("..", "testdata", "episodes")}, false)
	if err != nil {
		t.Fatal(err)
	}
	ax, err := sweep.ParseAxis("fuzzy_threshold", "0.8:0.95:0.05")
	if err != nil {
		t.Fatal(err)
	}
	// Outputs: fuzzy_repeat compares each turn's reply (rules.NeedsOutputs).
	res, err := sweep.Run(sweep.Options{Files: files, Base: rules.Default(), Axes: []sweep.Axis{ax}, Read: replay.Options{Outputs: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommendation.Criterion != sweep.CriterionDetectors {
		t.Fatalf("criterion %q, want a detector grid", res.Recommendation.Criterion)
	}
	var b bytes.Buffer
	if err := WriteSweepHTML(&b, res, "", ""); err != nil {
		t.Fatal(err)
	}
	svgs := parseSVGs(t, b.String())
	if len(svgs) != 1 {
		t.Fatalf("%d charts, want 1", len(svgs))
	}
	checkCoordinates(t, &svgs[0])
	var labels []string
	type point struct {
		caught, alarms int
		x, y           float64
	}
	var points []point
	tipRe := regexp.MustCompile(`: (\d+) loops? caught \(of \d+ firings?\), (\d+) false alarms?`)
	svgs[0].walk(func(n *svgNode) {
		if n.XMLName.Local == "text" && n.attr("class") == "lab" {
			labels = append(labels, n.Text)
		}
		if n.XMLName.Local != "g" || len(n.Children) < 2 {
			return
		}
		m := tipRe.FindStringSubmatch(n.Children[0].Text)
		if m == nil {
			t.Errorf("a point's title does not say its loops and false alarms: %q", n.Children[0].Text)
			return
		}
		var p point
		p.caught, _ = strconv.Atoi(m[1])
		p.alarms, _ = strconv.Atoi(m[2])
		shape := n.Children[1]
		num := func(a string) float64 { f, _ := strconv.ParseFloat(shape.attr(a), 64); return f }
		switch shape.XMLName.Local {
		case "circle":
			p.x, p.y = num("cx"), num("cy")
		case "rect":
			p.x, p.y = num("x")+4, num("y")+4
		case "path": // "M x y-5 …"
			f := strings.Fields(strings.TrimPrefix(shape.attr("d"), "M"))
			p.x, _ = strconv.ParseFloat(f[0], 64)
			yy, _ := strings.CutSuffix(f[1], "l5")
			p.y, _ = strconv.ParseFloat(strings.SplitN(yy, "l", 2)[0], 64)
			p.y += 5
		}
		points = append(points, p)
	})
	if len(points) != len(res.Rows) {
		t.Fatalf("%d points for %d rows", len(points), len(res.Rows))
	}
	joined := strings.Join(labels, "|")
	if !strings.Contains(joined, "loops caught") || !strings.Contains(joined, "false alarms") || strings.Contains(joined, "turns saved") {
		t.Errorf("axis labels %q: want loops caught against false alarms", joined)
	}
	distinct := map[int]bool{}
	for _, a := range points {
		distinct[a.caught] = true
		for _, c := range points {
			if a.caught > c.caught && a.y >= c.y {
				t.Errorf("%d loops caught drawn at y %v, not above %d at y %v", a.caught, a.y, c.caught, c.y)
			}
			if a.alarms > c.alarms && a.x <= c.x {
				t.Errorf("%d false alarms drawn at x %v, not right of %d at x %v", a.alarms, a.x, c.alarms, c.x)
			}
		}
	}
	if len(distinct) < 2 {
		t.Errorf("every row catches the same loops: the grid shows nothing")
	}
	if !strings.Contains(b.String(), "plotted by loops caught and false alarms") {
		t.Error("the caption does not say what the chart plots")
	}
}

// TestHTMLReportLongIDCapped: an episode id of any size (agents write
// 500 KB ones) is shown capped on the page, which holds every episode
// until it is written: as the corpus table shows it (CappedID), the same
// in the table, the heading, the chart and the search words; ZorkGPT and
// steps logs alike.
func TestHTMLReportLongIDCapped(t *testing.T) {
	long := "ep-" + strings.Repeat("é", 250_000)
	steps, err := replay.ReadFile(filepath.Join("..", "testdata", "steps", "agent.jsonl"), nil, replay.Options{Format: replay.FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	zork := &replay.Episode{LocationKey: replay.KeyRoomID, RecordedEnd: replay.EndMaxTurns}
	for n := 1; n <= 50; n++ {
		zork.AppendRows(replay.Row{N: n, Score: 1, LocStart: "a", LocEnd: "a", Action: "look", HasAction: true})
	}
	for _, ep := range []*replay.Episode{zork, steps[0]} {
		ep.ID = long
		o := analyze.Analyze(ep, rules.Default(), analyze.Options{Story: true, Sink: NewTimelineMarks})
		h := &HTMLReport{MaxStuck: 20}
		h.Add(o, ep)
		var b bytes.Buffer
		if err := h.Write(&b, &analyze.Totals{Episodes: 1}, nil); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if strings.Contains(page, strings.Repeat("é", 1000)) || !strings.Contains(page, CappedID(long)) || len(page) > 200_000 {
			t.Errorf("format %q: a 500 KB id makes a page of %d bytes, capped id there: %v", ep.Format, len(page), strings.Contains(page, CappedID(long)))
		}
	}
}

// TestHTMLAgentLanesBinned: a steps log of more steps and firings than
// the chart has pixel columns draws a mark per column per lane and the
// score a step per column, says so, and keeps every count exact; the
// page does not grow with the firings.
func TestHTMLAgentLanesBinned(t *testing.T) {
	var b strings.Builder
	for n := 1; n <= 20000; n++ {
		fmt.Fprintf(&b, `{"step": %d, "action": "run_tests", "output": "1 test failed", "error": true, "kind": "action", "score": %d, "location": "repo"}`+"\n", n, n/1000)
	}
	path := filepath.Join(t.TempDir(), "steps.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	eps, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	o := analyze.Analyze(eps[0], rules.Default(), analyze.Options{Story: true, Sink: NewTimelineMarks})
	h := &HTMLReport{}
	h.Add(o, eps[0])
	var page bytes.Buffer
	if err := h.Write(&page, &analyze.Totals{Episodes: 1}, nil); err != nil {
		t.Fatal(err)
	}
	fired := 0
	for _, row := range Detectors(o, eps[0]) {
		if row.Firings > agentPlotW {
			fired++
			want := fmt.Sprintf(`data-rule="%s" data-firings="%d"`, row.Rule, row.Firings)
			if !strings.Contains(page.String(), want) {
				t.Errorf("no %s", want)
			}
		}
	}
	if fired == 0 || page.Len() > 150_000 || !strings.Contains(page.String(), "Summarised: more steps or firings than the chart") {
		t.Errorf("%d lanes past %d firings; a page of %d bytes", fired, agentPlotW, page.Len())
	}
	svgs := parseSVGs(t, page.String())
	for i := range svgs {
		checkCoordinates(t, &svgs[i])
	}
}
