package replay

// The Cline reader's records as they were read before rawValue: each
// json.Unmarshal-ed into structs. Kept as the reference FuzzClineRaw
// compares the reader with.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// clineReaderOld is clineReader with the old decoding.
type clineReaderOld struct {
	q        stepQueue
	waiting  []*queuedStep
	lastCall *queuedStep
}

func (c *clineReaderOld) finish() []stepRecord { return c.q.ready(true) }

type clineMessageOld struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Type    string          `json:"type"` // ui_messages.json: say or ask
	Say     string          `json:"say"`
	Ask     string          `json:"ask"`
}

func (c *clineReaderOld) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	var m clineMessageOld
	if err := json.Unmarshal(raw, &m); err != nil {
		if _, derr := decodeObject(raw); derr != nil {
			return nil, derr.Error()
		}
		return nil, "not a Cline task message: " + err.Error()
	}
	if m.Role == "" && (m.Type == "say" || m.Type == "ask") {
		return nil, "a Cline/Roo Code ui_messages.json entry: the steps are read from the task's api_conversation_history.json"
	}
	var blocks []claudeCodeBlockOld
	if firstByte(m.Content) == '"' {
		var s string
		_ = json.Unmarshal(m.Content, &s)
		blocks = []claudeCodeBlockOld{{Type: "text", Text: s}}
	} else if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return nil, fmt.Sprintf("a Cline task message (role %q) whose content is neither text nor content blocks", m.Role)
	}
	switch m.Role {
	case "assistant":
		c.release() // tool uses no user message answered
		c.lastCall = nil
		for _, b := range blocks {
			switch b.Type {
			case "text":
				c.assistantText(b.Text)
			case "thinking", "reasoning":
				if t := b.Thinking + b.Text; strings.TrimSpace(t) != "" {
					c.q.push(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: true}, output: t, hasText: true}, "")
				}
			case "tool_use":
				action, canon := callAction(b.Name, b.Input)
				c.nativeCall(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, b.ID)
			}
		}
	case "user":
		c.user(blocks)
	default:
		return nil, fmt.Sprintf("not a Cline task message (role %q; want user or assistant)", m.Role)
	}
	return c.q.ready(false), ""
}

// assistantText splits the model's text into text and XML tool uses.
func (c *clineReaderOld) assistantText(text string) {
	for _, part := range parseClineText(nil, &scratchText{}, nil, text) {
		if part.tool == "" {
			if strings.TrimSpace(part.text) != "" {
				c.q.push(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: part.thinking}, output: part.text, hasText: true}, "")
			}
			continue
		}
		action, canon := callAction(part.tool, []byte(part.params()))
		c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, "")
		p := c.q.queue[len(c.q.queue)-1]
		p.waiting = true
		c.waiting = append(c.waiting, p)
		c.lastCall = p
	}
}

// user reads a user message: native tool results by id, XML tool results
// in order to the tool uses of the message before, the rest prompts; a
// live verdict is marked on the call it fired on.
func (c *clineReaderOld) user(blocks []claudeCodeBlockOld) {
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
	refusal := func(body string) {
		if r := results[len(results)-1]; r.call != nil && strings.Contains(body, rooRefusal) {
			mark(&r.call.rec, LiveRooRefusal, "roo_tool_repetition/stop")
		}
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			out := joinTexts(b.Content)
			isErr := b.IsError || strings.Contains(out, "The tool execution failed")
			last = c.q.result(b.ToolUseID, out, isErr)
			if last == nil {
				c.q.push(stepRecord{info: StepInfo{Kind: StepAction, Error: isErr}, output: out, hasText: true}, "")
				last = &c.q.queue[len(c.q.queue)-1].rec
			}
			refCommandExit(last, out)
			if strings.Contains(out, rooRefusal) {
				mark(last, LiveRooRefusal, "roo_tool_repetition/stop")
			}
		case "text":
			t := strings.TrimSpace(b.Text)
			switch {
			case clineResultHeader(t) >= 0:
				// A tool's result: its header, then its text here or in
				// the next block.
				body := t[clineResultHeader(t):]
				textResult(strings.TrimSpace(body), clineFailed(t))
				expectBody = strings.TrimSpace(body) == ""
				refusal(body)
			case expectBody:
				r := &results[len(results)-1]
				r.text, r.err = t, r.err || clineFailed(t)
				expectBody = false
				refusal(t)
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
			refCommandExit(&r.call.rec, r.text)
		}
	}
	c.release()
	c.lastCall = nil
}

// nativeCall adds a tool_use block's call: answered by the tool_result
// with its id, or else by the next user message's text results in order
// (the calls of a message wait in c.waiting with the XML ones).
func (c *clineReaderOld) nativeCall(r stepRecord, id string) {
	c.q.push(r, id)
	p := c.q.queue[len(c.q.queue)-1]
	p.waiting = true
	c.waiting = append(c.waiting, p)
	c.lastCall = p
}

// release lets the calls of the message before go: a call the next user
// message did not answer has no result.
func (c *clineReaderOld) release() {
	for _, p := range c.waiting {
		if p.waiting {
			c.q.forget(p)
		}
	}
	clear(c.waiting)
	c.waiting = c.waiting[:0]
}

// refCommandExit is clineCommandExit written with regular expressions:
// Cline's status line, or Roo Code's status after the quoted directory.
var (
	refClineStatus = regexp.MustCompile(`^(?:Command executed successfully \(exit code (0)\)\.|Command failed with exit code ([+-]?[0-9]+)\.)`)
	refRooStatus   = regexp.MustCompile(`^(?:[^\n]*\n)?Exit code: ([+-]?[0-9]+)(?:\n|$)`)
)

func refCommandExit(r *stepRecord, text string) {
	if r == nil || !strings.HasPrefix(r.action, "execute_command") {
		return
	}
	text = strings.TrimSpace(text)
	if i := strings.Index(text, "\nOutput"); i >= 0 {
		text = text[:i+1]
	}
	var code string
	if m := refClineStatus.FindStringSubmatch(text); m != nil {
		code = m[1] + m[2]
	} else if i := strings.LastIndex(text, "'. "); strings.HasPrefix(text, "Command executed in ") && i >= 0 {
		if m := refRooStatus.FindStringSubmatch(text[i+3:]); m != nil {
			code = m[1]
		}
	}
	if n, err := strconv.Atoi(code); err == nil {
		r.setExitCode(n)
	}
}
