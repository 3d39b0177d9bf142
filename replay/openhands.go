package replay

// Reading OpenHands V0 events (the `openhands` preset of the steps format)
// as event_to_dict writes them (openhands/events/serialization/event.py,
// All-Hands-AI/OpenHands 156d068, Nov 2025): each event is one object,
//
//	{"id": 5, "source": "agent", "message": "...", "action": "run",
//	 "args": {"command": "ls", "thought": "...", ...}, "tool_call_metadata": {...}}
//	{"id": 6, "cause": 5, "observation": "run", "content": "...",
//	 "extras": {"command": "ls", "metadata": {"exit_code": 0, ...}}, "success": true}
//
// args (an action's) and content and extras (an observation's) hold every
// dataclass field of the event; id, timestamp, source, cause, message,
// timeout and tool_call_metadata are not fields. Events come one per line
// (an event stream dump) or in one JSON array (a trajectory:
// save_trajectory_path, which writes state.history).
//
// Two things are read from one pass:
//   - steps, for every rule of the steps format: a tool call is one step
//     (the action and the observation whose cause is its id; the next
//     observation when the cause is missing); an agent message is a message
//     step, a condensation action a condensation step;
//   - Episode.OpenHands, the controller's history for the StuckDetector
//     replay (RULES.md §11): every event except those the controller's
//     agent_history_filter drops (NullAction, NullObservation,
//     ChangeAgentStateAction, AgentStateChangedObservation, hidden events),
//     each with its class, its equality key, and whether the controller
//     asks is_stuck after it.
//
// The live verdict: when is_stuck fires, AgentController._step reacts with
// AgentStuckInLoopError('Agent got stuck in a loop') (RuntimeError before
// Dec 2024): the agent state goes to error, logged as an
// AgentStateChangedObservation whose extras.reason (since 2025) names it;
// the CLI's loop recovery (Oct 2025) logs a LoopDetectionObservation
// ("loop_detection"). Either is a LiveOpenHandsStuck event at the step.

import (
	"strings"
	"unsafe"
)

// LiveOpenHandsStuck is the live kind of OpenHands' recorded stuck
// verdict.
const LiveOpenHandsStuck = "openhands_stuck"

// OpenHandsClass is what an OpenHands event is to the StuckDetector; the
// values follow detect.OpenHandsClass.
type OpenHandsClass uint8

const (
	OHOtherAction OpenHandsClass = iota
	OHAgentMessage
	OHUserMessage
	OHIPythonAction
	OHOtherObs
	OHCmdObs
	OHErrorObs
	OHIPythonObs
	OHCondensation
	OHNull
)

// OpenHandsEvent is one event the OpenHands controller handles: N is the
// step it belongs to (the step it makes, else the last step begun, else
// the first); Key is what the StuckDetector's equality compares (the
// class and every dataclass field, or a CmdOutputObservation's command
// and exit code); Text an IPython cell's code or output. InHistory says
// the event enters state.history; Ask that the controller asks is_stuck
// after it (AgentController.should_step: a user message, an agent message
// not waiting for a response, a condensation or condensation request
// action, an observation, a NullObservation caused by a recall; not the
// delegate action, after which should_step sees the delegate). Not
// replayed: the agent-state and pending-action gates of _step (the
// controller does not step while an action awaits its observation or the
// state is not running), which a log records too loosely.
type OpenHandsEvent struct {
	N         int32
	Class     OpenHandsClass
	InHistory bool
	Ask       bool
	// Depth is the delegation level: events after an AgentDelegateAction
	// ("delegate") until its AgentDelegateObservation go to the delegate's
	// controller (AgentController.on_event), whose own history and
	// StuckDetector they feed, not the parent's.
	Depth     uint8
	Key, Text Sym // of the history's table (Episode.HistoryStr)
}

// openHandsReader reads OpenHands V0 events into steps and, when started
// on an episode, its OpenHands history.
type openHandsReader struct {
	n       int
	pending *stepRecord // an action waiting for its observation: &pendRec, or nil
	pendID  string      // its id's text, a view of pendIDBuf
	// pendRec holds the pending action, where each was allocated (a
	// newobject an action, ~0.7% of a V0 events log): the pending step
	// is copied out of it (flush, finish, an observation's step) before
	// the next action is written there. pendIDBuf holds its id's bytes,
	// the record's line being gone when its observation is read.
	pendRec    stepRecord
	pendIDBuf  []byte
	ep         *Episode
	depth      uint8 // delegation level of the next event
	w          canonWriter
	keys       keyMemo      // the keys of actions read before, by their args' bytes
	thoughts   thoughtMemo  // and by their args' bytes around the thought (openhands_thought.go)
	thoughtBuf []byte       // a thought written, for thoughts.keep
	out        []stepRecord // the steps of a record, reused
	lineIx     valueIndex   // a line's index (recordRaw)
	// copies, when not nil, is where a replay as read keeps the outputs:
	// a step's output string is unescaped straight into it (outCopied),
	// where it was made a string of its own only to be copied there.
	copies *outputCopies
	// spare is the buffer the next step's action is written into
	// (actionEvent), w.both's other half: a step's action is a view of
	// the buffer it was written into, held by o.pending until the next
	// record hands it out and stepTable.add interns it (most actions
	// repeat: found, not copied), where each was made a string of its
	// own. Two buffers: the pending action's, and the next action's,
	// written before the pending one is handed out.
	spare []byte
}

// output is a step's output read from v as w.text reads it, and whether
// it is in o.copies already (stepRecord.outCopied).
func (o *openHandsReader) output(v rawValue) (string, bool) {
	if o.copies != nil && v.Kind() == '"' {
		return o.copies.unescaped(v), true
	}
	return o.w.text(v), false
}

func (o *openHandsReader) start(ep *Episode) { o.ep = ep }

// openHandsNotStep says an event of this action or observation name is
// not a step of its own: the system prompt, recalls, user rejections,
// state changes, null events. A switch, where a map's lookup hashed the
// name up to four times a record (1% of a run).
func openHandsNotStep(name string) bool {
	switch name {
	case "null", "agent_state_changed", "recall", "system", "change_agent_state", "user_rejected", "loop_detection":
		return true
	}
	return false
}

// event records one event of the history at the current step.
func (o *openHandsReader) event(cls OpenHandsClass, inHistory, ask bool, key, text string) {
	o.eventAt(o.n, cls, inHistory, ask, key, text)
}

// eventAt records one event of the history at step n (the first step
// before any).
func (o *openHandsReader) eventAt(n int, cls OpenHandsClass, inHistory, ask bool, key, text string) {
	if o.ep == nil {
		return
	}
	// Key and text are read by value only (the detector's AddEvent):
	// not interned in a replay as read (historyString).
	e := OpenHandsEvent{N: int32(max(n, 1)), Class: cls, InHistory: inHistory, Ask: ask, Depth: o.depth, Key: o.ep.historyString(key)}
	if text != "" {
		e.Text = o.ep.historyString(text)
	}
	o.ep.OpenHands = append(o.ep.OpenHands, e)
}

// eventKey records one event of the history at step n, its key the bytes
// of key.
func (o *openHandsReader) eventKey(n int, cls OpenHandsClass, inHistory, ask bool, key []byte, text string) {
	o.eventSym(n, cls, inHistory, ask, o.ep.historyBytes(key), text)
}

// eventSym records one event of the history at step n, its key already
// entered in the history's table as key.
func (o *openHandsReader) eventSym(n int, cls OpenHandsClass, inHistory, ask bool, key Sym, text string) {
	e := OpenHandsEvent{N: int32(max(n, 1)), Class: cls, InHistory: inHistory, Ask: ask, Depth: o.depth, Key: key}
	if text != "" {
		e.Text = o.ep.historyString(text)
	}
	o.ep.OpenHands = append(o.ep.OpenHands, e)
}

// oldShape names the 2024 shape (dataclasses.asdict: the fields at the top
// level), which this reader does not misread as an event of no fields.
const oldShape = "an OpenHands 2024 event (dataclasses.asdict: fields at the top level, no %s): not event_to_dict's shape"

// openHandsKeys are the members of an event read, in one pass.
var openHandsKeys = [...]string{"action", "args", "source", "id", "observation", "extras", "content", "cause"}

var openHandsFieldKeys = newJSKeys(openHandsKeys[:]...) // for parseFields

const (
	ohkAction = iota
	ohkArgs
	ohkSource
	ohkID
	ohkObservation
	ohkExtras
	ohkContent
	ohkCause
)

// isTrue says v is JSON true (Python's `== True` of a decoded field, as
// the map's `== true` read it).
func isTrue(v rawValue) bool { b, ok := v.Bool(); return ok && b }

func (o *openHandsReader) recordValue(v rawValue) ([]stepRecord, string) {
	return o.recordValueIx(v, nil)
}

// recordValueIx is recordValue of a record that ix indexes (validValueIx:
// a trajectory's element), its members found skipping with the index: an
// observation's content is not scanned again to reach its extras.
func (o *openHandsReader) recordValueIx(v rawValue, ix *valueIndex) ([]stepRecord, string) {
	var f [len(openHandsKeys)]rawValue
	eventFields(ix, v, &f)
	return o.kept(o.read(&f, ix))
}

// eventFields fills f, zeroed, with v's members named by openHandsKeys,
// as v.Fields(openHandsKeys[:], f[:]) does, skipping with ix. jsFields
// reads them by the line form's match (openHandsFieldKeys): a name
// compared as one word with the names of its length, where setField
// compared it with all eight as strings (~8% of a trajectory's
// instructions). JSON.parse reads a name as encoding/json does when the
// names sought are ASCII, as these are: an escaped name unquoted is one
// of them or none either way (invalid UTF-8 and lone surrogates read
// differently, as no ASCII name), and the last of a repeated name wins.
func eventFields(ix *valueIndex, v rawValue, f *[len(openHandsKeys)]rawValue) {
	jsFields(ix, v, openHandsFieldKeys, f[:])
}

// recordRaw reads a line: validated and indexed in one pass (validValueIx),
// then read as a trajectory's event (recordValueIx), so that its args and
// extras are walked from the members that pass noted, where they were
// scanned again after the validating pass. A line that pass refuses, or
// holds a NaN or an infinity (given as null at the top level by
// parseFields), gets parseFields' reading or reason.
func (o *openHandsReader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	i := skipSpace(raw, 0)
	end := validValueIx(raw, i, &o.lineIx)
	if end < 0 || raw[i] != '{' || skipSpace(raw, end) != len(raw) || o.lineIx.nonFinite {
		return o.recordFields(raw)
	}
	return o.recordValueIx(rawValue(raw[i:end]), &o.lineIx)
}

// recordFields reads a line validated and its members collected in one
// pass (parseFields).
func (o *openHandsReader) recordFields(raw []byte) ([]stepRecord, string) {
	var f [len(openHandsKeys)]rawValue
	if _, err := parseFields(raw, openHandsFieldKeys, f[:]); err != nil {
		return nil, err.Error()
	}
	return o.kept(o.read(&f, nil))
}

// kept keeps the slice of recs for the next record: the caller is done
// with recs before.
func (o *openHandsReader) kept(recs []stepRecord, reason string) ([]stepRecord, string) {
	if cap(recs) > cap(o.out) {
		o.out = recs[:0]
	}
	return recs, reason
}

// read reads an event from its members, openHandsKeys' values; ix is the
// record's index (recordValueIx), or nil. A parameter, where a field of
// o set for the record and cleared by a deferred call took ~25
// instructions a record.
func (o *openHandsReader) read(f *[len(openHandsKeys)]rawValue, ix *valueIndex) ([]stepRecord, string) {
	out := o.out[:0]
	flush := func() {
		if o.pending != nil {
			out = append(out, *o.pending)
			o.pending = nil
		}
	}
	// The action, its source and the cause are views of the record: they
	// are compared, or copied into a step's action or an event's key.
	if act, ok := strView(f[ohkAction]); ok {
		args := f[ohkArgs]
		if args.Kind() != '{' {
			if args == nil {
				return nil, strings.Replace(oldShape, "%s", `"args"`, 1)
			}
			return nil, `an OpenHands action whose "args" is not an object`
		}
		// The source matters to a message alone: not read for another.
		var src string
		if act == "message" {
			src, _ = strView(f[ohkSource])
		}
		// args' members, collected once: read here and written (sorted)
		// by actionEvent into the event's key and the step's action,
		// where a walk read them and the writing walked them again.
		w := &o.w
		base := len(w.members)
		w.keepAll(ix, args)
		a := argsOf(w.members[base:])
		notStep := openHandsNotStep(act)
		step := !notStep && act != "message" && act != "condensation" // a step with a call
		action, ok := o.actionEvent(act, src, &a, args, base, !notStep && !(act == "message" && src == "user"), step)
		clear(w.members[base:]) // unless actionEvent wrote them
		w.members = w.members[:base]
		if notStep {
			return nil, ""
		}
		switch act {
		case "message":
			if src == "user" {
				return nil, ""
			}
			flush()
			o.n++
			text, copied := o.output(a.content)
			return append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepMessage}, output: text, outCopied: copied, hasText: true}), ""
		case "condensation":
			flush()
			o.n++
			summary, _ := a.summary.Str()
			return append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepCondensation}, output: summary, hasText: true}), ""
		}
		flush()
		o.n++
		if !ok {
			action = o.w.action(act, args)
		}
		o.pendRec = stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepAction}, action: action, hasAction: true}
		o.pending = &o.pendRec
		o.pendIDBuf = append(o.pendIDBuf[:0], scalarText(f[ohkID])...)
		o.pendID = bytesString(o.pendIDBuf)
		return out, ""
	}
	obs, ok := strView(f[ohkObservation])
	if !ok {
		return nil, "neither an action nor an observation"
	}
	extras := f[ohkExtras]
	if extras.Kind() != '{' {
		if extras == nil {
			return nil, strings.Replace(oldShape, "%s", `"extras"`, 1)
		}
		return nil, `an OpenHands observation whose "extras" is not an object`
	}
	var x ohExtras
	readExtras(ix, extras, &x)
	contentV := f[ohkContent]
	cause := scalarText(f[ohkCause])
	if openHandsNotStep(obs) {
		// No step: the event's key writes a string content as it stands
		// (observationEvent), and reads the text of any other.
		var content string
		if contentV.Kind() != '"' {
			content = o.w.text(contentV)
		}
		o.observationEvent(obs, f[ohkCause], contentV, content, extras, &x)
		return nil, ""
	}
	content, copied := o.output(contentV)
	switch {
	case obs == "condense": // AgentCondensationObservation
		flush()
		o.n++
		out = append(out, stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepCondensation}, output: content, outCopied: copied, hasText: true})
	case o.pending == nil || (cause != "" && cause != o.pendID):
		// An observation of no pending call (a user command's output, or
		// one whose action was not logged): a step with no call.
		flush()
		o.n++
		r := stepRecord{n: o.n, hasStep: true, info: StepInfo{Kind: StepAction}, output: content, outCopied: copied, hasText: true}
		openHandsResult(&r, obs, &x)
		out = append(out, r)
	default:
		r := o.pending
		o.pending = nil
		r.output, r.outCopied, r.hasText = content, copied, true
		openHandsResult(r, obs, &x)
		out = append(out, *r)
	}
	// The event is recorded once its step is known: an observation of
	// the pending call belongs to the call's step. A call, where a
	// deferred one cost ~20 instructions an observation more.
	o.observationEvent(obs, f[ohkCause], contentV, content, extras, &x)
	return out, ""
}

// scalarText is v.Text(), a view of v's bytes where Text copies them
// into a string of its own: a number's and a boolean's text is the
// literal as read, a plain string's its body (strView). An event's id
// and cause are numbers, each copied (a slicebytetostring each, ~1% of
// a V0 events log). TestScalarText holds it to Text.
func scalarText(v rawValue) string {
	switch v.Kind() {
	case 't', 'f', '0':
		return bytesString(v)
	case '"':
		s, _ := strView(v)
		return s
	}
	return v.Text()
}

// ohArgs are the members of an action's args the reader reads (the last
// of a repeated key, as Get reads it).
type ohArgs struct{ hidden, waitForResponse, code, content, summary rawValue }

// argsOf reads ohArgs from args' members collected in order (keep): the
// last of each key.
func argsOf(ms []canonMember) (a ohArgs) {
	for k := range ms {
		m := &ms[k]
		switch string(m.key) {
		case "hidden":
			a.hidden = m.val
		case "wait_for_response":
			a.waitForResponse = m.val
		case "code":
			a.code = m.val
		case "content":
			a.content = m.val
		case "summary":
			a.summary = m.val
		}
	}
	return a
}

// actionEvent records an action as the controller sees it; newStep says
// it begins the next step. a is args' members read, which w.members holds
// from base (collected by keep, in order). With wantAction it may return
// the step's action (w.action(act, args)), written with the event's key
// (ok).
func (o *openHandsReader) actionEvent(act, src string, a *ohArgs, args rawValue, base int, newStep, wantAction bool) (action string, ok bool) {
	if act == "null" || act == "change_agent_state" {
		return "", false // not in the history, and should_step is false
	}
	inHistory := !isTrue(a.hidden)
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
			cls, ask = OHAgentMessage, !isTrue(a.waitForResponse)
		default:
			// Neither the user's (is_stuck keeps it) nor the agent's
			// (no monologue); should_step takes any MessageAction.
			ask = true
		}
	case "run_ipython":
		cls = OHIPythonAction
		if o.ep != nil {
			text = o.w.text(a.code)
		}
	case "condensation", "condensation_request":
		ask = true
		// A delegate action asks nothing: start_delegate has set the
		// delegate when should_step looks, and it returns False.
	}
	if !inHistory {
		return "", false // _on_event returns before anything for a hidden event
	}
	n := o.n
	if newStep {
		n++
	}
	if o.ep != nil {
		w := &o.w
		// A key (and action) written from the same name and args as one
		// before is that one (keyMemo): the args are not sorted and
		// written, nor the key hashed.
		k := keyParts{way: keyV0Action, n: 2, p: [4][]byte{stringBytes(act), args}}
		if wantAction {
			k.way = keyV0ActionBoth
			// The step's action with the key (canonWriter.action), in
			// the buffer the pending action is not in (spare).
			w.both, o.spare = o.spare, w.both
		}
		h := o.ep.history()
		slot, tag, hit := o.keys.find(h, &k)
		var key Sym
		if hit {
			key = slot.sym
			if wantAction {
				w.both = append(w.both[:0], slot.both...)
			}
		} else {
			// Args that differ from some before in their thought alone
			// (thoughtMemo): the key written around the new thought.
			var tk keyParts
			thought, split := thoughtSplit(&tk, act, args, w.members[base:], wantAction)
			var ts *thoughtSlot
			var ttag uint64
			var thit bool
			if split {
				ts, ttag, thit = o.thoughts.find(&tk)
				if thit {
					w.buf = appendStringValue(append(w.buf[:0], ts.prefix...), thought)
					w.buf = append(w.buf, '}')
					if wantAction {
						w.both = append(w.both[:0], ts.both...)
					}
					key = o.ep.historyBytes(w.buf)
				}
			}
			if !thit {
				w.buf = append(append(append(w.buf[:0], "a:"...), act...), 0)
				if wantAction {
					w.both = append(append(w.both[:0], act...), ' ')
					w.writeMembersBoth(base, openHandsVolatile, false, nil) // appendBoth(args)
					key = o.ep.historyBytes(w.buf)
					o.keys.keep(slot, tag, &k, w.buf, key, w.both)
				} else {
					w.writeMembers(base, true) // appendValue(args, true, nil)
					key = o.ep.historyBytes(w.buf)
					o.keys.keep(slot, tag, &k, w.buf, key, nil)
				}
			}
			if split && !thit {
				var both []byte
				if wantAction {
					both = w.both
				}
				o.thoughtBuf = o.thoughts.keep(ts, ttag, &tk, w.buf, thought, both, o.thoughtBuf)
			}
		}
		if wantAction {
			action, ok = unsafe.String(unsafe.SliceData(w.both), len(w.both)), true
		}
		o.eventSym(n, cls, true, ask, key, text)
	}
	if act == "delegate" && o.depth < 255 {
		o.depth++ // what follows is the delegate's
	}
	return action, ok
}

// observationEvent records an observation as the controller sees it, and
// the live stuck verdict an observation carries. content is contentV
// read as text; x is extras' members read.
func (o *openHandsReader) observationEvent(obs string, cause, contentV rawValue, content string, extras rawValue, x *ohExtras) {
	if isTrue(x.m[ohxHidden]) {
		return
	}
	if obs == "delegate" && o.depth > 0 {
		o.depth-- // the delegate's result is the parent's
	}
	switch obs {
	case "agent_state_changed":
		if x.m[ohxAgentState].StrEq("error") {
			if reason, _ := x.m[ohxReason].Str(); strings.Contains(reason, "stuck in a loop") {
				o.live()
			}
		}
		return
	case "null":
		c, ok := rawInt(cause)
		if ok && c > 0 {
			o.event(OHNull, false, true, "", "")
		}
		return
	case "loop_detection":
		o.live()
	}
	if o.ep == nil {
		return
	}
	cls, text := OHOtherObs, ""
	w := &o.w
	switch obs {
	case "run":
		cls = OHCmdObs
		w.buf = append(w.buf[:0], "c:"...)
		appendCommand(w, x.m[ohxCommand])
		w.buf = appendCanonicalExit(append(w.buf, 0), w, x.exitCode())
	default:
		w.buf = append(append(append(w.buf[:0], "o:"...), obs...), 0)
		if contentV.Kind() == '"' {
			w.buf = appendStringValue(w.buf, contentV)
		} else {
			w.buf = appendGoString(w.buf, content, true)
		}
		w.buf = append(w.buf, 0)
		w.appendValue(extras, true, nil)
		switch obs {
		case "error":
			cls = OHErrorObs
		case "run_ipython":
			cls, text = OHIPythonObs, content
		case "condense":
			cls = OHCondensation
		}
	}
	o.eventKey(o.n, cls, true, true, w.buf, text)
}

// live records the live stuck verdict at the current step.
func (o *openHandsReader) live() {
	if o.ep != nil {
		o.ep.Live = append(o.ep.Live, LiveEvent{Kind: LiveOpenHandsStuck, Turn: max(o.n, 1)})
	}
}

func (o *openHandsReader) finish() []stepRecord {
	if o.pending == nil {
		return nil
	}
	r := *o.pending
	o.pending = nil
	return []stepRecord{r}
}
