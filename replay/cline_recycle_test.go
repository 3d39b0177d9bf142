package replay

import (
	"strings"
	"testing"
)

// TestClineRecycledLastCall holds clineReader.handOut, whose queue
// recycles its steps while the reader keeps c.lastCall from an assistant
// message to the user message after it: a call followed by maxQueued
// thinking blocks is handed out at once (too many held) and freed first,
// so the user message's maxQueued+1-th result of no call is pushed into
// the call's step; the mistake limit then marks c.lastCall. The plain
// reader (clineReaderOld, no recycling) marks a step already handed out,
// which changes nothing; a lastCall kept past its hand-out would mark the
// result instead.
func TestClineRecycledLastCall(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"read_file","input":{"path":"p"}}`)
	for range maxQueued {
		b.WriteString(`,{"type":"thinking","thinking":"t"}`)
	}
	b.WriteString("]}\n")
	b.WriteString(`{"role":"user","content":[`)
	for i := range maxQueued + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"tool_result","tool_use_id":"z","content":"r"}`)
	}
	b.WriteString(`,{"type":"text","text":"` + clineMistakes + ` stop"}]}` + "\n")
	b.WriteString(`{"role":"assistant","content":"done"}`)
	compareReaders(t, []byte(b.String()), &clineReaderOld{}, &clineReader{})
}
