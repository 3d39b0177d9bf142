package replay

// The Codex reader as it was before it read records in place (rawValue):
// each rollout line json.Unmarshal-ed into structs. Kept as the reference
// FuzzCodexRaw compares the reader with.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

type codexReaderOld struct {
	q stepQueue
}

type codexLineOld struct {
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	RecordType string          `json:"record_type"`
	ID         json.RawMessage `json:"id"`
}

// codexItemTypesOld are the ResponseItem types a legacy rollout writes bare.
var codexItemTypesOld = map[string]bool{
	"message": true, "reasoning": true, "local_shell_call": true, "function_call": true,
	"function_call_output": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"web_search_call": true,
}

type codexItemOld struct {
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

// codexFastOld is a rollout line decoded in one pass, its payload included
// (json.Unmarshal validates all it is given first: a second pass over the
// payload costs as much again).
type codexFastOld struct {
	Type    string        `json:"type"`
	Payload *codexItemOld `json:"payload"`
}

func (c *codexReaderOld) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	var fast codexFastOld
	var it codexItemOld
	lineType := ""
	if err := json.Unmarshal(raw, &fast); err == nil && fast.Payload != nil {
		lineType, it = fast.Type, *fast.Payload
	} else {
		var line codexLineOld
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
			case codexItemTypesOld[line.Type]:
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
	line := codexLineOld{Type: lineType}
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
		out, code, hasCode := codexOutputOld(it.Output)
		failed := refCodexFailures[out]
		if rest, ok := strings.CutPrefix(out, "apply_patch verification failed"); ok && strings.HasPrefix(rest, ": ") {
			failed = true
		}
		r := c.q.result(it.CallID, out, failed)
		if r == nil {
			c.q.push(stepRecord{info: StepInfo{Kind: StepAction, Error: failed}, output: out, hasText: true}, "")
			r = &c.q.queue[len(c.q.queue)-1].rec
		}
		if hasCode {
			r.setExitCode(code)
		}
	}
	return c.q.ready(false), ""
}

// codexOutputOld reads a tool output: a string, content items, or a string
// holding {"output": ..., "metadata": {"exit_code": n}}.
func codexOutputOld(raw json.RawMessage) (text string, code int, hasCode bool) {
	text = joinTexts(raw)
	// Codex 0.116 and later: "Exit code: N\nWall time: ..." (N an i32,
	// written without a sign when positive).
	if rest, ok := strings.CutPrefix(text, "Exit code: "); ok {
		if num, after, ok := strings.Cut(rest, "\n"); ok && strings.HasPrefix(after, "Wall time: ") && !strings.HasPrefix(num, "+") {
			if n, err := strconv.ParseInt(num, 10, 32); err == nil {
				return text, int(n), true
			}
		}
	}
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

func (c *codexReaderOld) finish() []stepRecord { return c.q.ready(true) }

// refCodexFailures are the whole outputs Codex sends with success false
// when the user refuses an approval (ToolEmitter::finish).
var refCodexFailures = map[string]bool{"exec command rejected by user": true, "patch rejected by user": true}
