package replay

// The reader against the CLI's own loader: generated recordings (messages
// recorded again with their tool calls, rewinds to known and unknown ids,
// checkpoints, metadata updates, resumes, unreadable lines) read by
// loadConversationRecord of @google/gemini-cli-core 0.61.0 (through
// rules/testdata/gemini-cli/load.mjs) and by loopbreak must keep the same
// tool calls and texts.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// genRecording writes one recording's lines in ChatRecordingService's
// shapes.
func genRecording(r *rand.Rand) string {
	var lines []string
	add := func(v any) {
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"sessionId": "s", "projectHash": "p", "startTime": "t", "lastUpdated": "t", "kind": "main"})
	var ids []string
	type msg = map[string]any
	var kept []msg
	newID := func() string { id := fmt.Sprintf("m%d", len(ids)); ids = append(ids, id); return id }
	texts := []any{"", "Reading.", " ", "\n", []any{map[string]any{"text": "plan", "thought": true}, map[string]any{"text": "ok"}},
		[]any{map[string]any{"text": "only a thought", "thought": true}}, []any{map[string]any{"text": ""}}}
	for range 5 + r.IntN(30) {
		switch r.IntN(12) {
		case 0, 1: // a user prompt
			m := msg{"id": newID(), "timestamp": "t", "type": "user", "content": []any{map[string]any{"text": "do it"}}}
			add(m)
			kept = append(kept, m)
		case 2, 3, 4, 5: // a gemini message, perhaps recorded again with its calls
			m := msg{"id": newID(), "timestamp": "t", "type": "gemini", "content": texts[r.IntN(len(texts))], "thoughts": []any{}}
			add(m)
			if r.IntN(3) > 0 {
				var calls []any
				for i := range 1 + r.IntN(3) {
					calls = append(calls, map[string]any{"id": fmt.Sprintf("c%d-%d", len(ids), i), "name": "read_file",
						"args": map[string]any{"file_path": "a"}, "status": "success"})
				}
				m2 := msg{}
				for k, v := range m {
					m2[k] = v
				}
				m2["toolCalls"] = calls
				add(m2)
				m = m2
			}
			kept = append(kept, m)
		case 6: // a rewind, to a known id or not
			if len(ids) > 0 && r.IntN(4) > 0 {
				add(map[string]any{"$rewindTo": ids[r.IntN(len(ids))]})
			} else {
				add(map[string]any{"$rewindTo": "unknown"})
			}
		case 7: // a checkpoint of some of the messages
			var sub []any
			for _, m := range kept {
				if r.IntN(3) > 0 {
					sub = append(sub, m)
				}
			}
			add(map[string]any{"$set": map[string]any{"messages": sub, "lastUpdated": "t"}})
		case 8:
			add(map[string]any{"$set": map[string]any{"lastUpdated": "t"}})
		case 9:
			add(map[string]any{"$set": map[string]any{"sessionId": "s"}})
		case 10: // an old message again, replaced in place
			if len(kept) > 0 {
				m := kept[r.IntN(len(kept))]
				if m["type"] == "gemini" {
					m["content"] = "changed"
				}
				add(m)
			}
		default: // lines the loader skips
			lines = append(lines, []string{`{"type":"gemini","content":"no id"}`, `{bad json`, `[1,2]`, `"x"`}[r.IntN(4)])
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestGeminiReaderMatchesLoader(t *testing.T) {
	dir := geminiCLIDir(t)
	_, src, _, _ := runtime.Caller(0)
	loader := filepath.Join(filepath.Dir(src), "..", "rules", "testdata", "gemini-cli", "load.mjs")
	tmp := t.TempDir()
	r := rand.New(rand.NewPCG(19, 61))
	const n = 200
	files := make([]string, n)
	for i := range files {
		files[i] = filepath.Join(tmp, fmt.Sprintf("session-%03d.jsonl", i))
		if err := os.WriteFile(files[i], []byte(genRecording(r)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("node", append([]string{loader, filepath.Join(dir, "node_modules", "@google", "gemini-cli-core")}, files...)...).Output()
	if err != nil {
		t.Fatalf("loader: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != n {
		t.Fatalf("the loader printed %d lines for %d files", len(lines), n)
	}
	bad := 0
	for i, file := range files {
		var want struct{ ToolCalls, Texts int }
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatalf("%s: loader printed %q", file, lines[i])
		}
		calls, texts := 0, 0
		eps, err := ReadFile(file, nil, Options{Format: FormatSteps, Preset: PresetGeminiCLI})
		if err == nil {
			for j, s := range eps[0].Steps {
				switch {
				case s.Kind == StepAction:
					calls++
				case s.Kind == StepMessage && eps[0].Output(eps[0].Turns[j].N) != "":
					texts++
				}
			}
		}
		if calls != want.ToolCalls || texts != want.Texts {
			bad++
			if bad <= 3 {
				data, _ := os.ReadFile(file)
				t.Errorf("%s: reader %d calls, %d texts; the CLI's loader %d, %d (read error: %v)\n%s", file, calls, texts, want.ToolCalls, want.Texts, err, data)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d recordings differ from the CLI's loader", bad, n)
	}
}
