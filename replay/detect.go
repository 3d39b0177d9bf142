package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// readContext is what the steps and attempts readers share with read.
type readContext struct {
	source, defaultID string
	opts              Options
	detected          bool
	maxLine           int
	emit              func(*Episode) error
}

// skip counts a line the episode d belongs to cannot use and notes why;
// the error it returns is fatal only with Strict (nil otherwise).
func (c *readContext) skip(d *Diagnostics, line int, reason string) error {
	d.Skipped++
	e := &LineError{File: c.source, Line: line, Reason: reason}
	d.problem(e.Error())
	if c.opts.Strict {
		return e
	}
	return nil
}

// detectBytes is how much of an input --input-format auto looks at.
const detectBytes = 64 << 10

// peekStart returns the buffered start of the input without consuming it.
func peekStart(br *bufio.Reader) []byte {
	b, _ := br.Peek(min(detectBytes, br.Size()))
	return b
}

// DetectFormat guesses a log's format from its first bytes (the first
// records, up to 64 KiB), returning the format and, for steps, the preset:
//   - a JSON array (an OpenHands trajectory) → steps, openhands;
//   - a record with "id" and a "kind" naming an event class → steps,
//     openhands-v1;
//   - a record with "instance_id" and "history" (an OpenHands evaluation
//     output.jsonl) → steps, openhands;
//   - any of the first records with "event_type" → zorkgpt;
//   - a record with "task_id" and "status" → attempts;
//   - an object with "sessionId" and "messages", a record with "sessionId"
//     and "projectHash" (a session-*.jsonl's metadata line), "$set" or
//     "$rewindTo", or a record with "type" and "toolCalls" or "content" →
//     steps, gemini-cli;
//   - a record with "action" or "observation" and one of "args",
//     "extras", "cause" → steps, openhands;
//   - a record with "step" and "action" or "output" → steps;
//   - a record with "action" or "observation", no "step" and no "type"
//     (OpenHands' 2024 shape, which its reader reports) → steps, openhands;
//   - else zorkgpt, whose reader then says what it found.
//
// Records are looked at by their top-level keys only, so a long first
// line cut at 64 KiB still counts by the keys before the cut.
func DetectFormat(start []byte) (format, preset string) {
	format, preset, _ = DetectKnown(start)
	return format, preset
}

// DetectKnown is DetectFormat, saying whether a rule recognised the
// records (known) or zorkgpt is only the fallback: a directory scan picks
// up a file by its content only when it is known.
func DetectKnown(start []byte) (format, preset string, known bool) {
	trimmed := bytes.TrimLeft(start, " \t\r\n")
	if isAiderHistory(trimmed) {
		return FormatSteps, PresetAider, true
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if a := detectAgentArray(trimmed); a != "" {
			return FormatSteps, a, true
		}
		// An array of objects; an empty array or one of numbers is
		// nobody's log.
		inner := bytes.TrimLeft(trimmed[1:], " \t\r\n")
		return FormatSteps, PresetOpenHands, len(inner) > 0 && inner[0] == '{'
	}
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if a := detectAgentDocument(trimmed); a != "" {
			return FormatSteps, a, true
		}
	}
	if len(trimmed) > 0 && trimmed[0] == '{' && !bytes.Contains(firstLine(trimmed), []byte(`"event_type"`)) {
		// A pretty-printed session: its keys span lines.
		if bytes.Contains(trimmed, []byte(`"sessionId"`)) && bytes.Contains(trimmed, []byte(`"messages"`)) {
			return FormatSteps, PresetGeminiCLI, true
		}
	}
	lines := bytes.Split(start, []byte("\n"))
	for i, line := range lines {
		if i >= 20 {
			break
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		keys := topKeys(line)
		has := func(k string) bool { return keys[k] }
		if a := detectAgent(keys); a != "" {
			return FormatSteps, a, true
		}
		switch {
		case isOpenHandsV1(keys, line):
			return FormatSteps, PresetOpenHandsV1, true
		case has("instance_id") && has("history"):
			return FormatSteps, PresetOpenHands, true // an OpenHands evaluation output
		case has("event_type"):
			return FormatZorkGPT, "", true
		case has("task_id") && has("status"):
			return FormatAttempts, "", true
		case has("sessionId") && (has("messages") || has("projectHash")), has("$rewindTo"), has("$set"),
			has("type") && (has("toolCalls") || has("content")) && !has("step"):
			return FormatSteps, PresetGeminiCLI, true
		case (has("action") || has("observation")) && (has("args") || has("extras") || has("cause")):
			return FormatSteps, PresetOpenHands, true
		case has("step") && (has("action") || has("output")):
			return FormatSteps, "", true
		case (has("action") || has("observation")) && !has("type") && !has("step"):
			// An OpenHands event of 2024 (dataclasses.asdict, its fields
			// at the top level): the OpenHands reader names the shape.
			return FormatSteps, PresetOpenHands, true
		}
	}
	return FormatZorkGPT, "", false
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// topKeys lists an object's top-level keys, reading as far as the bytes
// go (a line cut short still gives the keys before the cut).
func topKeys(line []byte) map[string]bool {
	keys := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return keys
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, ok := t.(string)
		if !ok {
			return keys
		}
		keys[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}
