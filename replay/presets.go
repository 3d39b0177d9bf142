package replay

// The two presets of the steps format: an OpenHands event stream and a
// Gemini CLI session, read as they are written (no conversion). What each
// takes from the framework's log, and what was inferred, is in README.md
// ("Presets").

import (
	"encoding/json"
	"strings"
)

// openHandsReader reads OpenHands (V0) events, as event_to_dict writes
// them to a trajectory (save_trajectory_path: one JSON array) or an event
// stream dumped one event per line:
//
//	{"id": 5, "source": "agent", "action": "run", "args": {"command": "ls", ...},
//	 "tool_call_metadata": {...}}
//	{"id": 6, "cause": 5, "observation": "run", "content": "...",
//	 "extras": {"command": "ls", "metadata": {"exit_code": 0, ...}}}
//
// A tool call is one step: the action and the observation whose cause is
// its id (the next observation when the cause is missing). An agent
// message action is a message step, a condensation action a condensation
// step. User messages, and the events StuckDetector filters out or never
// sees (null actions and observations, agent state changes, recalls,
// the system prompt), are not steps.
type openHandsReader struct {
	n       int
	pending *stepRecord // an action waiting for its observation
	pendID  string
}

// openHandsIgnored are events that are not steps.
var openHandsIgnored = map[string]bool{
	"null": true, "agent_state_changed": true, "recall": true, "system": true,
	"change_agent_state": true, "user_rejected": true,
}

func (o *openHandsReader) record(m map[string]any) ([]stepRecord, string) {
	var out []stepRecord
	flush := func() {
		if o.pending != nil {
			out = append(out, *o.pending)
			o.pending = nil
		}
	}
	if act, ok := m["action"].(string); ok {
		if openHandsIgnored[act] {
			return nil, ""
		}
		args, _ := m["args"].(map[string]any)
		if act == "message" {
			if src, _ := m["source"].(string); src == "user" {
				return nil, ""
			}
			flush()
			o.n++
			text := asText(args["content"])
			return append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepMessage}, output: text, hasText: true}), ""
		}
		if act == "condensation" {
			flush()
			o.n++
			summary, _ := args["summary"].(string)
			return append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepCondensation}, output: summary, hasText: true}), ""
		}
		flush()
		o.n++
		o.pending = &stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepAction}, action: openHandsAction(act, args), hasAction: true}
		o.pendID = asText(m["id"])
		return out, ""
	}
	obs, ok := m["observation"].(string)
	if !ok {
		return nil, "neither an action nor an observation"
	}
	if openHandsIgnored[obs] {
		return nil, ""
	}
	content := asText(m["content"])
	extras, _ := m["extras"].(map[string]any)
	if obs == "condense" { // AgentCondensationObservation
		flush()
		o.n++
		return append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepCondensation}, output: content, hasText: true}), ""
	}
	cause := asText(m["cause"])
	if o.pending == nil || (cause != "" && cause != o.pendID) {
		// An observation of no pending call (a user command's output, or
		// one whose action was not logged): a step with no call.
		flush()
		o.n++
		r := stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepAction}, output: content, hasText: true}
		openHandsResult(&r, obs, extras)
		return append(out, r), ""
	}
	r := o.pending
	o.pending = nil
	r.output, r.hasText = content, true
	openHandsResult(r, obs, extras)
	return append(out, *r), ""
}

// openHandsResult sets error and exit code from an observation: an
// ErrorObservation is an error; a command's exit code is in
// extras.metadata.exit_code (older versions: extras.exit_code).
func openHandsResult(r *stepRecord, obs string, extras map[string]any) {
	r.info.Error = obs == "error"
	var code any
	if md, ok := extras["metadata"].(map[string]any); ok {
		code = md["exit_code"]
	}
	if code == nil {
		code = extras["exit_code"]
	}
	if c, ok := asInt(code); ok && code != nil {
		r.info.ExitCode, r.info.HasExitCode = c, true
	}
}

// openHandsVolatile are args that differ between otherwise equal calls
// (the model's thought, confirmation bookkeeping): _eq_no_pid compares the
// call, so they are left out of the action.
var openHandsVolatile = map[string]bool{"thought": true, "confirmation_state": true, "security_risk": true, "hidden": true}

// openHandsAction is the action's name and its args as compact JSON, keys
// sorted.
func openHandsAction(name string, args map[string]any) string {
	kept := map[string]any{}
	for _, k := range sortedKeys(args) {
		if !openHandsVolatile[k] {
			kept[k] = args[k]
		}
	}
	b, _ := json.Marshal(kept)
	return name + " " + string(b)
}

func (o *openHandsReader) finish() []stepRecord {
	if o.pending == nil {
		return nil
	}
	r := *o.pending
	o.pending = nil
	return []stepRecord{r}
}

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
