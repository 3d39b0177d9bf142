package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// -j takes a positive number: 0, a negative number and a word are usage
// errors (exit 2) that say what -j wants, for every command that reads
// logs; a huge -j is capped at 4 workers per CPU (it allocated per worker:
// -j 100000000 made the machine unresponsive).
func TestJobsFlag(t *testing.T) {
	log := filepath.Join("..", "testdata", "attempts", "autopilot.jsonl")
	for _, c := range []struct{ arg, want string }{
		{"0", `invalid argument "0" for "-j, --jobs" flag: want at least 1 file read at a time (leave -j out for one per CPU)`},
		{"-3", `invalid argument "-3" for "-j, --jobs" flag: want at least 1 file read at a time (leave -j out for one per CPU)`},
		{"many", `invalid argument "many" for "-j, --jobs" flag: want a whole number of files read in parallel`},
	} {
		for _, command := range []string{"analyze", "sweep", "check", "report"} {
			args := []string{command, "-j", c.arg, log}
			if command == "sweep" {
				args = append(args, "--grid", "max_attempts=3")
			}
			code, _, errOut := run(t, "", "", args...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("%s -j %s: exit %d, stderr %q; want 2 and %q", command, c.arg, code, errOut, c.want)
			}
		}
	}
	for _, c := range []struct {
		arg  string
		want int
	}{{"1", 1}, {"3", min(3, maxJobs())}, {"1000000", maxJobs()}, {"100000000000", maxJobs()}} {
		opts, err := parseCmd(t, NewCmdAnalyze, "-j", c.arg, log)
		if err != nil || opts.Input.Jobs != c.want {
			t.Errorf("-j %s: Jobs %v (%v), want %d", c.arg, opts, err, c.want)
		}
	}
	opts, err := parseCmd(t, NewCmdAnalyze, log)
	if err != nil || opts.Input.Jobs != 0 {
		t.Errorf("no -j: Jobs %d (%v), want 0 (one per CPU)", opts.Input.Jobs, err)
	}
	// A huge -j over one log runs as -j 1 does.
	code, out, errOut := run(t, "", "", "analyze", "-j", "100000000", log)
	code1, out1, _ := run(t, "", "", "analyze", "-j", "1", log)
	if code != code1 || out != out1 {
		t.Errorf("-j 100000000: exit %d, %q\n%s; -j 1: exit %d", code, errOut, out, code1)
	}
}
