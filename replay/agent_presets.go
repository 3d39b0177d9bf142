package replay

// The agents read as they write their logs, beside the two presets of
// presets.go: each has a reader in a file named after it (claude_code.go,
// codex.go, ...), registered here. Each name is both a --preset and an
// --input-format value.

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
)

// Agents' formats (Episode.Preset; --input-format and --preset values).
const (
	PresetClaudeCode = "claude-code"
	PresetCodex      = "codex"
	PresetSWEAgent   = "swe-agent"
	PresetCline      = "cline"
	PresetRoo        = "roo"
	PresetAider      = "aider"
)

// agentPresets lists the agents registered here, in the order they are
// listed to users.
var agentPresets = []string{PresetClaudeCode, PresetCodex, PresetSWEAgent, PresetCline, PresetRoo, PresetAider}

// docStepReader is a stepReader for an agent that writes a session as
// one JSON document: it streams the document itself, calling add with
// the steps of each element and skip with why an element is unusable;
// a *docError ends the document.
type docStepReader interface {
	readDoc(r io.Reader, add func(line int, recs []stepRecord) error, skip func(line int, reason string) error) error
}

// newAgentReader returns the reader of an agent's format, nil for a name
// that is not one.
func newAgentReader(preset string) stepReader {
	switch preset {
	case PresetClaudeCode:
		return newClaudeCodeReader()
	case PresetCodex:
		return &codexReader{}
	case PresetSWEAgent:
		return &sweAgentReader{}
	case PresetCline, PresetRoo:
		return &clineReader{}
	case PresetAider:
		return &aiderReader{}
	}
	return nil
}

// wholeDocument says an agent writes a session as one JSON document (not
// one record a line).
func wholeDocument(preset string) bool {
	return false
}

// agentFormat maps an --input-format naming an agent to the steps format
// and that agent's preset; other formats are returned as they are.
func agentFormat(format, preset string) (string, string) {
	for _, a := range agentPresets {
		if format == a {
			return FormatSteps, a
		}
	}
	return format, preset
}

// detectAgentDocument recognises an agent's session written as one
// pretty-printed JSON document from its start ("" when none): a SWE-agent
// trajectory's first key is "trajectory".
func detectAgentDocument(trimmed []byte) string {
	if jsonValid(firstLine(trimmed)) {
		return "" // a JSONL record on the first line
	}
	if keys := topKeys(trimmed); keys["trajectory"] && !keys["step"] {
		return PresetSWEAgent
	} else if keys["history"] && !keys["step"] && isSWEAgentDemo(trimmed) {
		// A demonstration (trajectories/demonstrations/*.traj): its
		// reader says what it is.
		return PresetSWEAgent
	}
	return ""
}

// agentNote is what an agent's episodes say about themselves ("" for
// nothing).
func agentNote(preset string) string {
	if preset == PresetAider {
		return aiderNote
	}
	return ""
}

// agentEpisodeID names an episode after what its agent names the session
// when the file name does not ("" to keep the default): a Cline or Roo
// Code task, an Aider history are their folder, a .traj its instance.
func agentEpisodeID(preset, source string) string {
	base := filepath.Base(source)
	switch {
	case (preset == PresetCline || preset == PresetRoo) && base == "api_conversation_history.json",
		preset == PresetAider && base == ".aider.chat.history.md":
		if dir := filepath.Base(filepath.Dir(source)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	case preset == PresetSWEAgent && strings.HasSuffix(base, ".traj") && len(base) > len(".traj"):
		return strings.TrimSuffix(base, ".traj")
	}
	return ""
}

// detectAgentArray recognises an agent's session written as one JSON
// array from its first element ("" when none): a Cline or Roo Code task's
// api_conversation_history.json (role and content, no OpenHands action or
// observation) or ui_messages.json (ts and type say/ask).
func detectAgentArray(trimmed []byte) string {
	elem := bytes.TrimLeft(trimmed[1:], " \t\r\n")
	if len(elem) == 0 || elem[0] != '{' {
		return ""
	}
	keys := topKeys(elem)
	switch {
	case keys["action"] || keys["observation"]:
		return ""
	case keys["role"] && keys["content"], keys["ts"] && keys["type"] && (keys["say"] || keys["ask"]):
		return PresetCline
	}
	return ""
}

// detectAgent recognises an agent's JSONL record by its top-level keys
// ("" when it is no agent's of this file).
func detectAgent(keys map[string]bool) string {
	switch {
	case keys["type"] && (keys["parentUuid"] || keys["leafUuid"]) && !keys["step"],
		keys["type"] && keys["messageId"] && keys["snapshot"],
		keys["type"] && keys["operation"] && keys["sessionId"],
		keys["type"] && keys["remoteSessionId"] && keys["messageCount"]:
		// Every Claude Code message record has parentUuid (null for a
		// session's first), a summary leafUuid; a session may open with a
		// file-history-snapshot or a queue-operation (which has a
		// "content": not to be taken for a Gemini CLI message), or with a
		// teleported-from record (a session teleported from the web:
		// remoteSessionId, branch, messageCount), alone in a session
		// left before its first message.
		return PresetClaudeCode
	case keys["timestamp"] && keys["type"] && keys["payload"] && !keys["step"],
		keys["id"] && keys["timestamp"] && keys["instructions"] && !keys["type"]:
		// A rollout line; or a legacy rollout's header (its bare
		// response items would pass for Gemini CLI messages).
		return PresetCodex
	}
	return ""
}

// jsonString is s as a JSON string, as an Encoder without HTML escapes
// writes it (FuzzJSONString).
func jsonString(s string) string { return string(appendGoString(nil, s, false)) }

// stepQueue holds an agent's steps in record order until each is
// complete (a call waits for its result, found by the agent's call id),
// so the steps are numbered in record order whatever order the results
// come in.
type stepQueue struct {
	n       int
	queue   []*queuedStep
	pending map[string]*queuedStep // call id → call waiting for its result
	// last is the last call pushed, while it waits, its id in lastID (a
	// copy, written over by the next): held here, not in pending, where
	// an agent's call waits for the next record's result and a map's
	// assign, lookup and delete (and the id's copy, a string) cost some
	// 900 instructions a call. An id is in pending or here, not both
	// (TestStepQueueLast).
	last   *queuedStep
	lastID []byte
	prompt bool         // a user prompt came in since the last step
	out    []stepRecord // ready's, reused: the caller is done with it before the next record
	// recycle says no pointer to a step handed out is used outside the
	// queue (the reader keeps none, or lets go or skips those handed out,
	// as clineReader.handOut says; pending holds only waiting steps), so
	// its queuedStep is kept in free for the next push, not left to the
	// collector, one allocation a step. It is not cleared (ready): the
	// strings a freed step and out still hold stay alive until they are
	// written over or the reader is dropped, at most as many steps as the
	// queue once held (maxQueued); with a steps table they are its own.
	recycle bool
	free    []*queuedStep
}

type queuedStep struct {
	rec     stepRecord
	waiting bool
}

// maxQueued bounds the steps held back for a result that may never come.
const maxQueued = 4096

// push adds a step; a call with an id waits for result(id).
func (q *stepQueue) push(r stepRecord, callID string) {
	if q.prompt {
		r.info.NewPrompt, q.prompt = true, false
	}
	var p *queuedStep
	if n := len(q.free); n > 0 {
		p, q.free = q.free[n-1], q.free[:n-1]
		p.rec = r // waiting false when freed
	} else {
		p = &queuedStep{rec: r}
	}
	q.queue = append(q.queue, p)
	if callID == "" {
		return
	}
	p.waiting = true
	if q.last != nil {
		if string(q.lastID) == callID {
			q.last.waiting = false // an id used twice: the first call gets no result
			q.last = p
			return
		}
		// The call before, still waiting: into pending, its id copied.
		if q.pending == nil {
			q.pending = map[string]*queuedStep{}
		}
		q.pending[string(q.lastID)] = q.last
	}
	if len(q.pending) != 0 {
		if old, ok := q.pending[callID]; ok {
			old.waiting = false // an id used twice: the first call gets no result
			delete(q.pending, callID)
		}
	}
	// callID is copied: a caller may pass a view of its record.
	q.last, q.lastID = p, append(q.lastID[:0], callID...)
}

// result completes the call with that id and returns it; nil when none
// waits for it.
func (q *stepQueue) result(callID, output string, isErr bool) *stepRecord {
	p := q.last
	if p != nil && string(q.lastID) == callID {
		q.last = nil
	} else {
		var ok bool
		if p, ok = q.pending[callID]; !ok {
			return nil
		}
		delete(q.pending, callID)
	}
	p.waiting = false
	p.rec.output, p.rec.hasText = output, true
	p.rec.info.Error = p.rec.info.Error || isErr
	return &p.rec
}

// forget lets a call go without its result: it waits no more, and a
// result with its id later is a result of no call.
func (q *stepQueue) forget(p *queuedStep) {
	p.waiting = false
	if q.last == p {
		q.last = nil
	}
	for id, w := range q.pending {
		if w == p {
			delete(q.pending, id)
		}
	}
}

// pushReady is push(r, "") then ready(false): in a queue that recycles
// its steps and holds none, the step is handed out at once, where push
// copied it into a free step and ready copied it out again.
func (q *stepQueue) pushReady(r stepRecord) []stepRecord {
	if len(q.queue) != 0 || !q.recycle {
		q.push(r, "")
		return q.ready(false)
	}
	if q.prompt {
		r.info.NewPrompt, q.prompt = true, false
	}
	q.n++
	r.n, r.hasStep = q.n, true
	out := append(q.out[:0], r)
	if cap(out) <= 64 {
		q.out = out
	}
	return out
}

// ready returns the steps before the first call still waiting (all of
// them with all set, or when too many are held), numbered in order.
//
// A queue that recycles its steps clears neither them nor out: the
// strings they hold are the steps' own, which a steps table keeps (the
// outputs in its blocks, the actions as its symbols), and at most as
// many as the queue once held, so clearing let little or nothing go, for
// two calls of memclrHasPointers and a step's zeroing at every record.
// A free step is not waiting, and push writes it whole.
func (q *stepQueue) ready(all bool) []stepRecord {
	if !q.recycle {
		clear(q.out) // the last record's steps, let go
	}
	out := q.out[:0]
	i := 0
	for ; i < len(q.queue); i++ {
		p := q.queue[i]
		if p.waiting && !all && len(q.queue)-i <= maxQueued {
			break
		}
		if p.waiting {
			p.waiting = false
			if q.last == p {
				q.last = nil
			}
			for id, w := range q.pending {
				if w == p {
					delete(q.pending, id)
				}
			}
		}
		q.n++
		p.rec.n, p.rec.hasStep = q.n, true
		out = append(out, p.rec)
		if q.recycle {
			q.free = append(q.free, p) // not waiting: push writes it whole
		}
	}
	if !q.recycle {
		clear(q.queue[:i])
	}
	if i == len(q.queue) {
		// Emptied: filled from its start again. Sliced on from its
		// front, the queue ran out of room and its array was copied
		// every few records.
		q.queue = q.queue[:0]
	} else {
		q.queue = q.queue[i:]
	}
	if len(out) == 0 {
		return nil
	}
	if cap(out) <= 64 {
		q.out = out // not the thousands a call never answered lets go at once
	}
	return out
}

// AgentSessionName says whether a file name is one an agent of this file
// gives a session, so a directory scan picks it up with no flag: Claude
// Code's <session uuid>.jsonl (and a subagent's agent-<id>.jsonl), Codex's
// rollout-<time>-<uuid>.jsonl, SWE-agent's <instance>.traj, a Cline or
// Roo Code task's api_conversation_history.json, Aider's
// .aider.chat.history.md. The file is then read by
// its content.
func AgentSessionName(name string) bool {
	if strings.HasSuffix(name, ".traj") && len(name) > len(".traj") || name == "api_conversation_history.json" || name == ".aider.chat.history.md" {
		return true
	}
	base, ok := strings.CutSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst"), ".jsonl")
	if !ok {
		return false
	}
	return isUUID(base) || (strings.HasPrefix(base, "agent-") && len(base) > len("agent-")) ||
		(strings.HasPrefix(base, "rollout-") && len(base) > len("rollout-"))
}

// isUUID says s is a UUID in its 8-4-4-4-12 hex spelling.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
