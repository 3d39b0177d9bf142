//go:build unix

package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWatchGeminiCLI runs the real Gemini CLI headless (scripted model
// output through its own --fake-responses-non-strict, a throwaway HOME, no
// network) with a model that asks for the same read_file call again and
// again, while watch follows the CLI's data directory; the CLI's loop
// detector stops it, and watch's firings for the session file the CLI
// wrote are analyze's for the finished file, in order. It needs node and the
// pinned CLI that .ci/npm-test-deps installs (into $LOOPBREAK_GEMINI_CLI,
// else the user cache dir's loopbreak/gemini-cli-0.61.0); without them it
// is skipped, unless CI is set: CI installs them, so there it fails.
func TestWatchGeminiCLI(t *testing.T) {
	dir := os.Getenv("LOOPBREAK_GEMINI_CLI")
	if dir == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(cache, "loopbreak", "gemini-cli-0.61.0")
		}
	}
	cli := filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
	node, err := exec.LookPath("node")
	missing := ""
	if err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(cli); err != nil {
		missing = cli + " is not installed (run .ci/npm-test-deps)"
	}
	if missing != "" {
		if os.Getenv("CI") == "" {
			t.Skip(missing)
		}
		t.Fatal(missing + "; CI must run this test")
	}
	home, work := t.TempDir(), t.TempDir()
	data := filepath.Join(home, ".gemini") // the CLI's data; its chats/ appear below
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The model: a read_file call at every turn; any side request (the
	// router, the next-speaker check) gets a plain answer.
	var fake strings.Builder
	call := map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP", "content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]any{"file_path": "notes.txt"}}}}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
	}}}
	side := map[string]any{"method": "generateContent", "response": map[string]any{"candidates": []any{map[string]any{"index": 0,
		"finishReason": "STOP", "content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": `{"reasoning":"-","next_speaker":"user"}`}}}}}}}
	for range 12 {
		b, _ := json.Marshal(call)
		fake.Write(append(b, '\n'))
	}
	for range 12 {
		b, _ := json.Marshal(side)
		fake.Write(append(b, '\n'))
	}
	fakePath := filepath.Join(t.TempDir(), "fake.jsonl")
	if err := os.WriteFile(fakePath, []byte(fake.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	// A log there at the start: once watch has found it, its first scan
	// has listed the directory, and the CLI's files are new ones.
	if err := os.WriteFile(filepath.Join(data, "ready.jsonl"), repeatLog(1, "ls"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, out, stderr := startWatch(t, "--input-format", "steps", data)
	waitLines(t, out, stderr, 10*time.Second, "the first log", func(ls []watchLine) bool { return len(ls) > 0 })
	g := exec.Command(node, cli, "-p", "read notes.txt", "--fake-responses-non-strict", fakePath, "--yolo")
	g.Dir = work
	// No network: a dead proxy for anything that tries.
	g.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=fake", "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "CI=true"}
	cliOut, err := g.CombinedOutput()
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, cliOut)
	}
	chats, _ := filepath.Glob(filepath.Join(data, "tmp", "*", "chats", "session-*.jsonl"))
	if len(chats) != 1 {
		t.Fatalf("the CLI wrote %v, want one session file", chats)
	}
	session := chats[0]
	recorded, _ := os.ReadFile(session)
	if !strings.Contains(string(recorded), "Potential loop detected") {
		t.Errorf("the CLI's loop detector did not fire; its session:\n%s", recorded)
	}
	want := analyzeFirings(t, session, "--input-format", "steps")
	if !slices.ContainsFunc(want, func(f string) bool { return strings.Contains(f, `"rule":"tool_cycle"`) }) {
		t.Fatalf("analyze finds no tool_cycle firing in the CLI's session, whose own detector fired:\n%s", strings.Join(want, "\n"))
	}
	// The CLI's recorded detection is read as its live verdict, and the
	// replay agrees with it.
	ios, _, jsonOut, errOut := Test()
	if code := Main([]string{"analyze", "--format", "json", session}, ios); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	var doc struct {
		Episodes []struct {
			Live *struct {
				Events int  `json:"events"`
				Agrees bool `json:"agrees"`
			} `json:"live"`
		} `json:"episodes"`
	}
	if err := json.Unmarshal(jsonOut.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Episodes) != 1 || doc.Episodes[0].Live == nil || doc.Episodes[0].Live.Events == 0 || !doc.Episodes[0].Live.Agrees {
		t.Errorf("the CLI's recorded detection is not read as agreeing with the replay: %s", jsonOut)
	}
	ls := waitLines(t, out, stderr, 10*time.Second, "the session's firings", func(ls []watchLine) bool {
		return len(watchFirings(ls, session)) >= len(want)
	})
	if got := watchFirings(ls, session); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("watch: %d firings, analyze %d:\n%s", len(got), len(want), firstDiff(got, want))
	}
	t.Logf("analyze's firings of the CLI's session: %s", strings.Join(want, "\n"))
	stopWatch(t, c, stderr)
}
