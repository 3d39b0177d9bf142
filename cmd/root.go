// Package cmd holds loopbreak's Cobra commands. Each command has an options
// struct, a constructor NewCmdX(ios, runF) and a plain xRun(opts); tests
// call either with injected streams.
package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/report"
)

// NewRootCmd builds the command tree.
func NewRootCmd(ios *IOStreams) *cobra.Command {
	// Every message on stderr is one line, whatever a value in it holds
	// (report.StderrWriter): a file name, an episode id or a key from a
	// log or a config file cannot clear the screen or start a line.
	ios.ErrOut = report.StderrWriter(ios.ErrOut)
	root := &cobra.Command{
		Use:   "loopbreak",
		Short: "Replay loop-break rules over LLM agent episode logs",
		Long: `loopbreak replays the ZorkGPT loop-break rules (stuck termination, revisit
penalties, countdown warnings, oscillation and camping detection) turn by turn
over recorded episode logs, and shows where they would have fired and what
that would have saved.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version without cobra's -v shorthand: -v is analyze's --verbose.
	root.Flags().Bool("version", false, "print the version (as 'loopbreak version')")
	root.Version = versionText()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	// A pager for long output on a terminal (pager.go), started once the
	// command and its flags are known.
	root.PersistentFlags().Bool("no-pager", false, "write to the terminal directly, not through $PAGER (less -FRX)")
	root.PersistentPreRun = func(c *cobra.Command, _ []string) {
		if ios.pager = startPager(ios, c); ios.pager != nil {
			c.SetOut(ios.Out)
		}
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{&flagError{err: flagSuggestion(c, err), path: c.CommandPath()}}
	})
	root.AddCommand(
		NewCmdAnalyze(ios, nil),
		NewCmdSweep(ios, nil),
		NewCmdReport(ios, nil),
		NewCmdCheck(ios, nil),
		NewCmdMerge(ios, nil),
		NewCmdRules(ios, nil),
		NewCmdConfig(ios, nil),
		NewCmdGenerate(ios, nil),
		NewCmdWatch(ios, nil),
		NewCmdVersion(ios),
	)
	registerCompletions(root)
	setHelpWidth(root, ios.TerminalWidth()) // help.go
	return root
}

// Main runs loopbreak with args and returns the exit code.
func Main(args []string, ios *IOStreams) int {
	root := NewRootCmd(ios)
	root.SetArgs(args)
	err := pathHint(root.Execute())
	ios.pager.close() // the report read, then any error under it
	if err != nil {
		var f *failError
		var fe *flagError
		var le *linesError
		switch {
		case errors.As(err, &le):
			for i, l := range strings.Split(err.Error(), "\n") {
				if i == 0 {
					l = "loopbreak: " + l
				}
				fmt.Fprintln(ios.ErrOut, l)
			}
		case errors.As(err, &fe):
			// Two messages: stderr keeps a message on one line.
			fmt.Fprintf(ios.ErrOut, "loopbreak: %v\n", fe.err)
			fmt.Fprintf(ios.ErrOut, "Run '%s --help' for usage.\n", fe.path)
		case !errors.As(err, &f):
			fmt.Fprintf(ios.ErrOut, "loopbreak: %v\n", err)
		}
	}
	return exitCode(err)
}

// flagError is a flag cobra could not parse. Its message points to --help
// on a second line; the hint is added here rather than written into an
// error string (staticcheck ST1005).
type flagError struct {
	err  error
	path string // the command's path, "loopbreak analyze"
}

func (e *flagError) Error() string {
	return fmt.Sprintf("%v\nRun '%s --help' for usage.", e.err, e.path)
}

func (e *flagError) Unwrap() error { return e.err }
