package replay

// How the agents' readers spelled a tool call and read a tool's output
// before rawagent.go (callActionRaw, textOf): through encoding/json. Kept
// as the reference the old readers (*_old_test.go) and FuzzCallActionRaw
// use.

import (
	"bytes"
	"encoding/json"
	"strings"
)

// callAction spells a tool call as an action: name, a space and the
// arguments as compact JSON in the order logged; canonical is the same
// with the keys sorted at every depth (as encoding/json writes a map).
// args that are not valid JSON are kept as they are, in both.
func callAction(name string, args []byte) (action, canonical string) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		return name, name
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, args); err != nil {
		s := name + " " + string(args)
		return s, s
	}
	action = name + " " + buf.String()
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return action, action
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // as logged: "<" stays "<"
	if err := enc.Encode(v); err != nil {
		return action, action
	}
	return action, name + " " + strings.TrimSuffix(out.String(), "\n")
}

// joinTexts joins the text of content blocks ([{type, text}...]), a
// block without text (an image) standing as "[type]", or returns a string
// as it is; other values are their compact JSON.
func joinTexts(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var blocks []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(raw, &blocks) == nil {
			var b strings.Builder
			for _, bl := range blocks {
				switch {
				case bl.Text != nil:
					b.WriteString(*bl.Text)
				case bl.Type != "":
					b.WriteString("[" + bl.Type + "]") // an image's bytes are no output to compare
				default:
					return compactRaw(raw) // not content blocks
				}
			}
			return b.String()
		}
	}
	return compactRaw(raw)
}

func compactRaw(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}
