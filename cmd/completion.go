package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// formatValues are the --format values each command accepts (checkFormat
// in its RunE); TestCompletionFormats fails when the two disagree.
var formatValues = map[string][]string{
	"analyze": {"text", "json", "jsonl", "parquet"},
	"sweep":   {"text", "table", "json", "csv"},
	"check":   {"text", "json", "junit", "github", "markdown"},
	"rules":   {"text", "json", "markdown"},
	"config":  {"text", "json", "toml"},
	"watch":   {"text", "jsonl"},
	// merge: every format of analyze, sweep and check; the partials'
	// command narrows them.
	"merge": {"text", "json", "jsonl", "table", "csv", "junit", "github", "markdown"},
}

// registerCompletions completes flag values and arguments of root's
// subcommands. Flags are looked up by name, so a command gains a
// completion by declaring the flag; cobra adds the `completion` command.
func registerCompletions(root *cobra.Command) {
	for _, c := range root.Commands() {
		fl := c.Flags()
		reg := func(name string, f cobra.CompletionFunc) {
			if fl.Lookup(name) == nil {
				return
			}
			if err := c.RegisterFlagCompletionFunc(name, f); err != nil {
				panic(fmt.Sprintf("%s --%s: %v", c.Name(), name, err)) // registered twice: a bug
			}
		}
		if values, ok := formatValues[c.Name()]; ok {
			reg("format", fixed(values...))
		}
		reg("color", fixed("auto", "always", "never"))
		reg("config", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"toml"}, cobra.ShellCompDirectiveFilterFileExt
		})
		reg("labels", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		})
		htmlFiles := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"html"}, cobra.ShellCompDirectiveFilterFileExt
		}
		reg("output", htmlFiles) // report -o
		reg("html", htmlFiles)   // sweep --html
		reg("set", completeKeyValue(false))
		reg("grid", completeKeyValue(true))
		reg("fail-on", completeFailOn)
		reg("input-format", fixed(replay.Formats...))
		reg("preset", fixed(replay.Presets...))
		reg("field", completeField)
	}
	if c, _, err := root.Find([]string{"rules"}); err == nil && c != root {
		c.ValidArgsFunction = completeRuleNames
	}
}

// completeField completes the steps fields of --field, then a path.
func completeField(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, "=") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, f := range replay.StepFields {
		out = append(out, f+"=")
	}
	return withPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// fixed completes one of values.
func fixed(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// withPrefix keeps the candidates starting with prefix (a description
// after a tab is not matched).
func withPrefix(candidates []string, prefix string) []string {
	var out []string
	for _, c := range candidates {
		if value, _, _ := strings.Cut(c, "\t"); strings.HasPrefix(value, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// completeKeyValue completes --set and --grid: first a configuration key
// followed by "=" (no space, the value comes next), then, for a boolean
// key, its values (and both at once for a grid).
func completeKeyValue(grid bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		key, _, hasValue := strings.Cut(toComplete, "=")
		if !hasValue {
			var keys []string
			for _, p := range rules.Params() {
				keys = append(keys, fmt.Sprintf("%s=\t%s (default %s)", p.Key, p.Doc, rules.FormatValue(p.Default)))
			}
			return withPrefix(keys, toComplete), cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
		}
		p, ok := rules.LookupParam(key)
		if !ok || p.Type != rules.Bool {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		values := []string{key + "=true", key + "=false"}
		if grid {
			values = append(values, key+"=true,false")
		}
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFailOn completes check --fail-on with every RULE/KIND,
// RULE/KIND:rejected for the kinds that carry a rejected flag (the ones
// :rejected applies to), and live.
func completeFailOn(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	specs := []string{"live\ta live run's logged decisions disagree with the replay"}
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			specs = append(specs, r.Name+"/"+k.Name+"\t"+k.Doc)
			if slices.Contains(k.Fields, "rejected") {
				specs = append(specs, r.Name+"/"+k.Name+":rejected\tonly when the action would have been rejected")
			}
		}
	}
	return withPrefix(specs, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeRuleNames completes `loopbreak rules NAME...`, each name once.
func completeRuleNames(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var names []string
	for _, r := range rules.Registry {
		if !slices.Contains(args, r.Name) {
			names = append(names, r.Name+"\t"+r.Title)
		}
	}
	return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}
