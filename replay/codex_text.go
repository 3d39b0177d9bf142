package replay

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
	// meta and dur are each compared in two parts of at most 16 bytes,
	// which the compiler compares by loads of words in line, where a
	// longer constant (or bytes.HasPrefix) called memequal at every
	// tool output.
	const head = `{"output": "`
	const meta1, meta2 = `", "metadata": {`, `"exit_code": `
	const dur1, dur2 = `, "duration_seco`, `nds": ` // 16 and 6 bytes
	const meta, dur = meta1 + meta2, dur1 + dur2
	if len(tb) < len(head) || string(tb[:len(head)]) != head {
		return "", 0, false, false, false
	}
	end, _ := validString(tb, len(head)-1)
	if end < 0 {
		return "", 0, false, false, false
	}
	m := end - 1 // the output's closing quote, meta's first byte
	if len(tb)-m < len(meta) || string(tb[m:m+len(meta1)]) != meta1 ||
		string(tb[m+len(meta1):m+len(meta)]) != meta2 {
		return "", 0, false, false, false
	}
	exitAt := m + len(meta)
	exitEnd := -1
	if exitAt < len(tb) {
		exitEnd = jsonNumber(tb, exitAt)
	}
	if exitEnd < 0 || len(tb)-exitEnd < len(dur) || string(tb[exitEnd:exitEnd+len(dur1)]) != dur1 ||
		string(tb[exitEnd+len(dur1):exitEnd+len(dur)]) != dur2 {
		return "", 0, false, false, false
	}
	durAt, durEnd := exitEnd+len(dur), -1
	if durAt < len(tb) {
		durEnd = jsonNumber(tb, durAt)
	}
	if durEnd < 0 || len(tb)-durEnd < 2 || tb[durEnd] != '}' || tb[durEnd+1] != '}' {
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
