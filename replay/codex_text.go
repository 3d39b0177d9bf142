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
