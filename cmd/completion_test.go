package cmd

import (
	"regexp"
	"strings"
	"testing"
)

// complete runs cobra's hidden __complete command, as the shell scripts
// do, and returns its stdout: one candidate a line, then ":directive".
func complete(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := run(t, "", "", append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, errOut)
	}
	return out
}

func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--format", ""}, "text\njson\njsonl\nparquet\n:4\n"},
		{[]string{"sweep", "--format", "c"}, "csv\n:4\n"},
		{[]string{"analyze", "--input-format", "s"}, "steps\nswe-agent\n:4\n"},
		{[]string{"check", "--preset", ""}, "openhands\nopenhands-v1\ngemini-cli\nclaude-code\ncodex\nswe-agent\ncline\nroo\naider\n:4\n"},
		{[]string{"analyze", "--input-format", "c"}, "claude-code\ncodex\ncline\n:4\n"},
		{[]string{"sweep", "--field", "ou"}, "output=\n:6\n"},
		{[]string{"check", "--format", "j"}, "json\njunit\n:4\n"},
		{[]string{"rules", "--format", "m"}, "markdown\n:4\n"},
		{[]string{"config", "--format", "t"}, "text\ntoml\n:4\n"},
		{[]string{"check", "--color", "a"}, "auto\nalways\n:4\n"},
		{[]string{"analyze", "--config", ""}, "toml\n:8\n"},
		{[]string{"sweep", "--labels", ""}, "json\n:8\n"},
		{[]string{"rules", "camping", "o"}, "oscillation\tA-B-A-B movement between two locations\n:4\n"},
		{[]string{"rules", "camping", "cam"}, ":4\n"},
		// A key ends in "=" and no space (4 no file completion + 2 no space).
		{[]string{"analyze", "--set", "max_t"}, "max_turns_stuck=\tturns without progress before termination (default 40)\n:6\n"},
		{[]string{"config", "--set", "camping_w"}, "camping_window=\trecent locations examined (default 10)\n:6\n"},
		{[]string{"sweep", "--grid", "enable_loop"}, "enable_loop_detection=\treplay oscillation, camping and their score adjustments (rules 4-6) (default true)\n:6\n"},
		{[]string{"check", "--set", "enable_stuck_warnings="}, "enable_stuck_warnings=true\nenable_stuck_warnings=false\n:4\n"},
		{[]string{"sweep", "--grid", "enable_stuck_warnings=t"}, "enable_stuck_warnings=true\nenable_stuck_warnings=true,false\n:4\n"},
		{[]string{"analyze", "--set", "max_turns_stuck="}, ":4\n"},
		// A revisit penalty never rejects: no :rejected for it.
		{[]string{"check", "--fail-on", "location"}, "location_revisit/penalty\tthe critic's confidence would have been lowered (adjusted is null when the log has no confidence)\n:4\n"},
		{[]string{"check", "--fail-on", "score_adjustment/adjustment:"}, "score_adjustment/adjustment:rejected\tonly when the action would have been rejected\n:4\n"},
		{[]string{"check", "--fail-on", "li"}, "live\ta live run's logged decisions disagree with the replay\n:4\n"},
		{[]string{"check", "--fail-on", "progress_velocity/t"}, "progress_velocity/termination\tfirst check point: the episode would have been terminated here\n:4\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if got := complete(t, tc.args...); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestCompletionFormats: every command with --format completes exactly
// the values its validation lists in the error for a bad one.
func TestCompletionFormats(t *testing.T) {
	ios, _, _, _ := Test()
	listed := regexp.MustCompile(`--format "bogus": want one of (.*)`)
	for _, c := range NewRootCmd(ios).Commands() {
		if c.Flags().Lookup("format") == nil {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			values, ok := formatValues[c.Name()]
			if !ok {
				t.Fatalf("%s has --format but no completion values in formatValues", c.Name())
			}
			var errOut string
			for _, args := range [][]string{{c.Name(), "--format", "bogus"}, {c.Name(), "--format", "bogus", "x"}} {
				_, _, errOut = run(t, "", "", args...)
				if m := listed.FindStringSubmatch(errOut); m != nil {
					if m[1] != strings.Join(values, ", ") {
						t.Errorf("validation wants %s, completion offers %v", m[1], values)
					}
					return
				}
			}
			t.Fatalf("no format error: %s", errOut)
		})
	}
}

// TestCompletionFailOn: every --fail-on candidate is a spec check accepts
// (exit 0 or 1: the gate ran), and a spec it refuses exits 2.
func TestCompletionFailOn(t *testing.T) {
	out := complete(t, "check", "--fail-on", "")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("no candidates: %q", out)
	}
	specs := []string{"camping/detection:rejected"} // refused: the control
	for _, line := range lines[:len(lines)-1] {
		spec, _, _ := strings.Cut(line, "\t")
		specs = append(specs, spec)
	}
	for i, spec := range specs {
		code, _, errOut := run(t, "", "", "check", "--no-baseline", "--fail-on", spec, episodesDir)
		if refused := code == ExitError; refused != (i == 0) {
			t.Errorf("check --fail-on %s: exit %d: %s", spec, code, errOut)
		}
	}
}

// TestCompletionCommand: cobra's completion command writes a script.
func TestCompletionCommand(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errOut := run(t, "", "", "completion", shell)
		if code != 0 || !strings.Contains(out, "loopbreak") || errOut != "" {
			t.Errorf("%s: exit %d, %d bytes, stderr %q", shell, code, len(out), errOut)
		}
	}
}
