//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWatchAgentsDirNoFlag: watch, with no flag, follows a directory of
// coding agents' sessions as analyze scans it: a Claude Code session that
// appears empty below ~/.claude/projects (nothing to sniff yet) is
// followed once it holds records, and its firings are analyze's; a JSON
// file that is no log (a settings file) never becomes a session.
func TestWatchAgentsDirNoFlag(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "projects", "-home-dev-calc")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "settings.json"), []byte(`{"theme": "dark"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(root, "ready.jsonl") // a steps log there at the start
	if err := os.WriteFile(ready, repeatLog(1, "ls"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, out, stderr := startWatch(t, root)
	waitLines(t, out, stderr, 10*time.Second, "the first log", func(ls []watchLine) bool { return len(ls) > 0 })

	src := filepath.Join("..", "testdata", "agents", "claude-code", "projects", "-home-dev-calc", "3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(project, filepath.Base(src))
	if err := os.WriteFile(session, nil, 0o644); err != nil { // created empty, as an agent opens its log
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	writeSlowly(t, session, data, 3)
	want := analyzeFirings(t, session)
	if len(want) == 0 {
		t.Fatal("analyze finds no firing in the Claude Code fixture: the test would prove nothing")
	}
	ls := waitLines(t, out, stderr, 10*time.Second, "the session's firings", func(ls []watchLine) bool {
		return len(watchFirings(ls, session)) >= len(want)
	})
	if got := watchFirings(ls, session); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("watch: %d firings, analyze %d:\n%s", len(got), len(want), firstDiff(got, want))
	}
	for _, l := range ls {
		if l.Session == filepath.Join(root, "settings.json") {
			t.Errorf("a settings file became a session: %+v", l)
		}
	}
	stopWatch(t, c, stderr)
}
