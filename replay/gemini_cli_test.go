package replay

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateGemini = flag.Bool("update-gemini", false, "rewrite the Gemini CLI reader's golden files (replay/testdata/gemini-cli/*.steps)")

// dumpSteps writes what the reader made of a session, one step a line,
// then its live events and notes.
func dumpSteps(ep *Episode) string {
	var b strings.Builder
	for i, t := range ep.Turns {
		s := ep.Steps[i]
		kind := map[StepKind]string{StepAction: "action", StepMessage: "message", StepCondensation: "condensation"}[s.Kind]
		fmt.Fprintf(&b, "%d %s", t.N, kind)
		if s.NewPrompt {
			b.WriteString(" [new prompt]")
		}
		if s.Error {
			b.WriteString(" [error]")
		}
		if s.LLMLoop {
			b.WriteString(" [llm verdict]")
		}
		if t.HasAction {
			fmt.Fprintf(&b, " %s", strconv.QuoteToASCII(ep.Str(t.Action)))
		}
		fmt.Fprintf(&b, " -> %s\n", strconv.QuoteToASCII(ep.Output(t.N)))
	}
	for _, e := range ep.Live {
		fmt.Fprintf(&b, "live: step %d %s %s\n", e.Turn, e.Kind, e.Rule)
	}
	for _, n := range ep.Diag.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, p := range ep.Diag.Problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	return b.String()
}

// TestGeminiReaderGolden reads the committed Gemini CLI sessions (written
// in the shape ChatRecordingService writes) and compares what the reader
// makes of them with their .steps golden files (go test ./replay
// -update-gemini rewrites them).
func TestGeminiReaderGolden(t *testing.T) {
	for _, name := range []string{"session-2025-11-12T14-00-3f0c9a7e.jsonl", "session.json"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "steps", "gemini-cli", name)
			eps, err := ReadFile(path, nil, Options{Format: FormatAuto})
			if err != nil {
				t.Fatal(err)
			}
			if len(eps) != 1 {
				t.Fatalf("%d episodes", len(eps))
			}
			ep := eps[0]
			if ep.Preset != PresetGeminiCLI || ep.Diag.Skipped != 0 {
				t.Errorf("preset %q, %d lines skipped: %v", ep.Preset, ep.Diag.Skipped, ep.Diag.Problems)
			}
			got := dumpSteps(ep)
			golden := filepath.Join("testdata", "gemini-cli", name+".steps")
			if *updateGemini {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./replay -update-gemini writes it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from what the reader makes of %s (go test ./replay -update-gemini rewrites it):\n%s", golden, name, got)
			}
		})
	}
}

// geminiRead reads JSONL lines as a Gemini CLI session.
func geminiRead(t *testing.T, lines ...string) *Episode {
	t.Helper()
	data := strings.Join(lines, "\n") + "\n"
	eps, err := Read(bytes.NewReader([]byte(data)), "s.jsonl", "s", Options{Format: FormatSteps, Preset: PresetGeminiCLI})
	if err != nil {
		t.Fatal(err)
	}
	return eps[0]
}

const geminiMeta = `{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}`

func TestGeminiReader(t *testing.T) {
	call := func(id, name, args string) string {
		return fmt.Sprintf(`{"id":%q,"timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c-%s","name":%q,"args":%s,"status":"success"}]}`, id, id, name, args)
	}
	user := func(id, text string) string {
		return fmt.Sprintf(`{"id":%q,"timestamp":"t","type":"user","content":[{"text":%q}]}`, id, text)
	}
	live := func(id, detail string) string {
		return user(id, geminiLivePrefix+detail+geminiLiveSuffix+" If not, take a step back.")
	}
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"a message recorded again is replaced in place", []string{geminiMeta, user("u", "go"),
			`{"id":"g","type":"gemini","content":"Reading."}`, `{"$set":{"lastUpdated":"t"}}`,
			`{"id":"g","type":"gemini","content":"Reading.","toolCalls":[{"id":"c","name":"read_file","args":{"b":1,"a":2}}]}`,
			`{"id":"r","type":"user","content":[{"functionResponse":{"id":"c","name":"read_file","response":{"output":"x"}}}]}`},
			"1 message [new prompt] -> \"Reading.\"\n2 action \"read_file:{\\\"b\\\":1,\\\"a\\\":2}\" -> \"\"\n"},
		{"rewind drops from the message on", []string{geminiMeta, user("u1", "a"), call("g1", "x", "{}"), user("u2", "b"),
			call("g2", "y", "{}"), `{"$rewindTo":"u2"}`},
			"1 action [new prompt] \"x:{}\" -> \"\"\n"},
		{"rewind to an unknown id drops all", []string{geminiMeta, user("u1", "a"), call("g1", "x", "{}"), `{"$rewindTo":"nope"}`, call("g2", "y", "null")},
			"1 action \"y:{}\" -> \"\"\n"},
		{"a checkpoint replaces the messages", []string{geminiMeta, call("g1", "x", "{}"),
			`{"$set":{"messages":[{"id":"g2","type":"gemini","content":[{"text":"hm","thought":true},{"text":" "}],"toolCalls":[{"name":" z ","args":0}]}]}}`},
			"1 message -> \" \"\n2 action \"z:{}\" -> \"\"\n"},
		{"continue, tool results and recovery prompts are not prompts", []string{geminiMeta, user("u1", "a"), call("g1", "x", "{}"),
			user("u2", "Please continue."), call("g2", "x", "{}"), live("u3", "Repeated tool call: x with arguments {}"), call("g3", "y", "{}")},
			"1 action [new prompt] \"x:{}\" -> \"\"\n2 action \"x:{}\" -> \"\"\n3 action \"x:{}\" -> \"\"\n4 action \"y:{}\" -> \"\"\n" +
				"live: step 3 loop_detected tool_cycle\n"},
		{"a content loop's text is not recorded", []string{geminiMeta, user("u1", "a"), `{"id":"g","type":"gemini","content":"la la"}`,
			live("u2", `Repeating content detected: "la la la..."`)},
			"1 message [new prompt] -> \"la la\"\n2 message -> \"\"\nlive: step 2 loop_detected content_chanting\n"},
		{"an LLM verdict is flagged", []string{geminiMeta, user("u1", "a"), live("u2", "The model keeps editing one line.")},
			"1 message [new prompt] [llm verdict] -> \"\"\nlive: step 1 loop_detected llm_loop_check\n"},
		{"a rewound detection is not replayed", []string{geminiMeta, user("u1", "a"), call("g1", "x", "{}"),
			live("u2", "Repeated tool call: x with arguments {}"), `{"$rewindTo":"g1"}`, call("g2", "y", "{}")},
			"1 action [new prompt] \"y:{}\" -> \"\"\n"},
		{"a resumed session starts a prompt", []string{geminiMeta, user("u1", "a"), call("g1", "x", "{}"),
			`{"$set":{"sessionId":"s"}}`, call("g2", "x", "{}")},
			"1 action [new prompt] \"x:{}\" -> \"\"\n2 action [new prompt] \"x:{}\" -> \"\"\n"},
		{"a lone surrogate stays", []string{geminiMeta, call("g1", "x", `{"s":"\ud800","t":"\ud83d\ude00"}`)},
			"1 action \"x:{\\\"s\\\":\\\"\\\\ud800\\\",\\\"t\\\":\\\"\\U0001f600\\\"}\" -> \"\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := geminiRead(t, tt.lines...)
			got := dumpSteps(ep)
			got = strings.Join(filterLines(got, "note: "), "")
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// filterLines drops the lines starting with prefix.
func filterLines(s, prefix string) []string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" && !strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func TestGeminiReaderProblems(t *testing.T) {
	eps, err := Read(strings.NewReader(geminiMeta+"\n{\"type\":\"gemini\",\"content\":\"x\"}\n[1]\n{bad\n{\"id\":\"g\",\"type\":\"gemini\",\"content\":\"hi\"}\n"),
		"s.jsonl", "s", Options{Format: FormatSteps, Preset: PresetGeminiCLI})
	if err != nil {
		t.Fatal(err)
	}
	d := eps[0].Diag
	if d.Skipped != 3 || len(d.Problems) != 3 ||
		!strings.Contains(d.Problems[0], "s.jsonl:2: a Gemini CLI message without an id") ||
		!strings.Contains(d.Problems[1], "s.jsonl:3: not a Gemini CLI record") ||
		!strings.Contains(d.Problems[2], "s.jsonl:4: invalid JSON") {
		t.Errorf("skipped %d: %q", d.Skipped, d.Problems)
	}
}

// FuzzGeminiReader: whatever the lines, the reader does not panic, and
// every problem names its line.
func FuzzGeminiReader(f *testing.F) {
	seed, _ := os.ReadFile(filepath.Join("..", "testdata", "steps", "gemini-cli", "session-2025-11-12T14-00-3f0c9a7e.jsonl"))
	f.Add(seed)
	f.Add([]byte(geminiMeta + "\n" + `{"$rewindTo":"x"}` + "\n" + `{"$set":{"messages":[{"id":"a","type":"user","content":"System: Potential loop detected. Details: Repeated tool call: q with arguments {"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgentRead(t, data, Options{Format: FormatSteps, Preset: PresetGeminiCLI})
	})
}
