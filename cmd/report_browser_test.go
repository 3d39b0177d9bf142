package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var docsScreenshots = flag.Bool("docs-screenshots", false, "write docs/report.png and docs/report-episode.png from the browser test")

// chromium finds a Chromium or Chrome to drive. Locally the test skips
// without one; on CI (CI=true) a missing browser is a failure, so the
// report is always seen rendered there (.ci/run installs chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: CI must render the HTML report (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH; install it to render the HTML report")
	return ""
}

// TestReportInBrowser opens the report of the bundled episodes in headless
// Chromium as a reader would: no console error, a chart per episode drawn
// with a size, the table sorting on a click, and a screenshot.
func TestReportInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	exe := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	ios, _, _, errOut := Test()
	if code := Main([]string{"report", "-o", page, "../testdata/episodes"}, ios); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	// What the page must show: a row and a chart per episode, a cut per
	// terminated one, as analyze counts them.
	ios, _, out, _ := Test()
	if code := Main([]string{"analyze", "--format", "json", "../testdata/episodes"}, ios); code != 0 {
		t.Fatal("analyze failed")
	}
	var doc struct {
		Totals struct{ Episodes, Terminated int }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Totals.Episodes < 8 {
		t.Fatalf("analyze's totals %+v, %v", doc.Totals, err)
	}
	eps, terminated := doc.Totals.Episodes, doc.Totals.Terminated

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // CI containers run as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1000, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	// Every console error or warning, uncaught exception and browser log
	// error (a resource that failed to load) is a failure.
	// A Content-Security-Policy violation is a browser log error too.
	var (
		problemsMu sync.Mutex
		problems   []string
	)
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				problemsMu.Lock()
				problems = append(problems, m.String())
				problemsMu.Unlock()
			}
		}
	}()

	eval := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return n
	}
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1000, 900),
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible(chromedp.CSS("#episodes")),
	); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, js string
		want     int
	}{
		{"charts", `document.querySelectorAll("svg.tl:not(.key)").length`, eps},
		// Drawn with a size, not only present in the DOM.
		{"charts drawn", `[...document.querySelectorAll("svg.tl:not(.key)")].filter(s => s.getBoundingClientRect().width > 500 && s.getBoundingClientRect().height > 150).length`, eps},
		{"score and stuck lines drawn", `[...document.querySelectorAll("svg.tl:not(.key) path.sc, svg.tl:not(.key) path.st")].filter(p => p.getBBox().width > 100).length`, 2 * eps},
		{"charts with a title and description", `document.querySelectorAll("svg.tl:not(.key)[role=img] > title + desc").length`, eps},
		{"episode rows", `document.querySelectorAll("#episodes tbody tr").length`, eps},
		{"sort buttons", `document.querySelectorAll("#episodes thead th button").length`, 10},
		{"cut lines", `document.querySelectorAll("svg.tl:not(.key) path.cut").length`, terminated},
		{"key drawn", `[...document.querySelectorAll("svg.key")].filter(s => s.getBoundingClientRect().height > 20).length`, 1},
		// Under the page's strict CSP: the policy is there, its own
		// stylesheet applied (the body's width) and its own script ran
		// (the sort buttons above are made by it).
		{"strict CSP", `document.querySelectorAll('meta[http-equiv="Content-Security-Policy"][content^="default-src \'none\'"]').length`, 1},
		{"stylesheet applied", `getComputedStyle(document.body).maxWidth === "1000px" ? 1 : 0`, 1},
	} {
		if got := eval(c.js); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}

	click := func(sel string) {
		t.Helper()
		// A missing button fails in seconds, not at the test's deadline.
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := chromedp.Do(cctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatal(err)
		}
	}
	// The headline: analyze's numbers, first on the page.
	var tot struct {
		TurnsSaved        int `json:"turns_saved"`
		LLMCallsSaved     int `json:"llm_calls_saved"`
		FalseTerminations int `json:"false_terminations"`
	}
	if err := json.Unmarshal(totalsJSON(t, out.Bytes()), &tot); err != nil {
		t.Fatal(err)
	}
	headline, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#headline .stat b")].map(b => b.textContent.replace(/,/g, ""))`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{strconv.Itoa(tot.TurnsSaved), strconv.Itoa(tot.LLMCallsSaved), strconv.Itoa(tot.FalseTerminations)}; !slices.Equal(headline, want) {
		t.Errorf("headline %q, want %q", headline, want)
	}
	if got := eval(`/\b0 of 0\b|\b1 false terminations|\b1 of 1 episodes/.test(document.body.textContent) ? 1 : 0`); got != 0 {
		t.Error("a percentage of nothing or a wrong plural on the page")
	}

	// The filter: a typed id leaves its episode alone; the toggles keep
	// the terminated and the falsely terminated.
	visible := `[...document.querySelectorAll("section.episode")].filter(s => s.getBoundingClientRect().height > 0).length`
	rowsShown := `[...document.querySelectorAll("#episodes tbody tr")].filter(r => r.getBoundingClientRect().height > 0).length`
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#filter-q"), "2025-11-04T09:35:24")); err != nil {
		t.Fatal(err)
	}
	if got, rows := eval(visible), eval(rowsShown); got != 1 || rows != 1 {
		t.Errorf("searching an id shows %d episodes and %d rows, want 1", got, rows)
	}
	eval(`(q => { q.value = ""; q.dispatchEvent(new Event("input")); return 1 })(document.querySelector("#filter-q"))`)
	click("#filter-fired")
	if got := eval(visible); got != terminated {
		t.Errorf("only terminated: %d episodes shown, want %d", got, terminated)
	}
	click("#filter-false")
	if got := eval(visible); got != tot.FalseTerminations {
		t.Errorf("only false terminations: %d episodes shown, want %d", got, tot.FalseTerminations)
	}
	click("#filter-false")
	click("#filter-fired")
	if got := eval(visible); got != eps {
		t.Errorf("toggles off: %d episodes shown, want %d", got, eps)
	}
	// A section folds without script: its summary closes it.
	click("section.episode summary")
	if got := eval(`document.querySelector("section.episode details").open ? 1 : 0`); got != 0 {
		t.Error("a click on an episode's heading does not fold it")
	}
	click("section.episode summary")
	// A tap on a chart's mark shows its title under the chart.
	if got := eval(`(() => { const m = [...document.querySelectorAll("svg.tl:not(.key) *")].find(e => e.firstElementChild && e.firstElementChild.tagName === "title" && e.getBoundingClientRect().width > 0); m.dispatchEvent(new MouseEvent("click", {bubbles: true})); const tip = m.closest("figure").querySelector(".tip"); return !tip.hidden && tip.textContent === m.firstElementChild.textContent ? 1 : 0 })()`); got != 1 {
		t.Error("a tap on a mark shows no details")
	}

	// At a phone's 390 px: nothing wider than the screen but what scrolls
	// in its own box, and the charts' text at 11 px or more as drawn.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("#episodes"))); err != nil {
		t.Fatal(err)
	}
	if got := eval(`document.scrollingElement.scrollWidth`); got > 392 {
		t.Errorf("at 390 px the page is %d px wide", got)
	}
	if got := eval(`Math.floor(10 * Math.min(...[...document.querySelectorAll("svg.tl:not(.key), svg.sw")].filter(s => s.getBoundingClientRect().width > 0).flatMap(s => [...s.querySelectorAll("text")].map(x => parseFloat(getComputedStyle(x).fontSize) * s.getBoundingClientRect().width / s.viewBox.baseVal.width))))`); got < 110 {
		t.Errorf("at 390 px the smallest chart text is %.1f px, want 11 or more", float64(got)/10)
	}
	if got := eval(`document.querySelectorAll(".scroll").length > 0 && [...document.querySelectorAll(".scroll")].every(d => getComputedStyle(d).overflowX === "auto") ? 1 : 0`); got != 1 {
		t.Error("tables are not in scrolling boxes at 390 px")
	}
	if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err != nil || len(png) < 1000 {
		t.Errorf("390 px screenshot: %d bytes, %v", len(png), err)
	} else if err := os.WriteFile(filepath.Join(dir, "report-390.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1000, 900), chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("#episodes"))); err != nil {
		t.Fatal(err)
	}

	// Sorting: a click on "turns" sorts ascending, a second descending.
	column := func(i int) []string {
		cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`[...document.querySelectorAll("#episodes tbody tr")].map(r => r.cells[%d].textContent)`, i)))
		if err != nil {
			t.Fatal(err)
		}
		return cells
	}
	turns := func() []int {
		var n []int
		for _, c := range column(1) {
			v, err := strconv.Atoi(c)
			if err != nil {
				t.Fatalf("turns cell %q", c)
			}
			n = append(n, v)
		}
		return n
	}
	click(`#episodes thead th:nth-child(2) button`)
	// Read live from the page: the DOM domain's copy of attributes lags.
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#episodes thead th:nth-child(2)").getAttribute("aria-sort")`))
	if err != nil {
		t.Fatal(err)
	}
	if got := turns(); !slices.IsSorted(got) || state != "ascending" {
		t.Errorf("after one click on turns: %v, aria-sort %q; want ascending", got, state)
	}
	click(`#episodes thead th:nth-child(2) button`)
	got := turns()
	slices.Reverse(got)
	if !slices.IsSorted(got) {
		t.Errorf("after two clicks on turns: %v; want descending", turns())
	}
	click(`#episodes thead th:nth-child(1) button`)
	if ids := column(0); !slices.IsSorted(ids) {
		t.Errorf("after a click on episode: %v; want sorted", ids)
	}
	// The pictures show the page as it opens, in reading order.
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("#episodes"))); err != nil {
		t.Fatal(err)
	}

	full, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	// The picture of docs/output.md: the incident of 2025-11-04T09:35:24.
	anchor, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("section.episode")].find(s => s.querySelector("h2").textContent === "2025-11-04T09:35:24").id`))
	if err != nil {
		t.Fatal(err)
	}
	episode, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#"+anchor+" figure")))
	if err != nil {
		t.Fatal(err)
	}
	for name, png := range map[string][]byte{"report.png": full, "report-episode.png": episode} {
		if len(png) < 1000 {
			t.Errorf("%s: %d bytes", name, len(png))
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
		if *docsScreenshots {
			if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("screenshots in %s", dir)

	// The sweep page: its chart drawn, every configuration a point, the
	// table sorting.
	sweepPage := filepath.Join(dir, "sweep.html")
	ios, _, _, errOut = Test()
	if code := Main([]string{"sweep", "-q", "--max-stuck", "30:60:10", "--html", sweepPage, "../testdata/episodes"}, ios); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+sweepPage), chromedp.WaitVisible(chromedp.CSS("#configurations"))); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, js string
		want     int
	}{
		{"sweep charts drawn", `[...document.querySelectorAll("svg.sw")].filter(s => s.getBoundingClientRect().width > 500).length`, 1},
		{"points", `document.querySelectorAll("svg.sw .pt, svg.sw .pf, svg.sw .base").length`, 5},
		{"recommendation rings", `document.querySelectorAll("svg.sw .rec").length`, 1},
		{"configuration rows", `document.querySelectorAll("#configurations tbody tr").length`, 5},
	} {
		if got := eval(c.js); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	// The marks first: recommended, then Pareto, then the varied key.
	if got := eval(`[...document.querySelectorAll("#configurations thead th")].slice(0, 3).map(h => h.textContent).join("|") === "rec.|pareto|#" ? 1 : 0`); got != 1 {
		t.Error("the sweep's recommended and Pareto columns are not first")
	}
	// The recommendation's label inside the chart's frame.
	if got := eval(`(() => { const s = document.querySelector("svg.sw").getBoundingClientRect(), l = document.querySelector("svg.sw .reclab").getBoundingClientRect(); return l.left >= s.left && l.right <= s.right + 0.5 && l.top >= s.top ? 1 : 0 })()`); got != 1 {
		t.Error("the sweep chart's recommendation label is clipped")
	}
	if got := eval(`/\b1 false terminations|\b0 of 0\b/.test(document.body.textContent) ? 1 : 0`); got != 0 {
		t.Error("a wrong plural or a percentage of nothing on the sweep page")
	}
	// At 390 px the sweep page fits the screen too; its marks' columns in view.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#configurations"))); err != nil {
		t.Fatal(err)
	}
	if got := eval(`document.scrollingElement.scrollWidth`); got > 392 {
		t.Errorf("at 390 px the sweep page is %d px wide", got)
	}
	if got := eval(`[...document.querySelectorAll("#configurations thead th")].slice(0, 2).every(h => h.getBoundingClientRect().right <= 390) ? 1 : 0`); got != 1 {
		t.Error("at 390 px the sweep's recommended and Pareto columns are out of view")
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1000, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#configurations"))); err != nil {
		t.Fatal(err)
	}
	click(`#configurations thead th:nth-child(4) button`) // max stuck, ascending
	click(`#configurations thead th:nth-child(4) button`) // descending
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#configurations tbody tr").cells[3].textContent`))
	if err != nil || first != "60" {
		t.Errorf("after sorting max stuck descending the first row has %q (%v), want 60", first, err)
	}

	// A detector grid (only fuzzy_threshold varies: every row saves the
	// same turns) is drawn by what ranks it: loops caught up, false alarms
	// across, its rows at more than one height.
	detectorPage := filepath.Join(dir, "sweep-detectors.html")
	ios, _, _, errOut = Test()
	if code := Main([]string{"sweep", "-q", "--grid", "fuzzy_threshold=0.8:0.95:0.05", "--html", detectorPage, "../testdata/episodes"}, ios); code != 0 {
		t.Fatalf("detector sweep: exit %d: %s", code, errOut)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+detectorPage), chromedp.WaitVisible(chromedp.CSS("#configurations"))); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, js string
		want     int
	}{
		{"axis labels loops caught and false alarms", `[...document.querySelectorAll("svg.sw text.lab")].filter(l => /^(loops caught|false alarms \(firings\))$/.test(l.textContent)).length`, 2},
		{"an axis of turns saved", `[...document.querySelectorAll("svg.sw text.lab")].filter(l => /turns saved|false terminations/.test(l.textContent)).length`, 0},
		{"points", `document.querySelectorAll("svg.sw .pt, svg.sw .pf, svg.sw .base").length`, 5},
		{"heights the points are drawn at", `new Set([...document.querySelectorAll("svg.sw .pt, svg.sw .pf, svg.sw .base")].map(p => Math.round(p.getBoundingClientRect().top + p.getBoundingClientRect().height / 2))).size`, 2}, // 99 and 101 loops caught
	} {
		if got := eval(c.js); got != c.want {
			t.Errorf("detector sweep page: %s: %d, want %d", c.what, got, c.want)
		}
	}

	// Other agents' logs: a lane per detector that ran, marked where it
	// fired, as many firings as analyze finds; none of ZorkGPT's framing.
	agentLogs := []string{stepsLog, openHandsLog, openHandsTraj, geminiLog, attemptsLog}
	agentsPage := filepath.Join(dir, "agents.html")
	ios, _, _, errOut = Test()
	if code := Main(append([]string{"report", "-o", agentsPage}, agentLogs...), ios); code != 0 {
		t.Fatalf("report of agents' logs: exit %d: %s", code, errOut)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+agentsPage), chromedp.WaitVisible(chromedp.CSS("#detectors"))); err != nil {
		t.Fatal(err)
	}
	firedRules, allFirings := map[string]bool{}, 0
	for _, log := range agentLogs {
		ios, _, out, _ := Test()
		if code := Main([]string{"analyze", "--format", "json", log}, ios); code != 0 {
			t.Fatalf("analyze %s failed", log)
		}
		var doc struct {
			Episodes []struct {
				ID        string `json:"episode_id"`
				Detectors []struct {
					Rule    string
					Firings int
				}
			}
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Episodes) != 1 || len(doc.Episodes[0].Detectors) == 0 {
			t.Fatalf("analyze %s: %v: %s", log, err, out)
		}
		ep := doc.Episodes[0]
		section := fmt.Sprintf(`[...document.querySelectorAll("section.episode")].find(s => s.querySelector("h2").textContent === %q)`, ep.ID)
		fired := 0
		for _, d := range ep.Detectors {
			lane := fmt.Sprintf(`%s.querySelector('svg.tl g.dl[data-rule=%q]')`, section, d.Rule)
			if got := eval(lane + `.dataset.firings * 1`); got != d.Firings {
				t.Errorf("%s: %s's lane has %d firings, analyze finds %d", log, d.Rule, got, d.Firings)
			}
			marked := eval(`[...` + lane + `.querySelectorAll("path.fm")].filter(p => p.getBoundingClientRect().width > 0).length`)
			if want := min(d.Firings, 1); marked != want {
				t.Errorf("%s: %s's lane has %d drawn marks paths, want %d", log, d.Rule, marked, want)
			}
			if d.Firings > 0 {
				fired++
				firedRules[d.Rule] = true
			}
			allFirings += d.Firings
		}
		if fired == 0 {
			t.Errorf("%s: no detector fired; the check shows nothing", log)
		}
		if got := eval(section + `.querySelectorAll("svg.tl g.dl").length`); got != len(ep.Detectors) {
			t.Errorf("%s: %d lanes, %d detectors ran", log, got, len(ep.Detectors))
		}
	}
	for _, c := range []struct {
		what, js string
		want     int
	}{
		{"detector table rows", `document.querySelectorAll("#detectors tbody tr").length`, 13},
		// The headline: detectors that fired and their firings, as analyze counts them.
		{"headline: detectors fired", `document.querySelectorAll("#headline .stat b")[0].textContent.replace(/,/g, "") * 1`, len(firedRules)},
		{"headline: firings", `document.querySelectorAll("#headline .stat b")[1].textContent.replace(/,/g, "") * 1`, allFirings},
		{"filter labelled for agents", `document.querySelector("label:has(#filter-false)").textContent.trim() === "only false alarms" ? 1 : 0`, 1},
		{"log rows", `document.querySelectorAll("#logs tbody tr").length`, len(agentLogs)},
		{"no ZorkGPT framing", `/never terminate|stuck counter|max_turns_stuck/.test(document.body.textContent) ? 1 : 0`, 0},
		{"no episode table", `document.querySelectorAll("#episodes").length`, 0},
	} {
		if got := eval(c.js); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err != nil || len(png) < 1000 {
		t.Errorf("agents' page screenshot: %d bytes, %v", len(png), err)
	} else if err := os.WriteFile(filepath.Join(dir, "agents.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	// The policy is enforced, and a violation is seen: the same page with
	// a script and a style attribute a value might have smuggled in, and
	// an image from the network, runs none of them and reports each.
	problemsMu.Lock()
	before := len(problems)
	problemsMu.Unlock()
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "tampered.html")
	evil := `<script>document.title = "ran"</script><p id="evil" style="color:red">x</p><img src="http://127.0.0.1:9/x.png">`
	if err := os.WriteFile(tampered, []byte(strings.Replace(string(html), "</body>", evil+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+tampered), chromedp.WaitVisible(chromedp.CSS("#episodes"))); err != nil {
		t.Fatal(err)
	}
	if got := eval(`document.title === "ran" ? 1 : 0`); got != 0 {
		t.Error("an inline script not in the CSP ran")
	}
	if got := eval(`getComputedStyle(document.getElementById("evil")).color === "rgb(255, 0, 0)" ? 1 : 0`); got != 0 {
		t.Error("an inline style attribute applied under the CSP")
	}
	if got := eval(`document.querySelectorAll("#episodes thead th button").length`); got != 10 {
		t.Errorf("the page's own script did not run beside a blocked one: %d sort buttons", got)
	}
	var violations []string
	for wait := time.Now().Add(5 * time.Second); time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
		problemsMu.Lock()
		violations = slices.Clone(problems[before:])
		problemsMu.Unlock()
		if len(violations) >= 2 {
			break
		}
	}
	csp := 0
	for _, v := range violations {
		if strings.Contains(v, "Content Security Policy") {
			csp++
		}
	}
	if csp < 2 {
		t.Errorf("the blocked script and style were not reported as CSP violations: %q", violations)
	}

	cancel()
	<-done
	for _, p := range problems[:before] {
		t.Error(p)
	}
}

// totalsJSON is the "totals" object of analyze --format json.
func totalsJSON(t *testing.T, doc []byte) []byte {
	t.Helper()
	var d struct{ Totals json.RawMessage }
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	return d.Totals
}
