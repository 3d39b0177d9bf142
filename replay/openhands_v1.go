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
	"bytes"
	"encoding/json"
	"strings"
	"unsafe"
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
	Source   Sym  // a message's only (detect.OpenHandsV1Event)
	Key      Sym
	ID       Sym // an agent error's only
	Tool     Sym
	Error    Sym
}

// openHandsV1Reader reads V1 events into steps and the event list.
type openHandsV1Reader struct {
	n       int
	pending []stepRecord // actions of the current response awaiting observations
	ids     []string     // their action ids and tool call ids, two per action (in idBytes)
	idBytes []byte       // the ids' bytes, let go with them (keepID)
	// acts holds the pending actions' step actions (keepAction), and
	// spare the actions of the steps the last flush handed out, until
	// the next flush: stepTable.add interns an action before the next
	// record is read (most repeat: found, not copied), where each was
	// made a string of its own.
	acts, spare []byte
	lastResp    []byte // the last ActionEvent's llm_response_id
	ep          *Episode
	lastNode    string // the last tree node's id, for the branch check
	branched    bool
	w           canonWriter
	out         []stepRecord // the steps of a record, reused
	ix          valueIndex   // the line's, reused (recordRaw)
	cur         *valueIndex  // the record's index: &ix, or nil (recordValue)
	// copies, when not nil, is where a replay as read keeps the outputs:
	// a step's output text is unescaped straight into it (outCopied),
	// where it was made a string of its own (Str) only to be copied
	// there by the table.
	copies *outputCopies
}

func (o *openHandsV1Reader) start(ep *Episode) { o.ep = ep }

func (o *openHandsV1Reader) flush() []stepRecord { return o.appendFlush(nil) }

// appendFlush appends the pending actions' steps to out and clears them.
func (o *openHandsV1Reader) appendFlush(out []stepRecord) []stepRecord {
	if len(o.pending) == 0 {
		return out
	}
	out = append(out, o.pending...)
	clear(o.pending) // their strings are out's now
	o.pending, o.ids, o.idBytes = o.pending[:0], o.ids[:0], o.idBytes[:0]
	// The actions handed out are held in spare until the next flush;
	// those handed out before it were added with their record.
	o.acts, o.spare = o.spare[:0], o.acts
	return out
}

// keepAction is b as a string over acts, held until the flush after
// the one that hands its step out (appendFlush).
func (o *openHandsV1Reader) keepAction(b ...[]byte) string {
	from := len(o.acts)
	for _, p := range b {
		o.acts = append(o.acts, p...)
	}
	if len(o.acts) == from {
		return ""
	}
	return unsafe.String(&o.acts[from], len(o.acts)-from)
}

// keepID is s copied into idBytes, kept while its action is pending:
// a pending action's ids are only compared (attach), and a copy of each
// made two allocations an action. The bytes are written again only once
// the ids are let go (appendFlush); a string over an array idBytes grew
// out of keeps that array.
func (o *openHandsV1Reader) keepID(s string) string {
	if s == "" {
		return ""
	}
	from := len(o.idBytes)
	o.idBytes = append(o.idBytes, s...)
	return unsafe.String(&o.idBytes[from], len(s))
}

func (o *openHandsV1Reader) finish() []stepRecord { return o.flush() }

// v1Text joins the text parts of a content list (any other value read
// as text). With kept, a step's output: a string part is unescaped into
// o.copies, when set, and the text says whether it is such a copy (one
// part, as content mostly has; parts joined are a string of their own).
func (o *openHandsV1Reader) v1Text(v rawValue, kept bool) (string, bool) {
	if v.Kind() != '[' {
		return o.w.text(v), false
	}
	var b strCat    // the usual one part is not copied again
	copied := false // b.s, the one part, is in o.copies
	o.cur.elems(v, func(_ int, p rawValue) bool {
		t := o.member(p, v1TextKey)
		if s, ok := o.keyedStr(t); ok {
			b.add(s)
		} else if kept && o.copies != nil && t.Kind() == '"' {
			s := o.copies.unescaped(t)
			if s != "" && b.n == 0 {
				copied = true
			}
			b.add(s)
		} else if s, ok := t.Str(); ok {
			b.add(s)
		}
		return true
	})
	return b.String(), copied && b.b == nil
}

// keyedStr is string v as the event's key interned it (appendKeyed): in
// place in the table, where Str would unescape and copy it again.
func (o *openHandsV1Reader) keyedStr(v rawValue) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	for _, k := range o.w.keyed {
		if k.at == &v[0] {
			return o.ep.syms.str(k.sym), true // keyed only when read whole (keyed)
		}
	}
	return "", false
}

// keyed has the event's key written with its long strings as Syms
// (appendKeyed) when the parts around them, src and the others written
// as text, hold no NUL, the byte between the parts: then the key's parts
// are read back from it unambiguously, and it is equal to another's
// exactly when the key written out in full would be. Not when the log is
// replayed as it is read (Episode.streamed): the long strings would be
// interned in the episode's table, which keeps them to the end, so the
// key is written in full, into the history's table.
func (o *openHandsV1Reader) keyed(src string) {
	o.w.syms = nil
	if o.ep != nil && !o.ep.streamed && strings.IndexByte(src, 0) < 0 {
		o.w.syms = &o.ep.syms
	}
}

// v1Keys are the members of a V1 event read, in one pass.
var v1Keys = [...]string{"kind", "source", "id", "parent_id", "llm_response_id", "thought", "action", "tool_name",
	"tool_call_id", "action_id", "observation", "error", "rejection_reason", "llm_message", "summary", "key", "value"}

var v1FieldKeys = newJSKeys(v1Keys[:]...) // for parseFields

const (
	v1kKind = iota
	v1kSource
	v1kID
	v1kParentID
	v1kResponseID
	v1kThought
	v1kAction
	v1kToolName
	v1kToolCallID
	v1kActionID
	v1kObservation
	v1kError
	v1kRejection
	v1kLLMMessage
	v1kSummary
	v1kKey
	v1kValue
)

// canonKey enters the whole of w.buf in the history's table (0 without
// an episode; historyBytes: interned unless replayed as read), and ends
// the strings written as Syms (keyed).
func (o *openHandsV1Reader) canonKey() Sym {
	o.w.syms = nil
	if o.ep == nil {
		return 0
	}
	return o.ep.historyBytes(o.w.buf) // compared by value: not interned in a replay as read
}

// keyOf enters v written canonically in the history's table (canonKey),
// its long strings as Syms: a key of one part, no NUL to read it back by
// (keyed).
func (o *openHandsV1Reader) keyOf(v rawValue) Sym {
	if o.ep == nil {
		return 0
	}
	o.w.syms = nil
	if !o.ep.streamed {
		o.w.syms = &o.ep.syms // keyed: long strings in syms, which a replay as read would keep to the end
	}
	o.w.buf = o.w.buf[:0]
	o.cur.appendCanon(&o.w, v, true, nil)
	return o.canonKey()
}

func (o *openHandsV1Reader) recordValue(v rawValue) ([]stepRecord, string) {
	var f [len(v1Keys)]rawValue
	v.Fields(v1Keys[:], f[:])
	o.cur = nil
	return o.kept(o.read(v, &f))
}

// recordRaw reads a line: validated and indexed in one pass (validValueIx),
// so that the event's key, its observation or action written canonically,
// and its text step over the long values nested in it by the index; a
// line that pass refuses gets parseFields' reason.
func (o *openHandsV1Reader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	var f [len(v1Keys)]rawValue
	i := skipSpace(raw, 0)
	end := validValueIx(raw, i, &o.ix)
	if end < 0 || raw[i] != '{' || skipSpace(raw, end) != len(raw) {
		v, err := parseFields(raw, v1FieldKeys, f[:])
		if err != nil {
			return nil, err.Error()
		}
		o.cur = nil
		return o.kept(o.read(v, &f))
	}
	v := rawValue(raw[i:end])
	v1Fields(&o.ix, v, &f)
	o.cur = &o.ix
	return o.kept(o.read(v, &f))
}

// v1Fields fills f, zeroed, with v's members named by v1Keys, as
// v.Fields(v1Keys[:], f[:]) does, from the members ix noted: by jsFields,
// the match of the line that pass refuses (v1FieldKeys), a name compared
// as one or two words with the names of its length in one loop, where
// members handed each to a callback that looked it up by a switch. The
// names are ASCII: JSON.parse reads them as encoding/json does (see
// eventFields).
func v1Fields(ix *valueIndex, v rawValue, f *[len(v1Keys)]rawValue) {
	jsFields(ix, v, v1FieldKeys, f[:])
}

// kept keeps the slice of recs for the next record: the caller is done
// with recs before.
func (o *openHandsV1Reader) kept(recs []stepRecord, reason string) ([]stepRecord, string) {
	if cap(recs) > cap(o.out) {
		o.out = recs[:0]
	}
	return recs, reason
}

// read reads event v from its members f, v1Keys' values.
func (o *openHandsV1Reader) read(v rawValue, f *[len(v1Keys)]rawValue) ([]stepRecord, string) {
	// kind, src and parent are only compared or copied while the event
	// is read: views of the record (strView), not copies.
	kind, ok := v1Kind(f[v1kKind])
	if !ok {
		return nil, `not an OpenHands V1 event (no "kind")`
	}
	src := v1Source(f[v1kSource])
	// The id (textView: a view, copied where kept) is read where it is
	// kept: the last node, a pending action's ids, an agent error's
	// event (event); no other event's is read.
	idRaw := f[v1kID]
	parent, tree := strView(f[v1kParentID])
	if tree && kind != "ConversationStateUpdateEvent" && kind != "ConversationErrorEvent" {
		// The active branch is the path from the last event to the root;
		// an event whose parent is not the event before it starts another
		// branch (navigation, forks), which this replay does not follow.
		if parent != "__root__" && o.lastNode != "" && parent != o.lastNode && !o.branched && o.ep != nil {
			o.branched = true
			o.ep.Diag.note("a branched conversation (an event's parent_id is not the event before it): replayed in log order, not along its active branch")
		}
		o.lastNode = strings.Clone(textView(idRaw))
	}
	// Its source is kept for a message only: the detector reads no
	// other's (the window ends at a user's message, the monologue counts
	// agents' messages), and every event's was looked up in the table.
	ev := OpenHandsV1Event{Tree: tree}
	w := &o.w
	// The strings keyed are the record's: none of a record before is
	// looked up (keyedStr compares where they were read), and none is
	// kept past the next record's reading (a defer cleared them at each
	// return).
	w.keyed = w.keyed[:0]
	out := o.out[:0]
	newStep := func(r stepRecord) {
		out = o.appendFlush(out)
		o.n++
		r.n, r.hasStep = o.n, true
		out = append(out, r)
	}
	// Only an action's and an observation's key is written: the detector
	// compares no other (keyCompared). A message's, the whole event or its
	// llm_message written canonically, was a fifth of the reading of a
	// generated log, never read.
	switch kind {
	case "ActionEvent":
		resp := textView(f[v1kResponseID])
		if resp == "" || resp != string(o.lastResp) {
			o.askBefore()
			out = o.appendFlush(out)
			o.lastResp = append(o.lastResp[:0], resp...) // kept
		}
		ev.Class = OHV1Action
		tool, ok := strView(f[v1kToolName]) // copied where kept (sym, the action)
		if !ok {
			tool = w.text(f[v1kToolName])
		}
		isObject, both := f[v1kAction].Kind() == '{', false
		if o.ep != nil {
			o.keyed(src)
			if strings.IndexByte(tool, 0) >= 0 {
				w.syms = nil
			}
			w.buf = append(append(w.buf[:0], src...), 0)
			o.cur.appendCanon(w, f[v1kThought], true, nil)
			w.buf = append(w.buf, 0)
			if isObject {
				// The step's action (below) in the same walk.
				w.both = append(append(w.both[:0], tool...), ' ')
				w.appendCanonBoth(o.cur, f[v1kAction], openHandsVolatile)
				both = true
			} else {
				o.cur.appendCanon(w, f[v1kAction], true, nil)
			}
			w.buf = append(append(w.buf, 0), tool...)
			ev.Key = o.canonKey()
		}
		ev.Tool = o.sym(tool)
		o.n++
		o.pending = append(o.pending, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepAction}, hasAction: true})
		r := &o.pending[len(o.pending)-1]
		switch {
		case both:
			r.action = o.keepAction(w.both)
		case isObject:
			w.buf = append(append(w.buf[:0], tool...), ' ')
			o.cur.appendCanon(w, f[v1kAction], false, openHandsVolatile) // w.action, indexed
			r.action = o.keepAction(w.buf)
		default:
			r.action = o.keepAction([]byte(tool), []byte(" {}"))
		}
		o.ids = append(o.ids, o.keepID(textView(idRaw)), o.keepID(textView(f[v1kToolCallID])))
	case "ObservationEvent", "AgentErrorEvent", "UserRejectObservation":
		r := o.attach(textView(f[v1kActionID]), textView(f[v1kToolCallID]))
		var text string
		copied := false // text is in o.copies (v1Text)
		switch kind {
		case "ObservationEvent":
			ev.Class = OHV1Observation
			obs := f[v1kObservation]
			if o.ep != nil {
				o.keyed(src)
				w.buf = append(append(w.buf[:0], src...), 0)
				o.cur.appendCanon(w, obs, true, nil)
				w.buf = append(w.buf, 0)
				at := len(w.buf)
				w.appendText(f[v1kToolName])
				if w.syms != nil && bytes.IndexByte(w.buf[at:], 0) >= 0 {
					// A NUL in the tool's name: the key in full.
					w.syms = nil
					w.buf = append(append(w.buf[:0], src...), 0)
					o.cur.appendCanon(w, obs, true, nil)
					w.buf = append(w.buf, 0)
					w.appendText(f[v1kToolName])
				}
				ev.Key = o.canonKey()
			}
			if r != nil { // else its text is no step's
				content, isErr, exit := o.obsFields(obs)
				text, copied = o.v1Text(content, true)
				r.info.Error = isTrue(isErr)
				if c, ok := rawInt(exit); ok {
					r.setExitCode(c)
				}
			}
		case "AgentErrorEvent":
			ev.Class = OHV1AgentError
			text = w.text(f[v1kError])
			ev.Key, ev.Error = o.sym(src+"\x00"+text), o.sym(text)
			if r != nil {
				r.info.Error = true
			}
		default: // compared by ==: every field, its id too
			ev.Class = OHV1ObservationBase
			ev.Key = o.keyOf(v)
			text = w.text(f[v1kRejection])
		}
		if r != nil {
			r.output, r.outCopied, r.hasText = text, copied, true
		} else if ev.Class == OHV1AgentError && src == "agent" {
			o.askBefore() // an error of the agent's step, of no action
		}
	case "MessageEvent":
		ev.Class, ev.Source = OHV1Message, o.sym(src)
		if src != "agent" && src != "environment" {
			break // a user's message is no step and no nudge: its text is not read
		}
		switch text, copied := o.v1Text(o.member(f[v1kLLMMessage], v1ContentKey), src == "agent"); {
		case src == "agent":
			o.askBefore()
			newStep(stepRecord{info: StepInfo{Kind: StepMessage}, output: text, outCopied: copied, hasText: true})
		case src == "environment" && strings.HasPrefix(text, v1NudgePrefix) && strings.Contains(text, " times in a row and gotten the same error each time: "):
			if o.ep != nil {
				o.ep.Live = append(o.ep.Live, LiveEvent{Kind: LiveOpenHandsV1Nudge, Turn: max(o.n, 1)})
			}
		}
	case "CondensationSummaryEvent":
		ev.Class = OHV1CondensationSummary
	case "Condensation":
		o.askBefore()
		newStep(stepRecord{info: StepInfo{Kind: StepCondensation}, output: w.text(f[v1kSummary]), hasText: true})
	case "ConversationStateUpdateEvent", "ConversationErrorEvent":
		ev.Artifact = true
		if f[v1kKey].StrEq("execution_status") && f[v1kValue].StrEq("stuck") {
			o.askBefore() // the check that set it
			o.event(ev, idRaw)
			if o.ep != nil {
				o.ep.Live = append(o.ep.Live, LiveEvent{Kind: LiveOpenHandsV1Stuck, Turn: max(o.n, 1)})
			}
			return out, ""
		}
	}
	o.event(ev, idRaw)
	return out, ""
}

// v1Kind is strView(v) for an event's kind, which is only compared
// with the classes' names: a kind written as one of them, quotes and
// all, is that name, told by one switch with no scan of its bytes (an
// escaped one is strView's).
func v1Kind(v rawValue) (string, bool) {
	switch string(v) {
	case `"ActionEvent"`:
		return "ActionEvent", true
	case `"ObservationEvent"`:
		return "ObservationEvent", true
	case `"MessageEvent"`:
		return "MessageEvent", true
	case `"ConversationStateUpdateEvent"`:
		return "ConversationStateUpdateEvent", true
	case `"SystemPromptEvent"`:
		return "SystemPromptEvent", true
	case `"AgentErrorEvent"`:
		return "AgentErrorEvent", true
	}
	return strView(v)
}

// v1Source is strView(v)'s string for an event's source: one of the
// three the SDK writes, quotes and all, is that name, with no scan.
func v1Source(v rawValue) string {
	switch string(v) {
	case `"agent"`:
		return "agent"
	case `"environment"`:
		return "environment"
	case `"user"`:
		return "user"
	}
	s, _ := strView(v)
	return s
}

// obsFields are an observation's content, is_error and exit_code, each
// the last of its key as get reads it, by jsFields (v1ObsKeys, names
// ASCII: read as encoding/json reads them, see eventFields) in a loop
// over the members the index noted, where members called a callback for
// each that unquoted an escaped name and switched on it.
func (o *openHandsV1Reader) obsFields(obs rawValue) (content, isErr, exit rawValue) {
	var f [3]rawValue
	jsFields(o.cur, obs, v1ObsKeys, f[:])
	return f[0], f[1], f[2]
}

// v1ObsKeys are the members of an observation obsFields reads, in its
// results' order.
var v1ObsKeys = newJSKeys("content", "is_error", "exit_code")

// member is v's member named by key (one ASCII name: a text part's
// "text", a message's "content"), the last of its name as get reads it,
// by jsFields, where get called a callback for each member noted.
func (o *openHandsV1Reader) member(v rawValue, key *jsKeys) rawValue {
	var f [1]rawValue
	jsFields(o.cur, v, key, f[:])
	return f[0]
}

var v1TextKey, v1ContentKey = newJSKeys("text"), newJSKeys("content")

// askBefore marks that the run loop checks before the event being read:
// after the last event recorded (none: nothing to check yet).
func (o *openHandsV1Reader) askBefore() {
	if o.ep != nil && len(o.ep.OpenHandsV1) > 0 {
		o.ep.OpenHandsV1[len(o.ep.OpenHandsV1)-1].Ask = true
	}
}

// attach finds the pending action an observation answers, by action id
// or tool call id: in pending, valid until an action is added.
func (o *openHandsV1Reader) attach(actionID, callID string) *stepRecord {
	for i, id := range o.ids {
		if id != "" && (id == actionID || id == callID) {
			return &o.pending[i/2]
		}
	}
	return nil
}

// sym is s's Sym in the history's table, which the detector reads only
// by value (HistoryStr): not interned in a replay as read
// (historyString).
func (o *openHandsV1Reader) sym(s string) Sym {
	if o.ep == nil {
		return 0
	}
	return o.ep.historyString(s)
}

// event records ev at the current step. Its id is kept for an agent
// error only: the detector reads no other's (the nudge compares the last
// observation's with the one it last nudged at, and nudges only when
// that observation ends a streak of agent errors), and a log's ids are
// UUIDs, each hashed and copied into the table for nothing.
func (o *openHandsV1Reader) event(ev OpenHandsV1Event, id rawValue) {
	if o.ep == nil {
		return
	}
	ev.N = int32(max(o.n, 1))
	if ev.Class == OHV1AgentError {
		ev.ID = o.ep.historyString(textView(id))
	}
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
