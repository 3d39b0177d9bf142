package replay

import (
	"encoding/json"
	"fmt"
	"strings"
)

// codexReader reads an OpenAI Codex CLI session as Codex writes it,
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, one RolloutLine
// a line:
//
//	{"timestamp":"...","type":"session_meta","payload":{"id":"...","cli_version":"0.46.0",...}}
//	{"timestamp":"...","type":"event_msg","payload":{"type":"user_message","message":"fix it"}}
//	{"timestamp":"...","type":"response_item","payload":{"type":"function_call",
//	 "name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}}
//	{"timestamp":"...","type":"response_item","payload":{"type":"function_call_output",
//	 "call_id":"call_1","output":"..."}}
//
// Source: openai/codex, codex-rs/protocol/src/protocol.rs (RolloutLine:
// timestamp and a RolloutItem flattened, tagged "type" with content
// "payload": session_meta, response_item, compacted, turn_context,
// event_msg) and codex-rs/protocol/src/models.rs (ResponseItem: message,
// reasoning, local_shell_call, function_call {name, arguments: a JSON
// string, call_id}, function_call_output {call_id, output: a string, or
// content items}, custom_tool_call {call_id, name, input},
// custom_tool_call_output, web_search_call), at commit
// 001cb8e233f250c7086c791c51390286c087faea.
//
// Legacy rollouts (written before RolloutLine carried type and payload)
// open with a header {"id", "timestamp", "instructions", "git"}, mark
// state with {"record_type": "state"} and write the response items bare,
// one a line: they are read the same way.
//
// Steps: a function_call, custom_tool_call or local_shell_call is an
// action step (name and arguments as logged, plus the sorted form),
// completed by the output with its call_id; an output that is itself a
// JSON object {"output": ..., "metadata": {"exit_code": n}} (how Codex's
// shell tool reports) gives its text and exit code. An assistant message
// is a message step, a reasoning item (its summary and reasoning text) a
// message step marked Thinking, a compacted record a condensation step.
// An event_msg user_message is a user prompt and marks the next step
// Prompt; the other event messages repeat the response items for the UI
// and, like session_meta and turn_context, are not steps.
type codexReader struct {
	q stepQueue
}

type codexLine struct {
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	RecordType string          `json:"record_type"`
	ID         json.RawMessage `json:"id"`
}

// codexItemTypes are the ResponseItem types a legacy rollout writes bare.
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "local_shell_call": true, "function_call": true,
	"function_call_output": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"web_search_call": true,
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	Message   json.RawMessage `json:"message"`
}

func (c *codexReader) record(map[string]any) ([]stepRecord, string) {
	return nil, "a Codex record read without its bytes"
}

// codexFast is a rollout line decoded in one pass, its payload included
// (json.Unmarshal validates all it is given first: a second pass over the
// payload costs as much again).
type codexFast struct {
	Type    string     `json:"type"`
	Payload *codexItem `json:"payload"`
}

func (c *codexReader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	var fast codexFast
	var it codexItem
	lineType := ""
	if err := json.Unmarshal(raw, &fast); err == nil && fast.Payload != nil {
		lineType, it = fast.Type, *fast.Payload
	} else {
		var line codexLine
		if err := json.Unmarshal(raw, &line); err != nil {
			if _, derr := decodeObject(raw); derr != nil {
				return nil, derr.Error()
			}
			return nil, "not a Codex rollout line: " + err.Error()
		}
		if len(line.Payload) == 0 {
			// A legacy rollout: a session header, state markers and bare
			// response items.
			switch {
			case line.RecordType != "":
				return nil, ""
			case line.Type == "" && len(line.ID) > 0:
				return nil, "" // the session header {"id", "timestamp", "instructions", "git"}
			case codexItemTypes[line.Type]:
				line.Payload, line.Type = raw, "response_item"
			}
		}
		lineType = line.Type
		if len(line.Payload) > 0 && firstByte(line.Payload) == '{' {
			if err := json.Unmarshal(line.Payload, &it); err != nil {
				switch line.Type {
				case "session_meta", "turn_context", "event_msg":
					return nil, "" // not steps, whatever their fields hold
				}
				return nil, "a Codex " + line.Type + " whose payload cannot be read: " + err.Error()
			}
		}
	}
	line := codexLine{Type: lineType}
	switch line.Type {
	case "session_meta", "turn_context":
		return nil, ""
	case "event_msg":
		if it.Type == "user_message" {
			c.q.prompt = true
		}
		return nil, ""
	case "compacted":
		c.q.push(stepRecord{info: StepInfo{Kind: StepCondensation}, output: joinTexts(it.Message), hasText: true}, "")
		return c.q.ready(false), ""
	case "response_item":
	default:
		return nil, fmt.Sprintf("not a Codex rollout line (type %q; want session_meta, response_item, event_msg, turn_context or compacted)", line.Type)
	}
	switch it.Type {
	case "message":
		if it.Role == "assistant" {
			if text := joinTexts(it.Content); strings.TrimSpace(text) != "" {
				c.q.push(stepRecord{info: StepInfo{Kind: StepMessage}, output: text, hasText: true}, "")
			}
		}
	case "reasoning":
		text := joinTexts(it.Summary)
		if len(it.Content) > 0 && firstByte(it.Content) == '[' {
			text += joinTexts(it.Content)
		}
		if strings.TrimSpace(text) != "" {
			c.q.push(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: true}, output: text, hasText: true}, "")
		}
	case "function_call":
		args := it.Arguments
		var s string
		if json.Unmarshal(it.Arguments, &s) == nil {
			args = []byte(s) // the arguments are a JSON string holding JSON
		}
		action, canon := callAction(it.Name, args)
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, it.CallID)
	case "custom_tool_call":
		var s string
		_ = json.Unmarshal(it.Input, &s)
		action := it.Name + " " + s
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: action, hasAction: true}, it.CallID)
	case "local_shell_call":
		action, canon := callAction("local_shell", it.Action)
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, it.CallID)
	case "web_search_call":
		action, canon := callAction("web_search", it.Action)
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, "")
	case "function_call_output", "custom_tool_call_output":
		out, code, hasCode := codexOutput(it.Output)
		r := c.q.result(it.CallID, out, false)
		if r == nil {
			c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, output: out, hasText: true}, "")
			r = &c.q.queue[len(c.q.queue)-1].rec
		}
		if hasCode {
			r.info.ExitCode, r.info.HasExitCode = code, true
		}
	}
	return c.q.ready(false), ""
}

// codexOutput reads a tool output: a string, content items, or a string
// holding {"output": ..., "metadata": {"exit_code": n}}.
func codexOutput(raw json.RawMessage) (text string, code int, hasCode bool) {
	text = joinTexts(raw)
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") {
		var shell struct {
			Output   *string `json:"output"`
			Metadata struct {
				ExitCode *json.Number `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(t), &shell) == nil && shell.Output != nil {
			text = *shell.Output
			if shell.Metadata.ExitCode != nil {
				if n, ok := asInt(*shell.Metadata.ExitCode); ok {
					return text, n, true
				}
			}
		}
	}
	return text, 0, false
}

func (c *codexReader) finish() []stepRecord { return c.q.ready(true) }
