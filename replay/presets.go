package replay

// The OpenHands preset of the steps format, read as it is written (no
// conversion); the Gemini CLI's is in gemini_cli.go. What each takes from
// the framework's log is in README.md ("Presets").

import (
	"encoding/json"
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
