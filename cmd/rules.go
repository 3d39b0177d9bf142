package cmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/rules"
)

// RulesOptions are `loopbreak rules` inputs.
type RulesOptions struct {
	IO     *IOStreams
	Names  []string
	Format string // text, json
}

// NewCmdRules builds `loopbreak rules [NAME...]`.
func NewCmdRules(ios *IOStreams, runF func(*RulesOptions) error) *cobra.Command {
	opts := &RulesOptions{IO: ios}
	c := &cobra.Command{
		Use:   "rules [name...]",
		Short: "List every rule: what it does, its keys and defaults",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			if err := checkFormat(opts.Format, "text", "json"); err != nil {
				return err
			}
			for _, n := range args {
				if rules.Lookup(n) == nil {
					return usageErrorf("unknown rule %q (see 'loopbreak rules')", n)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return rulesRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "text", "output `format`: text or json")
	return c
}

type ruleDoc struct {
	Name     string        `json:"name"`
	Title    string        `json:"title"`
	Doc      string        `json:"doc"`
	Section  string        `json:"section"`
	Params   []paramDoc    `json:"params"`
	Kinds    []*rules.Kind `json:"kinds"`
	Requires []string      `json:"requires"`
}

type paramDoc struct {
	Key        string `json:"key"`
	Type       string `json:"type"`
	Default    any    `json:"default"`
	Constraint string `json:"constraint,omitempty"`
	Doc        string `json:"doc"`
}

func rulesRun(opts *RulesOptions) error {
	var list []*rules.Rule
	if len(opts.Names) == 0 {
		list = rules.Registry
	} else {
		for _, n := range opts.Names {
			list = append(list, rules.Lookup(n))
		}
	}
	if opts.Format == "json" {
		docs := []ruleDoc{}
		for _, r := range list {
			d := ruleDoc{Name: r.Name, Title: r.Title, Doc: r.Doc, Section: r.Section, Kinds: r.Kinds, Requires: []string{}, Params: []paramDoc{}}
			for _, req := range r.Requires {
				d.Requires = append(d.Requires, req.Name)
			}
			for _, p := range r.Params {
				d.Params = append(d.Params, paramDoc{Key: p.Key, Type: p.Type.String(), Default: p.Default, Constraint: p.Constraint(), Doc: p.Doc})
			}
			docs = append(docs, d)
		}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"schema_version": 1, "rules": docs})
	}
	w := opts.IO.Out
	for i, r := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s — %s (%s)\n", r.Name, r.Title, r.Section)
		fmt.Fprintf(w, "%s\n", wrap(r.Doc, 76, "    "))
		if len(r.Params) > 0 {
			fmt.Fprintln(w, "  keys:")
			for _, p := range r.Params {
				def := p.Key + " = " + rules.FormatValue(p.Default)
				doc := p.Doc
				if c := p.Constraint(); c != "" {
					doc += " (" + c + ")"
				}
				fmt.Fprintf(w, "    %-38s %s\n", def, doc)
			}
		}
		var kinds []string
		for _, k := range r.Kinds {
			kinds = append(kinds, r.Name+"/"+k.Name)
		}
		fmt.Fprintf(w, "  fires: %s\n", strings.Join(kinds, ", "))
	}
	return nil
}

// wrap fills text to width, each line prefixed.
func wrap(text string, width int, prefix string) string {
	var b strings.Builder
	line := prefix
	for _, word := range strings.Fields(text) {
		if len(line) > len(prefix) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}
