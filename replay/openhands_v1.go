package replay

// Reading OpenHands V1 events (the `openhands-v1` preset), as the
// software-agent-sdk writes them (OpenHands/software-agent-sdk 611629e:
// conversation/event_store.py writes each event's
// model_dump_json(exclude_none=True) to
// conversations/<id>/events/event-<idx>-<event id>.json; the same objects
// one per line make a .jsonl): every event is an object whose "kind" names
// its class,
//
//	{"id": "…", "source": "agent", "thought": [{"type": "text", "text": "…"}],
//	 "action": {"command": "ls", …, "kind": "TerminalAction"}, "tool_name": "terminal",
//	 "tool_call_id": "…", "llm_response_id": "…", "kind": "ActionEvent"}
//	{"id": "…", "source": "environment", "observation": {"content": […],
//	 "is_error": false, "exit_code": 0, …, "kind": "TerminalObservation"},
//	 "action_id": "…", "tool_name": "terminal", "kind": "ObservationEvent"}
//
// Steps, for every rule of the steps format: an ActionEvent and its
// observation (ObservationEvent, AgentErrorEvent or UserRejectObservation,
// by action_id or tool_call_id) make an action step; an agent MessageEvent
// a message step; a Condensation a condensation step. Episode.OpenHandsV1
// holds the events of the active branch for the V1 StuckDetector, and
// where the run loop asks it (before each agent step). A
// ConversationStateUpdateEvent setting execution_status to "stuck" is the
// live verdict.

import (
	"encoding/json"
	"strings"
)

// PresetOpenHandsV1 is the OpenHands V1 (software-agent-sdk) preset.
const PresetOpenHandsV1 = "openhands-v1"

// Live kinds of V1's recorded verdicts: the conversation's
// execution_status set to stuck, and the action-error nudge message
// (get_action_error_nudge's text, from the environment).
const (
	LiveOpenHandsV1Stuck = "openhands_v1_stuck"
	LiveOpenHandsV1Nudge = "openhands_v1_nudge"
)

// v1NudgePrefix begins every action-error nudge message.
const v1NudgePrefix = "You've called `"

// OpenHandsV1Class follows detect.V1Class.
type OpenHandsV1Class uint8

const (
	OHV1Other OpenHandsV1Class = iota
	OHV1Action
	OHV1Observation
	OHV1AgentError
	OHV1ObservationBase
	OHV1Message
	OHV1CondensationSummary
)

// OpenHandsV1Event is one event of a V1 log: N the step it belongs to;
// Ask says the run loop checks after it (_check_stuck_or_nudge runs before
// each agent step: before an ActionEvent of a new LLM response, an agent
// message, a condensation, an agent error of no action, and before the
// status update its stuck verdict logs);
// Artifact marks a ConversationStateUpdateEvent or ConversationErrorEvent,
// which is on the active branch only in a log without parent ids, and
// never as its last event (state.py _resolve_active_leaf).
type OpenHandsV1Event struct {
	N        int32
	Class    OpenHandsV1Class
	Ask      bool // the run loop checks after this event
	Artifact bool
	Tree     bool // the event has a parent_id: artifacts are no tree nodes
	Source   Sym
	Key      Sym
	ID       Sym
	Tool     Sym
	Error    Sym
}

// openHandsV1Reader reads V1 events into steps and the event list.
type openHandsV1Reader struct {
	n        int
	pending  []*stepRecord // actions of the current response awaiting observations
	ids      []string      // their action ids and tool call ids, two per action
	lastResp string
	ep       *Episode
	lastNode string // the last tree node's id, for the branch check
	branched bool
}

func (o *openHandsV1Reader) start(ep *Episode) { o.ep = ep }

func (o *openHandsV1Reader) flush() []stepRecord {
	var out []stepRecord
	for _, r := range o.pending {
		out = append(out, *r)
	}
	o.pending, o.ids = o.pending[:0], o.ids[:0]
	return out
}

func (o *openHandsV1Reader) finish() []stepRecord { return o.flush() }

// v1Text joins the text parts of a content list.
func v1Text(v any) string {
	parts, ok := v.([]any)
	if !ok {
		return asText(v)
	}
	var b strings.Builder
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok {
			if t, ok := m["text"].(string); ok {
				b.WriteString(t)
			}
		}
	}
	return b.String()
}

func (o *openHandsV1Reader) record(m map[string]any) ([]stepRecord, string) {
	kind, ok := m["kind"].(string)
	if !ok {
		return nil, `not an OpenHands V1 event (no "kind")`
	}
	src, _ := m["source"].(string)
	id := asText(m["id"])
	parent, tree := m["parent_id"].(string)
	if tree && kind != "ConversationStateUpdateEvent" && kind != "ConversationErrorEvent" {
		// The active branch is the path from the last event to the root;
		// an event whose parent is not the event before it starts another
		// branch (navigation, forks), which this replay does not follow.
		if parent != "__root__" && o.lastNode != "" && parent != o.lastNode && !o.branched && o.ep != nil {
			o.branched = true
			o.ep.Diag.note("a branched conversation (an event's parent_id is not the event before it): replayed in log order, not along its active branch")
		}
		o.lastNode = id
	}
	ev := OpenHandsV1Event{Tree: tree, Source: o.sym(src)}
	var out []stepRecord
	newStep := func(r stepRecord) {
		out = append(out, o.flush()...)
		o.n++
		r.n, r.hasStep = o.n, true
		out = append(out, r)
	}
	switch kind {
	case "ActionEvent":
		resp := asText(m["llm_response_id"])
		if resp == "" || resp != o.lastResp {
			o.askBefore()
			out = append(out, o.flush()...)
		}
		o.lastResp = resp
		ev.Class = OHV1Action
		ev.Key = o.sym(src + "\x00" + canonicalJSON(m["thought"]) + "\x00" + canonicalJSON(m["action"]) + "\x00" + asText(m["tool_name"]))
		ev.Tool = o.sym(asText(m["tool_name"]))
		action, _ := m["action"].(map[string]any)
		o.n++
		o.pending = append(o.pending, &stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepAction},
			action: openHandsAction(asText(m["tool_name"]), action), hasAction: true})
		o.ids = append(o.ids, id, asText(m["tool_call_id"]))
	case "ObservationEvent", "AgentErrorEvent", "UserRejectObservation":
		r := o.attach(asText(m["action_id"]), asText(m["tool_call_id"]))
		var text string
		switch kind {
		case "ObservationEvent":
			ev.Class = OHV1Observation
			ev.Key = o.sym(src + "\x00" + canonicalJSON(m["observation"]) + "\x00" + asText(m["tool_name"]))
			obs, _ := m["observation"].(map[string]any)
			text = v1Text(obs["content"])
			if r != nil {
				r.info.Error = obs["is_error"] == true
				if c, ok := asInt(obs["exit_code"]); ok && obs["exit_code"] != nil {
					r.info.ExitCode, r.info.HasExitCode = c, true
				}
			}
		case "AgentErrorEvent":
			ev.Class = OHV1AgentError
			text = asText(m["error"])
			ev.Key, ev.Error = o.sym(src+"\x00"+text), o.sym(text)
			if r != nil {
				r.info.Error = true
			}
		default: // compared by ==: every field, its id too
			ev.Class = OHV1ObservationBase
			ev.Key = o.sym(canonicalJSON(m))
			text = asText(m["rejection_reason"])
		}
		if r != nil {
			r.output, r.hasText = text, true
		} else if ev.Class == OHV1AgentError && src == "agent" {
			o.askBefore() // an error of the agent's step, of no action
		}
	case "MessageEvent":
		ev.Class = OHV1Message
		ev.Key = o.sym(src + "\x00" + canonicalJSON(m["llm_message"]))
		msg, _ := m["llm_message"].(map[string]any)
		switch text := v1Text(msg["content"]); {
		case src == "agent":
			o.askBefore()
			newStep(stepRecord{info: StepInfo{Kind: StepMessage}, output: text, hasText: true})
		case src == "environment" && strings.HasPrefix(text, v1NudgePrefix) && strings.Contains(text, " times in a row and gotten the same error each time: "):
			if o.ep != nil {
				o.ep.Live = append(o.ep.Live, LiveEvent{Kind: LiveOpenHandsV1Nudge, Turn: max(o.n, 1)})
			}
		}
	case "CondensationSummaryEvent":
		ev.Class = OHV1CondensationSummary
		ev.Key = o.sym(canonicalJSON(m))
	case "Condensation":
		o.askBefore()
		ev.Key = o.sym(canonicalJSON(m))
		newStep(stepRecord{info: StepInfo{Kind: StepCondensation}, output: asText(m["summary"]), hasText: true})
	case "ConversationStateUpdateEvent", "ConversationErrorEvent":
		ev.Artifact = true
		ev.Key = o.sym(canonicalJSON(m))
		if m["key"] == "execution_status" && m["value"] == "stuck" {
			o.askBefore() // the check that set it
			o.event(ev, id)
			if o.ep != nil {
				o.ep.Live = append(o.ep.Live, LiveEvent{Kind: LiveOpenHandsV1Stuck, Turn: max(o.n, 1)})
			}
			return out, ""
		}
	default:
		ev.Key = o.sym(canonicalJSON(m))
	}
	o.event(ev, id)
	return out, ""
}

// askBefore marks that the run loop checks before the event being read:
// after the last event recorded (none: nothing to check yet).
func (o *openHandsV1Reader) askBefore() {
	if o.ep != nil && len(o.ep.OpenHandsV1) > 0 {
		o.ep.OpenHandsV1[len(o.ep.OpenHandsV1)-1].Ask = true
	}
}

// attach finds the pending action an observation answers, by action id
// or tool call id.
func (o *openHandsV1Reader) attach(actionID, callID string) *stepRecord {
	for i, id := range o.ids {
		if id != "" && (id == actionID || id == callID) {
			return o.pending[i/2]
		}
	}
	return nil
}

func (o *openHandsV1Reader) sym(s string) Sym {
	if o.ep == nil {
		return 0
	}
	return o.ep.syms.sym(s)
}

// event records ev at the current step.
func (o *openHandsV1Reader) event(ev OpenHandsV1Event, id string) {
	if o.ep == nil {
		return
	}
	ev.N = int32(max(o.n, 1))
	ev.ID = o.ep.syms.sym(id)
	o.ep.OpenHandsV1 = append(o.ep.OpenHandsV1, ev)
}

// isOpenHandsV1 says a record's keys are a V1 event's: a "kind" naming an
// event class.
func isOpenHandsV1(keys map[string]bool, line []byte) bool {
	if !keys["kind"] || !keys["id"] {
		return false
	}
	var probe struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return true // cut short: the keys say enough
	}
	return strings.HasSuffix(probe.Kind, "Event") || strings.HasSuffix(probe.Kind, "Observation") || probe.Kind == "Condensation"
}
