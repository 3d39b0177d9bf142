package replay

import (
	"reflect"
	"strings"
	"testing"
)

// geminiExtendCases are records read after a message record (geminiExtendPrev
// unless prev is given), and whether recordExtending reads them.
var geminiExtendCases = []struct {
	prev, next string
	fast       bool
}{
	{next: `{"id":"g1","type":"gemini","content":"a","toolCalls":[{"name":"f","args":{"x":1},"result":[{"functionResponse":{"response":{"output":"o"}}}],"status":"error"}]}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a"}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a" }`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a" , "toolCalls" : [ ] }`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","tool\u0043alls":[{"name":"g"}]}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","id":"g2"}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","id":2}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","type":"user"}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","content":[{"text":"b"},{"text":"c","thought":true}]}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","$rewindTo":"g1"}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","$set":{"sessionId":"s"}}`, fast: true},
	{next: "{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"a\",\"\xff\":1}", fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","x":NaN}`},
	{next: `{"id":"g1","type":"gemini","content":"a","x":[Infinity]}`},
	{next: `{"id":"g1","type":"gemini","content":"a","x":1,"toolCalls":[]}`},
	{next: `{"id":"g1","type":"gemini","content":"a","toolCalls":[}`},
	{next: `{"id":"g1","type":"gemini","content":"a","toolCalls":[]} `},
	{next: `{"id":"g1","type":"gemini","content":"a","toolCalls":[]}x`},
	{next: `{"id":"g1","type":"gemini","content":"a","toolCalls":[]}}`},
	{next: `{"id":"g1","type":"gemini","content":"a",1:2}`},
	{next: `{"id":"g1","type":"gemini","content":"a","x"1}`},
	{next: `{"id":"g1","type":"gemini","content":"a","x":}`},
	{next: `{"id":"g1","type":"gemini","content":"a",}`},
	{next: `{"id":"g1","type":"gemini","content":"a","x`},
	{next: "{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"a\",\"x\x01\":1}"},
	{next: `{"id":"g1","type":"gemini","content":"a"`},
	{next: `{"id":"g1","type":"gemini","content":"a""}`},
	{next: `{"id":"g1","type":"gemini","content":"ab"}`},
	// A value nested as deep as a record allows, and one level deeper.
	{next: `{"id":"g1","type":"gemini","content":"a","x":` + strings.Repeat("[", maxNesting-2) + strings.Repeat("]", maxNesting-2) + `}`, fast: true},
	{next: `{"id":"g1","type":"gemini","content":"a","x":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`},
	// A token the kept record ends with, going on.
	{prev: `{"id":"g1","type":"gemini","n":12}`, next: `{"id":"g1","type":"gemini","n":123}`},
	{prev: `{"id":"g1","type":"gemini","n":12}`, next: `{"id":"g1","type":"gemini","n":12e}`},
	{prev: `{"id":"g1","type":"gemini","n":12}`, next: `{"id":"g1","type":"gemini","n":12,"type":"user"}`, fast: true},
	{prev: `{"id":"g1","type":"gemini","b":true}`, next: `{"id":"g1","type":"gemini","b":truex}`},
	{prev: `{"type":"gemini","id":"g1","b":null }`, next: `{"type":"gemini","id":"g1","b":null ,"id":"g3"}`, fast: true},
	// Records not kept.
	{prev: `{"id":"g1","type":"gemini"} `, next: `{"id":"g1","type":"gemini","x":1}`},
	{prev: ` {"id":"g1","type":"gemini"}`, next: ` {"id":"g1","type":"gemini","x":1}`},
	{prev: `{"id":1,"type":"gemini"}`, next: `{"id":1,"type":"gemini","x":1}`},
	{prev: `{}`, next: `{,"id":"g1"}`},
	{prev: `{"type":"user"}`, next: `{"type":"user","id":"g1"}`},
	{prev: `{"id":"u1","type":"user","content":"a"}`, next: `{"id":"u1","type":"user","content":"a","x":1}`},
	{prev: `{"id":"g1","type":"gem\u0069ni"}`, next: `{"id":"g1","type":"gem\u0069ni","x":1}`},
	{prev: `{"id":"g1","type":"gemini","toolCalls":[]}`, next: `{"id":"g1","type":"gemini","toolCalls":[],"x":1}`},
	{prev: `{"$set":{"lastUpdated":"t"},"id":"g1","type":"gemini","x":NaN}`, next: `{"$set":{"lastUpdated":"t"},"id":"g1","type":"gemini","x":NaN,"y":1}`},
	{prev: `{"id":"g1","type":"gemini","x":[NaN]}`, next: `{"id":"g1","type":"gemini","x":[NaN],"y":1}`},
}

const geminiExtendPrev = `{"id":"g1","type":"gemini","content":"a"}`

// TestGeminiExtend: a record that extends the message record before it
// is read by recordExtending exactly when the case says so, and read as
// parseJS's tree reads it (the same steps, reasons, notes), as is what
// follows it.
func TestGeminiExtend(t *testing.T) {
	for _, c := range geminiExtendCases {
		prev := c.prev
		if prev == "" {
			prev = geminiExtendPrev
		}
		fast := checkGeminiExtend(t, prev, c.next)
		if fast != c.fast {
			t.Errorf("%q after %q: read extending %v, want %v", c.next, prev, fast, c.fast)
		}
	}
}

// checkGeminiExtend reads prev, next, next again and a message after them
// with the reader and with parseJS's tree, and fails on any difference;
// fast says recordExtending read next.
func checkGeminiExtend(t *testing.T, prev, next string) (fast bool) {
	t.Helper()
	o, n := &geminiTree{}, &geminiReader{}
	for i, rec := range []string{prev, next, next, `{"id":"z","type":"user","content":"u"}`} {
		ro, wo := o.recordRaw([]byte(rec), i+1)
		// A copy read and written over as the reader's lines are.
		buf := []byte(rec)
		rn, wn, ok := n.recordExtending(buf, i+1)
		if !ok {
			rn, wn = n.recordRaw(buf, i+1)
		}
		if i == 1 {
			fast = ok
		}
		for k := range buf {
			buf[k] = 'x'
		}
		if wo != wn || !reflect.DeepEqual(ro, rn) || n.lastLine != o.lastLine || n.epoch != o.epoch {
			t.Fatalf("%q after %q, record %d: got %+v %q (line %d, epoch %d), want %+v %q (line %d, epoch %d)", next, prev, i+1, rn, wn, n.lastLine, n.epoch, ro, wo, o.lastLine, o.epoch)
		}
	}
	fo, fn := o.finish(), n.finish()
	if !reflect.DeepEqual(fo, fn) || !reflect.DeepEqual(o.notes(), n.notes()) {
		t.Fatalf("%q after %q, finish:\n got %+v %q\nwant %+v %q", next, prev, fn, n.notes(), fo, o.notes())
	}
	return fast
}

// FuzzGeminiExtend: a record made of another's bytes but its last and
// any bytes after them, read after it, is read as parseJS's tree reads
// it (checkGeminiExtend).
func FuzzGeminiExtend(f *testing.F) {
	for _, c := range geminiExtendCases {
		prev := c.prev
		if prev == "" {
			prev = geminiExtendPrev
		}
		if len(c.next) < len(prev)-1 || len(c.next) > 1000 {
			continue
		}
		f.Add(prev, c.next[len(prev)-1:])
	}
	f.Fuzz(func(t *testing.T, prev, rest string) {
		if prev == "" {
			return
		}
		checkGeminiExtend(t, prev, prev[:len(prev)-1]+rest)
	})
}
