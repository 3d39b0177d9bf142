package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// ConfigOptions are `loopbreak config` inputs.
type ConfigOptions struct {
	IO     *IOStreams
	Config configFlags
	Format string // text, json, toml
}

// NewCmdConfig builds `loopbreak config`.
func NewCmdConfig(ios *IOStreams, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: ios}
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration and where each value came from",
		Example: `  loopbreak config
  loopbreak config --config pyproject.toml --set max_turns_stuck=30
  loopbreak config --format toml > loopbreak.toml`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format, "text", "json", "toml"); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return configRun(opts)
		},
	}
	opts.Config.register(c.Flags())
	c.Flags().StringVar(&opts.Format, "format", "text", "output `format`: text, json or toml (a loopbreak.toml)")
	addJSONFlag(c.Flags(), &opts.Format)
	return c
}

func configRun(opts *ConfigOptions) error {
	cfg, path, err := opts.Config.load(opts.IO.ErrOut)
	if err != nil {
		return err
	}
	w := opts.IO.Out
	switch opts.Format {
	case "json":
		type entry struct {
			Key    string `json:"key"`
			Value  any    `json:"value"`
			Source string `json:"source"`
		}
		var entries []entry
		for _, k := range rules.Keys() {
			entries = append(entries, entry{k, cfg.Value(k), cfg.Source(k).String()})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"schema_version": report.SchemaVersion, "file": path, "config": entries})
	case "toml":
		fmt.Fprintln(w, "# loopbreak.toml: the same keys as [tool.zorkgpt.loop_break] in ZorkGPT's pyproject.toml")
		fmt.Fprintln(w, "[loop_break]")
		for _, r := range rules.Registry {
			fmt.Fprintf(w, "# %s\n", r.Name)
			for _, p := range r.Params {
				fmt.Fprintf(w, "%s = %s\n", p.Key, rules.FormatValue(cfg.Value(p.Key)))
			}
		}
		return nil
	}
	if path == "" {
		fmt.Fprintln(w, "config file: none (defaults)")
	} else {
		fmt.Fprintf(w, "config file: %s\n", report.Term(path))
	}
	tb := report.NewTable(w, report.L, report.R, report.L)
	tb.Header("key", "value", "source")
	for _, k := range rules.Keys() {
		if err := tb.Append([]string{k, rules.FormatValue(cfg.Value(k)), cfg.Source(k).String()}); err != nil {
			return err
		}
	}
	return tb.Render()
}
