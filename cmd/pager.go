package cmd

// A pager for long output on a terminal, as gh does: $LOOPBREAK_PAGER,
// else $PAGER, else "less -FRX" (-F quits when the text fits the screen,
// -R keeps colour, -X leaves it on the screen); --no-pager, a PAGER of
// "cat" or "" (set but empty) turn it off. Only the commands whose text
// can run long page; never in a pipe, never with a file (-o).

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// pagedCommands write reports long enough to page.
var pagedCommands = []string{"analyze", "sweep", "check", "rules", "config", "merge"}

// pager is a running pager: Out's writes go to it; close waits for it.
type pager struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

// startPager starts the pager for c when ios may page, replacing ios.Out
// with its input; nil when it does not page.
func startPager(ios *IOStreams, c *cobra.Command) *pager {
	if !ios.Pageable || !ios.StdoutTTY || !slices.Contains(pagedCommands, c.Name()) {
		return nil
	}
	if f := c.Flags().Lookup("no-pager"); f != nil && f.Value.String() == "true" {
		return nil
	}
	if f := c.Flags().Lookup("output"); f != nil && f.Value.String() != "" && f.Value.String() != "-" {
		return nil
	}
	command, set := os.LookupEnv("LOOPBREAK_PAGER")
	if !set {
		command, set = os.LookupEnv("PAGER")
	}
	if !set {
		command = "less -FRX"
	}
	if strings.TrimSpace(command) == "" || strings.TrimSpace(command) == "cat" {
		return nil
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdout, cmd.Stderr = ios.Out, ios.ErrOut
	if os.Getenv("LESS") == "" {
		cmd.Env = append(os.Environ(), "LESS=FRX")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		return nil // no pager to be had: write to the terminal
	}
	ios.terminal, ios.Out = ios.Out, in
	return &pager{cmd: cmd, in: in}
}

// close ends the pager's input and waits for the reader to quit it.
func (p *pager) close() {
	if p == nil {
		return
	}
	p.in.Close()
	p.cmd.Wait()
}
