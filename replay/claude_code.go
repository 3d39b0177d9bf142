package replay

import (
	"fmt"
	"strings"
	"unsafe"
)

// claudeCodeReader reads a Claude Code session as Claude Code writes it,
// ~/.claude/projects/<project dir>/<session id>.jsonl, one record a line:
//
//	{"type":"summary","summary":"...","leafUuid":"..."}
//	{"parentUuid":null,"isSidechain":false,"sessionId":"...","version":"2.0.61",
//	 "type":"user","message":{"role":"user","content":"fix the test"},"uuid":"u1",...}
//	{"parentUuid":"u1",...,"type":"assistant","message":{"id":"msg_1","role":"assistant",
//	 "content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./..."}}]},...}
//	{"parentUuid":"a1",...,"type":"user","message":{"role":"user","content":[
//	 {"type":"tool_result","tool_use_id":"toolu_1","content":"FAIL ...","is_error":true}]},
//	 "toolUseResult":{...},...}
//
// Source: Claude Code's writer is not published as source (the CLI ships
// minified in the npm package @anthropic-ai/claude-code); the record shape
// is that of the files Claude Code 1.0.x–2.0.x writes (type user,
// assistant, system, summary; uuid/parentUuid/sessionId/isSidechain), and
// message.content holds the Anthropic Messages API content blocks (text,
// thinking, tool_use {id, name, input}, tool_result {tool_use_id, content,
// is_error}), as the Claude Agent SDK's types.py (anthropics/
// claude-agent-sdk-python, src/claude_agent_sdk/types.py) names them.
//
// Steps: each tool_use block is an action step, its name and input kept
// in the order logged (plus the sorted form in StepInfo.Canonical), its
// output the tool_result whose tool_use_id is the block's id (is_error an
// error). A text block is a message step, a thinking block a message step
// marked Thinking. A user prompt (a user record that is not tool results
// nor isMeta) marks the next step Prompt; the summary Claude Code writes
// as a user record when it compacts the conversation (isCompactSummary)
// is a condensation step. A file is one conversation: the
// main one, or a subagent's (agent-<id>.jsonl, every record isSidechain)
// when its first message is a sidechain's; records of the other kind
// (older versions wrote a subagent's records into the main file) are
// another conversation and are not steps of this one. The other record
// types Claude Code writes (claudeCodeNotSteps) are not steps. A record
// whose uuid was already read (a resumed session writes some again) is
// read once.
type claudeCodeReader struct {
	q    stepQueue
	seen idSet // the uuids read
	// side says which conversation the file is: unknown until its first
	// user or assistant record, then the main one or a subagent's.
	side      int8
	sidechain bool
	blocks    []contentBlock // the record's, reused
	ix        valueIndex     // the record's, reused (recordRaw)
	// uuidFromEnd is where the last record's uuid began, counted from
	// its end (0: none): where the next one's is looked for first
	// (prefetchUUID).
	uuidFromEnd int
	// hint is the uuid prefetchUUID parsed, from the string at hintAt
	// (an offset in the record read; -1: none), which the record's
	// reading takes as parsed when its uuid is that string.
	hint   uuid128
	hintAt int
	calls  callMemo // the forms of the last tool uses read
	// run is the run of members after a record's first that the next
	// record's are compared with, runNext's reads the one being taken
	// (claude_code_same.go).
	run     claudeCodeRun
	runNext claudeCodeRun
	// parent is the last uuid taken as hinted, the next record's
	// parentUuid compared with it (claude_code_same.go).
	parent claudeCodeParent
	// msg is what readTop read of the record's last message object,
	// and the messages' tail (claude_code_msg.go).
	msg claudeCodeMsg
	// topIndexed says readTop indexed a message's content into ix, held
	// here, not in a register through readTop's walk.
	topIndexed bool
	// copies, when not nil, is where a replay as read keeps the outputs
	// (stepRecord.outCopied): a text or a result written as a string is
	// unescaped straight into it, where it was unescaped into a string
	// of its own, then copied there.
	copies *outputCopies
}

// newClaudeCodeReader is a reader whose queue recycles its steps: the
// reader holds no pointer to a step it handed out.
func newClaudeCodeReader() *claudeCodeReader {
	c := &claudeCodeReader{}
	c.q.recycle = true
	return c
}

// claudeCodeNotSteps are record types that are not the model's stream:
// every entry type Claude Code's session storage writes besides user and
// assistant (the map of entry types in @anthropic-ai/claude-code 2.1.111's
// cli.js: attachment, system and progress beside the messages; summary,
// custom-title, ai-title, last-prompt, tag, agent-name, agent-color,
// agent-setting, pr-link, file-history-snapshot, attribution-snapshot,
// speculation-accept, mode, permission-mode, worktree-state,
// queue-operation, marble-origami-commit, marble-origami-snapshot and
// content-replacement as metadata; 2.1.87 writes the same less
// permission-mode), and teleported-from, which a session teleported from
// Claude Code on the web opens with. A progress record's agent_progress
// carries a subagent's messages, which its own agent-<id>.jsonl holds; an
// attachment is what Claude Code adds to the context (hook output, files,
// reminders), not the user's words nor the model's.
var claudeCodeNotSteps = map[string]bool{
	"system": true, "summary": true, "file-history-snapshot": true, "queue-operation": true,
	"attachment": true, "progress": true, "custom-title": true, "ai-title": true, "last-prompt": true,
	"task-summary": true, "tag": true, "agent-name": true, "agent-color": true, "agent-setting": true,
	"pr-link": true, "attribution-snapshot": true, "speculation-accept": true, "mode": true,
	"permission-mode": true, "worktree-state": true, "content-replacement": true,
	"marble-origami-commit": true, "marble-origami-snapshot": true, "teleported-from": true,
}

const claudeCodeBadContent = "a message whose content is neither text nor content blocks"

// recordRaw reads a record in place (rawagent.go): its fields typed as
// Claude Code writes them (type and uuid strings, isSidechain and isMeta
// booleans, message an object whose content is a string or blocks); a
// record with a field of another type is skipped with its name.
func (c *claudeCodeReader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	ix := &c.ix
	hinted := c.prefetchUUID(raw)
	var t claudeCodeTop
	top := c.readTop(raw, &t)
	if !top {
		// Any record readTop does not read (claude_code_top.go):
		// validated and indexed whole, its noted members read.
		t = claudeCodeTop{}
		if why := c.readTopIndexed(raw, &t); why != "" {
			return nil, why
		}
	}
	var u uuid128 // the uuid parsed (isUUID), its slot prefetched
	var isUUID bool
	if val := t.uuidVal; val != nil {
		at := offsetIn(raw, val)
		if hinted && at == c.hintAt && len(val) == 2+36 {
			// The string prefetchUUID parsed: 36 bytes that are hex
			// digits and dashes, no escape, so uuid is those bytes.
			u, isUUID = c.hint, true
		} else if u, isUUID = parseUUID(t.uuid); isUUID && !hinted {
			c.seen.uuids.prefetch(u)
		}
		c.uuidFromEnd = len(raw) - at
	}
	blocks, set := c.blocks[:0], false
	if t.hasMessage {
		var kindBad bool
		var why string
		if top {
			// The role and content readTop read, in the message's
			// order (claude_code_msg.go), in a loop with no closure:
			// a closure's captured results were kept in memory
			// throughout recordRaw. readTop keeps no other key.
			p := unsafe.Pointer(unsafe.SliceData(raw))
			for k := range c.msg.reads[:c.msg.n] {
				r := &c.msg.reads[k]
				if !r.content {
					// A string: readTop keeps no role of another
					// kind (the caller reads such a message whole),
					// so roleWhy would return why.
					continue
				}
				var w string
				if blocks, set, kindBad, w = readBlocksViews(ix, r.val(p), blocks[:0]); why == "" {
					why = w
				}
			}
		} else {
			blocks, set, kindBad, why = c.msgIndexed(t.msg, blocks)
		}
		c.blocks = blocks
		if kindBad {
			// encoding/json stopped there: the record's type is what
			// it had read before the message.
			return nil, "a Claude Code " + t.typeAtMessage + " record: " + claudeCodeBadContent
		}
		if t.bad == "" && why != "" {
			t.bad = "the message's " + why
		}
	}
	if t.bad != "" {
		return nil, "not a Claude Code record: " + t.bad
	}
	if t.typ != "user" && t.typ != "assistant" {
		// Neither is in claudeCodeNotSteps: the map is asked of the
		// other records alone, not hashed for every message.
		if claudeCodeNotSteps[t.typ] {
			return nil, ""
		}
		return nil, fmt.Sprintf("not a Claude Code record (type %q; want user, assistant, system or summary)", t.typ)
	}
	if c.side == 0 {
		c.side, c.sidechain = 1, t.side
	}
	if t.side != c.sidechain {
		return nil, ""
	}
	if t.uuid != "" && c.seen.addParsed(t.uuid, u, isUUID) {
		return nil, ""
	}
	if !t.hasMessage || !set {
		return nil, fmt.Sprintf("a Claude Code %s record without a message", t.typ)
	}
	if t.typ == "user" && t.compact {
		return c.compactSummary(blocks), ""
	}
	if t.typ == "user" {
		return c.user(blocks, t.meta), ""
	}
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case "text":
			if text := c.output(b.TextRaw); strings.TrimSpace(text) != "" {
				c.q.push(stepRecord{info: StepInfo{Kind: StepMessage}, output: text, hasText: true}, "")
			}
		case "thinking":
			// Left as written (blockViews): unescaped as a text is.
			if text := c.output(rawValue(stringBytes(b.Thinking))); strings.TrimSpace(text) != "" {
				c.q.push(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: true}, output: text, hasText: true}, "")
			}
		case "tool_use", "server_tool_use":
			action, canon := c.callForms(b.Name, b.Input)
			c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, b.ID)
		}
	}
	return c.ready(false), ""
}

// roleWhy is why, or when why is "" and role is not of a string's kind
// (rawString's ok: absent, null or a string), the reason the record is
// not read; the role's value is not read.
func roleWhy(role rawValue, why string) string {
	if k := role.Kind(); k != 0 && k != 'n' && k != '"' && why == "" {
		return `"role" is not a string`
	}
	return why
}

// msgIndexed reads the role and content of message msg, indexed whole
// into c.ix (readTopIndexed), as recordRaw reads readTop's: the content's
// blocks appended to blocks[:0], set, kindBad and why as
// readBlocksViews's (why also a role's of another type than a string's,
// the first kept).
func (c *claudeCodeReader) msgIndexed(msg rawValue, blocks []contentBlock) (out []contentBlock, set, kindBad bool, why string) {
	ix := &c.ix
	out = blocks[:0]
	msgMember := func(key []byte, val rawValue) {
		switch string(key) {
		case "role": // its type checked (rawString's ok), its value not read
			why = roleWhy(val, why)
		case "content":
			// A wrong role's reason is kept: the record is skipped
			// whatever the content (encoding/json keeps its first
			// error).
			var w string
			if out, set, kindBad, w = readBlocksViews(ix, val, out[:0]); why == "" {
				why = w
			}
		}
	}
	if ms, ok := ix.noted(msg); ok {
		// As the top level: no closure a member, and keys of
		// another length than role's and content's (id, model,
		// stop_reason, usage) passed over.
		p := unsafe.Pointer(unsafe.SliceData(ix.base))
		for k := range ms {
			m := &ms[k]
			if n := m.keyEnd - m.key; n != int32(len("role")) && n != int32(len("content")) && !m.esc {
				continue
			}
			key, val := notedMember(p, m)
			if m.esc {
				key = []byte(unquoteKey(key))
			}
			msgMember(key, val)
		}
	} else {
		ix.members(msg, func(k []byte, esc bool, val rawValue) bool {
			msgMember(keyBytes(k, esc), val)
			return true
		})
	}
	return out, set, kindBad, why
}

// readTopIndexed reads record raw's top level into t, zero, as readTop
// does, from the members the validating pass noted (agentRecordIx), and
// says why a record that does not read cannot be read ("" when it can).
func (c *claudeCodeReader) readTopIndexed(raw []byte, t *claudeCodeTop) (why string) {
	ix := &c.ix
	v, nonFinite, err := agentRecordIx(raw, ix)
	if err != nil {
		return err.Error()
	}
	if nonFinite {
		return "not a Claude Code record: NaN or Infinity, which JSON does not have"
	}
	if ms, ok := ix.noted(v); ok {
		p := unsafe.Pointer(unsafe.SliceData(ix.base))
		for k := range ms {
			m := &ms[k]
			if n := uint(m.keyEnd - m.key); n < 64 && claudeCodeTopLens>>n&1 == 0 && !m.esc {
				continue // none of the names read (most of a record's members)
			}
			key, val := notedMember(p, m)
			if m.esc {
				key = []byte(unquoteKey(key))
			}
			t.member(key, val)
		}
	} else {
		ix.members(v, func(k []byte, esc bool, val rawValue) bool {
			t.member(keyBytes(k, esc), val)
			return true
		})
	}
	return ""
}

// claudeCodeTop is what recordRaw reads of a record's top level.
type claudeCodeTop struct {
	typ, uuid, typeAtMessage string // views of the record: copied where kept (seen)
	bad                      string // names the first field of a wrong type
	side, meta, compact      bool
	hasMessage               bool
	msg                      rawValue
	// uuidVal is the last "uuid" member's value (nil: none), parsed
	// once the members are read: a repeated key's last value is the
	// value, as with every field.
	uuidVal rawValue
}

// claudeCodeTopLens has bit n set for each length n of a name
// claudeCodeTop.member reads: a key written without escapes of another
// length (parentUuid, sessionId, cwd, timestamp...) is passed over with
// no call.
const claudeCodeTopLens = 1<<len("type") | 1<<len("uuid") | 1<<len("isSidechain") | 1<<len("isMeta") |
	1<<len("isCompactSummary") | 1<<len("message")

// member reads a member of the record, its key unescaped. recordRaw
// calls it in a loop over the members the validating pass noted, with
// no closure a member (a closure's call and the key's UTF-8 test that
// valueIndex.members makes were a third of the reader's own cost; a key
// that is not UTF-8 is none of the names compared, read either way).
func (t *claudeCodeTop) member(key []byte, val rawValue) {
	ok := true
	switch string(key) {
	case "type":
		t.typ, ok = rawStringView(val)
	case "uuid":
		t.uuid, ok = rawStringView(val)
		t.uuidVal = val
	case "isSidechain":
		t.side, ok = rawBool(val)
	case "isMeta":
		t.meta, ok = rawBool(val)
	case "isCompactSummary":
		t.compact, ok = rawBool(val)
	case "message":
		switch val.Kind() {
		case '{':
			t.msg, t.hasMessage, t.typeAtMessage = val, true, t.typ
		case 'n':
			t.msg, t.hasMessage = nil, false
		default:
			ok = false
		}
	default:
		return
	}
	if !ok && t.bad == "" {
		t.bad = fmt.Sprintf("%s is not of the type Claude Code writes", jsonString(string(key)))
	}
}

// output is a text block's text or a tool's result (textOf): a string
// unescaped into c.copies when set, else a string of its own.
func (c *claudeCodeReader) output(v rawValue) string {
	if c.copies != nil && v.Kind() == '"' {
		return c.copies.unescaped(v)
	}
	return textOf(&c.ix, v) // a text's type was checked (readBlock): a string or null
}

// ready is c.q.ready, the steps' outputs marked as copies of their own
// when c.copies is set: each was then unescaped there (output) or is a
// string of its own (textOf's, a thinking block's, a summary's).
func (c *claudeCodeReader) ready(all bool) []stepRecord {
	out := c.q.ready(all)
	if c.copies != nil {
		for i := range out {
			out[i].outCopied = true
		}
	}
	return out
}

// callForms is callActionRawIx(&c.ix, name, input): the forms of the
// same tool use read before (a loop repeats its calls byte for byte),
// from c.calls, or written and kept there. Both forms are a function of
// the name and the input's bytes alone (the index only skips). The name
// is a view of the record (blockViews): copied before the forms, and the
// memo, keep it or strings made of it (a call of no input has its name
// as its forms).
func (c *claudeCodeReader) callForms(name string, input rawValue) (action, canonical string) {
	if action, canonical, ok := c.calls.find('t', name, input); ok {
		return action, canonical
	}
	name = strings.Clone(name)
	action, canonical = callActionRawIx(&c.ix, name, input)
	c.calls.keep('t', name, input, action, canonical)
	return action, canonical
}

// prefetchUUID prefetches the slot of the uuid raw holds where the last
// record held its own, counted from the end, and says whether it did:
// Claude Code writes a record's uuid near its end, most often followed
// by a timestamp of fixed length alone, so it is found before the
// record is read and the slot's miss overlaps all of its reading. A
// record written otherwise is prefetched when its uuid is read. Either
// way it is only a hint: the uuid added is the one the record's reading
// finds, taken as parsed here (c.hint) when it is the string parsed.
func (c *claudeCodeReader) prefetchUUID(raw []byte) bool {
	c.hintAt = -1
	at := len(raw) - c.uuidFromEnd // the opening quote
	if c.uuidFromEnd <= 0 || at < 7 || at+1+36 > len(raw) || string(raw[at-7:at+1]) != `"uuid":"` {
		return false
	}
	u, ok := parseUUID(bytesString(raw[at+1 : at+1+36]))
	if ok {
		c.seen.uuids.prefetch(u)
		c.hint, c.hintAt = u, at
	}
	return ok
}

// user reads a user record: tool results complete their calls; text is a
// prompt (not an injected isMeta one).
func (c *claudeCodeReader) user(blocks []contentBlock, meta bool) []stepRecord {
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case "tool_result":
			out := c.output(b.Content)
			if c.q.result(b.ToolUseID, out, b.IsError) == nil {
				// A result of no call read (its call is in a part of the
				// log not read): a step with no call.
				c.q.push(stepRecord{info: StepInfo{Kind: StepAction, Error: b.IsError}, output: out, hasText: true}, "")
			}
		case "text":
			if text, _ := rawStringView(b.TextRaw); !meta && strings.TrimSpace(text) != "" {
				c.q.prompt = true
			}
		}
	}
	return c.ready(false)
}

// compactSummary reads the summary Claude Code writes when it compacts
// the conversation (a user record marked isCompactSummary): a
// condensation step holding its text, not a prompt.
func (c *claudeCodeReader) compactSummary(blocks []contentBlock) []stepRecord {
	var text strings.Builder
	for i := range blocks {
		b := &blocks[i]
		if b.Type == "text" {
			s, _ := rawStringView(b.TextRaw) // copied by the Builder
			text.WriteString(s)
		}
	}
	c.q.push(stepRecord{info: StepInfo{Kind: StepCondensation}, output: text.String(), hasText: true}, "")
	return c.ready(false)
}

func (c *claudeCodeReader) finish() []stepRecord { return c.ready(true) }

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}
