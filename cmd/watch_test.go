package cmd

import (
	"strings"
	"testing"
)

// TestWatchUsage: watch refuses what it cannot follow or act on, exit 2,
// before following anything.
func TestWatchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"watch", "-"}, "not standard input"},
		{[]string{"watch", "--format", "json", "x"}, `--format "json": want one of text, jsonl`},
		{[]string{"watch", "--exit-on", "tool_cycle/stopp", "x"}, `"tool_cycle/stopp": not a rule/kind`},
		{[]string{"watch", "--exec-on", "tool_cycle/stop", "x"}, "--exec-on needs --exec"},
		{[]string{"watch", "--input-format", "xml", "x"}, `--input-format "xml"`},
		{[]string{"watch", "--idle", "-1s", "x"}, "positive duration"},
		{[]string{"watch", "does-not-exist"}, "does-not-exist"},
		{[]string{"watch"}, "requires at least 1 arg"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := run(t, "", "", tc.args...)
			if code != ExitError || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tc.want)
			}
		})
	}
}
