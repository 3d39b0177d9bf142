package replay

// The Gemini CLI reader: a chat recording as ChatRecordingService writes it
// and loadConversationRecord reads it back (@google/gemini-cli-core 0.61.0,
// dist/src/services/chatRecordingService.js), turned into the events
// GeminiClient feeds its LoopDetectionService (dist/src/core/client.js).

import (
	"fmt"
	"strings"
)

// LiveGeminiLoop is a live Gemini CLI loop detection the recording keeps:
// the recovery prompt _recoverFromLoop sends after the prompt's first
// detection, "System: Potential loop detected. Details: …". A second
// detection ends the prompt and is not recorded.
const LiveGeminiLoop = "loop_detected"

// The recovery prompt's words (client.js _recoverFromLoop) and its details
// (loopDetectionService.js addAndCheck; an LLM verdict's details are its
// analysis).
const (
	geminiLivePrefix    = "System: Potential loop detected. Details: "
	geminiLiveSuffix    = ". Please take a step back and confirm you're making forward progress."
	geminiToolDetail    = "Repeated tool call: "
	geminiToolArgs      = " with arguments "
	geminiContentDetail = "Repeating content detected: "
)

// geminiReader reads a Gemini CLI session: a session-*.jsonl recording (a
// metadata line, then messages, "$set" metadata updates and "$rewindTo"
// rewinds, one record a line), or a legacy session-*.json document
// ({sessionId, projectHash, messages: [...]}). It keeps the messages as the
// CLI's loader does (a message recorded again under its id replaces the
// first in its place; "$rewindTo" drops that message and everything after
// it, all of them when the id is unknown; "$set" with messages replaces
// them all) and makes its steps at the end, in the messages' order (or,
// replayed as it is read from a file, as messages leave the window of the
// latest: gemini_stream.go):
//
//   - a gemini message's text (its content string, or its text parts that
//     are not thought parts; empty is no Content event) is a message step;
//     then each tool call an action step whose action is the detector's
//     key, name + ":" + JSON.stringify(args) (GeminiToolKey), with the
//     result's output (else resultDisplay) and status "error";
//   - a user message is a new user prompt (the next step has NewPrompt),
//     except tool results (functionResponse parts), "Please continue." and
//     the recovery prompt, which the client sends under the same prompt_id;
//   - the recovery prompt is the live detection (LiveGeminiLoop) at the
//     step that fired. The CLI aborts the response it fired on, so that
//     step is not recorded: a repeated tool call is rebuilt from the
//     details (its name and JSON.stringify(args) are there); repeated
//     content cannot be, and an LLM verdict fires before any event, so for
//     those a message step without text marks the place (the LLM one
//     flagged as a logged verdict, llm_loop_check).
//
// A session resumed by a later CLI process (its "$set" of sessionId) is
// noted; the new process's detector starts afresh, so its first step has
// NewPrompt.
type geminiReader struct {
	msgs       []*geminiMsg             // in the loader's order; nil: deleted
	byID       map[string]int           // where each message held is, by id (find)
	live       map[string]*geminiLive   // by the recovery prompt's message id
	liveList   []*geminiLive            // in the order recorded
	liveAt     map[string][]*geminiLive // by the message they follow
	liveUnused int                      // of liveList, those not handed over yet
	epoch      int                      // resumes so far
	legacy     bool
	note       []string
	lateNote   []string // the notes of handing the steps over, after the reading's (as at the end)

	// The steps handed over (handOver): messages g.msgs[:handedTo], and
	// where that stands. With speculate, the steps are handed over as the
	// session is read (geminiSpeculate), and failed says a later record
	// changed a message handed over.
	handed    geminiHandOver
	handedTo  int
	handedIDs hashSet                  // the hashes of their ids (handedID)
	idOps     []geminiIDOp             // handedIDs' additions and lookups to make (queueID)
	out       func([]stepRecord) error // where a session document's steps go as it is read (setOut)
	released  []stepRecord             // the steps release handed over last, their slice reused
	steps     []stepRecord             // a message's steps as they are made (reduceFields)
	msgSlab   slab[geminiMsg]          // the messages reduceFields makes, and their steps
	stepSlab  slab[stepRecord]
	freeMsgs  []*geminiMsg // let go of, for newMsg
	speculate bool
	failed    bool
	lastLine  int
	ix        valueIndex   // the record's, reused (recordRaw)
	held      geminiHeld   // the messages held's hashes, replayed as read (find)
	prev      geminiPrev   // the last message record, for one extending it (recordExtending)
	copies    outputCopies // the steps' outputs (unquoteCopy) and actions
	key       []byte       // a tool call's key as it is written (reduceFields)
}

// geminiMsg is a kept message, reduced to what the steps need (a whole
// recording is held until its end, so not the parsed message).
type geminiMsg struct {
	id     string
	hash   uint64 // id's geminiIDHash, when the session is replayed as read
	epoch  int
	prompt bool         // a user prompt
	steps  []stepRecord // a gemini message's text and tool calls
}

// geminiLive is a recorded recovery prompt: its details, and the message
// it followed when recorded, where the detection belongs.
type geminiLive struct {
	detail string
	after  string // message id; "" at the start
	line   int
	used   bool
}

// readRecord reads one parsed record. A session document streamed
// (readSession) comes with its messages already reduced, in pending, and
// a placeholder for them in v.
func (g *geminiReader) readRecord(v *jsValue, pending []geminiReduced, line int) ([]stepRecord, string) {
	g.lastLine = line
	if v.kind != jsObject {
		return nil, "not a Gemini CLI record: not a JSON object"
	}
	// messages are the record's messages, reduced.
	messages := func(msgs *jsValue) []geminiReduced {
		if pending != nil && msgs == v.get("messages") {
			return pending
		}
		out := make([]geminiReduced, len(msgs.arr))
		for i, m := range msgs.arr {
			out[i] = reduceGemini(m)
		}
		return out
	}
	// The loader's order of tests (loadConversationRecord).
	if to, ok := v.get("$rewindTo").text(); ok {
		g.rewind(to)
		return nil, ""
	}
	if _, ok := v.get("id").text(); ok {
		g.add(v, line)
		return nil, ""
	}
	if set := v.get("$set"); set != nil && set.kind == jsObject && set.get("$set") == nil {
		if _, ok := set.get("sessionId").text(); ok && g.holdsAny() {
			g.epoch++
			g.note = append(g.note, fmt.Sprintf("line %d: the session was resumed by a new CLI process (its loop detector starts afresh)", line))
		}
		if msgs := set.get("messages"); msgs != nil && msgs.kind == jsArray {
			g.replaceMessages()
			for _, m := range messages(msgs) {
				if m.isID {
					g.addReduced(m.id, m, line)
				}
			}
		}
		return nil, ""
	}
	_, hasSession := v.get("sessionId").text()
	_, hasProject := v.get("projectHash").text()
	msgs := v.get("messages")
	switch {
	case hasSession && hasProject:
		if msgs != nil && msgs.kind == jsArray {
			for _, m := range messages(msgs) {
				if m.isID {
					g.addReduced(m.id, m, line)
				}
			}
		}
		return nil, ""
	case hasSession && msgs != nil && msgs.kind == jsArray:
		// A legacy record without projectHash: the loader's fallback takes
		// its messages as they are, ids or not.
		g.legacy = true
		for i, m := range messages(msgs) {
			if !m.isObject {
				continue
			}
			id := m.id
			if !m.isID {
				id = fmt.Sprintf("\x00legacy-%d", i)
			}
			g.addReduced(id, m, line)
		}
		return nil, ""
	case v.get("type") != nil && v.get("id") == nil:
		return nil, "a Gemini CLI message without an id (the CLI's loader skips it)"
	}
	return nil, "not a Gemini CLI record (a message with an id, \"$set\", \"$rewindTo\" or the session's metadata)"
}

func (g *geminiReader) add(m *jsValue, line int) {
	id, _ := m.get("id").text()
	g.addAs(id, m, line)
}

// addAs sets message id as a JavaScript Map does: in place when present,
// else at the end. A recovery prompt is remembered as a live detection,
// after the message before it.
func (g *geminiReader) addAs(id string, m *jsValue, line int) {
	g.addReduced(id, reduceGemini(m), line)
}

// geminiReduced is a message reduced to what addAs needs, so a session
// document's messages are not held parsed.
type geminiReduced struct {
	msg          *geminiMsg
	detail       string
	isLive, isID bool   // a recovery prompt; an object with a string id
	id           string // its id
	isObject     bool
}

func reduceGemini(m *jsValue) geminiReduced {
	r := geminiReduced{msg: geminiReduce("", m, 0), isObject: m.kind == jsObject}
	r.detail, r.isLive = geminiLiveDetail(m)
	r.id, r.isID = m.get("id").text()
	return r
}

func (g *geminiReader) addReduced(id string, m geminiReduced, line int) { g.addMsg(id, false, m, line) }

// addMsg is addReduced; view says id is a view of the record being read
// (jsUnquoteView), copied only for a new message (into the block of its
// outputs, unquoteCopy): a message written again keeps the id it has.
func (g *geminiReader) addMsg(id string, view bool, m geminiReduced, line int) {
	msg := m.msg // made for this call (reduceGemini*): not shared
	// The CLI writes a message again as it grows (its tool calls, their
	// results), most often the one it wrote last: that one is found
	// without hashing its id.
	i, ok := len(g.msgs)-1, false
	var hash uint64
	if i >= 0 && g.msgs[i] != nil && g.msgs[i].id == id {
		ok = true
	} else {
		if g.speculate {
			hash = geminiIDHash(id)
		}
		i, ok = g.find(id, hash)
	}
	if !ok && g.speculate && g.handedTo > 0 {
		g.queueID(hash, false) // a message handed over written again fails the read
	}
	if ok {
		old := g.msgs[i]
		msg.id, msg.hash, msg.epoch = old.id, old.hash, old.epoch
		g.msgs[i] = msg
		g.letGo(old)
		return
	}
	if view {
		id = g.copies.clone(id) // held with the message, as its outputs are
	}
	msg.id, msg.hash, msg.epoch = id, hash, g.epoch
	detail, isLive := m.detail, m.isLive
	if isLive {
		if g.live == nil {
			g.live = map[string]*geminiLive{}
		}
		if _, seen := g.live[id]; !seen {
			// Held to the end, these ids are strings of their own: in a
			// block (copies), each would hold the whole block.
			id := strings.Clone(id)
			l := &geminiLive{detail: detail, after: strings.Clone(g.lastID()), line: line}
			if g.handed.started && !g.holds(l.after) {
				g.failed = true // after a message handed over: its place is gone
			}
			g.live[id] = l
			g.liveList = append(g.liveList, l)
			g.liveUnused++
			if g.liveAt == nil {
				g.liveAt = map[string][]*geminiLive{}
			}
			g.liveAt[l.after] = append(g.liveAt[l.after], l)
		}
	}
	g.msgs = append(g.msgs, msg)
	if g.speculate {
		g.held.add(hash)
	}
	g.index(id)
}

// geminiReduce keeps what a message gives the replay: whether it is a
// user prompt, and its steps.
func geminiReduce(id string, v *jsValue, epoch int) *geminiMsg {
	msg := &geminiMsg{id: id, epoch: epoch}
	switch typ, _ := v.get("type").text(); typ {
	case "user":
		text, fr := geminiPartsText(v.get("content"), false)
		_, live := geminiLiveDetail(v)
		msg.prompt = !fr && !live && text != "Please continue."
	case "gemini":
		if text, _ := geminiPartsText(v.get("content"), true); text != "" {
			msg.steps = append(msg.steps, stepRecord{info: StepInfo{Kind: StepMessage}, output: text, outCopied: true, hasText: true})
		}
		if calls := v.get("toolCalls"); calls != nil && calls.kind == jsArray {
			for _, c := range calls.arr {
				if c.kind != jsObject {
					continue
				}
				name, _ := c.get("name").text()
				args := c.get("args")
				if !jsTruthy(args) {
					args = &jsValue{kind: jsObject}
				}
				r := stepRecord{info: StepInfo{Kind: StepAction}, action: geminiKey(name, args), hasAction: true, hasText: true}
				r.output, r.outCopied = geminiCallResult(c), true
				status, _ := c.get("status").text()
				r.info.Error = status == "error"
				msg.steps = append(msg.steps, r)
			}
		}
	}
	return msg
}

// lastID is the id of the last message present, "" when none is.
func (g *geminiReader) lastID() string {
	for i := len(g.msgs) - 1; i >= 0; i-- {
		if g.msgs[i] != nil {
			return g.msgs[i].id
		}
	}
	return ""
}

// rewind drops message id and every message after it; all of them when
// id is unknown.
func (g *geminiReader) rewind(id string) {
	at, ok := g.lookup(id)
	if !ok {
		at = 0
	}
	if at < g.handedTo {
		g.failed = true // messages handed over rewound
		return
	}
	for i := at; i < len(g.msgs); i++ {
		if m := g.msgs[i]; m != nil {
			delete(g.byID, m.id)
			if g.speculate {
				g.held.drop(m.hash)
			}
			g.msgs[i] = nil
		}
	}
	// The messages dropped are the last: the next takes the place of the
	// first of them (a window of the latest messages holds no hole).
	g.msgs = g.msgs[:at]
}

// geminiLiveDetail returns a recovery prompt's details.
func geminiLiveDetail(m *jsValue) (string, bool) {
	if typ, _ := m.get("type").text(); typ != "user" {
		return "", false
	}
	text, _ := geminiPartsText(m.get("content"), false)
	rest, ok := strings.CutPrefix(text, geminiLivePrefix)
	if !ok {
		return "", false
	}
	if i := strings.LastIndex(rest, geminiLiveSuffix); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// geminiPartsText is a content's text: a string, or the text parts of a
// list (thought parts left out when noThoughts); functionResponse says a
// part is a tool result.
func geminiPartsText(v *jsValue, noThoughts bool) (text string, functionResponse bool) {
	if v == nil {
		return "", false
	}
	switch v.kind {
	case jsString:
		return v.str, false
	case jsArray:
		var b strings.Builder
		for _, p := range v.arr {
			if p.get("functionResponse") != nil {
				functionResponse = true
			}
			t, ok := p.get("text").text()
			if !ok || (noThoughts && jsTruthy(p.get("thought"))) {
				continue
			}
			b.WriteString(t)
		}
		return b.String(), functionResponse
	case jsObject: // a single part
		t, _ := v.get("text").text()
		return t, v.get("functionResponse") != nil
	}
	return "", false
}

// jsTruthy is JavaScript's truthiness of a value (nil: undefined).
func jsTruthy(v *jsValue) bool {
	if v == nil {
		return false
	}
	switch v.kind {
	case jsNull:
		return false
	case jsBool:
		return v.b
	case jsNumber:
		return v.num != 0 && v.num == v.num
	case jsString:
		return v.str != ""
	}
	return true
}

func (g *geminiReader) finish() []stepRecord {
	var out []stepRecord
	g.finishEach(func(r stepRecord) error { out = append(out, r); return nil })
	return out
}

// finishEach hands the session's steps to add one at a time, in order,
// letting go of each message once its steps are handed over: the table
// copies a step's strings, so a session is not held twice, as messages
// and as steps, while its steps are added.
func (g *geminiReader) finishEach(add func(stepRecord) error) error {
	if g.flushIDs(); g.failed {
		return errRereadWhole // a message handed over written again, told only now
	}
	if err := g.handOver(len(g.msgs), func(r *stepRecord) error { return add(*r) }); err != nil {
		return err
	}
	g.msgs, g.byID = nil, nil
	for _, l := range g.liveList {
		if !l.used {
			g.lateNote = append(g.lateNote, fmt.Sprintf("line %d: a live loop detection after a message the session no longer has (rewound): not replayed", l.line))
		}
	}
	if g.legacy {
		g.lateNote = append(g.lateNote, "a legacy session-*.json without projectHash: its messages read as they are")
	}
	return nil
}

// geminiHandOver is where handing a session's steps over stands: the
// steps handed over, whether the next begins a prompt, the resume epoch
// of the last message handed over (-1 before the first).
type geminiHandOver struct {
	n       int
	prompt  bool
	epoch   int
	started bool
}

// handOver hands the steps of the messages g.msgs[g.handed:end] to add,
// in order, each message's live detections after it (those before any
// message first), and lets go of their steps; a message handed over
// while the session is read (speculate) keeps its id, by which a later
// record that changes it is told. A step is numbered in place, in its
// message's steps (let go of once handed over), and handed to add by
// its address: a step record is 17 words, which were copied twice more
// on the way.
func (g *geminiReader) handOver(end int, add func(*stepRecord) error) error {
	h := &g.handed
	var err error
	step := func(r *stepRecord) {
		if err != nil {
			return
		}
		h.n++
		r.n, r.hasStep = h.n, true
		r.info.NewPrompt = h.prompt
		h.prompt = false
		err = add(r)
	}
	emitLive := func(after string) {
		if g.liveUnused == 0 {
			return // most sessions: no detection waits for its message
		}
		lives, ok := g.liveAt[after]
		for _, l := range lives {
			if !l.used {
				l.used = true
				g.liveUnused--
				r := g.liveStep(l)
				step(&r)
			}
		}
		if ok {
			delete(g.liveAt, after) // all used: the map holds the waiting only
		}
	}
	if !h.started {
		h.started, h.epoch = true, -1
		emitLive("")
	}
	msgs := g.msgs
	for i := g.handedTo; i < end; i++ {
		m := msgs[i]
		if m == nil {
			continue
		}
		msgs[i] = nil
		if g.speculate {
			g.handedID(m)
			g.held.drop(m.hash)
		}
		if m.epoch != h.epoch {
			h.prompt = h.prompt || h.epoch >= 0
			h.epoch = m.epoch
		}
		if m.prompt {
			h.prompt = true
		}
		for k := range m.steps {
			step(&m.steps[k])
		}
		if m.id != "" {
			emitLive(m.id)
		}
		g.letGo(m)
	}
	g.handedTo = end
	if g.speculate && g.byID != nil && len(msgs)-end <= geminiWindow {
		g.byID = nil // the window is scanned again (find)
	}
	return err
}

// liveStep is the step a recorded detection fired at.
func (g *geminiReader) liveStep(l *geminiLive) stepRecord {
	r := stepRecord{info: StepInfo{Kind: StepMessage}, hasText: true,
		live: &LiveEvent{Kind: LiveGeminiLoop, Detail: l.detail}}
	switch {
	case strings.HasPrefix(l.detail, geminiToolDetail):
		r.live.Rule = "tool_cycle"
		call := strings.TrimPrefix(l.detail, geminiToolDetail)
		if name, args, ok := strings.Cut(call, geminiToolArgs); ok {
			if key, err := GeminiToolKey(name, []byte(args)); err == nil {
				r.info.Kind, r.action, r.hasAction = StepAction, key, true
				g.lateNote = append(g.lateNote, fmt.Sprintf("line %d: the tool call the live detector fired on is not recorded (the CLI drops that response); rebuilt from the recovery prompt", l.line))
				return r
			}
		}
		g.lateNote = append(g.lateNote, fmt.Sprintf("line %d: a live tool call loop whose call the details do not give", l.line))
	case strings.HasPrefix(l.detail, geminiContentDetail):
		r.live.Rule = "content_chanting"
		g.lateNote = append(g.lateNote, fmt.Sprintf("line %d: the text the live detector fired on is not recorded (the CLI drops that response): the replay cannot see it", l.line))
	default:
		r.live.Rule = "llm_loop_check"
		r.info.LLMLoop = true
	}
	return r
}

// geminiCallResult is a tool call's output: its function responses'
// output (or error) text, else resultDisplay.
func geminiCallResult(c *jsValue) string {
	var b strings.Builder
	if res := c.get("result"); res != nil && res.kind == jsArray {
		for _, p := range res.arr {
			resp := p.get("functionResponse").get("response")
			for _, k := range []string{"output", "error"} {
				if s, ok := resp.get(k).text(); ok {
					b.WriteString(s)
				}
			}
		}
	}
	if b.Len() == 0 {
		s, _ := c.get("resultDisplay").text()
		return s
	}
	return b.String()
}

func (g *geminiReader) notes() []string { return append(g.note, g.lateNote...) }
