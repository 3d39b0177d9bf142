package replay

import (
	"bytes"
	"testing"
)

// The verdicts Cline and Roo Code write into a task's history are live
// events at the call they fired on, in each agent's own words and in both
// tool protocols (XML text and native tool_use blocks).
func TestClineLiveEvents(t *testing.T) {
	const (
		task    = `{"role":"user","content":[{"type":"text","text":"<task>\nfix it\n</task>"}]}`
		xmlCall = `{"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>a.ts</path>\n</read_file>"}]}`
		xmlRes  = `{"type":"text","text":"[read_file for 'a.ts'] Result:"},{"type":"text","text":"x"}`
		warning = `{"type":"text","text":"Tool [read_file] has been called 3 times consecutively with identical arguments. This is not making progress. Please use a different tool or different arguments instead of repeating the same call."}`
		limit   = `{"type":"text","text":"You seem to be having trouble proceeding. The user has provided the following feedback to help guide you:\n<feedback>\ntry b.ts\n</feedback>"}`
		natCall = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.ts"}}]}`
		refusal = `Tool call repetition limit reached for read_file. Please try a different approach.`
	)
	user := func(blocks string) string { return `{"role":"user","content":[` + blocks + `]}` }
	cases := []struct {
		name  string
		msgs  []string
		steps int
		want  []LiveEvent
	}{
		{"no verdict", []string{task, xmlCall, user(xmlRes)}, 1, nil},
		{"cline warning after an XML result", []string{task, xmlCall, user(xmlRes), xmlCall, user(xmlRes + "," + warning)}, 2,
			[]LiveEvent{{Kind: LiveClineWarning, Turn: 2, Rule: "cline_repeated_tool/feedback"}}},
		{"cline warning after a native result", []string{task, natCall, user(`{"type":"tool_result","tool_use_id":"t1","content":"x"},` + warning)}, 1,
			[]LiveEvent{{Kind: LiveClineWarning, Turn: 1, Rule: "cline_repeated_tool/feedback"}}},
		{"cline mistake limit answered: the feedback replaces the result", []string{task, xmlCall, user(xmlRes), xmlCall, user(limit), xmlCall}, 3,
			[]LiveEvent{{Kind: LiveClineStop, Turn: 2, Rule: "mistake_limit_reached"}}},
		{"cline mistake limit on a native call left without a result", []string{task, natCall, user(limit)}, 1,
			[]LiveEvent{{Kind: LiveClineStop, Turn: 1, Rule: "mistake_limit_reached"}}},
		{"a mistake limit after a user message marks no call", []string{task, xmlCall, user(xmlRes), user(limit)}, 1, nil},
		{"a [WARNING] notice is not Cline's detector", []string{task, xmlCall, user(xmlRes + `,{"type":"text","text":"[WARNING] called 3 times"}`)}, 1, nil},
		{"roo refusal, native (JSON error)", []string{task, natCall, user(`{"type":"tool_result","tool_use_id":"t1","content":"{\"status\":\"error\",\"message\":\"The tool execution failed\",\"error\":\"` + refusal + `\"}"}`)}, 1,
			[]LiveEvent{{Kind: LiveRooRefusal, Turn: 1, Rule: "roo_tool_repetition/stop"}}},
		{"roo refusal, XML, after the user's feedback", []string{task, xmlCall, user(`{"type":"text","text":"Tool repetition limit reached. User feedback: look elsewhere"},{"type":"text","text":"[read_file for 'a.ts'] Result:"},{"type":"text","text":"The tool execution failed with the following error:\n<error>\n` + refusal + `\n</error>"}`)}, 1,
			[]LiveEvent{{Kind: LiveRooRefusal, Turn: 1, Rule: "roo_tool_repetition/stop"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			b.WriteByte('[')
			for i, m := range c.msgs {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(m)
			}
			b.WriteByte(']')
			eps, err := Read(&b, "tasks/1/api_conversation_history.json", "d", Options{Format: PresetCline})
			if err != nil {
				t.Fatal(err)
			}
			if len(eps) != 1 {
				t.Fatalf("%d episodes", len(eps))
			}
			ep := eps[0]
			if len(ep.Turns) < c.steps {
				t.Fatalf("%d steps, want at least %d", len(ep.Turns), c.steps)
			}
			checkLive(t, ep, c.want)
		})
	}
}
