package cmd

import (
	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// showChart says whether analyze draws an episode's timeline: always with
// --chart; otherwise only for a single episode on a terminal, where a
// picture helps and cannot garble a pipe.
func showChart(opts *AnalyzeOptions, files, episodesInFile int) bool {
	if opts.Chart {
		return true
	}
	return opts.IO.StdoutTTY && files == 1 && episodesInFile == 1
}

// writeChart draws the terminal timeline of one analysed episode, as wide
// as the terminal, followed by a blank line.
func writeChart(opts *AnalyzeOptions, o *analyze.Outcome, ep *replay.Episode, cfg *rules.Config) error {
	tl := report.NewTimeline(o, ep, rules.MaxTurnsStuck.Get(cfg))
	if err := report.WriteTimeline(opts.IO.Out, tl, report.TimelineOptions{Width: opts.IO.TerminalWidth(), ASCII: opts.ASCII}); err != nil {
		return err
	}
	_, err := opts.IO.Out.Write([]byte("\n"))
	return err
}
