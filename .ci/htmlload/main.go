// Command htmlload times an HTML report's load in headless Chromium, for
// .ci/bench's HTMLPAGE block: the best of -n loads (navigation start to
// the load event, and to DOMContentLoaded, as the page's own
// performance timing reports them), the page's height as it opens and
// whether its script ran (the filter bar it makes). Out of the test suite
// (a directory go's ./... skips); run as `go run ./.ci/htmlload PAGE`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
)

func main() {
	n := flag.Int("n", 3, "loads; the best is printed")
	width := flag.Int("width", 1000, "viewport width, px")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: htmlload [-n 3] [-width 1000] PAGE.html")
		os.Exit(2)
	}
	page, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	exe := "chromium"
	if p, err := exec.LookPath(exe); err == nil {
		exe = p
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(*width, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // the browser started
		fail(err)
	}
	var best struct{ load, dom, wall float64 }
	var height, sections, filter int
	for i := 0; i < *n; i++ {
		start := time.Now()
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil { // waits for the load event
			fail(err)
		}
		wall := time.Since(start).Seconds()
		t, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(p => [p.loadEventStart - p.startTime, p.domContentLoadedEventEnd - p.startTime])(performance.getEntriesByType("navigation")[0])`))
		if err != nil {
			fail(err)
		}
		counts, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.scrollingElement.scrollHeight, document.querySelectorAll("section.episode").length, document.querySelectorAll("#filter").length]`))
		if err != nil {
			fail(err)
		}
		height, sections, filter = counts[0], counts[1], counts[2]
		if i == 0 || t[0]/1000 < best.load {
			best.load, best.dom, best.wall = t[0]/1000, t[1]/1000, wall
		}
	}
	fmt.Printf("load %.2f s (DOMContentLoaded %.2f s, navigation %.2f s wall), %d episode sections, %d px high as it opens, filter bar %v\n",
		best.load, best.dom, best.wall, sections, height, filter == 1)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "htmlload:", err)
	os.Exit(1)
}
