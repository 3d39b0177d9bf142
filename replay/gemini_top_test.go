package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// geminiTopCases are records and whether recordTop reads them.
var geminiTopCases = []struct {
	rec  string
	fast bool
}{
	{`{"id":"g1","timestamp":"2025-11-12T14:00:06.222Z","type":"gemini","content":"I'll run the build first.","thoughts":[],"tokens":{"input":812,"output":24,"cached":0,"thoughts":0,"tool":0,"total":836},"model":"gemini-2.5-pro"}`, true},
	{`{"id":"g2","type":"gemini","content":"","thoughts":[{"subject":"Checking main.go","description":"The error points at line 12.","timestamp":"t"}],"toolCalls":[{"id":"c","name":"read_file","args":{"file_path":"main.go"},"result":[{"functionResponse":{"id":"c","name":"read_file","response":{"output":"package main\n"}}}],"status":"success","resultDisplay":"x"}]}`, true},
	{`{"id":"u1","timestamp":"t","type":"user","content":[{"text":"Why does make fail?"}]}`, true},
	{`{"id":"r1","type":"user","content":[{"functionResponse":{"id":"c","name":"f","response":{"output":"o","error":"e"}}}]}`, true},
	{`{"id":"u2","type":"user","content":"System: Potential loop detected. Details: Repeated tool call: f with arguments {}. Please take a step back and confirm you're making forward progress."}`, true},
	{`{"id":"u3","type":"user","content":"Please continue."}`, true},
	{`{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}`, true},
	{`{"$set":{"messages":[{"id":"a","type":"user","content":"x"},{"id":"b","type":"gemini","content":"y"}]}}`, true},
	{`{"$set":{"sessionId":"s2"}}`, true},
	{`{"$set":{"sessionId":"s2","$set":{}}}`, true},
	{`{"$rewindTo":"u1"}`, true},
	{`{"$rewindTo":1}`, true},
	{`{}`, true},
	{`{ }`, true},
	{`{"type":"gemini"}`, true},
	{`{"sessionId":"s","messages":[{"type":"user","content":"a"},{"id":"x","type":"gemini","content":"b"}]}`, true},
	// White space, numbers, literals, empty and nested values passed over.
	{`{ "id" : "g3" , "type" : "gemini" , "content" : "a" , "tokens" : { "input" : 1 , "total" : [ ] } , "n" : [ 1 , 2 ] }`, true},
	{"{\"id\":\"g4\",\n\t\"type\":\"gemini\",\r\n\"content\":\"a\",\"x\":{\n}}", true},
	{`{"id":"g5","type":"gemini","content":"a","n":[-1,0,0.5,-2.5e+10,1E-3,10,true,false,null,{},[],""]}`, true},
	{`{"id":"g6","type":"gemini","content":"a","x":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":[1,2,{"j":"k"}]}}}}}}}}}}`, true},
	{`{"id":"g7","type":"gemini","content":"a","x":"a string of more than sixteen bytes, and \"escapes\"\n"}`, true},
	{`{"id":"g8","type":"gemini","content":"a","a key of more than sixteen bytes":1}`, true},
	{"{\"id\":\"g9\",\"type\":\"gemini\",\"content\":\"\xff\xfe\",\"\xe9t\xe9\":\"\xe9\"}", true},
	// The last of a repeated name; a read value not a string.
	{`{"id":"a","type":"user","content":"x","id":"b","type":"gemini","content":"y"}`, true},
	{`{"id":"a","type":"gemini","content":[{"text":"x"}],"content":"y"}`, true},
	{`{"id":"a","type":"gemini","content":"y","content":[{"text":"x"},{"text":"t","thought":true}]}`, true},
	{`{"id":{"x":1},"type":"gemini","content":"a"}`, true},
	{`{"id":"a","type":"gemini","content":"x","tokens":{"id":"b","type":"user","content":"y","n":[{"id":"c"}]}}`, true},
	{`{"id":"a","tokens":[{"type":"user"},"t"],"type":"gemini","content":"x"}`, true},
	{`{"id":"a","type":null,"content":"a"}`, true},
	{`{"id":"a","type":"gemini","content":"a","toolCalls":{"name":"f"}}`, true},
	// Two read values to index, an escaped key, NaN or an infinity.
	{`{"id":"a","type":"gemini","content":[{"text":"x"}],"toolCalls":[{"name":"f"}]}`, false},
	{`{"id":"a","type":"gemini","content":[],"content":[]}`, false},
	{`{"id":"a","type":"gemini","con\u0074ent":"x"}`, false},
	{`{"id":"a","type":"gemini","content":"x","tokens":{"in\u0070ut":1}}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":NaN}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":-Infinity}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":[1,Infinity]}`, false},
	{`{"id":"a","type":"gemini","content":"x","toolCalls":[{"args":{"x":NaN}}]}`, false},
	{`{"id":"a","type":"gemini","content":"x","x":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":[NaN]}}}}}}}}}}`, false},
	{`{"id":"a","type":"gemini","content":"x","x":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":["NaN"]}}}}}}}}}}`, false},
	// Not valid JSON, or not a record read here.
	{`{"id":"a","type":"gemini","content":"x",}`, false},
	{`{"id":"a","type":"gemini","content":"x"}}`, false},
	{`{"id":"a","type":"gemini","content":"x"} `, false},
	{` {"id":"a","type":"gemini","content":"x"}`, false},
	{`{"id":"a","type":"gemini","content":"x"`, false},
	{`{"id":"a","type":"gemini","content":"x","n":01}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":1.}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":-}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":tru}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":[1,]}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":{"a"}}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":{"a":1]}`, false},
	{`{"id":"a","type":"gemini","content":"x","n":[1}}`, false},
	{"{\"id\":\"a\",\"type\":\"gemini\",\"content\":\"x\x01\"}", false},
	{`{"id":"a","type":"gemini","content":"x\q"}`, false},
	{`{"id":"a" "type":"gemini"}`, false},
	{`{"id":"a",1:2}`, false},
	{`{"id"}`, false},
	{`{"id" "a"}`, false},
	{`{"id" x"a"}`, false},
	{`{"id"x"a"}`, false},
	{`{"id":"a","n" ;1,"type":"gemini"}`, false},
	{`{"id":"a","n":{"m" =1}}`, false},
	{`["id"]`, false},
	{`{"id":"a","x":` + strings.Repeat("[", maxNesting-2) + strings.Repeat("]", maxNesting-2) + `}`, false},
	{`{"id":"a","x":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`, false},
}

// TestGeminiTop: recordTop reads a record exactly when the case says so,
// its fields and index as the validating pass and jsFields read them,
// and the record is read as parseJS's tree reads it (checkGeminiTop).
func TestGeminiTop(t *testing.T) {
	for _, c := range geminiTopCases {
		if fast := checkGeminiTop(t, c.rec); fast != c.fast {
			t.Errorf("%q: recordTop read it %v, want %v", c.rec, fast, c.fast)
		}
	}
}

// FuzzGeminiTop: whatever the record, what recordTop reads is valid JSON
// with the fields jsFields reads, and the reader reads it as parseJS's
// tree does.
func FuzzGeminiTop(f *testing.F) {
	for _, c := range geminiTopCases {
		if len(c.rec) < 1000 {
			f.Add(c.rec)
		}
	}
	f.Fuzz(func(t *testing.T, rec string) { checkGeminiTop(t, rec) })
}

// checkGeminiTop: when recordTop reads rec, the validating pass finds it
// valid JSON with no NaN or infinity, the fields it read are those
// jsFields reads (the same bytes, at the same places), and the members
// of the field it indexed are read from its index as jsFields reads them
// from the record's; and a message, rec, rec again and a message after
// it read as parseJS's tree reads them. fast says recordTop read rec.
func checkGeminiTop(t *testing.T, rec string) (fast bool) {
	t.Helper()
	raw := []byte(rec)
	g := &geminiReader{}
	var f geminiFields
	if fast = g.recordTop(raw, &f); fast {
		var ix valueIndex
		end := validValueIx(raw, 0, &ix)
		if end != len(raw) || ix.nonFinite {
			t.Fatalf("%q: read, but the pass ends at %d of %d (non-finite %v)", rec, end, len(raw), ix.nonFinite)
		}
		var want geminiFields
		jsFields(&ix, raw, geminiRecordKeys, want[:])
		for k := range f {
			if (f[k] == nil) != (want[k] == nil) || f[k] != nil && (offsetIn(raw, f[k]) != offsetIn(raw, want[k]) || string(f[k]) != string(want[k])) {
				t.Fatalf("%q: field %s %q, jsFields %q", rec, geminiRecordKeys.names[k], f[k], want[k])
			}
			if f[k].Kind() == '{' {
				var got, wantSet [3]rawValue
				jsFields(&g.ix, f[k], geminiSetKeys, got[:])
				jsFields(&ix, want[k], geminiSetKeys, wantSet[:])
				if !reflect.DeepEqual(got, wantSet) {
					t.Fatalf("%q: %s's members %q, from the record's index %q", rec, geminiRecordKeys.names[k], got, wantSet)
				}
			}
		}
	}
	o, n := &geminiTree{}, &geminiReader{}
	for i, r := range []string{`{"id":"m","type":"gemini","content":"t"}`, rec, rec, `{"id":"z","type":"user","content":"u"}`} {
		ro, wo := o.recordRaw([]byte(r), i+1)
		buf := []byte(r) // read and written over, as the reader's lines are
		rn, wn := n.recordRaw(buf, i+1)
		for k := range buf {
			buf[k] = 'x'
		}
		if wo != wn || !reflect.DeepEqual(ro, rn) || n.lastLine != o.lastLine || n.epoch != o.epoch {
			t.Fatalf("%q, record %d: got %+v %q (line %d, epoch %d), want %+v %q (line %d, epoch %d)", rec, i+1, rn, wn, n.lastLine, n.epoch, ro, wo, o.lastLine, o.epoch)
		}
	}
	fo, fn := o.finish(), n.finish()
	if !reflect.DeepEqual(fo, fn) || !reflect.DeepEqual(o.notes(), n.notes()) {
		t.Fatalf("%q, finish:\n got %+v %q\nwant %+v %q", rec, fn, n.notes(), fo, o.notes())
	}
	return fast
}

// TestGeminiMessageTop: a session document whose messages are
// geminiTopCases' records (compact, and indented as the CLI writes
// them) is read as the tree reads it (checkGeminiSession), and a message
// recordTop reads as a record is read by messageTop.
func TestGeminiMessageTop(t *testing.T) {
	for _, c := range geminiTopCases {
		doc := `{"sessionId":"s","projectHash":"p","messages":[` + c.rec + `,` + c.rec + `]}`
		checkGeminiSession(t, []byte(doc))
		var b bytes.Buffer
		if len(doc) < 1000 && json.Indent(&b, []byte(doc), "", "  ") == nil {
			checkGeminiSession(t, b.Bytes())
		}
		if c.fast {
			g := &geminiReader{}
			js := newJSONStream(bufio.NewReader(strings.NewReader(" \n"+c.rec+"]")), 0)
			r, ok := g.messageTop(js, true)
			want := (&geminiReader{}).reduceRaw(nil, rawValue(c.rec))
			if !ok || r.id != want.id || r.isID != want.isID || !reflect.DeepEqual(r.msg.steps, want.msg.steps) || r.msg.prompt != want.msg.prompt || js.line != 2+strings.Count(c.rec, "\n") {
				t.Errorf("%q: messageTop read it %v, %+v %+v (line %d), want %+v %+v", c.rec, ok, r, r.msg, js.line, want, want.msg)
			}
		}
	}
}

// TestGeminiTopIndented: the records recordTop reads, indented as
// JSON.stringify and json.Indent write them (the white space after a
// comma of the record's own told by one compare with the white space
// before its first member, sep, when that is 7 bytes or fewer with the
// key's quote), and records whose white space after a comma differs from
// the first member's (longer, shorter, a tab for a space, the same bytes
// with no key after them), are read as checkGeminiTop reads them, and
// all of them read.
func TestGeminiTopIndented(t *testing.T) {
	for _, c := range geminiTopCases {
		if !c.fast {
			continue
		}
		for _, prefix := range []string{"", " ", "  ", "\t", "    "} {
			for _, indent := range []string{"", " ", "  ", "\t", "      ", "       "} {
				var b bytes.Buffer
				if json.Indent(&b, []byte(c.rec), prefix, indent) != nil {
					t.Fatalf("%q: not valid JSON", c.rec)
				}
				if !checkGeminiTop(t, b.String()) {
					t.Errorf("%q: recordTop did not read it", b.String())
				}
			}
		}
	}
	for _, rec := range []string{
		"{\n  \"id\": \"a\",\n   \"type\": \"gemini\",\n \"content\": \"x\",\n  \"n\": 1\n}",
		"{\n  \"id\": \"a\",\n\t \"type\": \"gemini\",\n \t\"content\": \"x\",\n  \"n\": 1\n}",
		"{\n  \"id\": \"a\",\n  \"type\": \"gemini\",\n  \n  \"content\": \"x\",\n  \"n\": [\n  1,\n  2\n  ]\n}",
		"{\n  \"id\": \"a\",\r\n  \"type\": \"gemini\",\n  \"content\": \"x\",\n        \"n\": {\n  \"id\": 1,\n  \"x\": 2\n  }\n}",
		"{\n      \"id\": \"a\",\n      \"type\": \"gemini\",\n       \"content\": \"x\",\n     \"n\": 1,\n      \"m\": 2}",
		"{\n             \"id\": \"a\",\n             \"type\": \"gemini\",\n \"content\": \"x\"}",
		"{ \"id\": \"a\", \"type\": \"gemini\",  \"content\": \"x\", \"n\": 1 }",
		"{\"id\": \"a\",\n \"type\": \"gemini\", \"content\": \"x\"}",
	} {
		if !checkGeminiTop(t, rec) {
			t.Errorf("%q: recordTop did not read it", rec)
		}
	}
}

// TestGeminiTopSpellings: every name geminiTopSpellings is built from
// has a slot of its own (geminiTopMul hashes no two alike), its
// spelling's words and index as topMembers' stop scan and geminiTopKey
// read the key, and a record spelling each of them, compact and with
// white space around its colon, is read as checkGeminiTop reads it.
func TestGeminiTopSpellings(t *testing.T) {
	names := append(append([]string(nil), geminiRecordKeys.names...), "timestamp", "thoughts", "tokens", "model")
	for _, name := range names {
		sp := `"` + name + `":`
		var b [24]byte
		copy(b[:], sp)
		e := geminiTopSpellings[(word(b[:], 0)&(1<<40-1))*geminiTopMul>>60]
		if int(e.n) != len(sp) || int(e.k) != geminiTopKey(name) || word(b[:], 0)&e.mask[0] != e.word[0] || word(b[:], 8)&e.mask[1] != e.word[1] {
			t.Errorf("%s: slot %+v", sp, e)
		}
		for _, rec := range []string{
			`{` + sp + `"a string value","n":1}`,
			`{"n":1,` + sp + `{"a":[1,"b"]}}`,
			`{"n":1,` + sp + `[{"id":"x","type":"gemini","content":"y"}],"n":2}`,
			`{"n":1,"` + name + `" : 2,"n":2}`,
			`{"n":1,"` + name + `x":"a string value","n":2}`,
			`{"n":1,"` + name + `":1}`,
		} {
			checkGeminiTop(t, rec)
		}
		// The spelling with one byte changed, then a value and more
		// members: another key, or no valid JSON (a control byte in the
		// key, an unclosed key, no colon), which a slot's words compared
		// short would read as the name's.
		for j := range sp {
			for _, x := range []byte{0x40, 0x01} {
				bad := []byte(sp)
				bad[j] ^= x
				checkGeminiTop(t, `{`+string(bad)+`1,"padding-padding":1}`)
				checkGeminiTop(t, `{`+string(bad)+`"a string value","padding-padding":1}`)
			}
		}
	}
}

// TestGeminiTopStrings: a record's own string values of every length to
// 40 bytes, plain or with an escape, a control byte, a byte over 0x7f or
// a bad escape at each place (what topMembers' words and validString
// tell), or a stop before what would pass for more members, at the
// record's end and before more members, are read as checkGeminiTop
// reads them.
func TestGeminiTopStrings(t *testing.T) {
	for l := 0; l <= 40; l++ {
		plain := strings.Repeat("a", l)
		bodies := []string{plain}
		for p := 0; p < l; p++ {
			// The last two not valid JSON, but for a string told to
			// end at its first stop, whatever it is.
			for _, s := range []string{`\"`, `\\`, `\n`, `\u0041`, "\x01", "\xe9", "\xff", `\q`, `"`, `\,"x":"`, "\x01,\"x\":\""} {
				bodies = append(bodies, plain[:p]+s+plain[p:])
			}
		}
		for _, body := range bodies {
			checkGeminiTop(t, `{"id":"a","timestamp":"`+body+`"}`)
			checkGeminiTop(t, `{"timestamp":"`+body+`","id":"a","type":"gemini","content":"`+body+`"}`)
		}
	}
}
