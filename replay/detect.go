package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// readContext is what the steps and attempts readers share with read.
type readContext struct {
	source, defaultID string
	opts              Options
	detected          bool
	maxLine           int
	emit              func(*Episode) error
	input             inputGauge // how far into its input the read is (stepTable.presize)
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
// up a file by its content only when it is known. A SWE-agent
// demonstration is recognised but not known: it holds no run.
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
			// A SWE-agent demonstration is no run: named, its reader
			// says so; a scan passes it over (not known), as it passes
			// over a Cline task's ui_messages.json.
			return FormatSteps, a, !isSWEAgentDemo(trimmed)
		}
	}
	if len(trimmed) > 0 && trimmed[0] == '{' && !bytes.Contains(firstLine(trimmed), []byte(`"event_type"`)) {
		// A pretty-printed session: its keys span lines.
		if bytes.Contains(trimmed, []byte(`"sessionId"`)) && bytes.Contains(trimmed, []byte(`"messages"`)) {
			return FormatSteps, PresetGeminiCLI, true
		}
	}
	// The first 20 lines, each cut off as it comes (splitting all of 64
	// KiB of short lines first cost more than looking at 20).
	rest := start
	for i := 0; i < 20 && (i == 0 || len(rest) > 0); i++ {
		line := rest
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			line, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
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
		case has("instance_id") && has("history"), isOpenHandsResolverOutput(keys):
			return FormatSteps, PresetOpenHands, true // an OpenHands evaluation or resolver output
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
// go (a line cut short still gives the keys before the cut). It keeps
// what encoding/json's Decoder (Token for each key, then the value into a
// json.RawMessage) gave: the keys up to the first that is not followed by
// a valid value, that one included. A directory of small episode files
// detects every file's format: the Decoder (its scanner errors that end
// every value included) was 8% of analyze's CPU there, so the keys are
// walked by hand (validValue); encoding/json decodes only escaped keys,
// checks only values holding an 'N' or an 'I', and reads the lines the hand
// walk stops in (cut short or broken: rare, and then exactly as before).
func topKeys(line []byte) map[string]bool {
	keys := make(map[string]bool, 16) // a ZorkGPT record has 9 or more
	var prefix string
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return keys
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return keys
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return keys
		}
		end, esc := validString(line, i)
		if end < 0 {
			return keys
		}
		if prefix == "" {
			// Where the keys of a record's first kilobyte are cut from:
			// one allocation, not one a key.
			prefix = string(line[:min(len(line), keyPrefix)])
		}
		if raw := line[i+1 : end-1]; !esc && end <= len(prefix) && utf8.Valid(raw) {
			keys[prefix[i+1:end-1]] = true
		} else {
			keys[keyString(line[i:end], esc)] = true
		}
		i = skipSpace(line, end)
		if i >= len(line) || line[i] != ':' {
			return keys
		}
		i = skipSpace(line, i+1)
		vEnd := validValue(line, i)
		if vEnd < 0 {
			// Cut short or not JSON, where the Decoder stops too, but
			// also a value nested one level short of encoding/json's
			// limit, which validValue refuses: the Decoder settles it.
			return topKeysDecoder(line)
		}
		if !strictValue(line[i:vEnd]) {
			return keys // NaN or Infinity: validValue's, not JSON
		}
		i = skipSpace(line, vEnd)
		if i >= len(line) || line[i] != ',' {
			return keys // '}', or what the Decoder stopped at too
		}
		i = skipSpace(line, i+1)
	}
}

// keyPrefix is how much of a record topKeys copies to cut its keys from.
const keyPrefix = 1 << 10

// keyString is a key's name as encoding/json decodes it: the bytes between
// the quotes when they hold no escape and are valid UTF-8.
func keyString(quoted []byte, esc bool) string {
	raw := quoted[1 : len(quoted)-1]
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	var k string
	if json.Unmarshal(quoted, &k) != nil {
		return string(raw) // validString checked it: not reached
	}
	return k
}

// strictValue says a value validValue accepted is JSON to encoding/json
// too: it holds no NaN, Infinity or -Infinity token. Such a token is an
// 'N' or an 'I' outside strings, where nothing else validValue takes has
// one (true, false, null and numbers are written without): strings are
// skipped, not handed to json.Valid, since ZorkGPT's "INFO" put an 'I' in
// every record.
func strictValue(v []byte) bool {
	if bytes.IndexByte(v, 'N') < 0 && bytes.IndexByte(v, 'I') < 0 {
		return true
	}
	for i := 0; i < len(v); {
		switch v[i] {
		case '"':
			i = skipString(v, i)
		case 'N', 'I':
			return false
		default:
			i++
		}
	}
	return true
}

// jsonValid is json.Valid, read by validValue where that settles it: one
// value between blanks holding no NaN or Infinity token (strictValue).
// What validValue refuses (broken, or nested deeper than it walks)
// encoding/json decides. Format detection asks it of every file's first
// line; encoding/json's scanner, a call per byte, was half of detecting a
// small episode file's format (FuzzJSONValid holds the two together).
func jsonValid(b []byte) bool {
	i := skipSpace(b, 0)
	if end := validValue(b, i); end >= 0 && skipSpace(b, end) == len(b) {
		return strictValue(b[i:end])
	}
	return json.Valid(b)
}

// topKeysDecoder is topKeys through encoding/json's Decoder.
func topKeysDecoder(line []byte) map[string]bool {
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
