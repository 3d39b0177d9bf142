package cmd

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Every command's help, and the text reports of the bundled examples, fit
// 80 and 60 columns without a broken word: no line is wider (but a word
// wider than the terminal, alone on its line), no word of the text
// written without a limit is split across lines, and help's words are
// all words of its text written without a limit.
func TestTextFitsTerminal(t *testing.T) {
	root := NewRootCmd(func() *IOStreams { ios, _, _, _ := Test(); return ios }())
	var cases [][]string
	cases = append(cases, []string{"--help"})
	for _, c := range root.Commands() {
		cases = append(cases, []string{c.Name(), "--help"})
	}
	cases = append(cases,
		[]string{"help", "analyze"},
		[]string{"rules"},
		[]string{"rules", "--all"},
		[]string{"rules", "camping", "task_attempts"},
		[]string{"analyze", stepsLog},
		[]string{"analyze", "--chart", openHandsLog},
		[]string{"analyze", geminiLog},
		[]string{"analyze", attemptsLog},
		[]string{"analyze", "../testdata/steps"},
		[]string{"analyze", "../testdata/episodes"},
		[]string{"analyze", "../testdata/episodes/2025-11-04T09-35-24/episode_log.jsonl"},
		[]string{"analyze", "../testdata/agents"},
		[]string{"analyze", "../testdata/openhands"},
		[]string{"analyze", "../testdata/attempts"},
		[]string{"analyze", "--detail", "../testdata/agents"},
		[]string{"analyze", "-v", "../testdata/openhands"},
		[]string{"analyze", "--detail", "-v", "../testdata/steps"},
		[]string{"sweep", "-q", "--by-episode", "--max-stuck", "30:50:10", "--grid", "enable_objective_based_progress=true,false", episodesDir},
		[]string{"analyze", "--labels", labelsFile, labelsDir},
		[]string{"sweep", "-q", "--max-stuck", "20:60:10", "--check-interval", "5,10", episodesDir},
		[]string{"sweep", "-q", "--grid", "fuzzy_threshold=0.8:0.95:0.05", "../testdata/steps"},
		[]string{"sweep", "--labels", labelsFile, "--max-stuck", "25:45:10", "--grid", "camping_threshold=3,5", labelsDir},
		[]string{"sweep", "--by-rule", "--labels", labelsFile, "--max-stuck", "30", labelsDir},
		[]string{"check", "--baseline", checkBaseline, "--set", "max_turns_stuck=50", "--max-false-rate", "5%", episodesDir},
		[]string{"config"},
	)
	// Reports: within the width (their words may differ: a timeline's
	// columns, a note on hidden columns); help: the same words too.
	help := func(args []string) bool { return slices.Contains(args, "--help") || args[0] == "help" }
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(s) {
			m[w] = true
		}
		return m
	}
	for _, args := range cases {
		name := strings.Join(args, " ")
		ios, _, out, errOut := Test()
		ios.Width = 100000
		Main(args, ios)
		whole := words(out.String())
		if len(whole) == 0 {
			t.Errorf("%s: no output (%s)", name, errOut)
			continue
		}
		for _, width := range []int{80, 60} {
			ios, _, out, _ := Test()
			ios.StdoutTTY, ios.Width = true, width
			Main(append([]string{}, args...), ios)
			for i, l := range strings.Split(ansi.ReplaceAllString(out.String(), ""), "\n") {
				if f := strings.Fields(l); len(f) == 1 && utf8.RuneCountInString(f[0]) > width {
					continue // one word wider than the terminal: kept whole, on a line of its own
				}
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("%s at %d columns: line %d is %d wide: %q", name, width, i+1, n, l)
				}
			}
			narrow := words(out.String())
			for w := range narrow {
				if help(args) && !whole[w] {
					t.Errorf("%s at %d columns: %q is not a word of the unwrapped text", name, width, w)
				}
			}
			for _, b := range brokenWords(whole, narrow) {
				t.Errorf("%s at %d columns: %q is broken across lines", name, width, b)
			}
		}
	}
}

// brokenWords finds words of whole that narrow holds only in pieces: two
// or three words of narrow, none a word of whole, that join into one.
// Pieces without a letter or digit (a timeline's marks) and cells cut
// with "…" (marked as shortened, not broken) are not counted.
func brokenWords(whole, narrow map[string]bool) []string {
	var pieces []string
	for w := range narrow {
		if !whole[w] && !strings.HasSuffix(w, "…") && strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			pieces = append(pieces, w)
		}
	}
	prefix := map[string]bool{} // every proper prefix of a word of whole
	for w := range whole {
		for i := range w {
			if i > 0 {
				prefix[w[:i]] = true
			}
		}
	}
	var broken []string
	for _, a := range pieces {
		if !prefix[a] {
			continue
		}
		for _, b := range pieces {
			switch ab := a + b; {
			case whole[ab]:
				broken = append(broken, a+"|"+b)
			case prefix[ab]:
				for _, c := range pieces {
					if whole[ab+c] {
						broken = append(broken, a+"|"+b+"|"+c)
					}
				}
			}
		}
	}
	slices.Sort(broken)
	return broken
}

// ansi matches the colour escapes a terminal shows as nothing.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")
