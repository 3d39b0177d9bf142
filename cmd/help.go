package cmd

// Help that fits the terminal: cobra's usage and help templates with every
// text (the long description, usage line, examples, command list and
// flags) wrapped at words to the width of standard output (IOStreams: the
// terminal's, else 80).

import (
	"fmt"
	"github.com/loopbreak/loopbreak/rules"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/loopbreak/loopbreak/report"
)

// widthAnnotation holds, on the root command, the width help wraps to:
// template functions are global in cobra, the width is per run.
const widthAnnotation = "loopbreak/help-width"

var helpFuncsOnce sync.Once

// setHelpWidth makes root's help (and its commands') wrap to width.
func setHelpWidth(root *cobra.Command, width int) {
	helpFuncsOnce.Do(func() {
		cobra.AddTemplateFunc("wrapText", func(c *cobra.Command, s string, indent int) string {
			return wrapBlock(s, helpWidth(c), indent)
		})
		cobra.AddTemplateFunc("wrapCmd", func(c *cobra.Command, pad int) string {
			return wrapHang(c.Short, helpWidth(c.Root()), pad)
		})
		cobra.AddTemplateFunc("flagUsages", func(c *cobra.Command, fs *pflag.FlagSet) string {
			return flagUsages(fs, helpWidth(c))
		})
	})
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[widthAnnotation] = strconv.Itoa(width)
	root.SetHelpTemplate(helpTemplate)
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpCommand(newHelpCmd(root))
}

// newHelpCmd is cobra's help command, except that an unknown topic is an
// error (exit 2) with the commands it may have meant.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Args:  cobra.ArbitraryArgs,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, sub := range root.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				msg := fmt.Sprintf("unknown help topic %q", topic)
				if len(args) > 0 {
					if s := root.SuggestionsFor(args[len(args)-1]); len(s) > 0 {
						msg += " (did you mean " + strings.Join(s, " or ") + "?)"
					}
				}
				return usageErrorf("%s; 'loopbreak help' lists the commands", msg)
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

func helpWidth(c *cobra.Command) int {
	w, err := strconv.Atoi(c.Root().Annotations[widthAnnotation])
	if err != nil || w <= 0 {
		return 80
	}
	return w
}

const helpTemplate = `{{with (or .Long .Short)}}{{wrapText $ (. | trimTrailingWhitespaces) 0}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

// usageTemplate is cobra's, each text wrapped.
const usageTemplate = `Usage:{{if .Runnable}}
{{wrapText $ .UseLine 2}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{wrapText $ .Example 0}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{wrapCmd . (add .NamePadding 3)}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{flagUsages $ .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{flagUsages $ .InheritedFlags}}{{end}}{{if .HasAvailableSubCommands}}

{{wrapText $ (printf "Use \"%s [command] --help\" for more information about a command." .CommandPath) 0}}{{end}}
`

func init() {
	cobra.AddTemplateFunc("add", func(a, b int) int { return a + b })
}

// wrapBlock wraps text to width: a paragraph (lines of prose) is joined
// and wrapped at words with the first line's indent (indent more when it
// has none); a line that fits is kept as written (lists, examples), a
// longer one wraps under itself four columns in.
func wrapBlock(s string, width, indent int) string {
	var out []string
	// Unindented lines that run on make one paragraph: at a narrower
	// width it is wrapped whole, not line by line.
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if k := len(lines) - 1; indent == 0 && k >= 0 && line != "" && line[0] != ' ' && lines[k] != "" && lines[k][0] != ' ' && utf8.RuneCountInString(lines[k]) > width {
			lines[k] += " " + line
			continue
		}
		lines = append(lines, line)
	}
	for _, line := range lines {
		lead := len(line) - len(strings.TrimLeft(line, " "))
		pad := max(lead, indent)
		body := strings.TrimSpace(line)
		if body == "" {
			out = append(out, "")
			continue
		}
		if pad+utf8.RuneCountInString(body) <= width {
			out = append(out, strings.Repeat(" ", pad)+body)
			continue
		}
		cont := pad
		if lead > 0 || indent > 0 {
			cont += 4 // a command or list item goes on under itself
		}
		// A long word (a path) moves the lines left rather than break.
		longest := 0
		for _, w := range strings.Fields(body) {
			longest = max(longest, utf8.RuneCountInString(w))
		}
		cont = max(0, min(cont, width-longest))
		pad = min(pad, cont+4)
		for i, l := range report.WrapWords(body, width-cont) {
			p := cont
			if i == 0 {
				p = pad
			}
			out = append(out, strings.Repeat(" ", p)+l)
		}
	}
	// Prose written as short lines is left as it is: it fits.
	return strings.Join(out, "\n")
}

// wrapHang wraps s to width, its lines after the first indented by pad.
func wrapHang(s string, width, pad int) string {
	if width-pad < 20 {
		pad = 4
	}
	return strings.Join(report.WrapWords(s, width-pad), "\n"+strings.Repeat(" ", pad))
}

// flagUsages lists the flags as pflag does (-x, --name type, usage,
// default), each usage wrapped at words beside the names, or under them
// when the names leave it too little room.
func flagUsages(fs *pflag.FlagSet, width int) string {
	type row struct{ left, usage string }
	var rows []row
	maxLeft := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		varname, usage := pflag.UnquoteUsage(f)
		if varname != "" {
			left += " " + varname
		}
		if f.NoOptDefVal != "" && f.Value.Type() != "bool" {
			left += "[=" + f.NoOptDefVal + "]"
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "[]" && d != "<nil>" && !strings.Contains(usage, "(default") {
			if f.Value.Type() == "string" {
				d = strconv.Quote(d)
			}
			usage += " (default " + d + ")"
		}
		if f.Deprecated != "" {
			usage += " (DEPRECATED: " + f.Deprecated + ")"
		}
		rows = append(rows, row{left, usage})
		maxLeft = max(maxLeft, utf8.RuneCountInString(left))
	})
	col := maxLeft + 3
	var b strings.Builder
	for _, r := range rows {
		longest := 0
		for _, w := range strings.Fields(r.usage) {
			longest = max(longest, utf8.RuneCountInString(w))
		}
		if width-col >= max(24, longest) {
			lines := report.WrapWords(r.usage, width-col)
			fmt.Fprintf(&b, "%-*s%s\n", col, r.left, strings.Join(lines, "\n"+strings.Repeat(" ", col)))
			continue
		}
		// Too narrow beside the names: the usage under them.
		fmt.Fprintf(&b, "%s\n", r.left)
		in := max(0, min(10, width-longest))
		for _, l := range report.WrapWords(r.usage, width-in) {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", in), l)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// flagSuggestion adds to an unknown flag's error the flag meant, when one
// is close: "unknown flag: --max-stuk (did you mean --max-stuck?)".
func flagSuggestion(c *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if best := closest(name, names); best != "" {
		return fmt.Errorf("%s (did you mean --%s?)", msg, best)
	}
	return err
}

// closest is the candidate nearest to s by edit distance, if it is near
// (at most a third of s's length, and 3), else "".
func closest(s string, candidates []string) string {
	best, bestD := "", min(3, max(1, len(s)/3))+1
	for _, c := range candidates {
		// The length difference bounds the distance from below: a
		// runaway argument costs no quadratic work.
		if abs(len(s)-len(c)) >= bestD {
			continue
		}
		if d := rules.EditDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
