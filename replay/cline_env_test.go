package replay

import (
	"bytes"
	"strings"
	"testing"
)

// TestClineEnvironmentUndecoded: a user message's texts are decoded only
// when kept (readBlocksRawText); one opening with <environment_details>
// as written is dropped undecoded, which must read as dropping it decoded
// does: the body of a result whose header came alone, escaped or after
// white space, a text of another type. Each case fails if the fast path
// drops what user() keeps or keeps what it drops.
func TestClineEnvironmentUndecoded(t *testing.T) {
	const (
		task    = `{"role":"user","content":[{"type":"text","text":"<task>\nfix it\n</task>"}]}`
		xmlCall = `{"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>a.ts</path>\n</read_file>"}]}`
		header  = `{"type":"text","text":"[read_file for 'a.ts'] Result:"}`
		xmlRes  = header + `,{"type":"text","text":"x"}`
		env     = `{"type":"text","text":"<environment_details>\n# cwd\n</environment_details>"}`
	)
	user := func(blocks string) string { return `{"role":"user","content":[` + blocks + `]}` }
	cases := []struct {
		name    string
		msgs    []string
		outputs []string // the steps' outputs
		prompts []bool   // the steps' NewPrompt
		skipped int
	}{
		{"after a result", []string{task, xmlCall, user(xmlRes + "," + env), xmlCall},
			[]string{"x", ""}, []bool{true, false}, 0},
		{"the body of a header alone", []string{task, xmlCall, user(header + "," + env), xmlCall},
			[]string{"<environment_details>\n# cwd\n</environment_details>", ""}, []bool{true, false}, 0},
		{"escaped", []string{task, xmlCall, user(xmlRes + `,{"type":"text","text":"\u003cenvironment_details>\n</environment_details>"}`), xmlCall},
			[]string{"x", ""}, []bool{true, false}, 0},
		{"after white space", []string{task, xmlCall, user(xmlRes + `,{"type":"text","text":"\n <environment_details>\n</environment_details>"}`), xmlCall},
			[]string{"x", ""}, []bool{true, false}, 0},
		{"alone", []string{task, xmlCall, user(`{"type":"text","text":"<environment_details>"}`), xmlCall},
			[]string{"", ""}, []bool{true, false}, 0},
		{"the tag unclosed is the user's", []string{task, xmlCall, user(xmlRes + `,{"type":"text","text":"<environment_details"}`), xmlCall},
			[]string{"x", ""}, []bool{true, true}, 0},
		{"the user's words", []string{task, xmlCall, user(xmlRes + `,{"type":"text","text":"<feedback>go on</feedback>"}`), xmlCall},
			[]string{"x", ""}, []bool{true, true}, 0},
		{"null text", []string{task, xmlCall, user(xmlRes + `,{"type":"text","text":null}`), xmlCall},
			[]string{"x", ""}, []bool{true, false}, 0},
		{"content a string", []string{task, xmlCall, user(xmlRes), `{"role":"user","content":"<environment_details>\n</environment_details>"}`, xmlCall},
			[]string{"x", ""}, []bool{true, false}, 0},
		{"content a string of the user's", []string{task, xmlCall, user(xmlRes), `{"role":"user","content":"go on"}`, xmlCall},
			[]string{"x", ""}, []bool{true, true}, 0},
		{"a text not a string", []string{task, xmlCall, user(xmlRes + `,{"type":"text","text":["<environment_details>"]}`), xmlCall},
			[]string{"", ""}, []bool{true, false}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := "[" + strings.Join(c.msgs, ",") + "]"
			eps, err := Read(bytes.NewReader([]byte(doc)), "tasks/1/api_conversation_history.json", "d", Options{Format: PresetCline})
			if err != nil {
				t.Fatal(err)
			}
			if len(eps) != 1 {
				t.Fatalf("%d episodes", len(eps))
			}
			steps := viewSteps(eps[0])
			if len(steps) != len(c.outputs) {
				t.Fatalf("%d steps, want %d: %+v", len(steps), len(c.outputs), steps)
			}
			for i, s := range steps {
				if s.output != c.outputs[i] || s.prompt != c.prompts[i] {
					t.Errorf("step %d: output %q prompt %v, want %q %v", i+1, s.output, s.prompt, c.outputs[i], c.prompts[i])
				}
			}
			if got := eps[0].Diag.Skipped; got != c.skipped {
				t.Errorf("%d skipped, want %d", got, c.skipped)
			}
		})
	}
}
