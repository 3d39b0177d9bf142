package cmd

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// parseCmd runs one command built with a runF that records its options:
// flags → options, without running the command. The options are nil when
// validation stopped first.
func parseCmd[O any](t *testing.T, newCmd func(*IOStreams, func(*O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	ios, _, _, _ := Test()
	var got *O
	c := newCmd(ios, func(o *O) error { got = o; return nil })
	c.SetArgs(append([]string{}, args...)) // nil would make cobra read os.Args
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceUsage, c.SilenceErrors = true, true
	err := c.Execute()
	return got, err
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v; want %q", err, want)
	}
}

func TestRulesFlags(t *testing.T) {
	opts, err := parseCmd(t, NewCmdRules)
	if err != nil || opts.Format != "text" || len(opts.Names) != 0 {
		t.Fatalf("defaults: %+v, %v", opts, err)
	}
	opts, err = parseCmd(t, NewCmdRules, "camping", "oscillation", "--format", "json")
	if err != nil || opts.Format != "json" || !reflect.DeepEqual(opts.Names, []string{"camping", "oscillation"}) {
		t.Fatalf("names and format: %+v, %v", opts, err)
	}
	for _, tc := range []struct{ args, want string }{
		{"--format yaml", `--format "yaml": want one of text, json, markdown`},
		{"camping nope", `unknown rule "nope" (see 'loopbreak rules')`},
		{"--nope", "unknown flag: --nope"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			opts, err := parseCmd(t, NewCmdRules, strings.Fields(tc.args)...)
			if opts != nil {
				t.Errorf("runF called with %+v", opts)
			}
			wantErr(t, err, tc.want)
		})
	}
}

func TestConfigFlags(t *testing.T) {
	opts, err := parseCmd(t, NewCmdConfig)
	if err != nil || opts.Format != "text" || opts.Config.Path != "" || len(opts.Config.Sets) != 0 {
		t.Fatalf("defaults: %+v, %v", opts, err)
	}
	opts, err = parseCmd(t, NewCmdConfig, "--config", "lb.toml", "--set", "max_turns_stuck=30", "--set", "camping_window=8", "--format", "toml")
	if err != nil || opts.Format != "toml" || opts.Config.Path != "lb.toml" ||
		!reflect.DeepEqual(opts.Config.Sets, []string{"max_turns_stuck=30", "camping_window=8"}) {
		t.Fatalf("flags: %+v, %v", opts, err)
	}
	for _, tc := range []struct{ args, want string }{
		{"--format yaml", `--format "yaml": want one of text, json, toml`},
		{"extra", `unknown command "extra" for "config"`},
		{"--set", `flag needs an argument: --set`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			opts, err := parseCmd(t, NewCmdConfig, strings.Fields(tc.args)...)
			if opts != nil {
				t.Errorf("runF called with %+v", opts)
			}
			wantErr(t, err, tc.want)
		})
	}
}

func TestGenerateFlags(t *testing.T) {
	opts, err := parseCmd(t, NewCmdGenerate, "out")
	if err != nil || *opts != (GenerateOptions{IO: opts.IO, Dir: "out", Episodes: 100, Seed: 1, Size: "50MB", SizeBytes: 50_000_000}) {
		t.Fatalf("defaults: %+v, %v", opts, err)
	}
	opts, err = parseCmd(t, NewCmdGenerate, "-n", "3", "--seed", "7", "--size", "1.5GiB", "--max-noise", "64kB", "out")
	want := GenerateOptions{IO: opts.IO, Dir: "out", Episodes: 3, Seed: 7, Size: "1.5GiB", MaxNoise: "64kB", SizeBytes: 3 << 29, MaxNoiseBytes: 64_000}
	if err != nil || *opts != want {
		t.Fatalf("flags: %+v, %v; want %+v", opts, err, want)
	}
	for _, tc := range []struct{ args, want string }{
		{"", "accepts 1 arg(s), received 0"},
		{"a b", "accepts 1 arg(s), received 2"},
		{"-n 0 out", "--episodes must be at least 1"},
		{"--size NaN out", `--size "NaN": want a size like 300MB or 300MiB`},
		{"--size Inf out", `--size "Inf": want a size like 300MB or 300MiB`},
		{"--size -5MB out", `--size "-5MB": want a size like 300MB or 300MiB`},
		{"--max-noise 64QB out", `--max-noise "64QB": want a size like 300MB or 300MiB`},
		{"--seed -1 out", `invalid argument "-1" for "--seed" flag: strconv.ParseUint: parsing "-1": invalid syntax`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			opts, err := parseCmd(t, NewCmdGenerate, strings.Fields(tc.args)...)
			if opts != nil {
				t.Errorf("runF called with %+v", opts)
			}
			wantErr(t, err, tc.want)
		})
	}
}

// TestUsageErrors pins what a user sees for a bad flag or argument: one
// "loopbreak:" line, a pointer to --help for flag errors, exit 2.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct{ args, stderr string }{
		{"config --nope", "loopbreak: unknown flag: --nope\nRun 'loopbreak config --help' for usage.\n"},
		{"generate --seed x out", "loopbreak: invalid argument \"x\" for \"--seed\" flag: strconv.ParseUint: parsing \"x\": invalid syntax\nRun 'loopbreak generate --help' for usage.\n"},
		{"generate --size NaN out", "loopbreak: --size \"NaN\": want a size like 300MB or 300MiB\n"},
		{"rules --format yaml", "loopbreak: --format \"yaml\": want one of text, json, markdown\n"},
		{"rules nope", "loopbreak: unknown rule \"nope\" (see 'loopbreak rules')\n"},
		{"config extra", "loopbreak: unknown command \"extra\" for \"loopbreak config\"\n"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			code, out, errOut := run(t, "", "", strings.Fields(tc.args)...)
			if code != ExitError || out != "" || errOut != tc.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, out, errOut, tc.stderr)
			}
		})
	}
}

// TestRulesGolden pins `loopbreak rules` in each format.
func TestRulesGolden(t *testing.T) {
	for _, tc := range []struct{ name, args string }{
		{"rules/all.txt", "rules"},
		{"rules/all-full.txt", "rules --all"},
		{"rules/all.json", "rules --format json"},
		{"rules/camping-oscillation.txt", "rules camping oscillation"},
	} {
		t.Run(strings.ReplaceAll(tc.name, "/", "_"), func(t *testing.T) {
			code, out, errOut := run(t, "", "", strings.Fields(tc.args)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

// TestConfigGolden pins `loopbreak config`: the defaults (in a directory
// without a config file) in each format, and a discovered loopbreak.toml
// with --set on top, each value naming its source.
func TestConfigGolden(t *testing.T) {
	empty := t.TempDir()
	withFile := t.TempDir()
	writeFile(t, filepath.Join(withFile, "loopbreak.toml"), "[loop_break]\nmax_turns_stuck = 30\nenable_loop_detection = false\n")
	for _, tc := range []struct{ name, dir, args string }{
		{"config/default.txt", empty, "config"},
		{"config/default.json", empty, "config --format json"},
		{"config/default.toml", empty, "config --format toml"},
		{"config/file-and-set.txt", withFile, "config --set stuck_check_interval=5 --set camping_window=8"},
		{"config/file-and-set.toml", withFile, "config --format toml --set stuck_check_interval=5"},
	} {
		t.Run(strings.ReplaceAll(tc.name, "/", "_"), func(t *testing.T) {
			var code int
			var out, errOut string
			inDir(t, tc.dir, func() { code, out, errOut = run(t, "", "", strings.Fields(tc.args)...) })
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

// inDir runs f in dir (config discovery reads the working directory) and
// comes back, so golden files are found relative to the package again.
func inDir(t *testing.T, dir string, f func()) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Chdir(wd); err != nil {
			t.Fatal(err)
		}
	}()
	f()
}

// TestGenerateGolden pins `loopbreak generate`: its message and the corpus
// a seed gives (same seed, same corpus), file by file with sizes.
func TestGenerateGolden(t *testing.T) {
	dir := t.TempDir()
	var code int
	var out, errOut string
	inDir(t, dir, func() {
		code, out, errOut = run(t, "", "", "generate", "-n", "3", "--seed", "7", "--max-noise", "4KiB", "corpus")
	})
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "generate/seed7-n3.txt", out+listTree(t, filepath.Join(dir, "corpus")))
}

// TestGenerateSize: --size stops at the first episode that reaches it,
// and says so; by default generate stops at 50 MB.
func TestGenerateSize(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "", "", "generate", "-n", "5", "--size", "1B", dir)
	if want := fmt.Sprintf("wrote 1 episode (1.9 MB) under %s\nstopped at --size 1B, before 5 episodes (--size 0: no limit)\n", dir); code != 0 || out != want || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
}

// listTree lists the files under root, one "path bytes" line each.
func listTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(&b, "%s %d\n", filepath.ToSlash(rel), info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRunOutputs: options → output, calling each run function directly,
// with stdout a terminal and not: these commands print the same either
// way (no colour, no terminal-width tables), so both match the goldens.
func TestRunOutputs(t *testing.T) {
	empty := t.TempDir()
	for _, tty := range []bool{false, true} {
		for _, tc := range []struct {
			golden string
			run    func(*IOStreams) error
		}{
			{"rules/camping-oscillation.txt", func(ios *IOStreams) error {
				return rulesRun(&RulesOptions{IO: ios, Names: []string{"camping", "oscillation"}, Format: "text"})
			}},
			{"rules/all.json", func(ios *IOStreams) error { return rulesRun(&RulesOptions{IO: ios, Format: "json"}) }},
			{"config/default.txt", func(ios *IOStreams) error {
				return configRun(&ConfigOptions{IO: ios, Config: configFlags{Dir: empty}, Format: "text"})
			}},
			{"config/default.toml", func(ios *IOStreams) error {
				return configRun(&ConfigOptions{IO: ios, Config: configFlags{Dir: empty}, Format: "toml"})
			}},
		} {
			t.Run(fmt.Sprintf("%s tty=%v", tc.golden, tty), func(t *testing.T) {
				ios, _, out, errOut := Test()
				ios.StdoutTTY, ios.StderrTTY = tty, tty
				if err := tc.run(ios); err != nil || errOut.Len() > 0 {
					t.Fatalf("%v: %s", err, errOut)
				}
				want, err := os.ReadFile(filepath.Join("..", "testdata", tc.golden))
				if err != nil {
					t.Fatal(err)
				}
				if out.String() != string(want) {
					t.Errorf("output differs from %s:\n%s", tc.golden, out)
				}
			})
		}
	}
}
