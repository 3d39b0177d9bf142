package replay

// The OpenHands readers before rawValue (records decoded into maps by
// encoding/json, canonical keys written from the maps): the reference
// FuzzOpenHandsValue and FuzzOpenHandsV1Value hold the readers to.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

type ohMapReader struct {
	n       int
	pending *stepRecord
	pendID  string
	ep      *Episode
	depth   uint8
}

type v1MapReader struct {
	n        int
	pending  []*stepRecord
	ids      []string
	lastResp string
	ep       *Episode
	lastNode string
	branched bool
}

func (o *ohMapReader) start(ep *Episode) { o.ep = ep }

// event records one event of the history at the current step.
func (o *ohMapReader) event(cls OpenHandsClass, inHistory, ask bool, key, text string) {
	o.eventAt(o.n, cls, inHistory, ask, key, text)
}

// eventAt records one event of the history at step n (the first step
// before any).
func (o *ohMapReader) eventAt(n int, cls OpenHandsClass, inHistory, ask bool, key, text string) {
	if o.ep == nil {
		return
	}
	e := OpenHandsEvent{N: int32(max(n, 1)), Class: cls, InHistory: inHistory, Ask: ask, Depth: o.depth, Key: o.ep.syms.sym(key)}
	if text != "" {
		e.Text = o.ep.syms.sym(text)
	}
	o.ep.OpenHands = append(o.ep.OpenHands, e)
}

func (o *ohMapReader) record(m map[string]any) ([]stepRecord, string) {
	var out []stepRecord
	flush := func() {
		if o.pending != nil {
			out = append(out, *o.pending)
			o.pending = nil
		}
	}
	if act, ok := m["action"].(string); ok {
		args, ok := m["args"].(map[string]any)
		if !ok {
			if _, has := m["args"]; !has {
				return nil, strings.Replace(oldShape, "%s", `"args"`, 1)
			}
			return nil, `an OpenHands action whose "args" is not an object`
		}
		src, _ := m["source"].(string)
		o.actionEvent(act, src, args, !openHandsNotSteps[act] && !(act == "message" && src == "user"))
		if openHandsNotSteps[act] {
			return nil, ""
		}
		switch act {
		case "message":
			if src == "user" {
				return nil, ""
			}
			flush()
			o.n++
			return append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepMessage}, output: asText(args["content"]), hasText: true}), ""
		case "condensation":
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
	extras, ok := m["extras"].(map[string]any)
	if !ok {
		if _, has := m["extras"]; !has {
			return nil, strings.Replace(oldShape, "%s", `"extras"`, 1)
		}
		return nil, `an OpenHands observation whose "extras" is not an object`
	}
	content := asText(m["content"])
	cause := asText(m["cause"])
	// The event is recorded once its step is known: an observation of the
	// pending call belongs to the call's step.
	defer o.observationEvent(obs, m, content, extras)
	if openHandsNotSteps[obs] {
		return nil, ""
	}
	if obs == "condense" { // AgentCondensationObservation
		flush()
		o.n++
		return append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepCondensation}, output: content, hasText: true}), ""
	}
	if o.pending == nil || (cause != "" && cause != o.pendID) {
		// An observation of no pending call (a user command's output, or
		// one whose action was not logged): a step with no call.
		flush()
		o.n++
		r := stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepAction}, output: content, hasText: true}
		ohMapResult(&r, obs, extras)
		return append(out, r), ""
	}
	r := o.pending
	o.pending = nil
	r.output, r.hasText = content, true
	ohMapResult(r, obs, extras)
	return append(out, *r), ""
}

// actionEvent records an action as the controller sees it; newStep says
// it begins the next step.
func (o *ohMapReader) actionEvent(act, src string, args map[string]any, newStep bool) {
	if act == "null" || act == "change_agent_state" {
		return // not in the history, and should_step is false
	}
	inHistory := args["hidden"] != true
	cls, ask := OHOtherAction, false
	var text string
	switch act {
	case "message":
		switch src {
		case "user":
			cls, ask = OHUserMessage, true
		case "agent":
			// An agent message waiting for a response sets the state to
			// awaiting_user_input first: the controller does not step.
			cls, ask = OHAgentMessage, args["wait_for_response"] != true
		default:
			// Neither the user's (is_stuck keeps it) nor the agent's
			// (no monologue); should_step takes any MessageAction.
			ask = true
		}
	case "run_ipython":
		cls, text = OHIPythonAction, asText(args["code"])
	case "condensation", "condensation_request":
		ask = true
		// A delegate action asks nothing: start_delegate has set the
		// delegate when should_step looks, and it returns False.
	}
	if !inHistory {
		return // _on_event returns before anything for a hidden event
	}
	n := o.n
	if newStep {
		n++
	}
	o.eventAt(n, cls, true, ask, "a:"+act+"\x00"+canonicalJSON(args), text)
	if act == "delegate" && o.depth < 255 {
		o.depth++ // what follows is the delegate's
	}
}

// observationEvent records an observation as the controller sees it, and
// the live stuck verdict an observation carries.
func (o *ohMapReader) observationEvent(obs string, m map[string]any, content string, extras map[string]any) {
	if extras["hidden"] == true {
		return
	}
	if obs == "delegate" && o.depth > 0 {
		o.depth-- // the delegate's result is the parent's
	}
	switch obs {
	case "agent_state_changed":
		if state, _ := extras["agent_state"].(string); state == "error" {
			if reason, _ := extras["reason"].(string); strings.Contains(reason, "stuck in a loop") {
				o.live()
			}
		}
		return
	case "null":
		c, ok := asInt(m["cause"])
		if ok && c > 0 {
			o.event(OHNull, false, true, "", "")
		}
		return
	case "loop_detection":
		o.live()
	}
	cls, text := OHOtherObs, ""
	key := "o:" + obs + "\x00" + canonicalJSON(content) + "\x00" + canonicalJSON(extras)
	switch obs {
	case "run":
		cls = OHCmdObs
		key = "c:" + asText(extras["command"]) + "\x00" + canonicalJSON(ohMapExitCode(extras))
	case "error":
		cls = OHErrorObs
	case "run_ipython":
		cls, text = OHIPythonObs, content
	case "condense":
		cls = OHCondensation
	}
	o.event(cls, true, true, key, text)
}

// live records the live stuck verdict at the current step.
func (o *ohMapReader) live() {
	if o.ep != nil {
		o.ep.Live = append(o.ep.Live, LiveEvent{Kind: LiveOpenHandsStuck, Turn: max(o.n, 1)})
	}
}

// ohMapExitCode is CmdOutputObservation.exit_code: metadata.exit_code
// (since Jan 2025), the exit_code field before, -1 (the default) when
// neither is logged.
func ohMapExitCode(extras map[string]any) any {
	if md, ok := extras["metadata"].(map[string]any); ok {
		if c, ok := md["exit_code"]; ok {
			return c
		}
	}
	if c, ok := extras["exit_code"]; ok {
		return c
	}
	return json.Number("-1")
}

// ohMapResult sets error and exit code from an observation: an
// ErrorObservation is an error; a command's exit code is in
// extras.metadata.exit_code (older versions: extras.exit_code).
func ohMapResult(r *stepRecord, obs string, extras map[string]any) {
	r.info.Error = obs == "error"
	var code any
	if md, ok := extras["metadata"].(map[string]any); ok {
		code = md["exit_code"]
	}
	if code == nil {
		code = extras["exit_code"]
	}
	if c, ok := asInt(code); ok && code != nil {
		r.setExitCode(c)
	}
}

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

func (o *ohMapReader) finish() []stepRecord {
	if o.pending == nil {
		return nil
	}
	r := *o.pending
	o.pending = nil
	return []stepRecord{r}
}

// canonicalJSON writes v so that two values Python's == holds equal (as
// dataclass equality compares field values decoded from JSON) write the
// same: object keys sorted (dict equality ignores order), numbers by
// value (1 == 1.0), booleans as the numbers they equal (True == 1).
func canonicalJSON(v any) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("1")
		} else {
			b.WriteString("0")
		}
	case json.Number:
		b.WriteString(canonicalNumber(string(x)))
	case float64:
		b.WriteString(canonicalNumber(strconv.FormatFloat(x, 'g', -1, 64)))
	case string:
		q, _ := json.Marshal(x)
		b.Write(q)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	default:
		q, _ := json.Marshal(x)
		b.Write(q)
	}
}

func (o *v1MapReader) start(ep *Episode) { o.ep = ep }

func (o *v1MapReader) flush() []stepRecord {
	var out []stepRecord
	for _, r := range o.pending {
		out = append(out, *r)
	}
	o.pending, o.ids = o.pending[:0], o.ids[:0]
	return out
}

func (o *v1MapReader) finish() []stepRecord { return o.flush() }

// v1Text joins the text parts of a content list.
func v1MapText(v any) string {
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

func (o *v1MapReader) record(m map[string]any) ([]stepRecord, string) {
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
			text = v1MapText(obs["content"])
			if r != nil {
				r.info.Error = obs["is_error"] == true
				if c, ok := asInt(obs["exit_code"]); ok && obs["exit_code"] != nil {
					r.setExitCode(c)
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
		switch text := v1MapText(msg["content"]); {
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
func (o *v1MapReader) askBefore() {
	if o.ep != nil && len(o.ep.OpenHandsV1) > 0 {
		o.ep.OpenHandsV1[len(o.ep.OpenHandsV1)-1].Ask = true
	}
}

// attach finds the pending action an observation answers, by action id
// or tool call id.
func (o *v1MapReader) attach(actionID, callID string) *stepRecord {
	for i, id := range o.ids {
		if id != "" && (id == actionID || id == callID) {
			return o.pending[i/2]
		}
	}
	return nil
}

func (o *v1MapReader) sym(s string) Sym {
	if o.ep == nil {
		return 0
	}
	return o.ep.syms.sym(s)
}

// event records ev at the current step.
func (o *v1MapReader) event(ev OpenHandsV1Event, id string) {
	if o.ep == nil {
		return
	}
	ev.N = int32(max(o.n, 1))
	ev.ID = o.ep.syms.sym(id)
	o.ep.OpenHandsV1 = append(o.ep.OpenHandsV1, ev)
}

// ohSeeds are the fixtures' logs, one event a line, as fuzz seeds.
func ohSeeds(f *testing.F, paths ...string) {
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join("..", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"id":1,"action":"run","source":"agent","args":{"command":"ls","thought":"t","hidden":false,"x":[1.0,true,null]}}` + "\n" +
		`{"id":2,"cause":1,"observation":"run","content":"a\nb<","extras":{"command":"ls","metadata":{"exit_code":NaN},"exit_code":2}}` + "\n" +
		`{"id":3,"cause":"1","observation":"null","content":null,"extras":{}}` + "\n" +
		`{"id":4,"action":"run","args":[]}` + "\n" + `{"id":5,"observation":"x","extras":null}`))
	// Values of indexMin bytes or more, which an index holds: a long
	// content before extras, a member repeated after a long one.
	long := strings.Repeat("0123456789", 8)
	f.Add([]byte(`{"id":7,"action":"run","source":"agent","args":{"command":"` + long + `","thought":"` + long + `","code":{"a":["` + long + `"]},"hidden":false,"hidden":true}}` + "\n" +
		`{"id":8,"cause":7,"observation":"run","content":"` + long + `\n` + long + `","extras":{"command":"` + long + `","metadata":{"x":"` + long + `","exit_code":3},"exit_code":2},"extras":{"metadata":{"exit_code":4,"y":"` + long + `"}}}` + "\n" +
		`{"id":9,"action":"message","source":"agent","args":{"content":"` + long + `","wait_for_response":true,"content":"` + long + `!"}}`))
}

// eachRecord calls fn with each line both decoders read, and raw (if
// not nil) with every line and parseRecord's verdict.
func eachRecord(data []byte, fn func(m map[string]any, v rawValue), raw func(line []byte, err error)) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		m, err := decodeObject(line)
		v, rerr := parseRecord(line, true)
		if err == nil && rerr == nil {
			fn(m, v)
		}
		if raw != nil && (rerr != nil || err == nil) {
			raw(line, rerr)
		}
	}
}

// sameEvents fails unless two episodes' OpenHands (V0) events agree.
func sameEvents(t *testing.T, epA, epB *Episode) {
	t.Helper()
	if len(epA.OpenHands) != len(epB.OpenHands) {
		t.Fatalf("%d events, the map reader's %d", len(epB.OpenHands), len(epA.OpenHands))
	}
	for i, ea := range epA.OpenHands {
		eb := epB.OpenHands[i]
		// By value, from the table each names them in (a replay as read:
		// the history's, its keys and texts not interned).
		if epA.HistoryStr(ea.Key) != epB.HistoryStr(eb.Key) || epA.HistoryStr(ea.Text) != epB.HistoryStr(eb.Text) {
			t.Fatalf("event %d: key %q text %q, the map reader's %q %q", i, epB.HistoryStr(eb.Key), epB.HistoryStr(eb.Text), epA.HistoryStr(ea.Key), epA.HistoryStr(ea.Text))
		}
		ea.Key, ea.Text, eb.Key, eb.Text = 0, 0, 0, 0
		if ea != eb {
			t.Fatalf("event %d: %+v, the map reader's %+v", i, eb, ea)
		}
	}
	if !reflect.DeepEqual(epA.Live, epB.Live) {
		t.Fatalf("live %+v, the map reader's %+v", epB.Live, epA.Live)
	}
}

// sameSteps fails unless two readers' steps and reasons agree.
func sameSteps(t *testing.T, a, b []stepRecord, ra, rb string) {
	t.Helper()
	if ra != rb {
		t.Fatalf("reason %q, the map reader's %q", rb, ra)
	}
	if (len(a) > 0 || len(b) > 0) && !reflect.DeepEqual(a, b) { // none is none, nil or not
		t.Fatalf("steps %+v, the map reader's %+v", b, a)
	}
}

// uncopied is recs, outCopied cleared on a copy of each: a reader
// without copies gives its outputs as strings of their own, the same
// texts.
func uncopied(recs []stepRecord) []stepRecord {
	out := slices.Clone(recs)
	for i := range out {
		out[i].outCopied = false
	}
	return out
}

// held appends recs with strings of their own, as stepTable.add keeps
// them before the next record: an OpenHands step's action is a view of
// the reader's buffer until then (openHandsReader.spare).
func held(dst, recs []stepRecord) []stepRecord {
	n := len(dst)
	dst = append(dst, recs...)
	cloneStrings(dst[n:])
	return dst
}

// FuzzOpenHandsValue holds the V0 reader reading in place to the map
// reader: the same steps, reasons, history events (keys compared as
// strings) and live verdicts.
func FuzzOpenHandsValue(f *testing.F) {
	ohSeeds(f, "testdata/steps/openhands/events.jsonl", "testdata/openhands/live-stuck.jsonl", "testdata/openhands/live-disagrees.jsonl")
	// Calls one after the other, the first handed out with the second's
	// record (its action written while the first is held), and a message
	// between a call and its observation.
	f.Add([]byte(`{"id":1,"source":"agent","action":"run","args":{"command":"ls","thought":"a"}}` + "\n" +
		`{"id":2,"source":"agent","action":"run","args":{"command":"pwd -P"}}` + "\n" +
		`{"id":3,"source":"agent","action":"read","args":{"path":"/x"}}` + "\n" +
		`{"id":4,"source":"agent","action":"message","args":{"content":"hm","wait_for_response":false}}` + "\n" +
		`{"id":5,"cause":3,"observation":"read","content":"x\ny","extras":{"path":"/x"}}` + "\n"))
	// Lines recordRaw's pass refuses, for parseFields' reason: more
	// after the object, not an object; white space around one it takes.
	// NaN and infinities at the top level, which a line reads as null
	// (parseFields, which recordRaw hands a line the index says holds
	// one), and nested.
	f.Add([]byte(`{"id":1,"source":"agent","action":"run","args":{"command":"ls"}} x` + "\n" +
		`{"id":2,"cause":1,"observation":"run","content":"a","extras":{}}{"id":3}` + "\n" +
		`[{"id":4,"source":"agent","action":"run","args":{"command":"ls"}}]` + "\n" +
		`"id"` + "\n" + `{"id":5,"source":"agent","action":"run","args":{"command":"ls"}` + "\n" +
		` {"id":6,"source":"agent","action":"run","args":{"command":"pwd"}}` + " \t\r\n" +
		`{"id":7,"cause":6,"observation":"run","content":"b","extras":{"exit_code":0}}` + "\n"))
	f.Add([]byte(`{"id":Infinity,"source":"agent","action":"run","args":{"command":"ls"},"cause":NaN}` + "\n" +
		`{"id":2,"cause":NaN,"observation":"run","content":NaN,"extras":{"command":"ls","exit_code":-Infinity}}` + "\n" +
		`{"id":3,"source":"agent","action":"run","args":NaN}` + "\n" +
		`{"id":4,"source":"agent","action":"message","args":{"content":"hm","wait_for_response":NaN}}` + "\n" +
		`{"id":5,"cause":4,"observation":"read","content":"x","extras":NaN}` + "\n"))
	// Actions whose name and args repeat, or differ in a byte where the
	// key memo's tag does not look (past the first and last eight bytes
	// and the middle word, at the same length), or in the name alone:
	// each key found in the memo or written anew (keyMemo).
	f.Add([]byte(`{"id":1,"source":"agent","action":"run","args":{"command":"ls -la /tmp/aaaa/bbbb/cccc/dddd","thought":"a"}}` + "\n" +
		`{"id":2,"source":"agent","action":"run","args":{"command":"ls -la /tmp/aaaa/bbbb/cccc/dddd","thought":"a"}}` + "\n" +
		`{"id":3,"source":"agent","action":"run","args":{"command":"ls -lb /tmp/aaaa/bbbb/cccc/dddd","thought":"a"}}` + "\n" +
		`{"id":4,"source":"agent","action":"run","args":{"command":"ls -la /tmp/aaaa/bbbb/cxcc/dddd","thought":"a"}}` + "\n" +
		`{"id":5,"source":"agent","action":"run","args":{"command":"ls -la /tmp/aaaa/bbbb/cccc/dddd","thought":"b"}}` + "\n" +
		`{"id":6,"source":"agent","action":"read","args":{"path":"/x/yyyyyyyy/zzzzzzzz"}}` + "\n" +
		`{"id":7,"source":"agent","action":"edit","args":{"path":"/x/yyyyyyyy/zzzzzzzz"}}` + "\n" +
		`{"id":8,"source":"agent","action":"message","args":{"content":"the same words","wait_for_response":false}}` + "\n" +
		`{"id":9,"source":"user","action":"message","args":{"content":"the same words","wait_for_response":false}}` + "\n" +
		`{"id":10,"source":"agent","action":"read","args":{"path":"/x/yyyyyyyy/zzzzzzzz"}}` + "\n" +
		`{"id":11,"source":"agent","action":"run","args":{"command":"ls -la /tmp/aaaa/bbbb/cccc/dddd","thought":"a"}}` + "\n"))
	// Actions whose args differ in their thought alone (thoughtMemo: the
	// key written around the new thought), of every length and escape,
	// HTML characters and non-ASCII written escaped; a thought repeated
	// (the last is the key's), not a string, or not last in the key (a
	// key after it): written anew. A message's key alone, and a run's
	// with its action.
	f.Add([]byte(`{"id":1,"source":"agent","action":"run","args":{"command":"ls","thought":"a","blocking":false}}` + "\n" +
		`{"id":2,"source":"agent","action":"run","args":{"command":"ls","thought":"bb <x> & \u00e9","blocking":false}}` + "\n" +
		`{"id":3,"source":"agent","action":"run","args":{"command":"ls","thought":"","blocking":false}}` + "\n" +
		`{"id":4,"source":"agent","action":"run","args":{"command":"ls","thought":"q\"\\\n\u2028","blocking":false}}` + "\n" +
		`{"id":5,"source":"agent","action":"run","args":{"command":"ls","thought":null,"blocking":false}}` + "\n" +
		`{"id":6,"source":"agent","action":"run","args":{"command":"ls","thought":1.50,"blocking":false}}` + "\n" +
		`{"id":7,"source":"agent","action":"run","args":{"thought":"x","command":"ls","thought":"y"}}` + "\n" +
		`{"id":8,"source":"agent","action":"run","args":{"thought":"x","command":"ls","thought":"z"}}` + "\n" +
		`{"id":9,"source":"agent","action":"run","args":{"thought":"w","command":"ls","thought":"z"}}` + "\n" +
		`{"id":10,"source":"agent","action":"read","args":{"path":"/x","thought":"a","view_range":[1,2]}}` + "\n" +
		`{"id":11,"source":"agent","action":"read","args":{"path":"/x","thought":"b","view_range":[1,2]}}` + "\n" +
		`{"id":12,"source":"agent","action":"read","args":{"path":"/x","thought":"a","thoughts":1}}` + "\n" +
		`{"id":13,"source":"agent","action":"read","args":{"path":"/x","thought":"b","thoughts":1}}` + "\n" +
		`{"id":14,"source":"agent","action":"message","args":{"content":"hm","thought":"a"}}` + "\n" +
		`{"id":15,"source":"agent","action":"message","args":{"content":"hm","thought":"b"}}` + "\n" +
		`{"id":16,"source":"agent","action":"think","args":{"thought":"one"}}` + "\n" +
		`{"id":17,"source":"agent","action":"think","args":{"thought":"two"}}` + "\n" +
		`{"id":18,"source":"agent","action":"run","args":{"command":"ls","thou\u0067ht":"c","blocking":false}}` + "\n" +
		`{"id":19,"source":"agent","action":"run","args":{"command":"ls","thought":"a","blocking":true}}` + "\n" +
		`{"id":20,"source":"agent","action":"run","args":{"command":"ls","thought":"d","blocking":false}}` + "\n" +
		// The bytes after the thought differing where the tag does not
		// look, then before it.
		`{"id":21,"source":"agent","action":"run","args":{"thought":"e","cwd":"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b"}}` + "\n" +
		`{"id":22,"source":"agent","action":"run","args":{"thought":"f","cwd":"/aaaacaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b"}}` + "\n" +
		`{"id":23,"source":"agent","action":"run","args":{"cwd":"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b","thought":"e"}}` + "\n" +
		`{"id":24,"source":"agent","action":"run","args":{"cwd":"/aaaaaaaaaaaaaaaaaaaacaaaaaaaaaaaaaaaaaaaaaaaaaaa/b","thought":"f"}}` + "\n"))
	// IPython cells and their outputs: events with a text.
	f.Add([]byte(`{"id":1,"source":"agent","action":"run_ipython","args":{"code":"print(1)","thought":""}}` + "\n" +
		`{"id":2,"cause":1,"observation":"run_ipython","content":"1\\nx","extras":{"code":"print(1)"}}` + "\n" +
		`{"id":3,"source":"agent","action":"run_ipython","args":{"code":"print(1)","thought":""}}` + "\n" +
		`{"id":4,"cause":3,"observation":"run_ipython","content":"1\\nx","extras":{"code":"print(1)"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		epA, epB, epC := newStepTable("a", "s").ep, newStepTable("b", "s").ep, newStepTable("c", "s").ep
		a, b, c := &ohMapReader{}, &openHandsReader{}, &openHandsReader{}
		a.start(epA)
		b.start(epB)
		c.start(epC)
		// d reads each record indexed, as a trajectory's element is
		// (readDocumentIx), with recordValueIx.
		epD, d := newStepTable("d", "s").ep, &openHandsReader{}
		d.start(epD)
		var ix valueIndex
		// e reads each line as c, with the table's copies (a replay as
		// read): its outputs unescaped straight into them, the same
		// texts, none a view of the line (written over once read); its
		// events' keys and texts in the history's table, not interned
		// (historyBytes).
		epE, e := newStepTable("e", "s").ep, &openHandsReader{copies: &outputCopies{}}
		epE.streamed = true
		e.start(epE)
		var line2 []byte
		var bSteps, cSteps, eSteps []stepRecord
		eachRecord(data, func(m map[string]any, v rawValue) {
			ra, wa := a.record(m)
			rb, wb := b.recordValue(v)
			sameSteps(t, ra, rb, wa, wb)
			bSteps = held(bSteps, rb)
			if validValueIx(v, 0, &ix) != len(v) {
				t.Fatalf("%q: not valid", v)
			}
			rd, wd := d.recordValueIx(v, &ix)
			sameSteps(t, ra, rd, wa, wd)
		}, func(line []byte, err error) {
			rc, wc := c.recordRaw(line, 0)
			if err != nil && (wc != err.Error() || len(rc) > 0) {
				t.Fatalf("line reason %q, parseRecord's %v", wc, err)
			}
			cSteps = held(cSteps, rc)
			line2 = append(line2[:0], line...)
			re, we := e.recordRaw(line2, 0)
			if we != wc {
				t.Fatalf("reason %q with copies, %q without", we, wc)
			}
			eSteps = held(eSteps, re)
			for i := range line2 {
				line2[i] = '#'
			}
		})
		aLast := a.finish()
		sameSteps(t, aLast, b.finish(), "", "")
		sameSteps(t, bSteps, cSteps, "", "")
		for i := range eSteps {
			eSteps[i].outCopied = false // c's outputs are strings of their own
		}
		sameSteps(t, cSteps, eSteps, "", "")
		sameSteps(t, c.finish(), e.finish(), "", "")
		sameEvents(t, epA, epE)
		sameEvents(t, epA, epB)
		sameEvents(t, epA, epC)
		sameSteps(t, aLast, d.finish(), "", "")
		sameEvents(t, epA, epD)
	})
}

// FuzzOpenHandsV1Value holds the V1 reader reading in place to the map
// reader.
func FuzzOpenHandsV1Value(f *testing.F) {
	ohSeeds(f, "testdata/openhands/v1-stuck.jsonl", "testdata/openhands/v1-nudge.jsonl")
	f.Add([]byte(v1KeyedLog))
	// An observation found by its action's id alone, and events linked by
	// parent_id: the ids kept past their line.
	f.Add([]byte(`{"id":"act-1","source":"agent","action":{"command":"ls","kind":"TerminalAction"},"tool_name":"terminal","parent_id":"__root__","kind":"ActionEvent"}` + "\n" +
		`{"id":"obs-1","source":"environment","observation":{"content":[{"type":"text","text":"x"}],"kind":"TerminalObservation"},"action_id":"act-1","tool_name":"terminal","parent_id":"act-1","kind":"ObservationEvent"}` + "\n" +
		`{"id":"act-2","source":"agent","action":{"command":"ls","kind":"TerminalAction"},"tool_name":"terminal","parent_id":"obs-1","kind":"ActionEvent"}` + "\n"))
	// Observations and actions of the same length and first and last
	// bytes (one slot of canonMemo), some the same, some not.
	obs := func(id, text string) string {
		return `{"id":"` + id + `","source":"environment","observation":{"content":[{"type":"text","text":"` + text +
			`"}],"is_error":false,"metadata":{"exit_code":0,"pid":-1,"prefix":""},"kind":"TerminalObservation"},"tool_name":"terminal","kind":"ObservationEvent"}` + "\n"
	}
	act := func(id, command string) string {
		return `{"id":"` + id + `","source":"agent","thought":[{"type":"text","text":"again"}],"action":{"command":"` + command +
			`","is_input":false,"kind":"TerminalAction"},"tool_name":"terminal","llm_response_id":"r` + id + `","kind":"ActionEvent"}` + "\n"
	}
	f.Add([]byte(act("a1", "ls -la /tmp") + obs("o1", "one two three") + act("a2", "ls -la /tmp") + obs("o2", "one two three") +
		act("a3", "ls -lb /tmp") + obs("o3", "one tw0 three") + act("a4", "ls -la /tmp") + obs("o4", "one two three")))
	f.Fuzz(func(t *testing.T, data []byte) {
		epA, epB := newStepTable("a", "s").ep, newStepTable("b", "s").ep
		a, b := &v1MapReader{}, &openHandsV1Reader{}
		a.start(epA)
		b.start(epB)
		epC, c := newStepTable("c", "s").ep, &openHandsV1Reader{}
		c.start(epC)
		// s reads the lines as analyze replays a log as it reads it: the
		// keys written in full (no string keyed), objects written before
		// from the memo (canonMemo), the outputs unescaped straight into
		// the table's copies (the same texts, none a view of the line:
		// written over once read).
		epS, r := newStepTable("s", "s").ep, &openHandsV1Reader{copies: &outputCopies{}}
		epS.streamed = true
		r.start(epS)
		var cSteps, bSteps, sSteps []stepRecord
		eachRecord(data, func(m map[string]any, v rawValue) {
			ra, wa := a.record(m)
			rb, wb := b.recordValue(v)
			sameSteps(t, ra, rb, wa, wb)
			bSteps = held(bSteps, rb)
		}, func(line []byte, err error) {
			// Read from a buffer written over after: nothing of the
			// line is kept past its record (ids are views of it).
			buf := bytes.Clone(line)
			rc, wc := c.recordRaw(buf, 0)
			if err != nil && (wc != err.Error() || len(rc) > 0) {
				t.Fatalf("line reason %q, parseRecord's %v", wc, err)
			}
			cSteps = held(cSteps, rc)
			copy(buf, line)
			rs, ws := r.recordRaw(buf, 0)
			sameSteps(t, rc, uncopied(rs), wc, ws)
			sSteps = held(sSteps, rs)
			for i := range buf {
				buf[i] = '#'
			}
		})
		cSteps = append(cSteps, c.finish()...)
		sameSteps(t, append(bSteps, b.finish()...), cSteps, "", "")
		sameSteps(t, cSteps, uncopied(append(sSteps, r.finish()...)), "", "")
		if len(epS.OpenHandsV1) != len(epC.OpenHandsV1) {
			t.Fatalf("replayed as read: %d events, %d", len(epS.OpenHandsV1), len(epC.OpenHandsV1))
		}
		for i, ev := range epS.OpenHandsV1 {
			ec := epC.OpenHandsV1[i]
			if ks, kc := epS.HistoryStr(ev.Key), fullKey(epC, ec.Key); ks != kc {
				t.Fatalf("event %d: key replayed as read %q, %q", i, ks, kc)
			}
			// The other strings, by value (not interned as read).
			for k, p := range [][2]Sym{{ev.Source, ec.Source}, {ev.ID, ec.ID}, {ev.Tool, ec.Tool}, {ev.Error, ec.Error}} {
				if ss, sc := epS.HistoryStr(p[0]), epC.HistoryStr(p[1]); ss != sc {
					t.Fatalf("event %d: string %d replayed as read %q, %q", i, k, ss, sc)
				}
			}
			ev.Source, ev.ID, ev.Tool, ev.Error, ev.Key = ec.Source, ec.ID, ec.Tool, ec.Error, ec.Key
			if ev != ec {
				t.Fatalf("event %d replayed as read: %+v, %+v", i, ev, ec)
			}
		}
		if len(epB.OpenHandsV1) != len(epC.OpenHandsV1) || !reflect.DeepEqual(epB.Live, epC.Live) || !reflect.DeepEqual(epB.Diag.Notes, epC.Diag.Notes) {
			t.Fatalf("lines: %d events, notes %q, records %d, %q", len(epC.OpenHandsV1), epC.Diag.Notes, len(epB.OpenHandsV1), epB.Diag.Notes)
		}
		for i := range epB.OpenHandsV1 {
			if kb, kc := fullKey(epB, epB.OpenHandsV1[i].Key), fullKey(epC, epC.OpenHandsV1[i].Key); kb != kc {
				t.Fatalf("event %d: line key %q, record key %q", i, kc, kb)
			}
		}
		sameKeyEquality(t, epA, epB)
		sameKeyEquality(t, epA, epC)
		if len(epA.OpenHandsV1) != len(epB.OpenHandsV1) {
			t.Fatalf("%d events, the map reader's %d", len(epB.OpenHandsV1), len(epA.OpenHandsV1))
		}
		for i, ea := range epA.OpenHandsV1 {
			eb := epB.OpenHandsV1[i]
			if !keyCompared(eb.Class) {
				ea.Key = 0 // not written: compared by none
			}
			if !idRead(eb.Class) {
				ea.ID = 0 // not kept: read by none
			}
			if !sourceRead(eb.Class) {
				ea.Source = 0 // not kept: read by none
			}
			if fullKey(epB, eb.Key) != epA.Str(ea.Key) {
				t.Fatalf("event %d: key %q, the map reader's %q", i, fullKey(epB, eb.Key), epA.Str(ea.Key))
			}
			for _, p := range [][2]Sym{{ea.Source, eb.Source}, {ea.ID, eb.ID}, {ea.Tool, eb.Tool}, {ea.Error, eb.Error}} {
				if epA.Str(p[0]) != epB.Str(p[1]) {
					t.Fatalf("event %d: %q, the map reader's %q", i, epB.Str(p[1]), epA.Str(p[0]))
				}
			}
			ea.Source, ea.Key, ea.ID, ea.Tool, ea.Error = 0, 0, 0, 0, 0
			eb.Source, eb.Key, eb.ID, eb.Tool, eb.Error = 0, 0, 0, 0, 0
			if ea != eb {
				t.Fatalf("event %d: %+v, the map reader's %+v", i, eb, ea)
			}
		}
		if !reflect.DeepEqual(epA.Live, epB.Live) || !reflect.DeepEqual(epA.Diag.Notes, epB.Diag.Notes) {
			t.Fatalf("live %+v %q, the map reader's %+v %q", epB.Live, epB.Diag.Notes, epA.Live, epA.Diag.Notes)
		}
	})
}

// fullKey is a V1 event's key with each string written as its Sym
// (appendKeyed) written out as appendStringValue writes it: the key in
// full, as the map reader writes it.
func fullKey(ep *Episode, key Sym) string {
	k := ep.Str(key)
	var b []byte
	for i := 0; i < len(k); i++ {
		if k[i] != keyMark {
			b = append(b, k[i])
			continue
		}
		var id Sym
		for _, c := range []byte(k[i+1 : i+6]) {
			id = id<<7 | Sym(c&0x7F)
		}
		b = appendGoString(b, ep.Str(id), true)
		i += 5
	}
	return string(b)
}

// keyCompared says the detector compares the keys of events of class c
// (v1Eq): only those are written (read: openHandsV1Reader.read).
func keyCompared(c OpenHandsV1Class) bool { return c >= OHV1Action && c <= OHV1ObservationBase }

// idRead says the detector reads the IDs of events of class c (the
// nudge, of the last observation when it ends a streak of agent
// errors): only those are kept (openHandsV1Reader.event).
func idRead(c OpenHandsV1Class) bool { return c == OHV1AgentError }

// sourceRead says the detector reads the sources of events of class c
// (the window's last user message, the monologue's agent messages):
// only those are kept (openHandsV1Reader.read).
func sourceRead(c OpenHandsV1Class) bool { return c == OHV1Message }

// sameKeyEquality holds that two events of a class have the same key in
// ep exactly when they have in the map reader's epA (the detector's
// v1Eq compares the class and the key's Sym).
func sameKeyEquality(t *testing.T, epA, ep *Episode) {
	t.Helper()
	evs, evA := ep.OpenHandsV1, epA.OpenHandsV1
	for i := range min(len(evs), len(evA)) {
		for j := range i {
			if evs[i].Class != evs[j].Class || !keyCompared(evs[i].Class) {
				continue
			}
			same, sameA := evs[i].Key == evs[j].Key, epA.Str(evA[i].Key) == epA.Str(evA[j].Key)
			if same != sameA {
				t.Fatalf("events %d and %d: the same key %v, in the map reader's %v", j, i, same, sameA)
			}
		}
	}
}

// v1KeyedLog's events have keys with long strings (appendKeyed): an
// output written plainly and with escapes (the same key), and two
// actions whose keys in full are the same only through a NUL in a source
// and in a tool's name (written in full, so still the same), and an
// event keyed whole written plainly and with escapes.
var v1KeyedLog = func() string {
	long := strings.Repeat("x", 70)
	esc := strings.Repeat(`\u0078`, 70)
	obs := func(id, text string) string {
		return `{"id":"` + id + `","source":"environment","observation":{"content":[{"type":"text","text":"` + text +
			`"}],"is_error":false,"kind":"TerminalObservation"},"action_id":"a1","tool_name":"terminal","kind":"ObservationEvent"}`
	}
	act := func(id, src, tool, action string) string {
		return `{"id":"` + id + `","source":"` + src + `","thought":null,"action":` + action + `,"tool_name":"` + tool +
			`","tool_call_id":"c` + id + `","llm_response_id":"r` + id + `","kind":"ActionEvent"}`
	}
	return strings.Join([]string{
		act("a1", "agent", "terminal", `{"command":"`+long+`"}`),
		obs("o1", long), obs("o2", esc), obs("o3", long+"y"),
		act("a2", `a\u0000null`, "t", `{"command":"`+long+`"}`),
		act("a3", "a", `{\"command\":\"`+long+`\"}\u0000t`, "null"),
		`{"id":"m1","source":"agent","llm_message":{"role":"assistant","content":[{"type":"text","text":"` + esc + `"}]},"kind":"MessageEvent"}`,
		`{"id":"m2","source":"agent","llm_message":{"role":"assistant","content":[{"type":"text","text":"` + long + `"}]},"kind":"MessageEvent"}`,
		`{"id":"s1","source":"user","rejection_reason":"` + long + `","action_id":"a1","kind":"UserRejectObservation"}`,
		`{"id":"s1","source":"user","rejection_reason":"` + esc + `","action_id":"a1","kind":"UserRejectObservation"}`,
	}, "\n") + "\n"
}()

// TestOpenHandsV1KeyedKeys holds keys with long strings written as Syms
// to the keys in full: equal for the same events, the output read in
// place from the table.
func TestOpenHandsV1KeyedKeys(t *testing.T) {
	epA, ep := newStepTable("a", "s").ep, newStepTable("b", "s").ep
	a, b := &v1MapReader{}, &openHandsV1Reader{}
	a.start(epA)
	b.start(ep)
	var outputs []string
	for _, line := range strings.Split(strings.TrimSpace(v1KeyedLog), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		a.record(m)
		recs, why := b.recordRaw([]byte(line), 0)
		if why != "" {
			t.Fatal(why)
		}
		for _, r := range recs {
			outputs = append(outputs, r.output)
		}
	}
	for _, r := range b.finish() {
		outputs = append(outputs, r.output)
	}
	evs := ep.OpenHandsV1
	if len(evs) != 10 {
		t.Fatalf("%d events", len(evs))
	}
	sameKeyEquality(t, epA, ep)
	for i, ev := range evs {
		want := epA.Str(epA.OpenHandsV1[i].Key)
		if !keyCompared(ev.Class) {
			want = "" // a message's: compared by none, not written
		}
		if full := fullKey(ep, ev.Key); full != want {
			t.Errorf("event %d: key %q, the map reader's %q", i, full, want)
		}
	}
	long := strings.Repeat("x", 70)
	for _, c := range []struct {
		i, j int
		same bool
	}{{1, 2, true}, {1, 3, false}, {4, 5, true}, {8, 9, true}} {
		if got := evs[c.i].Key == evs[c.j].Key; got != c.same {
			t.Errorf("events %d and %d: the same key %v, want %v", c.i, c.j, got, c.same)
		}
	}
	if k := ep.Str(evs[1].Key); strings.Contains(k, long) || len(k) >= len(fullKey(ep, evs[1].Key)) {
		t.Errorf("observation key %q holds its output in full", k)
	}
	if k := ep.Str(evs[8].Key); strings.Contains(k, long) {
		t.Errorf("event key %q holds its long string in full", k)
	}
	if k := ep.Str(evs[4].Key); !strings.Contains(k, long) {
		t.Errorf("key %q of a source with a NUL not written in full", k)
	}
	// The last observation of an action is its output, the rejections'
	// their reason (written plainly and escaped).
	if want := []string{long + "y", "", "", long, long}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs %q, want %q", outputs, want)
	}
}

// openHandsNotSteps is openHandsNotStep's list, as the reference reads it.
var openHandsNotSteps = map[string]bool{
	"null": true, "agent_state_changed": true, "recall": true, "system": true,
	"change_agent_state": true, "user_rejected": true, "loop_detection": true,
}

// TestOpenHandsNotStep holds the switch to the list: its names, and
// names near them or of steps, which are not.
func TestOpenHandsNotStep(t *testing.T) {
	names := []string{"", "run", "run_ipython", "read", "write", "edit", "browse", "message", "condensation",
		"condense", "delegate", "think", "finish", "error", "nul", "nulll", "NULL", "null ", "system_prompt", "recall\x00"}
	for name := range openHandsNotSteps {
		names = append(names, name, name[1:], name+"s")
	}
	for _, name := range names {
		if got, want := openHandsNotStep(name), openHandsNotSteps[name]; got != want {
			t.Errorf("openHandsNotStep(%q) = %v, want %v", name, got, want)
		}
	}
}
