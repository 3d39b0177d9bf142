package replay

// The reader on the real writer: the Gemini CLI 0.61.0, run headless with
// scripted model output (its hidden --fake-responses-non-strict option,
// which replaces the model with the file's responses), a throwaway HOME and
// no network, writes a real session-*.jsonl; the reader must read it with
// no problem, agree with the CLI's own loader, and the replay must fire
// where the CLI's detector fired.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/rules/detect"
)

// fakeStream is one scripted model response: a stream of one chunk.
func fakeStream(parts ...map[string]any) map[string]any {
	return map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
	}}}
}

// runGeminiCLI runs the CLI in dir with the scripted responses and
// returns the recording it wrote.
func runGeminiCLI(t *testing.T, cliDir, prompt string, responses []map[string]any) string {
	t.Helper()
	tmp := t.TempDir()
	home, proj := filepath.Join(tmp, "home"), filepath.Join(tmp, "proj")
	for _, d := range []string{filepath.Join(home, ".gemini"), proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := `{"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var script bytes.Buffer
	for _, r := range responses {
		b, _ := json.Marshal(r)
		script.Write(append(b, '\n'))
	}
	fake := filepath.Join(tmp, "responses.jsonl")
	if err := os.WriteFile(fake, script.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(cliDir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"),
		"--skip-trust", "-p", prompt, "--fake-responses-non-strict", fake)
	cmd.Dir = proj
	// No network: a dead proxy for anything that tries.
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=fake-key-for-tests",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_COLOR=1", "CI=true"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\n%s", err, out.Bytes())
	}
	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d recordings written (want 1); CLI output:\n%s", len(files), out.Bytes())
	}
	return files[0]
}

// replayGemini runs the Gemini CLI detector over an episode's steps, as
// the tool_cycle rule feeds it.
func replayGemini(t *testing.T, ep *Episode) []detect.GeminiFiring {
	d, err := detect.NewGemini(detect.DefaultGeminiConfig())
	if err != nil {
		t.Fatal(err)
	}
	var fs []detect.GeminiFiring
	for i, turn := range ep.Turns {
		info := ep.Steps[i]
		fs = append(fs, d.Step(detect.Step{N: turn.N, Kind: detect.Kind(info.Kind), Action: ep.Str(turn.Action),
			Output: ep.Output(turn.N), NewPrompt: info.NewPrompt, LLMLoopVerdict: info.LLMLoop})...)
	}
	return fs
}

func TestGeminiCLIRealRecording(t *testing.T) {
	dir := geminiCLIDir(t)
	call := map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]any{"file_path": "a.txt"}}}
	var responses []map[string]any
	for range 8 {
		responses = append(responses, fakeStream(map[string]any{"text": "Reading it again."}, call))
	}
	responses = append(responses, fakeStream(map[string]any{"text": "Done."}))
	file := runGeminiCLI(t, dir, "read a.txt", responses)

	eps, err := ReadFile(file, nil, Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if ep.Preset != PresetGeminiCLI || ep.Diag.Skipped != 0 || len(ep.Diag.Problems) != 0 {
		t.Fatalf("read as %q with %d lines skipped: %v", ep.Preset, ep.Diag.Skipped, ep.Diag.Problems)
	}
	// The CLI's own loader keeps the messages the reader keeps.
	_, src, _, _ := runtime.Caller(0)
	loader := filepath.Join(filepath.Dir(src), "..", "rules", "testdata", "gemini-cli", "load.mjs")
	out, err := exec.Command("node", loader, filepath.Join(dir, "node_modules", "@google", "gemini-cli-core"), file).Output()
	if err != nil {
		t.Fatalf("loader: %v", err)
	}
	var loaded struct{ ToolCalls, Texts int }
	if err := json.Unmarshal(out, &loaded); err != nil {
		t.Fatalf("loader printed %q: %v", out, err)
	}
	actions, messages, rebuilt := 0, 0, 0
	for _, s := range ep.Steps {
		switch s.Kind {
		case StepAction:
			actions++
		case StepMessage:
			messages++
		}
	}
	rebuilt = len(ep.Live) // each live tool loop adds the call it fired on
	if actions-rebuilt != loaded.ToolCalls || messages != loaded.Texts {
		t.Errorf("reader: %d tool calls (%d rebuilt), %d texts; the CLI's loader: %d tool calls, %d texts\n%s",
			actions, rebuilt, messages, loaded.ToolCalls, loaded.Texts, dumpSteps(ep))
	}
	// The CLI's detector fired on the 5th identical call (the recovery
	// prompt records it) and the replay fires there, feedback.
	if len(ep.Live) != 1 || ep.Live[0].Rule != "tool_cycle" {
		t.Fatalf("live detections %+v, want one tool_cycle\n%s", ep.Live, dumpSteps(ep))
	}
	var feedback []int
	for _, f := range replayGemini(t, ep) {
		if f.Kind == detect.KindFeedback {
			feedback = append(feedback, f.Step)
		}
	}
	if len(feedback) != 1 || feedback[0] != ep.Live[0].Turn {
		t.Errorf("replay feedback at %v, the CLI's at step %d\n%s", feedback, ep.Live[0].Turn, dumpSteps(ep))
	}
	if want := `read_file:{"file_path":"a.txt"}`; !strings.Contains(dumpSteps(ep), strings.ReplaceAll(want, `"`, `\"`)) {
		t.Errorf("no step keyed %s:\n%s", want, dumpSteps(ep))
	}
}

// TestGeminiCLIRealChanting: a response chanting one sentence, streamed in
// chunks, makes the CLI's content detector fire; the CLI drops that
// response, so the recording has the recovery prompt and not the text.
// The reader marks the place, and the replay, which cannot see the text,
// does not fire there: the live comparison reports it.
func TestGeminiCLIRealChanting(t *testing.T) {
	dir := geminiCLIDir(t)
	chunk := func(text string) map[string]any {
		return map[string]any{"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "index": 0}}}
	}
	var chant []any
	for range 14 {
		chant = append(chant, chunk("Let me look at the config file once more. "))
	}
	last := chunk("Done.")
	last["candidates"].([]any)[0].(map[string]any)["finishReason"] = "STOP"
	chant = append(chant, last)
	responses := []map[string]any{
		{"method": "generateContentStream", "response": chant},
		fakeStream(map[string]any{"text": "Sorry: the config file is a.txt."}),
		fakeStream(map[string]any{"text": "Done."}),
	}
	file := runGeminiCLI(t, dir, "what is in the config?", responses)
	eps, err := ReadFile(file, nil, Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if ep.Diag.Skipped != 0 || len(ep.Live) != 1 || ep.Live[0].Rule != "content_chanting" {
		t.Fatalf("%d skipped, live %+v\n%s", ep.Diag.Skipped, ep.Live, dumpSteps(ep))
	}
	for _, f := range replayGemini(t, ep) {
		if f.Step == ep.Live[0].Turn {
			t.Errorf("the replay fired %s at step %d, on text the recording does not have", f.Rule, f.Step)
		}
	}
	if !strings.Contains(strings.Join(ep.Diag.Notes, "\n"), "the text the live detector fired on is not recorded") {
		t.Errorf("no note on the unrecorded text: %q", ep.Diag.Notes)
	}
}
