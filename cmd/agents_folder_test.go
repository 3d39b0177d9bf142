package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAnalyzeFolderOfEveryAgent: `loopbreak analyze DIR`, with no flag, on
// a folder holding one session of each agent's format (the fixtures of
// testdata/agents, testdata/steps and testdata/attempts, copied under one
// directory) reads every one, auto-detected, with no line skipped. A
// Cline task's ui_messages.json beside its history is not a session.
func TestAnalyzeFolderOfEveryAgent(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{"agents", "steps", "attempts"} {
		if err := os.CopyFS(filepath.Join(dir, src), os.DirFS(filepath.Join("..", "testdata", src))); err != nil {
			t.Fatal(err)
		}
	}
	ios, _, out, errOut := Test()
	if code := Main([]string{"analyze", "--format", "json", dir}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Episodes []struct {
			ID    string `json:"episode_id"`
			Input struct {
				Format   string `json:"format"`
				Preset   string `json:"preset"`
				Detected bool   `json:"detected"`
			} `json:"input"`
			Diagnostics struct {
				Skipped int `json:"skipped"`
			} `json:"diagnostics"`
		} `json:"episodes"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var presets []string
	for _, e := range doc.Episodes {
		if !e.Input.Detected || e.Diagnostics.Skipped != 0 {
			t.Errorf("%s: %+v, %d lines skipped", e.ID, e.Input, e.Diagnostics.Skipped)
		}
		presets = append(presets, e.Input.Format+"/"+e.Input.Preset)
	}
	for _, want := range []string{"steps/claude-code", "steps/codex", "steps/swe-agent", "steps/cline", "steps/aider",
		"steps/openhands", "steps/gemini-cli", "steps/", "attempts/"} {
		if !slices.Contains(presets, want) {
			t.Errorf("no session read as %s; read: %v", want, presets)
		}
	}
}

// TestAnalyzeFolderForcedAgentFormat: --input-format NAME on a directory
// reads that agent's sessions below it whatever their file names, as it
// reads a file named on the command line (it found none: the scan looked
// for ZorkGPT's episode_log.jsonl only).
func TestAnalyzeFolderForcedAgentFormat(t *testing.T) {
	dir := t.TempDir()
	src, err := filepath.Glob(filepath.Join("..", "testdata", "agents", "claude-code", "projects", "*", "*.jsonl"))
	if err != nil || len(src) == 0 {
		t.Fatalf("no Claude Code fixture: %v", err)
	}
	data, err := os.ReadFile(src[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"s1", "s2"} {
		writeFile(t, filepath.Join(dir, sub, "session.jsonl"), string(data))
	}
	ios, _, out, errOut := Test()
	if code := Main([]string{"analyze", "--input-format", "claude-code", "--format", "jsonl", dir}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out.String(), `"preset":"claude-code"`); n != 2 {
		t.Errorf("%d sessions read as claude-code, want 2:\n%s", n, out)
	}
}
