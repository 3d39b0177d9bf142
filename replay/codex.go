package replay

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"
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
// shell tool reports), or a text opening "Exit code: n\nWall time: " (how
// Codex 0.116 and later report a command, codexFreeformExit), gives its
// exit code. An assistant message is a message step, a reasoning item
// (its summary and reasoning text) a message step marked Thinking, a
// compacted record a condensation step.
// An event_msg user_message is a user prompt and marks the next step
// Prompt; the other event messages repeat the response items for the UI
// and, like session_meta and turn_context, are not steps.
type codexReader struct {
	q  stepQueue
	ix valueIndex // the line's, reused (recordRaw)
	// A call's arguments or a tool's output, a string holding JSON, is
	// decoded into scratch and validated and indexed into inner: what is
	// kept of it (the call's forms, the output's text) is written anew
	// from there, so the decoded string itself is not allocated.
	scratch []byte
	inner   valueIndex
	calls   callMemo
	copies  outputCopies // the steps' outputs (text), each a string of its own
	pre     codexPre     // the line's output, written as validated (codex_copy.go)
	hint    codexMemoHint
	// table says the steps go into a steps table (start): each output
	// is a string of its own (decoded, joined or copied out of the line
	// or the scratch), which the table keeps as it is
	// (stepRecord.outCopied), where it copied each into its block again.
	table bool
}

// start is told of the episode a steps table reads the session into.
func (c *codexReader) start(*Episode) { c.table = true }

// ready is c.q.ready, the steps' outputs marked as strings of their own
// for a table.
func (c *codexReader) ready(all bool) []stepRecord {
	out := c.q.ready(all)
	if c.table {
		for i := range out {
			out[i].outCopied = true
		}
	}
	return out
}

// pushReady is c.q.pushReady, the step's output marked as a string of
// its own for a table. Behind steps still queued it goes through c.ready,
// which marks those too (q.pushReady's own push and ready would hand them
// out unmarked, and the table would copy their outputs again).
func (c *codexReader) pushReady(r stepRecord) []stepRecord {
	r.outCopied = c.table
	if len(c.q.queue) != 0 || !c.q.recycle {
		c.q.push(r, "")
		return c.ready(false)
	}
	return c.q.pushReady(r)
}

// callForms is a call's two forms: those of the same call read before,
// or written from name and raw (the arguments, input or action) as the
// call's type typ reads them.
func (c *codexReader) callForms(typ byte, name string, raw rawValue) (action, canonical string) {
	if action, canonical, ok := c.hinted(typ, name, raw); ok {
		return action, canonical // raw is the hinted slot's value (codex_memo.go)
	}
	if action, canonical, ok := c.calls.find(typ, name, raw); ok {
		return action, canonical
	}
	// name is a view of the line: the forms and the memo keep it, or
	// strings made of it, past the line (a call of null arguments has
	// its name as its forms).
	name = strings.Clone(name)
	switch typ {
	case 'f': // function_call
		action, canonical = c.call(name, raw)
	case 'c': // custom_tool_call
		s := ""
		if raw.Kind() == '"' {
			s, _ = raw.Str()
		}
		action = name + " " + s
		canonical = action
	case 'l': // local_shell_call
		action, canonical = callActionRaw("local_shell", raw)
	case 'w': // web_search_call
		action, canonical = callActionRaw("web_search", raw)
	}
	c.calls.keep(typ, name, raw, action, canonical)
	return action, canonical
}

// codexItemTypes are the ResponseItem types a legacy rollout writes bare.
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "local_shell_call": true, "function_call": true,
	"function_call_output": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"web_search_call": true,
}

// codexItem is a ResponseItem (or an event message) read in place: its
// fields by codexField, so that payloadItem stores a member's value at
// its field's index, where a switch over the fields in a call (set) cost
// ~30 instructions a member.
type codexItem struct {
	// vals are the fields below codexType (content, a call's value, an
	// output, ...), at their codexField; vals[codexOther] takes the
	// value of a key no field takes, read by no one.
	vals [codexType]rawValue
	// views are type, role, name and call_id, at their codexField less
	// codexType: views of the line.
	views [4]string
}

// val is field f's value, f below codexType.
func (it *codexItem) val(f codexField) rawValue { return it.vals[f&(codexType-1)] }

// view is field f's string, f codexType or above: a view of the line.
func (it *codexItem) view(f codexField) string { return it.views[f&3] }

// read reads a payload object into it, zero (read in place: the item,
// returned, was copied out), stepping over its long values with the
// record's index ix; bad names a field of a wrong type. The members the
// validating pass noted are read in a loop with no closure a member,
// each key's bytes as they stand, or unescaped when written with an
// escape (valueIndex.members also tells a key that is not UTF-8, which
// it reads as escaped: such a key is no name a reader here compares,
// either way).
func (it *codexItem) read(ix *valueIndex, v rawValue) (bad string) {
	if ms, ok := ix.noted(v); ok {
		p := unsafe.Pointer(unsafe.SliceData(ix.base))
		for k := range ms {
			m := &ms[k]
			key, val := notedMember(p, m)
			if m.esc {
				key = []byte(unquoteKey(key))
			}
			it.noteBad(key, val, &bad)
		}
		return bad
	}
	ix.members(v, func(k []byte, esc bool, val rawValue) bool {
		it.noteBad(keyBytes(k, esc), val, &bad)
		return true
	})
	return bad
}

// noteBad reads a member as member does, bad set to name the first field
// of a wrong type.
func (it *codexItem) noteBad(key []byte, val rawValue, bad *string) {
	if !it.member(key, val, false) && *bad == "" {
		*bad = jsonString(string(key)) + " is not a string"
	}
}

// member reads a payload's member, its key unescaped, and says whether
// it is of its field's type (a type, role, name or call_id a string or
// null). plain says val is a string of no escape and no byte over 0x7f,
// its body its text (payloadItem tells it as it finds the string's end).
func (it *codexItem) member(key []byte, val rawValue, plain bool) (ok bool) {
	return it.set(codexFieldOf(key), val, plain)
}

// recordRaw reads a rollout line in place (rawagent.go): type a string,
// payload an object whose type, role, name and call_id are strings. The
// line is validated and indexed in one pass (agentRecordIx): the payload
// and its content are stepped over with the index, not scanned again at
// each level.
func (c *codexReader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	// The reader holds no pointer to a step handed out (a result's
	// *stepRecord is used at once): its queue recycles them, where push
	// allocated one a step.
	c.q.recycle = true
	recs, ok, item := c.skipNoStep(raw)
	if ok {
		return recs, "" // a line of no step (codex_skip.go)
	}
	if item > 0 {
		if recs, ok := c.readItem(raw, item); ok {
			return recs, "" // a response item, or compacted (codex_item.go)
		}
	}
	c.pre.at, c.hint.at = nil, nil // readLine's output is written anew, its call found anew
	return c.readLine(raw)
}

// codexLine is what recordRaw reads of a rollout line's top level.
type codexLine struct {
	lineType, recordType string // compared, and copied into a reason: views of the line
	bad                  string // names the first field of a wrong type
	payload              rawValue
	hasID, typeOK        bool
}

// readCodexLine reads the top level of line v, indexed by ix, from the
// members noted as codexItem.read does.
func readCodexLine(ix *valueIndex, v rawValue) codexLine {
	l := codexLine{typeOK: true}
	if ms, ok := ix.noted(v); ok {
		p := unsafe.Pointer(unsafe.SliceData(ix.base))
		for k := range ms {
			m := &ms[k]
			key, val := notedMember(p, m)
			if m.esc {
				key = []byte(unquoteKey(key))
			}
			l.member(key, val)
		}
		return l
	}
	ix.members(v, func(k []byte, esc bool, val rawValue) bool {
		l.member(keyBytes(k, esc), val)
		return true
	})
	return l
}

// member reads a member of the line, its key unescaped.
func (l *codexLine) member(key []byte, val rawValue) {
	ok := true
	switch string(key) {
	case "type":
		l.lineType, ok = rawStringView(val)
		l.typeOK = l.typeOK && ok
	case "record_type":
		l.recordType, ok = rawStringView(val)
	case "payload":
		l.payload = val
	case "id":
		l.hasID = true
	}
	if !ok && l.bad == "" {
		l.bad = jsonString(string(key)) + " is not a string"
	}
}

// readLine is recordRaw of every line, the lines skipNoStep passes over
// and readItem reads included.
func (c *codexReader) readLine(raw []byte) ([]stepRecord, string) {
	ix := &c.ix
	v, nonFinite, err := agentRecordIx(raw, ix)
	if err != nil {
		return nil, err.Error()
	}
	if nonFinite {
		return nil, "not a Codex rollout line: NaN or Infinity, which JSON does not have"
	}
	l := readCodexLine(ix, v)
	lineType, recordType, bad, payload, hasID, typeOK := l.lineType, l.recordType, l.bad, l.payload, l.hasID, l.typeOK
	var it codexItem
	itemBad := ""
	if payload.Kind() == '{' {
		itemBad = it.read(ix, payload)
	}
	// A rollout line whose payload reads is the common case; otherwise
	// the legacy shapes, and the reasons a line cannot be read.
	if !(typeOK && payload.Kind() == '{' && itemBad == "") {
		if bad != "" {
			return nil, "not a Codex rollout line: " + bad
		}
		if payload == nil {
			// A legacy rollout: a session header, state markers and bare
			// response items.
			switch {
			case recordType != "":
				return nil, ""
			case lineType == "" && hasID:
				return nil, "" // the session header {"id", "timestamp", "instructions", "git"}
			case codexItemTypes[lineType]:
				payload, lineType = v, "response_item"
				itemBad = it.read(ix, payload)
			}
		}
		if itemBad != "" && payload.Kind() == '{' {
			switch lineType {
			case "session_meta", "turn_context", "event_msg":
				return nil, "" // not steps, whatever their fields hold
			}
			return nil, "a Codex " + lineType + " whose payload cannot be read: " + itemBad
		}
		if payload.Kind() != '{' {
			it = codexItem{}
		}
	}
	switch lineType {
	case "session_meta", "turn_context":
		return nil, ""
	case "event_msg":
		if it.view(codexType) == "user_message" {
			c.q.prompt = true
		}
		return nil, ""
	case "compacted":
		c.q.push(stepRecord{info: StepInfo{Kind: StepCondensation}, output: c.text(it.val(codexMessage)), hasText: true}, "")
		return c.ready(false), ""
	case "response_item":
		return c.responseItem(&it), ""
	default:
		return nil, fmt.Sprintf("not a Codex rollout line (type %q; want session_meta, response_item, event_msg, turn_context or compacted)", lineType)
	}
}

// responseItem reads a response item, its payload read into it (the
// views of its line compared before the next line), its content walked
// with c.ix, the line's index (or none of it: reset to the line).
func (c *codexReader) responseItem(it *codexItem) []stepRecord {
	ix := &c.ix
	switch it.view(codexType) {
	case "message":
		if it.view(codexRole) == "assistant" {
			if text := c.text(it.val(codexContent)); strings.TrimSpace(text) != "" {
				return c.pushReady(stepRecord{info: StepInfo{Kind: StepMessage}, output: text, hasText: true})
			}
		}
	case "reasoning":
		var text string
		if it.val(codexContent).Kind() == '[' {
			text = textOf(ix, it.val(codexSummary)) + textOf(ix, it.val(codexContent))
		} else {
			text = c.text(it.val(codexSummary))
		}
		if strings.TrimSpace(text) != "" {
			return c.pushReady(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: true}, output: text, hasText: true})
		}
	case "function_call":
		action, canon := c.callForms('f', it.view(codexName), it.val(codexArguments))
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, it.view(codexCallID))
	case "custom_tool_call":
		action, canon := c.callForms('c', it.view(codexName), it.val(codexInput))
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, it.view(codexCallID))
	case "local_shell_call":
		action, canon := c.callForms('l', "", it.val(codexAction))
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, it.view(codexCallID))
	case "web_search_call":
		action, canon := c.callForms('w', "", it.val(codexAction))
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, "")
	case "function_call_output", "custom_tool_call_output":
		out, code, hasCode := c.output(it.val(codexOutput))
		failed := codexFailed(out)
		r := c.q.result(it.view(codexCallID), out, failed)
		if r == nil {
			c.q.push(stepRecord{info: StepInfo{Kind: StepAction, Error: failed}, output: out, hasText: true}, "")
			r = &c.q.queue[len(c.q.queue)-1].rec
		}
		if hasCode {
			r.setExitCode(code)
		}
	}
	return c.ready(false)
}

// call reads a function call: its arguments are a JSON string holding
// JSON (null: none), read as callAction reads them; another value is
// taken as the arguments themselves.
func (c *codexReader) call(name string, args rawValue) (action, canonical string) {
	switch args.Kind() {
	case 'n':
		return name, name
	case '"':
	default:
		return callActionRaw(name, args)
	}
	a := bytes.TrimSpace(c.decode(args))
	if len(a) == 0 {
		return name, name
	}
	if validValueIx(a, 0, &c.inner) != len(a) || c.inner.nonFinite {
		// Not JSON: kept as written, in both forms.
		s := name + " " + string(a)
		return s, s
	}
	return callActionRawIx(&c.inner, name, a) // written anew: a is not kept
}

// decode is string v's value (v.Str()'s bytes) in c.scratch.
func (c *codexReader) decode(v rawValue) []byte {
	body := v[1 : len(v)-1]
	c.scratch = appendText(c.scratch[:0], body)
	return c.scratch
}

// output reads a tool output: a string, content items, or a string
// holding {"output": ..., "metadata": {"exit_code": n}}, its keys matched
// as encoding/json matches a struct's fields (regardless of case, the
// last one read), since Codex's own output goes through that reading.
func (c *codexReader) output(raw rawValue) (text string, code int, hasCode bool) {
	pre, isPre := c.preText(raw)
	if raw.Kind() == '"' && len(raw) > 2 && raw[1] == '{' {
		// A string opening with JSON (as Codex before 0.116 wrote a
		// command's output), which is no freeform output: read from
		// scratch, and copied only if it is kept as it is.
		if !isPre {
			pre = c.decode(raw)
		}
		if text, code, hasCode, ok := c.outputJSON(bytes.TrimSpace(pre)); ok {
			return text, code, hasCode
		}
		return c.copies.clone(bytesString(pre)), 0, false
	}
	if isPre {
		text = c.copies.take(pre) // in the block's free room
	} else {
		text = c.text(raw)
	}
	if code, ok := codexFreeformExit(text); ok {
		return text, code, true
	}
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return text, 0, false
	}
	if out, code, hasCode, ok := c.outputJSON(stringBytes(t)); ok {
		return out, code, hasCode
	}
	return text, 0, false
}

// outputJSON reads an output's text tb, trimmed and opening with '{',
// as {"output": ..., "metadata": {"exit_code": n}}: ok is false when it
// is not one, the text then kept as it is.
func (c *codexReader) outputJSON(tb []byte) (text string, code int, hasCode, ok bool) {
	if text, code, hasCode, ok, done := c.shellOutput(tb); done {
		return text, code, hasCode, ok
	}
	return c.outputWalk(tb)
}

// outputWalk is outputJSON of any text: validated, indexed and walked.
func (c *codexReader) outputWalk(tb []byte) (text string, code int, hasCode, ok bool) {
	ix := &c.inner
	if validValueIx(tb, 0, ix) != len(tb) || ix.nonFinite {
		return "", 0, false, false
	}
	var out, exit rawValue
	good := true
	ix.members(rawValue(tb), func(k []byte, esc bool, val rawValue) bool {
		key := keyBytes(k, esc)
		switch {
		case bytes.EqualFold(key, []byte("output")):
			switch val.Kind() {
			case '"':
				out = val
			case 'n':
				out = nil
			default:
				good = false
			}
		case bytes.EqualFold(key, []byte("metadata")):
			switch val.Kind() {
			case '{':
				ix.members(val, func(k []byte, esc bool, val rawValue) bool {
					if bytes.EqualFold(keyBytes(k, esc), []byte("exit_code")) {
						switch val.Kind() {
						case '0':
							exit = val
						case 'n':
							exit = nil
						case '"':
							// A string holding a number is a json.Number.
							if s, _ := val.Str(); isValidNumber(s) {
								exit = rawValue(s)
							} else {
								good = false
							}
						default:
							good = false
						}
					}
					return good
				})
			case 'n':
			default:
				good = false
			}
		}
		return good
	})
	if !good || out == nil {
		return "", 0, false, false
	}
	text = c.copies.unescaped(out)
	if exit != nil {
		if n, ok := rawInt(exit); ok {
			return text, n, true, true
		}
	}
	return text, 0, false, true
}

// stringBytes is s as bytes, not copied: only read, as the JSON a string
// holds is (validated, walked, its strings copied out).
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// isValidNumber says s is a JSON number, as encoding/json checks a
// json.Number.
func isValidNumber(s string) bool {
	return s != "" && jsonNumber([]byte(s), 0) == len(s)
}

func (c *codexReader) finish() []stepRecord { return c.ready(true) }
