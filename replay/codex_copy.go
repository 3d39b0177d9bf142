package replay

import "slices"

// A tool output's text written as its string is validated. A Codex
// tool output (function_call_output, custom_tool_call_output: half the
// bench log's bytes) is a string a few hundred bytes long, with an
// escape every 20 to 40 bytes (a JSON text's quotes, its newlines
// escaped twice): payloadItem validated it (stringClose), then
// output decoded it into the scratch (a JSON text) or unescaped it into
// the outputs' block (any other), a second pass over the same bytes.
// Here both are one pass (copyStringRun), as lineCopy does for the
// steps reader, the text held until output takes it (TestCodexPreText,
// TestCodexItemSame, FuzzCodexSkip).

// codexPre is an output's text written as its string was validated: in
// the reader's scratch for a string opening with '{' (output reads it
// from there as JSON), else in the outputs' block's free room, which
// output takes it from. It holds for the line being read only: set by
// payloadItem, dropped when output takes it or readLine reads the
// line.
type codexPre struct {
	at   *byte // the string's opening quote in its line; nil: none held
	n    int   // the string's length, quotes included
	text []byte
}

// preOutput validates the string at raw[v], a payload's output, and
// writes its text as output would (c.decode, c.text), returning the
// index after it or -1. A string too long for the outputs' block's free
// room (outputBlock/4) is only validated, as are the strings of a CPU
// without copyStringRun: output reads those the old way.
func (c *codexReader) preOutput(raw []byte, v int) int {
	c.pre.at = nil
	n := len(raw) - v // the text is no longer than the string's body, for valid UTF-8
	if !copyStrings || n > outputBlock/4 || n < 2 {
		end, _ := validString(raw, v)
		return end
	}
	var dst []byte
	if raw[v+1] == '{' {
		c.scratch = slices.Grow(c.scratch[:0], n)
		dst = c.scratch[:n]
	} else {
		c.copies.room(n)
		dst = c.copies.block[len(c.copies.block) : len(c.copies.block)+n]
	}
	end, text := copyString(raw, v, dst)
	if end >= 0 {
		c.pre = codexPre{at: &raw[v], n: end - v, text: text}
	}
	return end
}

// preText is the text preOutput wrote of string x, the line's output,
// and says whether it did; it is then no longer held.
func (c *codexReader) preText(x rawValue) ([]byte, bool) {
	p := c.pre
	c.pre.at = nil
	if p.at == nil || len(x) != p.n || &x[0] != p.at {
		return nil, false
	}
	return p.text, true
}
