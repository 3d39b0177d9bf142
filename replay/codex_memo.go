package replay

// A call's value told by the calls memo. A loop repeats a call byte for
// byte (the bench's Codex log's calls are four arguments and inputs,
// 83 and 156 bytes with an escape every 7 to 11), and callForms finds
// its forms in the calls memo by the value as written: payloadItem
// validated the value (stringClose) only for callForms to compare it
// with each slot's. Here a string value that is, byte for byte, a slot's
// value (a string, validated when it was read: its end is told by its
// bytes alone) ends where the slot's does, with no validation, and
// callForms takes that slot's forms when the call's type and name are
// its own, with no search (TestCodexMemoString, TestCodexItemSame,
// FuzzCodexSkip).

// codexMemoHint is the slot whose value the line's call value is: set by
// payloadItem, for the line it reads alone.
type codexMemoHint struct {
	at   *byte // the value's opening quote in its line; nil: none
	slot int
}

// memoString is the end of the string at raw[v] when it is a memo slot's
// value (callMemo.stringAt), else -1; the slot is then hinted for
// callForms.
func (c *codexReader) memoString(raw []byte, v int) int {
	slot, n := c.calls.stringAt(raw[v:])
	if slot < 0 {
		return -1
	}
	c.hint = codexMemoHint{at: &raw[v], slot: slot}
	return v + n
}

// hinted returns the forms of the call of type typ, name and value raw
// when payloadItem found raw as the hinted slot's value and the slot is
// of typ and name (callMemo.findIn); the hint is then no longer held.
func (c *codexReader) hinted(typ byte, name string, raw rawValue) (action, canonical string, ok bool) {
	h := c.hint
	c.hint.at = nil
	if h.at == nil || len(raw) == 0 || &raw[0] != h.at {
		return "", "", false
	}
	return c.calls.findIn(h.slot, typ, name, raw)
}
