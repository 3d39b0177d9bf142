package replay

// The Gemini CLI preset of the steps format, read as it is written (no
// conversion); the OpenHands preset is in openhands.go. What each takes
// from the framework's log, and what was inferred, is in README.md
// ("Presets").

import (
	"encoding/json"
	"strings"
)

// geminiReader reads a Gemini CLI session, as its ChatRecordingService
// writes it (~/.gemini/tmp/<project_hash>/chats/session-*.json):
//
//	{"sessionId": "...", "messages": [
//	  {"type": "user", "content": "..."},
//	  {"type": "gemini", "content": "...", "toolCalls": [
//	    {"name": "read_file", "args": {...}, "status": "success",
//	     "result": [{"functionResponse": {"response": {"output": "..."}}}]}]}]}
//
// or the same messages one per line. A gemini message's text is a message
// step (a Content event), then each of its tool calls an action step (a
// ToolCallRequest): name and args as compact JSON, the result's output
// (else its resultDisplay) as output, status "error" as an error. User
// messages are not the model's stream and are not steps. The chat file
// does not record the LLM loop check's verdict; a steps log can, with the
// llm_loop field.
type geminiReader struct{ n int }

func (g *geminiReader) record(m map[string]any) ([]stepRecord, string) {
	typ, _ := m["type"].(string)
	switch typ {
	case "gemini", "model":
	case "user", "info", "error", "warning":
		return nil, ""
	default:
		return nil, "not a Gemini CLI message (type user or gemini)"
	}
	var out []stepRecord
	if text := geminiText(m["content"]); strings.TrimSpace(text) != "" {
		g.n++
		out = append(out, stepRecord{n: g.n, hasStep: true, info: StepInfo{Kind: StepMessage}, output: text, hasText: true})
	}
	calls, _ := m["toolCalls"].([]any)
	for _, c := range calls {
		call, ok := c.(map[string]any)
		if !ok {
			continue
		}
		name := asText(call["name"])
		args, _ := json.Marshal(call["args"])
		g.n++
		r := stepRecord{n: g.n, hasStep: true, info: StepInfo{Kind: StepAction}, action: name + " " + string(args), hasAction: true, hasText: true}
		r.output = geminiResult(call)
		r.info.Error = asText(call["status"]) == "error"
		out = append(out, r)
	}
	return out, ""
}

func (*geminiReader) finish() []stepRecord { return nil }

// geminiText reads a message's content: a string, or a list of parts
// whose text is joined.
func geminiText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, p := range x {
			if part, ok := p.(map[string]any); ok {
				if t, ok := part["text"].(string); ok {
					b.WriteString(t)
				}
			}
		}
		return b.String()
	}
	return ""
}

// geminiResult is a tool call's output: the function responses' output
// (or error) text, else resultDisplay.
func geminiResult(call map[string]any) string {
	var b strings.Builder
	if parts, ok := call["result"].([]any); ok {
		for _, p := range parts {
			part, _ := p.(map[string]any)
			fr, _ := part["functionResponse"].(map[string]any)
			resp, _ := fr["response"].(map[string]any)
			for _, k := range []string{"output", "error"} {
				if s, ok := resp[k].(string); ok {
					b.WriteString(s)
				}
			}
		}
	}
	if b.Len() == 0 {
		return asText(call["resultDisplay"])
	}
	return b.String()
}
