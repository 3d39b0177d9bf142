package replay

import "bytes"

// text is textOf(&c.ix, v) written into c.copies when it is one string:
// a string, or content of one block with a text (an assistant's message,
// a reasoning's summary), unescaped straight into the block
// (outputCopies.unescaped), where it was decoded into a string of its own
// (the table then copied it into its block again, before outCopied). Any
// other content is textOf's.
func (c *codexReader) text(v rawValue) string {
	switch v.Kind() {
	case '"':
		return c.copies.unescaped(v)
	case '[':
		if t, ok := c.oneText(v); ok {
			return c.copies.unescaped(t)
		}
	}
	return textOf(&c.ix, v)
}

// oneText is the text, a string, of content v when it is one block that
// textBlock reads as good and with a text, the one text textOf returns
// then; ok is false for any other content.
func (c *codexReader) oneText(v rawValue) (text rawValue, ok bool) {
	var first rawValue
	n := 0
	c.ix.elems(v, func(_ int, el rawValue) bool {
		first = el
		n++
		return n < 2 // a second is not read on: content of more goes to textOf
	})
	if n != 1 || first.Kind() != '{' {
		return nil, false
	}
	good := true
	c.ix.members(first, func(k []byte, esc bool, val rawValue) bool {
		switch string(keyBytes(k, esc)) {
		case "type": // a string or null, as rawString reads it
			if kind := val.Kind(); kind != '"' && kind != 'n' {
				good = false
			}
		case "text":
			switch val.Kind() {
			case 'n':
				text = nil
			case '"':
				text = val
			default:
				good = false
			}
		}
		return good
	})
	return text, good && text != nil
}

// shellOutput is outputJSON of a text written, byte for byte, as Codex's
// shell tool writes its output (before 0.116),
//
//	{"output": "...", "metadata": {"exit_code": N, "duration_seconds": S}}
//
// read as it is validated, where outputJSON validated and indexed it, then
// walked its members and its metadata's (the bench log's every tool
// output; half of them go on past the object, then no JSON). done is
// false for a text of any other shape, which outputWalk reads.
func (c *codexReader) shellOutput(tb []byte) (text string, code int, hasCode, ok, done bool) {
	const head, meta, dur = `{"output": "`, `", "metadata": {"exit_code": `, `, "duration_seconds": `
	if len(tb) < len(head) || string(tb[:len(head)]) != head {
		return "", 0, false, false, false
	}
	end, _ := validString(tb, len(head)-1)
	if end < 0 || !bytes.HasPrefix(tb[end-1:], []byte(meta)) {
		return "", 0, false, false, false
	}
	exitAt := end - 1 + len(meta)
	exitEnd := -1
	if exitAt < len(tb) {
		exitEnd = jsonNumber(tb, exitAt)
	}
	if exitEnd < 0 || !bytes.HasPrefix(tb[exitEnd:], []byte(dur)) {
		return "", 0, false, false, false
	}
	durAt, durEnd := exitEnd+len(dur), -1
	if durAt < len(tb) {
		durEnd = jsonNumber(tb, durAt)
	}
	if durEnd < 0 || !bytes.HasPrefix(tb[durEnd:], []byte("}}")) {
		return "", 0, false, false, false
	}
	if durEnd+2 != len(tb) {
		return "", 0, false, false, true // valid JSON, and more after it: no JSON
	}
	text = c.copies.unescaped(rawValue(tb[len(head)-1 : end]))
	if n, ok := rawInt(rawValue(tb[exitAt:exitEnd])); ok {
		return text, n, true, true, true
	}
	return text, 0, false, true, true
}
