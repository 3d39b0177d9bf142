package cmd

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every command's help, and the text reports of the bundled examples, fit
// 80 and 60 columns without a broken word: each word at a width is a word
// of the same text written without a limit.
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
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("%s at %d columns: line %d is %d wide: %q", name, width, i+1, n, l)
				}
			}
			for w := range words(out.String()) {
				if help(args) && !whole[w] {
					t.Errorf("%s at %d columns: %q is not a word of the unwrapped text", name, width, w)
				}
			}
		}
	}
}

// ansi matches the colour escapes a terminal shows as nothing.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")
