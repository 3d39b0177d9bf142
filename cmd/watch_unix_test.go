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
	for _, leg := range s.Route {
		if leg.Until > s.Turns {
			s.Route = nil // planned past the cut: a random walk instead
			break
		}
	}
	s.WithIDs, s.WithPenaltyEvents = true, true
	s.NoiseBytes = 0
	s.Quirks = replaytest.Quirks{} // a restart planned past the cut turns
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
	Step    int    `json:"step"`
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
		l.Turn += l.Step // one of them: the unit's number
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
	// A session there at the start: once watch has found it, its first
	// scan has listed the directory, and the episodes below are new ones.
	old := filepath.Join(dir, "old", "episode_log.jsonl")
	os.Mkdir(filepath.Dir(old), 0o755)
	if err := os.WriteFile(old, watchEpisode(t, 7, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	c, out, stderr := startWatch(t, append(args, dir)...)
	waitLines(t, out, stderr, 10*time.Second, "the first session", func(ls []watchLine) bool { return len(ls) > 0 })
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
		return count(ls, func(l watchLine) bool { return l.Event == "end" && l.Session != old }) == len(eps)
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
			if l.Event == "end" && l.Session == path && (!strings.HasPrefix(l.Reason, "recorded end: ") || l.Firings != len(want[path])) {
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

// repeatLog is a steps log whose agent runs the same command n times:
// tool_cycle/stop fires at step 6.
func repeatLog(n int, action string) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		rec, _ := json.Marshal(map[string]any{"step": i, "kind": "action", "action": action, "output": "1 failing"})
		b.Write(append(rec, '\n'))
	}
	return b.Bytes()
}

// TestWatchExitOnExec: --exit-on stops at the first tool_cycle/stop with
// exit 3, naming it, after --exec ran for it with the firing on stdin and
// the LOOPBREAK_* variables.
func TestWatchExitOnExec(t *testing.T) {
	dir := t.TempDir()
	log, envOut, stdinOut := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "env.txt"), filepath.Join(dir, "stdin.json")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `printf '%s %s %s %s %s\n' "$LOOPBREAK_RULE" "$LOOPBREAK_KIND" "$LOOPBREAK_STEP" "$LOOPBREAK_UNIT" "$LOOPBREAK_SESSION" >> ` + envOut + `; cat >> ` + stdinOut
	c, out, stderr := startWatch(t, "--exit-on", "tool_cycle/stop", "--exec", script, log)
	waitLines(t, out, stderr, 10*time.Second, "start", func(ls []watchLine) bool { return len(ls) > 0 })
	go writeSlowly(t, log, repeatLog(12, "run_shell npm test"), 7)
	if code := waitExitWithin(t, c, 20*time.Second); code != ExitMatch {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitMatch, stderr)
	}
	if !strings.Contains(stderr.String(), "--exit-on tool_cycle/stop: "+log+" step 6") {
		t.Errorf("stderr %q does not name the match", stderr)
	}
	env, _ := os.ReadFile(envOut)
	if string(env) != "tool_cycle stop 6 step "+log+"\n" {
		t.Errorf("--exec saw %q, want one run for tool_cycle/stop at step 6", env)
	}
	ls := watchLines(t, out.Bytes())
	last := ls[len(ls)-1]
	if last.Rule != "tool_cycle" || last.Kind != "stop" || last.Turn != 6 {
		t.Errorf("last line %s, want the matching firing", last.raw)
	}
	// Its standard input: the firing's line, as watch printed it.
	in, _ := os.ReadFile(stdinOut)
	if string(in) != last.raw+"\n" || !strings.HasSuffix(last.raw, `,"step":6,"rule":"tool_cycle","kind":"stop","origin":"gemini-cli","cycle_length":1,"after_cut":false}`) {
		t.Errorf("--exec stdin %q, want %q", in, last.raw+"\n")
	}
}

// TestWatchExecFails: a failing --exec is reported on stderr at each
// firing, and the watch goes on to report every firing.
func TestWatchExecFails(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "run.jsonl")
	data := repeatLog(9, "run_shell npm test")
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, out, stderr := startWatch(t, "--exec", "echo refused >&2; exit 7", "--exec-on", "repeat_action_observation/stop", log)
	want := analyzeFirings(t, log)
	ls := waitLines(t, out, stderr, 10*time.Second, "every firing", func(ls []watchLine) bool { return len(watchFirings(ls, log)) == len(want) })
	if got := watchFirings(ls, log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("firings differ from analyze's:\n%s", firstDiff(got, want))
	}
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(stderr.String(), "exit status 7") < 6 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stopWatch(t, c, stderr)
	// repeat_action_observation/stop fires at steps 4 to 9.
	if n := strings.Count(stderr.String(), "exit status 7"); n != 6 || strings.Count(stderr.String(), "refused") != 6 {
		t.Errorf("stderr reports %d failures, want 6:\n%s", n, stderr)
	}
	if !strings.Contains(stderr.String(), "--exec for "+log+" step 4 repeat_action_observation/stop: exit status 7") {
		t.Errorf("stderr does not name the failing firing:\n%s", stderr)
	}
}

// TestWatchTruncateReplaceDelete: a truncated file and a file replaced at
// the path start the session over (and say so), a deleted file ends it,
// and a file created again at the path is a new session.
func TestWatchTruncateReplaceDelete(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "episode_log.jsonl")
	data := watchEpisode(t, 5, 80)
	want := analyzeFirings(t, writeTemp(t, data))
	half := data[:bytes.IndexByte(data[len(data)/2:], '\n')+len(data)/2+1]
	if err := os.WriteFile(log, half, 0o644); err != nil {
		t.Fatal(err)
	}
	c, out, stderr := startWatch(t, log)
	waitLines(t, out, stderr, 10*time.Second, "firings of the first half", func(ls []watchLine) bool { return len(watchFirings(ls, log)) > 0 })
	if err := os.Truncate(log, 0); err != nil {
		t.Fatal(err)
	}
	ls := waitLines(t, out, stderr, 10*time.Second, "restart after truncation", func(ls []watchLine) bool {
		return count(ls, func(l watchLine) bool { return l.Event == "restart" && strings.HasPrefix(l.Reason, "truncated") }) == 1
	})
	mark := len(ls)
	writeSlowly(t, log, data, 1)
	ls = waitLines(t, out, stderr, 10*time.Second, "the episode's end", func(ls []watchLine) bool {
		return count(ls[mark:], func(l watchLine) bool { return l.Event == "end" }) == 1
	})
	if got := watchFirings(ls[mark:], log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after truncation: %d firings, analyze %d:\n%s", len(got), len(want), firstDiff(got, want))
	}

	// Replaced: another file renamed over the path.
	mark = len(ls)
	tmp := filepath.Join(dir, "new.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, log); err != nil {
		t.Fatal(err)
	}
	ls = waitLines(t, out, stderr, 10*time.Second, "the replaced file's end", func(ls []watchLine) bool {
		return count(ls[mark:], func(l watchLine) bool { return l.Event == "end" }) == 1
	})
	if ls[mark].Event != "restart" || !strings.HasPrefix(ls[mark].Reason, "replaced") {
		t.Errorf("after a replacement: %s, want a restart saying so", ls[mark].raw)
	}
	if got := watchFirings(ls[mark:], log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after replacement: %d firings, analyze %d:\n%s", len(got), len(want), firstDiff(got, want))
	}

	// Deleted while an episode is open, then created again.
	mark = len(ls)
	if err := os.WriteFile(tmp, half, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, log); err != nil {
		t.Fatal(err)
	}
	waitLines(t, out, stderr, 10*time.Second, "the half episode's firings", func(ls []watchLine) bool {
		return len(watchFirings(ls[mark:], log)) > 0
	})
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	ls = waitLines(t, out, stderr, 10*time.Second, "end at deletion", func(ls []watchLine) bool {
		return count(ls[mark:], func(l watchLine) bool { return l.Event == "end" && l.Reason == "deleted" }) == 1
	})
	mark = len(ls)
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ls = waitLines(t, out, stderr, 10*time.Second, "the new file's end", func(ls []watchLine) bool {
		return count(ls[mark:], func(l watchLine) bool { return l.Event == "end" }) == 1
	})
	if ls[mark].Event != "start" || ls[mark].Reason != "new session" {
		t.Errorf("a file created again: %s, want a new session", ls[mark].raw)
	}
	if got := watchFirings(ls[mark:], log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("created again: %d firings, analyze %d:\n%s", len(got), len(want), firstDiff(got, want))
	}
	stopWatch(t, c, stderr)
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "episode_log.jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWatchIdle: a session without a write for --idle ends with its
// summary, its last turn's firings reported; a write resumes it. SIGTERM
// then ends it with a summary naming the interruption.
func TestWatchIdle(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "run.jsonl")
	data := repeatLog(9, "run_shell npm test")
	first := data[:len(data)/9*7] // steps 1-7
	if err := os.WriteFile(log, first, 0o644); err != nil {
		t.Fatal(err)
	}
	c, out, stderr := startWatch(t, "--idle", "300ms", log)
	ls := waitLines(t, out, stderr, 10*time.Second, "an idle end", func(ls []watchLine) bool {
		return count(ls, func(l watchLine) bool { return l.Event == "end" }) == 1
	})
	want := analyzeFirings(t, writeTemp(t, first))
	end := ls[len(ls)-1]
	if end.Event != "end" || end.Reason != "idle for 300ms" || end.Firings != len(want) {
		t.Errorf("idle end %s, want reason idle and %d firings", end.raw, len(want))
	}
	if got := watchFirings(ls, log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("before idle: %s", firstDiff(got, want))
	}
	mark := len(ls)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data[len(first):])
	f.Close()
	want = analyzeFirings(t, log)
	ls = waitLines(t, out, stderr, 10*time.Second, "the second idle end", func(ls []watchLine) bool {
		return count(ls[mark:], func(l watchLine) bool { return l.Event == "end" }) == 1
	})
	if got := watchFirings(ls, log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after resuming: %s", firstDiff(got, want))
	}
	// Written again, then interrupted before it is idle.
	f, _ = os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(repeatLog(10, "run_shell npm test")[len(data):])
	f.Close()
	mark = len(ls)
	waitLines(t, out, stderr, 10*time.Second, "step 10's firings", func(ls []watchLine) bool {
		return count(ls[mark:], func(l watchLine) bool { return l.Turn == 10 }) > 0
	})
	stopWatch(t, c, stderr)
	ls = watchLines(t, out.Bytes())
	if last := ls[len(ls)-1]; last.Event != "end" || last.Reason != "interrupted" {
		t.Errorf("after SIGTERM: %s, want an interrupted end", last.raw)
	}
}

// TestWatchPollFromEnd: with --poll and --from-end, what a directory holds
// at the start is not reported; a session created later is, whole, and so
// is what is written later into a file that was there, empty.
func TestWatchPollFromEnd(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "a", "episode_log.jsonl")
	os.Mkdir(filepath.Dir(old), 0o755)
	data := watchEpisode(t, 5, 60)
	if err := os.WriteFile(old, data, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "c", "episode_log.jsonl") // there at the start, written later
	os.Mkdir(filepath.Dir(empty), 0o755)
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c, out, stderr := startWatch(t, "--poll", "50ms", "--from-end", dir)
	waitLines(t, out, stderr, 10*time.Second, "start", func(ls []watchLine) bool { return len(ls) == 2 })
	fresh := filepath.Join(dir, "b", "episode_log.jsonl")
	os.Mkdir(filepath.Dir(fresh), 0o755)
	writeSlowly(t, fresh, data, 2)
	want := analyzeFirings(t, fresh)
	ls := waitLines(t, out, stderr, 10*time.Second, "the new session's end", func(ls []watchLine) bool {
		return count(ls, func(l watchLine) bool { return l.Event == "end" }) == 1
	})
	if got := watchFirings(ls, fresh); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("new session: %d firings, analyze %d:\n%s", len(got), len(want), firstDiff(got, want))
	}
	// Steps, several at once: their first read has firings to report.
	if err := os.WriteFile(empty, repeatLog(9, "make"), 0o644); err != nil {
		t.Fatal(err)
	}
	want = analyzeFirings(t, empty)
	ls = waitLines(t, out, stderr, 10*time.Second, "the once empty log's firings", func(ls []watchLine) bool {
		return len(watchFirings(ls, empty)) >= len(want)
	})
	if got := watchFirings(ls, empty); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a log empty at the start: %d firings, analyze %d:\n%s", len(got), len(want), firstDiff(got, want))
	}
	if n := len(watchFirings(ls, old)); n != 0 {
		t.Errorf("--from-end reported %d firings of a log already there", n)
	}
	stopWatch(t, c, stderr)
}

// TestWatchTextEscapes: the text output quotes what a log says that a
// terminal would obey (escape sequences), in paths and in fields.
func TestWatchTextEscapes(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "run\x1b[31m.jsonl")
	if err := os.WriteFile(log, repeatLog(7, "rm -rf \x1b[2J\x07"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, out, errOut := Test()
	if code := Main([]string{"watch", "--exit-on", "tool_cycle/stop", log}, ios); code != ExitMatch {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if bytes.ContainsAny(out.Bytes(), "\x1b\x07") || bytes.ContainsAny(errOut.Bytes(), "\x1b\x07") {
		t.Errorf("raw control characters reached the output:\n%q\n%q", out, errOut)
	}
	if !strings.Contains(out.String(), `\x1b[2j\a`) || !strings.Contains(out.String(), strings.ReplaceAll(log, "\x1b", `\x1b`)) {
		t.Errorf("escaped values missing:\n%s", out)
	}
	if !strings.Contains(out.String(), "step 6: tool_cycle/stop cycle_length=1") {
		t.Errorf("no text line for the firing:\n%s", out)
	}
}
