package cmd

import (
	"bytes"
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams are the streams a command reads and writes, injected so every
// command runs in tests without a terminal (the gh CLI's habit).
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdoutTTY bool
	StderrTTY bool
	// Getenv reads the environment (NO_COLOR); tests replace it.
	Getenv func(string) string
	// Width, when positive, is the terminal width tests pretend to have
	// (text reports use it only when StdoutTTY: see ReportWidth).
	Width int
	// Pageable: Out is the process's terminal, which a pager may take
	// over (pager.go); never in tests.
	Pageable bool
	pager    *pager
	terminal io.Writer // the terminal behind a pager, for its width
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdoutTTY: isTerminal(os.Stdout), StderrTTY: isTerminal(os.Stderr),
		Getenv: os.Getenv, Pageable: isTerminal(os.Stdout),
	}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Test returns streams over buffers, not terminals.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, Getenv: func(string) string { return "" }}, in, out, errOut
}

// ColorEnabled decides colour for stdout: --color always/never win;
// auto means a terminal, no NO_COLOR (https://no-color.org) and a TERM
// other than dumb.
func (s *IOStreams) ColorEnabled(mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	// A dumb terminal (TERM=dumb: Emacs' shell, some CI logs) shows
	// escapes as text.
	return s.StdoutTTY && s.Getenv("NO_COLOR") == "" && s.Getenv("TERM") != "dumb"
}

// TerminalWidth is the width of stdout: Width when set, the terminal's
// columns on a terminal ($COLUMNS when it cannot be asked), else 80.
func (s *IOStreams) TerminalWidth() int {
	if s.Width > 0 {
		return s.Width
	}
	if s.StdoutTTY {
		if s.terminal != nil {
			return terminalWidth(s.terminal, s.Getenv)
		}
		return terminalWidth(s.Out, s.Getenv)
	}
	return 80
}

// ReportWidth is the width text reports fit: 0 (no limit: a fixed,
// parseable layout) when stdout is not a terminal, else TerminalWidth. A
// chart always needs a width; a report in a pipe must not depend on one.
func (s *IOStreams) ReportWidth() int {
	if !s.StdoutTTY {
		return 0
	}
	return s.TerminalWidth()
}
