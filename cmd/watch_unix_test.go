//go:build unix

package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// Tests of `loopbreak watch` with real files written while a real watch
// process follows them.

// watchEpisode is a generated ZorkGPT episode of about turns turns, small
// lines only, with room ids (revisit penalties fire).
func watchEpisode(t *testing.T, seed uint64, turns int) []byte {
	t.Helper()
	s := replaytest.RandomScenario(seed, time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC).Add(time.Duration(seed)*time.Hour))
	s.Turns = min(s.Turns, turns)
	var objs []int
	for _, o := range s.Objectives {
		if o <= s.Turns {
			objs = append(objs, o)
		}
	}
	s.Objectives = objs
	s.WithIDs, s.WithPenaltyEvents = true, true
	s.NoiseBytes = 0
	if s.Ending == replaytest.EndStuckTermination || s.Ending == replaytest.EndTruncated {
		s.Ending = replaytest.EndMaxTurns
		s.LiveLoopBreak = false
	}
	var b bytes.Buffer
	if err := replaytest.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// startWatch runs `loopbreak watch --format jsonl args...` as a process.
func startWatch(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer, *bytes.Buffer) {
	t.Helper()
	return loopbreakProcessOut(t, t.TempDir(), append([]string{"watch", "--format", "jsonl"}, args...)...)
}

// watchLine is one line of watch's JSON Lines, decoded.
type watchLine struct {
	Event   string `json:"event"`
	Session string `json:"session"`
	Episode string `json:"episode"`
	Reason  string `json:"reason"`
	Turn    int    `json:"turn"`
	Rule    string `json:"rule"`
	Kind    string `json:"kind"`
	Firings int    `json:"firings"`
	raw     string
}

func watchLines(t *testing.T, out []byte) []watchLine {
	t.Helper()
	var ls []watchLine
	for _, raw := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if raw == "" {
			continue
		}
		var l watchLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatalf("watch wrote a line that is not JSON: %v\n%s", err, raw)
		}
		l.raw = raw
		ls = append(ls, l)
	}
	return ls
}

// waitLines polls watch's output until cond holds, failing at timeout.
func waitLines(t *testing.T, out *syncBuffer, stderr *bytes.Buffer, timeout time.Duration, what string, cond func([]watchLine) bool) []watchLine {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ls := watchLines(t, out.Bytes())
		if cond(ls) {
			return ls
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch: no %s within %v; output:\n%s", what, timeout, out.Bytes())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func count(ls []watchLine, pred func(watchLine) bool) int {
	n := 0
	for _, l := range ls {
		if pred(l) {
			n++
		}
	}
	return n
}

var firingPrefix = regexp.MustCompile(`^\{"event":"firing","session":"[^"]*","episode":"[^"]*","offset":\d+,`)

// watchFirings are the session's firing lines as analyze encodes a firing.
func watchFirings(ls []watchLine, session string) []string {
	var fs []string
	for _, l := range ls {
		if l.Event == "firing" && l.Session == session {
			fs = append(fs, "{"+firingPrefix.ReplaceAllString(l.raw, ""))
		}
	}
	return fs
}

// analyzeFirings are `analyze --format jsonl`'s firings of a log, in
// order, each as its bytes.
func analyzeFirings(t *testing.T, path string, args ...string) []string {
	t.Helper()
	ios, _, out, errOut := Test()
	if code := Main(append(append([]string{"analyze", "--format", "jsonl"}, args...), path), ios); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	var fs []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var ep struct {
			Firings []json.RawMessage `json:"firings"`
		}
		if err := json.Unmarshal([]byte(line), &ep); err != nil {
			t.Fatal(err)
		}
		for _, f := range ep.Firings {
			fs = append(fs, string(f))
		}
	}
	return fs
}

// writeSlowly appends data to path line by line, with random pauses and
// lines written in two parts.
func writeSlowly(t *testing.T, path string, data []byte, seed uint64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(seed, 1))
	pause := func() {
		switch x := rng.Float64(); {
		case x < 0.03:
			time.Sleep(time.Duration(20+rng.IntN(30)) * time.Millisecond) // past the settle time
		case x < 0.5:
			time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond)
		}
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n') + 1
		if i == 0 {
			i = len(data)
		}
		line := data[:i]
		data = data[i:]
		if len(line) > 2 && rng.Float64() < 0.3 {
			cut := 1 + rng.IntN(len(line)-1) // a partial line, its newline later
			if _, err := f.Write(line[:cut]); err != nil {
				t.Error(err)
				return
			}
			pause()
			line = line[cut:]
		}
		if _, err := f.Write(line); err != nil {
			t.Error(err)
			return
		}
		pause()
	}
}

// stopWatch sends SIGTERM and waits: a watch interrupted exits 2.
func stopWatch(t *testing.T, c *exec.Cmd, stderr *bytes.Buffer) {
	t.Helper()
	c.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitError || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("watch after SIGTERM: %v, stderr %q; want exit 2, interrupted", err, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not end within 10s of SIGTERM")
	}
}

// TestWatchEqualsAnalyze: two episodes are written line by line, with
// pauses and partial lines, into a directory a watch process follows
// (their directories created after it started); its firings for each are
// analyze's for the finished file, byte for byte and in order, and each
// ends at its own end record.
func TestWatchEqualsAnalyze(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--set", "enable_loop_detection=true"}
	c, out, stderr := startWatch(t, append(args, dir)...)
	time.Sleep(100 * time.Millisecond) // its first scan: the sessions are new ones
	eps := map[string][]byte{}
	for i, seed := range []uint64{3, 11} {
		sub := filepath.Join(dir, "ep"+string(rune('a'+i)))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		eps[filepath.Join(sub, "episode_log.jsonl")] = watchEpisode(t, seed, 150)
	}
	done := make(chan struct{})
	for path, data := range eps {
		go func() {
			defer func() { done <- struct{}{} }()
			writeSlowly(t, path, data, uint64(len(data)))
		}()
	}
	for range eps {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("writers did not finish within 60s")
		}
	}
	total := 0
	want := map[string][]string{}
	for path := range eps {
		want[path] = analyzeFirings(t, path, args...)
		total += len(want[path])
	}
	t.Logf("analyze: %d firings in %d episodes", total, len(eps))
	if total == 0 {
		t.Fatal("the episodes fire nothing: the test would prove nothing")
	}
	ls := waitLines(t, out, stderr, 20*time.Second, "end of both episodes", func(ls []watchLine) bool {
		return count(ls, func(l watchLine) bool { return l.Event == "end" }) == len(eps)
	})
	for path := range eps {
		got := watchFirings(ls, path)
		if strings.Join(got, "\n") != strings.Join(want[path], "\n") {
			t.Errorf("%s: watch reported %d firings, analyze %d; first difference:\n%s", path, len(got), len(want[path]), firstDiff(got, want[path]))
		}
		if count(ls, func(l watchLine) bool { return l.Event == "start" && l.Session == path && l.Reason == "new session" }) != 1 {
			t.Errorf("%s: no start event for a new session", path)
		}
		for _, l := range ls {
			if l.Event == "end" && l.Session == path && (!strings.HasPrefix(l.Reason, "ended: ") || l.Firings != len(want[path])) {
				t.Errorf("%s: end %s", path, l.raw)
			}
			if l.Event == "revised" || l.Event == "restart" {
				t.Errorf("unexpected %s", l.raw)
			}
		}
	}
	stopWatch(t, c, stderr)
}

func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return "#" + string(rune('0'+i%10)) + " watch:   " + g + "\n   analyze: " + w
		}
	}
	return ""
}
