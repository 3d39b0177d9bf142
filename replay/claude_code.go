package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
// nor isMeta) marks the next step Prompt. A file is one conversation: the
// main one, or a subagent's (agent-<id>.jsonl, every record isSidechain)
// when its first message is a sidechain's; records of the other kind
// (older versions wrote a subagent's records into the main file) are
// another conversation and are not steps of this one. System,
// summary, file-history-snapshot and queue-operation records are not
// steps. A record whose uuid was already read (a resumed session writes
// some again) is read once.
type claudeCodeReader struct {
	q    stepQueue
	seen map[string]bool
	// side says which conversation the file is: unknown until its first
	// user or assistant record, then the main one or a subagent's.
	side      int8
	sidechain bool
}

// claudeCodeNotSteps are record types that are not the model's stream.
var claudeCodeNotSteps = map[string]bool{
	"system": true, "summary": true, "file-history-snapshot": true, "queue-operation": true,
}

// claudeCodeRecord is decoded in one pass, message and blocks included
// (each json.Unmarshal validates all it is given first).
type claudeCodeRecord struct {
	Type        string             `json:"type"`
	UUID        string             `json:"uuid"`
	IsSidechain bool               `json:"isSidechain"`
	IsMeta      bool               `json:"isMeta"`
	Message     *claudeCodeMessage `json:"message"`
}

type claudeCodeMessage struct {
	Role    string            `json:"role"`
	Content claudeCodeContent `json:"content"`
}

// claudeCodeContent is a message's content: a string (one text block) or
// content blocks.
type claudeCodeContent struct {
	blocks []claudeCodeBlock
	set    bool
}

func (c *claudeCodeContent) UnmarshalJSON(b []byte) error {
	switch firstByte(b) {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c.blocks, c.set = []claudeCodeBlock{{Type: "text", Text: s}}, true
	case '[':
		if err := json.Unmarshal(b, &c.blocks); err != nil {
			return err
		}
		c.set = true
	case 'n': // null: no content
	default:
		return errClaudeCodeContent
	}
	return nil
}

var errClaudeCodeContent = errors.New("a message whose content is neither text nor content blocks")

type claudeCodeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (c *claudeCodeReader) record(map[string]any) ([]stepRecord, string) {
	return nil, "a Claude Code record read without its bytes"
}

func (c *claudeCodeReader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	var rec claudeCodeRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		if _, derr := decodeObject(raw); derr != nil {
			return nil, derr.Error()
		}
		if errors.Is(err, errClaudeCodeContent) {
			return nil, "a Claude Code " + rec.Type + " record: " + err.Error()
		}
		return nil, "not a Claude Code record: " + err.Error()
	}
	if claudeCodeNotSteps[rec.Type] {
		return nil, ""
	}
	if rec.Type != "user" && rec.Type != "assistant" {
		return nil, fmt.Sprintf("not a Claude Code record (type %q; want user, assistant, system or summary)", rec.Type)
	}
	if c.side == 0 {
		c.side, c.sidechain = 1, rec.IsSidechain
	}
	if rec.IsSidechain != c.sidechain {
		return nil, ""
	}
	if rec.UUID != "" {
		if c.seen[rec.UUID] {
			return nil, ""
		}
		if c.seen == nil {
			c.seen = map[string]bool{}
		}
		c.seen[rec.UUID] = true
	}
	if rec.Message == nil || !rec.Message.Content.set {
		return nil, fmt.Sprintf("a Claude Code %s record without a message", rec.Type)
	}
	blocks := rec.Message.Content.blocks
	if rec.Type == "user" {
		return c.user(blocks, rec.IsMeta), ""
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) != "" {
				c.q.push(stepRecord{info: StepInfo{Kind: StepMessage}, output: b.Text, hasText: true}, "")
			}
		case "thinking":
			if strings.TrimSpace(b.Thinking) != "" {
				c.q.push(stepRecord{info: StepInfo{Kind: StepMessage, Thinking: true}, output: b.Thinking, hasText: true}, "")
			}
		case "tool_use", "server_tool_use":
			action, canon := callAction(b.Name, b.Input)
			c.q.push(stepRecord{info: StepInfo{Kind: StepAction}, action: action, canonical: canon, hasAction: true}, b.ID)
		}
	}
	return c.q.ready(false), ""
}

// user reads a user record: tool results complete their calls; text is a
// prompt (not an injected isMeta one).
func (c *claudeCodeReader) user(blocks []claudeCodeBlock, meta bool) []stepRecord {
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			out := joinTexts(b.Content)
			if c.q.result(b.ToolUseID, out, b.IsError) == nil {
				// A result of no call read (its call is in a part of the
				// log not read): a step with no call.
				c.q.push(stepRecord{info: StepInfo{Kind: StepAction, Error: b.IsError}, output: out, hasText: true}, "")
			}
		case "text":
			if !meta && strings.TrimSpace(b.Text) != "" {
				c.q.prompt = true
			}
		}
	}
	return c.q.ready(false)
}

func (c *claudeCodeReader) finish() []stepRecord { return c.q.ready(true) }

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
