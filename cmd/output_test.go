package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -o FILE writes every format of analyze, sweep and check to the file,
// byte for byte what standard output gets; a terminal is told.
func TestOutputEveryFormat(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"analyze", stepsLog},
		{"analyze", "--format", "json", stepsLog},
		{"analyze", "--format", "jsonl", attemptsLog},
		{"sweep", "-q", "--grid", "fuzzy_threshold=0.8,0.9", stepsLog},
		{"sweep", "-q", "--format", "csv", "--max-stuck", "30,40", "../testdata/episodes"},
		{"check", "--no-baseline", "--format", "markdown", "../testdata/episodes"},
	} {
		name := strings.Join(args, " ")
		ios, _, want, _ := Test()
		wantCode := Main(args, ios)
		path := filepath.Join(dir, "out")
		ios, _, out, errOut := Test()
		ios.StderrTTY = true
		if code := Main(append(append([]string{}, args[:1]...), append([]string{"-o", path}, args[1:]...)...), ios); code != wantCode {
			t.Errorf("%s -o: exit %d, want %d: %s", name, code, wantCode, errOut)
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want.String() || out.Len() != 0 {
			t.Errorf("%s -o: file %q (%v), stdout %q; want the report %q", name, got, err, out, want)
		}
		if !strings.Contains(errOut.String(), "wrote "+path) {
			t.Errorf("%s -o: stderr %q", name, errOut)
		}
		os.Remove(path)
	}
}

// help of no such command is an error with the commands it may mean.
func TestHelpUnknownTopic(t *testing.T) {
	code, out, errOut := run(t, "", "", "help", "analyz")
	if code != ExitError || out != "" || !strings.Contains(errOut, `unknown help topic "analyz" (did you mean analyze?)`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ := run(t, "", "", "help", "sweep"); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("help sweep: exit %d: %s", code, out)
	}
}

// --json is --format json wherever --format takes json.
func TestJSONAlias(t *testing.T) {
	for _, args := range [][]string{
		{"analyze", stepsLog},
		{"sweep", "-q", "--max-stuck", "30,40", stepsLog},
		{"check", "--no-baseline", "../testdata/episodes"},
		{"rules", "camping"},
		{"config"},
	} {
		_, want, _ := run(t, "", "", append([]string{args[0], "--format", "json"}, args[1:]...)...)
		code, got, errOut := run(t, "", "", append([]string{args[0], "--json"}, args[1:]...)...)
		if code > 1 || got != want || !strings.HasPrefix(got, "{") {
			t.Errorf("%s --json: exit %d %s\n%.200s\nwant\n%.200s", args[0], code, errOut, got, want)
		}
	}
}

// A mistyped flag or rule name gets the one meant.
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--max-stuk", "30", "x"}, "unknown flag: --max-stuk (did you mean --max-stuck?)"},
		{[]string{"analyze", "--verbos", "x"}, "unknown flag: --verbos (did you mean --verbose?)"},
		{[]string{"rules", "campng"}, `unknown rule "campng" (did you mean camping?)`},
	} {
		code, _, errOut := run(t, "", "", c.args...)
		if code != ExitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errOut, c.want)
		}
	}
	if code, _, errOut := run(t, "", "", "analyze", "--zzzzzz", "x"); code != ExitError || strings.Contains(errOut, "did you mean") {
		t.Errorf("no near flag: exit %d, %q", code, errOut)
	}
}

// TERM=dumb turns colour off on a terminal, as NO_COLOR does.
func TestTermDumbNoColour(t *testing.T) {
	for term, want := range map[string]bool{"xterm-256color": true, "dumb": false} {
		ios, _, _, _ := Test()
		ios.StdoutTTY = true
		ios.Getenv = func(k string) string {
			if k == "TERM" {
				return term
			}
			return ""
		}
		if got := ios.ColorEnabled("auto"); got != want {
			t.Errorf("TERM=%s: colour %v, want %v", term, got, want)
		}
	}
}

// An output that cannot be written is named as the user gave it, never as
// the temporary file beside it (.loopbreak-tmp-…), and refused before the
// run when a directory is in its place.
func TestOutputErrorNamesUserPath(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"report", "-o", "out.html", stepsLog},
		{"analyze", "-o", "out.html", "--format", "json", stepsLog},
		{"sweep", "-q", "-o", "out.html", "--grid", "fuzzy_threshold=0.8,0.9", stepsLog},
		{"analyze", "--partial", "-o", "out.html", stepsLog},
	} {
		target := filepath.Join(dir, "out.html")
		if err := os.MkdirAll(target, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if a == "out.html" {
				args[i] = target
			}
		}
		code, _, errOut := run(t, "", "", args...)
		if code != ExitError || !strings.Contains(errOut, target+": is a directory") || strings.Contains(errOut, ".loopbreak-") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".loopbreak-*")); len(left) > 0 {
			t.Errorf("%v: left behind %v", args, left)
		}
	}
}
