package cmd

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// RulesOptions are `loopbreak rules` inputs.
type RulesOptions struct {
	IO     *IOStreams
	Names  []string
	Format string // text, json, markdown (docs/rules.md)
	All    bool   // every rule in full, not one line each
}

// NewCmdRules builds `loopbreak rules [NAME...]`.
func NewCmdRules(ios *IOStreams, runF func(*RulesOptions) error) *cobra.Command {
	opts := &RulesOptions{IO: ios}
	c := &cobra.Command{
		Use:   "rules [name...]",
		Short: "List the rules, one line each; a rule's full text with its name",
		Example: `  loopbreak rules
  loopbreak rules camping
  loopbreak rules --format json
  loopbreak rules --format markdown > docs/rules.md   # the committed reference`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			if err := checkFormat(opts.Format, "text", "json", "markdown"); err != nil {
				return err
			}
			for _, n := range args {
				if rules.Lookup(n) == nil {
					var names []string
					for _, r := range rules.Registry {
						names = append(names, r.Name)
					}
					if best := closest(n, names); best != "" {
						return usageErrorf("unknown rule %q (did you mean %s?); 'loopbreak rules' lists them", n, best)
					}
					return usageErrorf("unknown rule %q (see 'loopbreak rules')", n)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return rulesRun(opts)
		},
	}
	c.Flags().BoolVar(&opts.All, "all", false, "every rule in full (without names, text lists one line per rule)")
	c.Flags().StringVar(&opts.Format, "format", "text", "output `format`: text, json or markdown (the reference committed as docs/rules.md)")
	addJSONFlag(c.Flags(), &opts.Format)
	return c
}

type ruleDoc struct {
	Name     string     `json:"name"`
	Title    string     `json:"title"`
	Doc      string     `json:"doc"`
	Section  string     `json:"section"`
	Origin   string     `json:"origin"`
	Inputs   string     `json:"inputs"`
	Params   []paramDoc `json:"params"`
	Kinds    []kindDoc  `json:"kinds"`
	Requires []string   `json:"requires"`
}

// kindDoc is a rules.Kind with the snake_case keys of every JSON
// loopbreak writes.
type kindDoc struct {
	Name   string   `json:"name"`
	Doc    string   `json:"doc"`
	Fields []string `json:"fields"`
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
			d := ruleDoc{Name: r.Name, Title: r.Title, Doc: r.Doc, Section: r.Section, Origin: r.Origin, Inputs: r.Inputs(), Requires: requires(r), Params: []paramDoc{}, Kinds: []kindDoc{}}
			for _, k := range r.Kinds {
				d.Kinds = append(d.Kinds, kindDoc{Name: k.Name, Doc: k.Doc, Fields: append([]string{}, k.Fields...)})
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
	if opts.Format == "markdown" {
		return rulesMarkdown(opts.IO.Out, list)
	}
	w := opts.IO.Out
	width := opts.IO.TerminalWidth()
	if len(opts.Names) == 0 && !opts.All {
		return rulesList(w, list, width)
	}
	for i, r := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", report.Wrap(fmt.Sprintf("%s — %s (%s)", r.Name, r.Title, r.Section), width, 0, "    "))
		fmt.Fprintf(w, "  %s\n", report.Wrap(fmt.Sprintf("origin: %s; runs on: %s", originWords(r.Origin), r.Inputs()), width, 2, "    "))
		fmt.Fprintf(w, "%s\n", wrap(r.Doc, width-2, "    "))
		if len(r.Params) > 0 {
			fmt.Fprintln(w, "  keys:")
			for _, p := range r.Params {
				def := p.Key + " = " + rules.FormatValue(p.Default)
				doc := p.Doc
				if c := p.Constraint(); c != "" {
					doc += " (" + c + ")"
				}
				if width >= 100 {
					fmt.Fprintf(w, "    %-38s %s\n", def, report.Wrap(doc, width, 43, strings.Repeat(" ", 43)))
				} else {
					// Narrower: the key, its doc under it.
					fmt.Fprintf(w, "    %s\n%s\n", def, wrap(doc, width-2, "        "))
				}
			}
		}
		var kinds []string
		for _, k := range r.Kinds {
			kinds = append(kinds, r.Name+"/"+k.Name)
		}
		fmt.Fprintf(w, "  %s\n", report.Wrap("fires: "+strings.Join(kinds, ", "), width, 2, "    "))
	}
	return nil
}

// rulesList is `loopbreak rules`: one line per rule (name, origin, what
// it detects), its full text with `rules NAME`.
func rulesList(w io.Writer, list []*rules.Rule, width int) error {
	g := &report.Grid{Cols: []report.Col{{Head: "rule", Align: report.L}, {Head: "origin", Align: report.L, Drop: 1},
		{Head: "detects", Align: report.L, Wrap: true}}}
	for _, r := range list {
		g.Rows = append(g.Rows, []string{r.Name, r.Origin, r.Title})
	}
	if _, err := g.Render(w, width); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", report.Wrap("A rule in full (what it does, its keys and defaults, what it fires): loopbreak rules NAME...; every rule in full: loopbreak rules --all.", width, 0, ""))
	return err
}

// originWords says where a rule comes from (RULES.md, "Where each rule
// comes from"), so no reader takes a proposal for what ZorkGPT does.
func originWords(origin string) string {
	switch origin {
	case rules.OriginZorkGPT:
		return "zorkgpt (deployed in ZorkGPT)"
	case rules.OriginDesign:
		return "design (proposed by the loop-break design; not in ZorkGPT)"
	case rules.OriginGeneric:
		return "generic (output and task loops of any agent; not in ZorkGPT)"
	case rules.OriginOpenHands:
		return "openhands (OpenHands' StuckDetector, replayed; not in ZorkGPT)"
	case rules.OriginOpenHandsV1:
		return "openhands-v1 (OpenHands V1's StuckDetector, replayed; not in ZorkGPT)"
	case rules.OriginGeminiCLI:
		return "gemini-cli (Gemini CLI's LoopDetectionService, replayed; not in ZorkGPT)"
	}
	return origin
}

// requires names the rules r reads, never nil.
func requires(r *rules.Rule) []string {
	names := []string{}
	for _, req := range r.Requires {
		names = append(names, req.Name)
	}
	return names
}

// rulesIntro opens docs/rules.md: what a rule is, how turns are stepped,
// and the index's header.
//
//go:embed rules_intro.md
var rulesIntro string

// rulesMarkdown writes the rules reference, docs/rules.md: an index, then
// one section per rule whose anchor is its name (docs/rules.md#camping), as
// each rule's Section cites it.
func rulesMarkdown(w io.Writer, list []*rules.Rule) error {
	b := &strings.Builder{}
	b.WriteString(rulesIntro)
	for _, r := range list {
		var kinds []string
		for _, k := range r.Kinds {
			kinds = append(kinds, "`"+k.Name+"`")
		}
		fmt.Fprintf(b, "| [`%s`](#%s) | %s | %s |\n", r.Name, r.Name, mdCell(r.Title), strings.Join(kinds, ", "))
	}
	for _, r := range list {
		fmt.Fprintf(b, "\n## %s\n\n**%s.**\n\n%s\n\nOrigin: %s. Runs on: %s.\n", r.Name, mdCell(capitalize(r.Title)), wrap(r.Doc, 79, ""), originWords(r.Origin), r.Inputs())
		if req := requires(r); len(req) > 0 {
			for i, n := range req {
				req[i] = fmt.Sprintf("[`%s`](#%s)", n, n)
			}
			their := "their"
			if len(req) == 1 {
				their = "its"
			}
			fmt.Fprintf(b, "\nRuns after %s within each turn and reads %s results.\n", strings.Join(req, " and "), their)
		}
		if len(r.Params) > 0 {
			b.WriteString("\n| key | type | default | bounds | meaning |\n| --- | --- | --- | --- | --- |\n")
			for _, p := range r.Params {
				fmt.Fprintf(b, "| `%s` | %s | `%s` | %s | %s |\n", p.Key, p.Type, rules.FormatValue(p.Default), mdBounds(p), mdCell(p.Doc))
			}
		}
		b.WriteString("\n| firing | fields | when |\n| --- | --- | --- |\n")
		for _, k := range r.Kinds {
			fields := make([]string, len(k.Fields))
			for i, f := range k.Fields {
				fields[i] = "`" + f + "`"
			}
			fmt.Fprintf(b, "| `%s/%s` | %s | %s |\n", r.Name, k.Name, strings.Join(fields, ", "), mdCell(k.Doc))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdBounds writes a key's bounds as an interval, "" when unbounded.
func mdBounds(p *rules.Param) string {
	num := func(f *float64) string { return rules.FormatBound(*f) }
	switch {
	case p.Min != nil && p.Max != nil:
		return "[" + num(p.Min) + ", " + num(p.Max) + "]"
	case p.Min != nil:
		return "≥ " + num(p.Min)
	case p.Max != nil:
		return "≤ " + num(p.Max)
	}
	return ""
}

// mdCell keeps text inside one table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
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
