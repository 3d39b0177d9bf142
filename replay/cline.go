package replay

import (
	"fmt"
	"strings"
	"unsafe"
)

// clineReader reads a Cline or Roo Code task as the extension writes it:
// a folder tasks/<task id>/ holding api_conversation_history.json (the
// messages sent to the model, one JSON array) and ui_messages.json (what
// the chat panel shows). The steps come from api_conversation_history.json,
// because that is what both agents' repetition detectors see: the tool use
// the model wrote, parsed from its message:
//
//	[{"role":"user","content":[{"type":"text","text":"<task>\nFix the divide test\n</task>"}]},
//	 {"role":"assistant","content":[{"type":"text","text":"I'll run the tests.\n\n<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>"}]},
//	 {"role":"user","content":[{"type":"text","text":"[execute_command for 'npm test'] Result:"},{"type":"text","text":"FAIL ..."}]},
//	 ...]
//
// or, with native tool calls, tool_use {id, name, input} blocks answered
// by tool_result {tool_use_id, content, is_error} blocks, or, when Cline
// has no tool_use id mapped for the tool, by "[<tool> for '<target>']
// Result:\n<result>" text blocks, one a call in the calls' order
// (ToolResultUtils.pushToolResult and createToolResultBlock,
// src/core/task/tools/utils/ToolResultUtils.ts at
// e3a88c6b3325c148dde197624c41bdf3bc9a2794; a real task of Cline 3.x
// answers all its native calls so).
//
// Source: cline/cline src/core/assistant-message/parse-assistant-message.ts
// (parseAssistantMessageV2: a tool use is <tool_name> with one
// <param>value</param> a parameter, values trimmed, write_to_file and
// new_rule content up to the last </content>) at commit
// 06a9f7b4d993f44fa42d77ddbe612fd0875a46e1, and src/core/task/index.ts
// (the task's api_conversation_history, a tool's result sent back as
// "[<tool> for '<target>'] Result:" text) at the same commit. Roo Code
// (RooCodeInc/Roo-Code, a fork of Cline) writes the same two files.
//
// Steps: each tool use is an action step, its name and its parameters as
// JSON in the order written (plus the sorted form), its output the result
// the next user message carries (by id, or the text results in order to
// the calls no tool_result answered); a result that says the tool failed
// ("The tool execution failed", "<error>") is an error. The assistant's
// text around the tool uses is a message step, its reasoning (a
// "thinking" block, or Roo's <thinking> text) a message step marked
// Thinking. User text that is not a tool result (the <task>, <feedback>,
// <answer> a user types) is a prompt. The two agents' files cannot be
// told apart by their content: a task is read as Cline's unless
// --input-format roo says it is Roo Code's. A ui_messages.json is
// recognised and refused with a pointer to its sibling.
//
// Live verdicts: what each agent's repetition detector writes into the
// next user message is a live event at the call it fired on:
//
//   - Cline (src/core/task/ToolExecutor.ts, after a tool's result, at
//     60c5f9f): at the soft threshold a text block
//     formatResponse.repeatedToolCall, "Tool [<name>] has been called 3
//     times consecutively with identical arguments. …", after that
//     call's result (LiveClineWarning). At the hard threshold the mistake
//     count is set to the limit and the next request asks the user
//     mistake_limit_reached (src/core/task/index.ts); only when the user
//     answers with words does the history keep it, as
//     formatResponse.tooManyMistakes, "You seem to be having trouble
//     proceeding. The user has provided the following feedback …",
//     which replaces the call's result (LiveClineStop at the last call of
//     the message before). Answered with the button, the limit is in
//     ui_messages.json only and is not read; and failed tool uses reach
//     the same limit with the same words, which then show as a live stop
//     the replay does not share.
//   - Roo Code (src/core/assistant-message/presentAssistantMessage.ts at
//     37479466): a call ToolRepetitionDetector refuses gets the result
//     formatResponse.toolError("Tool call repetition limit reached for
//     <name>. Please try a different approach.") (LiveRooRefusal).
type clineReader struct {
	q        stepQueue
	waiting  []*queuedStep  // XML tool uses waiting for the next user message
	lastCall *queuedStep    // the last tool use of the assistant message before
	blocks   []contentBlock // the message's, reused
	ix       valueIndex     // the line's, reused (recordRaw)
	cur      *valueIndex    // the message's index: &ix, or nil (element)
	// text holds the texts decoded and the actions written, from one
	// message to the first that starts with no step queued and no call
	// waiting: the steps holding them were added, and stepTable.add
	// copied their strings.
	text  scratchText
	parts []clinePart // parseClineText's, reused
	calls callMemo    // the forms of the last tool uses read
}

// The agents' own words for their detectors' verdicts (see clineReader).
const (
	clineWarningHead = "Tool ["
	clineWarningBody = " times consecutively with identical arguments."
	clineMistakes    = "You seem to be having trouble proceeding. The user has provided the following feedback to help guide you:"
	rooRefusal       = "Tool call repetition limit reached for "
)

// recordRaw reads a message in place (rawagent.go): role a string,
// content a string or content blocks (null: none).
func (c *clineReader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	v, nonFinite, err := agentRecordIx(raw, &c.ix)
	if err != nil {
		return nil, err.Error()
	}
	if nonFinite {
		return nil, "not a Cline task message: NaN or Infinity, which JSON does not have"
	}
	c.cur = &c.ix
	return c.message(v)
}

// message reads a validated message.
func (c *clineReader) message(v rawValue) ([]stepRecord, string) {
	var f clineFields
	if ms, ok := c.cur.notedIn(v); ok {
		// The members the validating pass noted, with no closure a
		// member; a key that is not UTF-8 (members reads it as an
		// escape) is none of the names compared, read either way.
		p := unsafe.Pointer(unsafe.SliceData(c.cur.base))
		for k := range ms {
			m := &ms[k]
			key, val := notedMember(p, m)
			if m.esc {
				key = []byte(unquoteKey(key))
			}
			f.member(key, val)
		}
	} else {
		c.cur.members(v, func(k []byte, esc bool, val rawValue) bool {
			f.member(keyBytes(k, esc), val)
			return true
		})
	}
	role, typ, bad, content := f.role, f.typ, f.bad, f.content
	if bad != "" {
		return nil, "not a Cline task message: " + bad
	}
	if role == "" && (typ == "say" || typ == "ask") {
		return nil, "a Cline/Roo Code ui_messages.json entry: the steps are read from the task's api_conversation_history.json"
	}
	if len(c.q.queue) == 0 && len(c.waiting) == 0 {
		c.text.reset()
	}
	// The texts are decoded into c.text as read: a user message's
	// <environment_details>, a quarter of a task's bytes, is dropped as
	// written.
	blocks, _, kindBad, why := readBlocksRawText(c.cur, content, c.blocks[:0])
	c.blocks = blocks
	if content == nil || kindBad || why != "" {
		return nil, fmt.Sprintf("a Cline task message (role %q) whose content is neither text nor content blocks", role)
	}
	switch role {
	case "assistant":
		c.release() // tool uses no user message answered
		c.lastCall = nil
		for i := range blocks {
			b := &blocks[i]
			switch b.Type {
			case "text":
				text, _ := c.text.str(b.TextRaw)
				c.assistantText(text)
			case "thinking", "reasoning":
				text, _ := c.text.str(b.TextRaw)
				if t := b.Thinking + text; strings.TrimSpace(t) != "" {
					c.q.push(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: true}, output: t, hasText: true}, "")
				}
			case "tool_use":
				action, canon := callActionRaw(b.Name, b.Input)
				c.nativeCall(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, b.ID)
			}
		}
	case "user":
		c.user(blocks)
	default:
		return nil, fmt.Sprintf("not a Cline task message (role %q; want user or assistant)", role)
	}
	return c.handOut(false), ""
}

// handOut is q.ready, in a queue that recycles its steps (push wrote
// each into one of its own, one allocation a step). The reader holds
// steps outside the queue: c.waiting and c.lastCall, from an assistant
// message to the user message after it, and user's results and last
// within one message (ready is called at neither's end but message's).
// A step in c.waiting that ready handed out (more than maxQueued queued,
// or a call whose id came again) is no longer waiting, which
// user's textResult and release skip, so a push reusing it is not taken
// for it. lastCall is let go when handed out: marked, it was a step
// already copied out, which changed nothing; recycled, a push in the
// user message could be the step marked.
func (c *clineReader) handOut(all bool) []stepRecord {
	c.q.recycle = true
	out := c.q.ready(all)
	if c.lastCall != nil && !c.lastCall.waiting {
		c.lastCall = nil
	}
	return out
}

// clineFields are a message's members the reader reads (message).
type clineFields struct {
	role, typ, bad string // views: compared, and copied into a reason
	content        rawValue
}

// member reads a message's member, its key unescaped; bad is set to name
// the first that is not a string.
func (f *clineFields) member(key []byte, val rawValue) {
	ok := true
	switch string(key) {
	case "role":
		f.role, ok = wordView(val)
	case "content":
		f.content = val
	case "type": // ui_messages.json: say or ask
		f.typ, ok = rawStringView(val)
	case "say", "ask":
		_, ok = rawString(val)
	default:
		return
	}
	if !ok && f.bad == "" {
		f.bad = jsonString(string(key)) + " is not a string"
	}
}

// assistantText splits the model's text into text and XML tool uses.
func (c *clineReader) assistantText(text string) {
	c.parts = parseClineText(c.parts[:0], &c.text, &c.calls, text)
	for _, part := range c.parts {
		if part.tool == "" {
			// A text part is never blank: parseClineText trims it and
			// keeps it only when something is left.
			c.q.push(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: part.thinking}, output: part.text, hasText: true}, "")
			continue
		}
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: part.action, canonical: part.canonical, hasAction: true}, "")
		p := c.q.queue[len(c.q.queue)-1]
		p.waiting = true
		c.waiting = append(c.waiting, p)
		c.lastCall = p
	}
}

// user reads a user message: native tool results by id, XML tool results
// in order to the tool uses of the message before, the rest prompts; a
// live verdict is marked on the call it fired on.
func (c *clineReader) user(blocks []contentBlock) {
	var results []clineResult
	expectBody := false
	next := 0            // the first call of c.waiting no text result has answered yet
	var last *stepRecord // the call whose result came last
	mark := func(r *stepRecord, kind, rule string) {
		if r != nil && r.live == nil {
			r.live = &LiveEvent{Kind: kind, Rule: rule}
		}
	}
	// textResult is a result sent as text: it answers the next call of
	// the message before that no result has answered (by id or in text).
	textResult := func(body string, isErr bool) {
		for next < len(c.waiting) && !c.waiting[next].waiting {
			next++ // answered by its tool_result
		}
		r := clineResult{text: body, err: isErr}
		if next < len(c.waiting) {
			r.call = c.waiting[next]
			next++
			last = &r.call.rec
		}
		results = append(results, r)
	}
	refusal := func(refused bool) {
		if r := results[len(results)-1]; r.call != nil && refused {
			mark(&r.call.rec, LiveRooRefusal, "roo_tool_repetition/stop")
		}
	}
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case "tool_result":
			out := textOf(c.cur, b.Content)
			isErr := b.IsError || strings.Contains(out, "The tool execution failed")
			last = c.q.result(b.ToolUseID, out, isErr)
			if last == nil {
				c.q.push(stepRecord{info: StepInfo{Kind: StepAction, Error: isErr}, output: out, hasText: true}, "")
				last = &c.q.queue[len(c.q.queue)-1].rec
			}
			clineCommandExit(last, out)
			if strings.Contains(out, rooRefusal) {
				mark(last, LiveRooRefusal, "roo_tool_repetition/stop")
			}
		case "text":
			if !expectBody && clineEnvironment(b.TextRaw) {
				continue // the case of <environment_details> below, not decoded
			}
			text, _ := c.text.str(b.TextRaw)
			t := strings.TrimSpace(text)
			h := clineResultHeader(t)
			switch {
			case h >= 0:
				// A tool's result: its header, then its text here or in
				// the next block.
				// No word sought runs across the header's end, "] Result:"
				// and a space or line break (clineScan): the header and
				// body are scanned once for a failure, the body for a
				// refusal.
				text := strings.TrimSpace(t[h:])
				failed, refused := clineScanAt(t, h)
				textResult(text, failed)
				expectBody = text == ""
				refusal(refused)
			case expectBody:
				failed, refused := clineScan(t)
				r := &results[len(results)-1]
				r.text, r.err = t, r.err || failed
				expectBody = false
				refusal(refused)
			case strings.HasPrefix(t, clineWarningHead) && strings.Contains(t, clineWarningBody):
				// Cline's soft threshold, after the result of the call
				// it fired on.
				if last == nil && c.lastCall != nil {
					last = &c.lastCall.rec
				}
				mark(last, LiveClineWarning, "cline_repeated_tool/feedback")
			case strings.HasPrefix(t, clineMistakes):
				// Cline's mistake limit answered with the user's words:
				// they replace the last call's result.
				if c.lastCall != nil {
					mark(&c.lastCall.rec, LiveClineStop, "mistake_limit_reached")
				}
				c.q.prompt = true
			case t == "", strings.HasPrefix(t, "<environment_details>"), strings.HasPrefix(t, "[WARNING]"), strings.HasPrefix(t, "[ERROR]"),
				strings.HasPrefix(t, "# TODO LIST UPDATE REQUIRED"), strings.HasPrefix(t, "# task_progress"):
				// What the agent adds to the user's turn: its environment,
				// its own notices, its focus chain's reminders
				// (FocusChainPrompts, src/core/task/focus-chain/prompts.ts
				// at 1a196376d185f7d204aa985c7ee494b70cfdbf44).
			default:
				c.q.prompt = true // the user's words: <task>, <feedback>, <answer>
			}
		}
	}
	for _, r := range results {
		if r.call != nil {
			r.call.rec.output, r.call.rec.hasText = r.text, true
			r.call.rec.info.Error = r.call.rec.info.Error || r.err
			clineCommandExit(&r.call.rec, r.text)
		}
	}
	c.release()
	c.lastCall = nil
}

// clineEnvironment says a text block, as written, opens with the
// environment Cline adds to every user message: its text then opens with
// "<environment_details>" too (none of it escaped), which is no result's
// header ("[") nor a warning's, so a text block not expected to be a
// result's body is dropped as user() drops it decoded.
func clineEnvironment(raw rawValue) bool {
	const env = `"<environment_details>`
	return len(raw) > len(env) && string(raw[:len(env)]) == env
}

// nativeCall adds a tool_use block's call: answered by the tool_result
// with its id, or else by the next user message's text results in order
// (the calls of a message wait in c.waiting with the XML ones).
func (c *clineReader) nativeCall(r stepRecord, id string) {
	c.q.push(r, id)
	p := c.q.queue[len(c.q.queue)-1]
	p.waiting = true
	c.waiting = append(c.waiting, p)
	c.lastCall = p
}

// release lets the calls of the message before go: a call the next user
// message did not answer has no result.
func (c *clineReader) release() {
	for _, p := range c.waiting {
		if p.waiting {
			c.q.forget(p)
		}
	}
	clear(c.waiting)
	c.waiting = c.waiting[:0]
}

// clineResult is a result a user message sends as text, and the call it
// answers (nil: none is left).
type clineResult struct {
	call *queuedStep
	text string
	err  bool
}

func (c *clineReader) finish() []stepRecord { return c.handOut(true) }

// clineToolNames are the tool uses Cline's and Roo Code's parsers know
// (toolUseNames); a tag of another name is text.
var clineToolNames = map[string]bool{
	"execute_command": true, "read_file": true, "write_to_file": true, "replace_in_file": true,
	"search_files": true, "list_files": true, "list_code_definition_names": true, "browser_action": true,
	"use_mcp_tool": true, "access_mcp_resource": true, "ask_followup_question": true,
	"plan_mode_respond": true, "load_mcp_documentation": true, "attempt_completion": true,
	"new_task": true, "condense": true, "summarize_task": true, "report_bug": true, "new_rule": true,
	"web_fetch": true, "web_search": true, "focus_chain": true,
	// Roo Code's own.
	"apply_diff": true, "insert_content": true, "search_and_replace": true, "codebase_search": true,
	"switch_mode": true, "fetch_instructions": true, "update_todo_list": true, "run_slash_command": true,
	"generate_image": true,
}

// clineTag is a tool's name and closing tag (clineTagOf): the name a
// string of its own, not a view of the text it was found in (callMemo
// keeps it).
type clineTag struct{ name, closing string }

type clinePart struct {
	text     string
	thinking bool
	tool     string
	// The call's forms, as callActionRaw(tool, params()) writes them.
	action, canonical string
}

// params is a tool use's parameters as a JSON object, in the order
// written: the action's, after the tool's name and a space.
func (p clinePart) params() string { return p.action[len(p.tool)+1:] }

// parseClineText cuts an assistant message into text and tool uses, as
// parseAssistantMessageV2 does: <tool> ... </tool> with <param>value</param>
// inside (values trimmed; write_to_file and new_rule content ends at the
// last </content>). A tool use left open at the end is kept (partial).
// Roo Code's <thinking>…</thinking> text is reasoning. The parts are
// appended to out, the actions written in text or taken from memo (nil:
// none).
func parseClineText(out []clinePart, text *scratchText, memo *callMemo, s string) []clinePart {
	add := func(t string, thinking bool) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, clinePart{text: t, thinking: thinking})
		}
	}
	// texts adds t, cut at Roo's <thinking> tags when thinking says t
	// holds one (the tags scan below reads every '<' of it).
	texts := func(t string, thinking bool) {
		if !thinking {
			add(t, false)
			return
		}
		for t != "" {
			i := strings.Index(t, "<thinking>")
			if i < 0 {
				add(t, false)
				return
			}
			add(t[:i], false)
			rest := t[i+len("<thinking>"):]
			j := strings.Index(rest, "</thinking>")
			if j < 0 {
				add(rest, true)
				return
			}
			add(rest[:j], true)
			t = rest[j+len("</thinking>"):]
		}
	}
	for {
		start, name, closing := -1, "", ""
		// thinking says a "<thinking>" starts at one of the '<'s read
		// before start (a '<' and the first '>' after it), where texts
		// searched every text for it: it ends before start too.
		thinking := false
		for i := strings.IndexByte(s, '<'); i >= 0; {
			if j := strings.IndexByte(s[i:], '>'); j > 0 {
				if tag, ok := clineTagOf(s[i+1 : i+j]); ok {
					start, name, closing = i, tag.name, tag.closing
					break
				}
				thinking = thinking || s[i+1:i+j] == "thinking"
			}
			k := strings.IndexByte(s[i+1:], '<')
			if k < 0 {
				break
			}
			i += 1 + k
		}
		if start < 0 {
			texts(s, thinking)
			return out
		}
		texts(s[:start], thinking)
		body := s[start+len(name)+2:]
		if action, canonical, n, ok := clineMemoPrefix(memo, name, closing, body); ok {
			// A tool use read before, up to its closing tag: its end
			// and forms are the memo's, with no search of the body.
			out = append(out, clinePart{tool: name, action: action, canonical: canonical})
			s = body[n+len(closing):]
			continue
		}
		end := indexTag(body, closing)
		rest := ""
		if end >= 0 {
			if (name == "write_to_file" || name == "new_rule") && strings.Contains(body[end:], "</content>") {
				// content may hold the tool's closing tag: it ends at the last </content>.
				if last := strings.LastIndex(body, "</content>"); last >= 0 {
					if e2 := indexTag(body[last:], closing); e2 >= 0 {
						end = last + e2
					}
				}
			}
			rest = body[end+len(name)+3:]
			body = body[:end]
		}
		action, canonical := clineForms(memo, text, name, body)
		out = append(out, clinePart{tool: name, action: action, canonical: canonical})
		if end < 0 {
			return out
		}
		s = rest
	}
}
