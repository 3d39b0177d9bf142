package replay

// The Gemini CLI's records read in place: a record JSON.parse accepts is
// validated once (validValue, no NaN or infinity: exactly JSON) and its
// fields read from its bytes with JavaScript's semantics (the last of a
// repeated key, strings as UTF-16 in WTF-8: jsUnquote); only a tool
// call's arguments, whose key the detector spells with JSON.stringify, are
// parsed into a jsValue. A record validValue refuses goes through parseJS,
// for its reason (readRecord, the reading this one replaces;
// FuzzGeminiRaw compares them).

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// recordRaw reads one record (a line, or an element of an array).
func (g *geminiReader) recordRaw(raw []byte, line int) ([]stepRecord, string) {
	if geminiTouch(raw) {
		g.lastLine = line // all readRecordRaw does with it
		return nil, ""
	}
	return g.recordRead(raw, line)
}

// recordRead is recordRaw on a record that is not a touch.
func (g *geminiReader) recordRead(raw []byte, line int) ([]stepRecord, string) {
	if recs, reason, ok := g.recordExtending(raw, line); ok {
		return recs, reason
	}
	var f geminiFields
	if g.recordTop(raw, &f) {
		// readRecordRaw, the record kept for the next (recordExtending).
		g.lastLine = line
		g.prev.keep(raw, &f)
		return g.readFields(&g.ix, &f, line)
	}
	f = geminiFields{}
	i := skipSpace(raw, 0)
	end := validValueIx(raw, i, &g.ix)
	if end < 0 || skipSpace(raw, end) != len(raw) || g.ix.nonFinite {
		return g.recordTree(raw, line)
	}
	if i > 0 || end < len(raw) || raw[0] != '{' {
		return g.readRecordRaw(&g.ix, rawValue(raw[i:end]), line)
	}
	// readRecordRaw, the record kept for the next (recordExtending).
	g.lastLine = line
	jsFields(&g.ix, raw, geminiRecordKeys, f[:])
	g.prev.keep(raw, &f)
	return g.readFields(&g.ix, &f, line)
}

// geminiTouchHead is how the record the CLI writes after each message
// begins: recordMessage's updateMetadata({lastUpdated}) appends
// JSON.stringify({$set: {lastUpdated: <time>}}) (chatRecordingService.js,
// @google/gemini-cli-core 0.61.0).
const geminiTouchHead = `{"$set":{"lastUpdated":"`

// geminiTouch says raw is, byte for byte, a "$set" of lastUpdated alone
// to a string: valid JSON (its string validated: no control byte, valid
// escapes, closed just before the two braces), and a record the reader
// takes nothing from (a "$set" of no sessionId, messages or "$set"). It
// is two records in five of a recording, each validated, indexed and
// walked twice by readRecordRaw to that end.
//
// Its head is told by its three words (a call of memequal before), and a
// string of 8 bytes or more with no quote, backslash or control byte
// before its closing quote (a time: 24 bytes) by its words' stops
// (stopMask, the last word the 8 bytes before the quote: validString
// reads bytes over 0x7f as they come), with no call of validString; any
// other string by validString.
func geminiTouch(raw []byte) bool {
	const head = geminiTouchHead
	n := len(raw)
	if n < len(head)+3 || raw[n-1] != '}' || raw[n-2] != '}' ||
		word(raw, 0) != geminiTouchWords[0] || word(raw, 8) != geminiTouchWords[1] || word(raw, 16) != geminiTouchWords[2] {
		return false
	}
	if n >= len(head)+3+8 && raw[n-3] == '"' {
		m := stopMask(word(raw, n-11)) // the string's last 8 bytes
		for j := len(head); j < n-11 && m == 0; j += 8 {
			m = stopMask(word(raw, j))
		}
		if m == 0 {
			return true
		}
	}
	end, _ := validString(raw, len(head)-1)
	return end == n-2
}

// geminiTouchWords is geminiTouchHead's first three words (word).
var geminiTouchWords = wordsOf(geminiTouchHead, 0, 8, 16)

// recordTree reads a record through parseJS.
func (g *geminiReader) recordTree(raw []byte, line int) ([]stepRecord, string) {
	v, err := parseJS(raw)
	if err != nil {
		g.lastLine = line
		return nil, err.Error()
	}
	return g.readRecord(v, nil, line)
}

// jsUnquote reads a string value as JSON.parse does (WTF-8).
func jsUnquote(v rawValue) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	if out, ok := appendJSUnquoted(nil, v[1:len(v)-1]); ok {
		return bytesString(out), true
	}
	p := &jsParser{b: v}
	s, _ := p.string()
	return s, true
}

// appendJSUnquoted appends a validated string's body unescaped when
// JSON.parse and encoding/json read it alike: valid UTF-8 and no \u
// escape (a lone surrogate, which JSON.parse keeps and encoding/json
// replaces); ok is false otherwise, for the caller's jsParser. It
// appends at most len(body) bytes: dst with that room is not grown (and
// given up, the bytes written past its length are never read).
func appendJSUnquoted(dst, body []byte) (out []byte, ok bool) {
	// One pass (unescapeRun) copies the body and its two-byte escapes up
	// to a \u escape, where the body was searched for each escape; the
	// short escapes write ASCII bytes for ASCII bytes, so the copy is
	// valid UTF-8 exactly when the body is, checked from its first byte
	// over 0x7f (the bytes before are ASCII).
	start := len(dst)
	out = slices.Grow(dst, len(body))
	w, r := unescapeRun(out[start:cap(out)], body, true)
	if r < len(body) && body[r] != '\\' {
		w2, r2 := unescapeRun(out[start+w:cap(out)], body[r:], false)
		return out[:start+w+w2], r+r2 == len(body) && utf8.Valid(out[start+w:start+w+w2])
	}
	return out[:start+w], r == len(body)
}

// unquoteCopy is jsUnquote copied into the reader's blocks (g.copies,
// outputCopies), for what a message holds until it is handed over: its
// id, its steps' outputs, which the table then keeps as they are
// (stepRecord.outCopied), where each was allocated alone (and an output
// copied again by the table). A \u escape or bytes that are not UTF-8
// go through jsUnquote (a string of its own as well).
func (g *geminiReader) unquoteCopy(v rawValue) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if c := &g.copies; len(body) <= outputBlock/4 {
		c.room(len(body))
		if out, ok := appendJSUnquoted(c.free(), body); ok { // within the block's room: the same array
			return c.take(out), true
		}
	}
	return jsUnquote(v)
}

// jsUnquoteView is jsUnquote not copied when the string is its bytes (no
// escape, valid UTF-8): a view of the record, for a string only compared,
// or copied where kept, while the record is read. Its strings are mostly
// short ASCII ones (ids, names, a status), told in one pass by
// plainASCII, where a search for a backslash and utf8.Valid (which goes
// byte by byte through a string's last 8 bytes) made two calls.
func jsUnquoteView(v rawValue) (string, bool) {
	if v.Kind() != '"' {
		return "", false // most often absent (nil): no call to jsUnquote to say so
	}
	if body := v[1 : len(v)-1]; plainASCII(body) || bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return bytesString(body), true
	}
	return jsUnquote(v)
}

// jsTruthyRaw is JavaScript's truthiness of a value (nil: undefined).
func jsTruthyRaw(v rawValue) bool {
	switch v.Kind() {
	case 0, 'n', 'f':
		return false
	case '0':
		f, _ := strconv.ParseFloat(string(v), 64) // out of range: ±Inf or 0, as parseJS reads it
		return f != 0 && f == f
	case '"':
		return len(v) > 2
	}
	return true
}

// geminiRecordKeys are the fields readRecordRaw tests, then the ones
// reduceRaw reads of a message (geminiMessageKeys' last three):
// one walk of the record reads both.
var geminiRecordKeys = newJSKeys("$rewindTo", "id", "$set", "sessionId", "projectHash", "messages", "type", "content", "toolCalls")

// readRecordRaw is readRecord on a validated record (ix its index).
func (g *geminiReader) readRecordRaw(ix *valueIndex, v rawValue, line int) ([]stepRecord, string) {
	g.lastLine = line
	if v.Kind() != '{' {
		return nil, "not a Gemini CLI record: not a JSON object"
	}
	var f geminiFields
	jsFields(ix, v, geminiRecordKeys, f[:])
	return g.readFields(ix, &f, line)
}

// geminiFields are a record's members named by geminiRecordKeys.
type geminiFields [9]rawValue

// readFields is readRecordRaw on the record's fields, read. The fields
// are read from f where tested, not copied out first: a message record
// (nearly every record read) tests two.
func (g *geminiReader) readFields(ix *valueIndex, f *geminiFields, line int) ([]stepRecord, string) {
	if to, ok := jsUnquoteView(f[0]); ok { // "$rewindTo", only looked up
		g.rewind(to)
		return nil, ""
	}
	if idText, ok := jsUnquoteView(f[1]); ok {
		g.addMsg(idText, true, g.reduceFields(ix, true, idText, true, f[6], f[7], f[8]), line)
		return nil, ""
	}
	set, session, project, msgs, typ := f[2], f[3], f[4], f[5], f[6]
	var sf [3]rawValue // none when set is not an object
	jsFields(ix, set, geminiSetKeys, sf[:])
	if set.Kind() == '{' && sf[2] == nil {
		if sf[0].Kind() == '"' && g.holdsAny() {
			g.epoch++
			g.note = append(g.note, "line "+strconv.Itoa(line)+": the session was resumed by a new CLI process (its loop detector starts afresh)")
		}
		if sf[1].Kind() == '[' {
			g.replaceMessages()
			g.addAllRaw(ix, sf[1], line)
		}
		return nil, ""
	}
	hasSession, hasProject := session.Kind() == '"', project.Kind() == '"'
	switch {
	case hasSession && hasProject:
		g.addAllRaw(ix, msgs, line)
		return nil, ""
	case hasSession && msgs.Kind() == '[':
		g.legacy = true
		jsElems(ix, msgs, func(i int, m rawValue) bool {
			if m.Kind() == '{' {
				r := g.reduceRaw(ix, m)
				id := r.id
				if !r.isID {
					id = "\x00legacy-" + strconv.Itoa(i)
				}
				g.addReduced(id, r, line)
			}
			return true
		})
		return nil, ""
	case typ != nil && f[1] == nil:
		return nil, "a Gemini CLI message without an id (the CLI's loader skips it)"
	}
	return nil, "not a Gemini CLI record (a message with an id, \"$set\", \"$rewindTo\" or the session's metadata)"
}

// addAllRaw adds the messages of msgs (an array, else none) that have an
// id, as a record of the session's or a "$set" of its messages does.
func (g *geminiReader) addAllRaw(ix *valueIndex, msgs rawValue, line int) {
	jsElems(ix, msgs, func(_ int, m rawValue) bool {
		if r := g.reduceRaw(ix, m); r.isID {
			g.addReduced(r.id, r, line)
		}
		return true
	})
}

// The members a "$set" record's value is read for, in one walk: a "$set"
// in it has the loader take the record for metadata only.
var geminiSetKeys = newJSKeys("sessionId", "messages", "$set")

var geminiMessageKeys = newJSKeys("id", "type", "content", "toolCalls")

// reduceRaw is reduceGemini on a validated message.
// ix is m's record's index, or nil.
func (g *geminiReader) reduceRaw(ix *valueIndex, m rawValue) geminiReduced {
	var f [4]rawValue
	jsFields(ix, m, geminiMessageKeys, f[:])
	id, isID := g.unquoteCopy(f[0]) // held with the message, or by pending (readSession)
	return g.reduceFields(ix, m.Kind() == '{', id, isID, f[1], f[2], f[3])
}

// reduceFields is reduceRaw on a message's fields, read, its id unquoted
// (by the caller, which has it already for a message record). A gemini
// message's steps are written into the array of the message it fills
// (one let go of, newMsg, has one) while they fit in it, else gathered
// in g.steps and copied out at their number (into g.stepSlab): appended
// one by one, they grew (and were cleared) two or three times.
func (g *geminiReader) reduceFields(ix *valueIndex, isObject bool, id string, isID bool, typ, content, calls rawValue) geminiReduced {
	r := geminiReduced{msg: g.newMsg(), isObject: isObject, id: id, isID: isID}
	switch geminiType(typ) {
	case "user":
		text, fr := g.partsTextRaw(ix, content, false, true) // only compared: a view
		if rest, ok := strings.CutPrefix(text, geminiLivePrefix); ok {
			if i := lastIndex(rest, geminiLiveSuffix); i >= 0 {
				rest = rest[:i]
			}
			r.detail, r.isLive = strings.Clone(rest), true
		}
		r.msg.prompt = !fr && !r.isLive && text != "Please continue."
	case "gemini":
		// own: steps is the message's array, while the steps fit.
		steps, own := r.msg.steps[:0], cap(r.msg.steps) > 0
		if !own {
			steps = g.steps[:0]
		}
		if text, _ := g.partsTextRaw(ix, content, true, false); text != "" {
			steps = append(steps, stepRecord{info: StepInfo{Kind: StepMessage}, output: text, outCopied: true, hasText: true})
		}
		jsElems(ix, calls, func(_ int, c rawValue) bool {
			if c.Kind() != '{' {
				return true
			}
			var cf [5]rawValue
			jsFields(ix, c, geminiCallKeys, cf[:])
			name, _ := jsUnquoteView(cf[0]) // copied into the key
			// The key is written into a buffer reused, and copied into
			// the block the outputs are (unquoteCopy), where each was an
			// allocation of its own: the table interns it, a copy again.
			g.key = appendGeminiKeyRaw(ix, g.key[:0], name, cf[1])
			rec := stepRecord{info: StepInfo{Kind: StepAction}, action: g.copies.clone(bytesString(g.key)), hasAction: true, hasText: true}
			rec.output, rec.outCopied = g.callResultRaw(ix, cf[2], cf[3]), true
			status, _ := jsUnquoteView(cf[4]) // only compared
			rec.info.Error = status == "error"
			if own && len(steps) == cap(steps) {
				steps, own = append(g.steps[:0], steps...), false // gathered from here on
			}
			steps = append(steps, rec)
			return true
		})
		if own {
			r.msg.steps = steps
		} else if len(steps) > 0 {
			if cap(r.msg.steps) < len(steps) {
				r.msg.steps = g.stepSlab.take(len(steps))
			}
			r.msg.steps = r.msg.steps[:len(steps)]
			copy(r.msg.steps, steps)
			clear(steps) // let go of their strings
			g.steps = steps
		}
	}
	return r
}

// lastIndex is strings.LastIndex, searched for forwards: the recovery
// prompt's suffix is followed by the CLI's longer advice, which
// LastIndex's backward hash went over byte by byte, where Index skips to
// the suffix's first byte.
func lastIndex(s, sep string) int {
	if sep == "" {
		return len(s)
	}
	i := strings.Index(s, sep)
	for i >= 0 {
		j := strings.Index(s[i+1:], sep)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return i
}

var (
	geminiCallKeys     = newJSKeys("name", "args", "result", "resultDisplay", "status")
	geminiPartKeys     = newJSKeys("text", "thought", "functionResponse")
	geminiResponseKeys = newJSKeys("output", "error")
	geminiFunctionKey  = newJSKeys("functionResponse")
	geminiResponseKey  = newJSKeys("response")
)

// geminiType is a message's type as jsUnquote reads it, the two the
// reader tells apart matched in place: only compared, they are not
// copied out of the record for every message.
func geminiType(v rawValue) string {
	switch string(v) {
	case `"user"`:
		return "user"
	case `"gemini"`:
		return "gemini"
	}
	t, _ := jsUnquote(v)
	return t
}

// partsTextRaw is geminiPartsText on a validated content; with view, a
// text of one part is a view of the record (jsUnquoteView), else a
// string of its own (unquoteCopy).
func (g *geminiReader) partsTextRaw(ix *valueIndex, v rawValue, noThoughts, view bool) (text string, functionResponse bool) {
	unquote := func(x rawValue) (string, bool) {
		if view {
			return jsUnquoteView(x)
		}
		return g.unquoteCopy(x)
	}
	var f [3]rawValue
	keys := geminiPartKeys
	switch v.Kind() {
	case '"':
		s, _ := unquote(v)
		return s, false
	case '[':
		var b strCat
		jsElems(ix, v, func(_ int, p rawValue) bool {
			f = [3]rawValue{}
			jsFields(ix, p, keys, f[:])
			if f[2] != nil {
				functionResponse = true
			}
			t, ok := unquote(f[0])
			if !ok || (noThoughts && jsTruthyRaw(f[1])) {
				return true
			}
			b.add(t)
			return true
		})
		return b.String(), functionResponse
	case '{':
		jsFields(ix, v, keys, f[:])
		t, _ := unquote(f[0])
		return t, f[2] != nil
	}
	return "", false
}

// callResultRaw is geminiCallResult on a validated call's result and
// resultDisplay: a string of its own (unquoteCopy).
func (g *geminiReader) callResultRaw(ix *valueIndex, res, display rawValue) string {
	var b strCat
	jsElems(ix, res, func(_ int, p rawValue) bool {
		// A part's functionResponse and its response lie below the
		// levels the pass notes (memberDepth) when the call is read
		// from an index of its message's toolCalls: they are scanned
		// (scanFields, which reads as jsFields), not first looked for
		// among the objects noted.
		var fr, resp [1]rawValue
		jsFields(ix, p, geminiFunctionKey, fr[:])
		scanFields(ix, fr[0], geminiResponseKey, resp[:])
		var f [2]rawValue
		scanFields(ix, resp[0], geminiResponseKeys, f[:])
		for _, x := range f {
			if s, ok := g.unquoteCopy(x); ok {
				b.add(s)
			}
		}
		return true
	})
	if b.n == 0 {
		s, _ := g.unquoteCopy(display)
		return s
	}
	return b.String()
}

// strCat concatenates strings, the usual one string being itself: a tool
// output (most of a session's bytes) is not copied a second time into a
// builder to be returned as it was.
type strCat struct {
	s string // the first non-empty string, or all of them joined
	b []byte // the join, once a second one comes
	n int    // bytes added
}

func (c *strCat) add(s string) {
	switch {
	case s == "":
		return
	case c.n == 0:
		c.s = s
	default:
		if c.b == nil {
			c.b = append(make([]byte, 0, c.n+len(s)), c.s...)
		}
		c.b = append(c.b, s...)
	}
	c.n += len(s)
}

func (c *strCat) String() string {
	if c.b != nil {
		return string(c.b)
	}
	return c.s
}

// writeRun writes a run of a string's bytes (no quote, backslash or
// control byte), an invalid UTF-8 sequence as U+FFFD as Node decodes it.
func (p *jsParser) writeRun(sb *strings.Builder, run []byte) {
	if utf8.Valid(run) {
		sb.Write(run)
		return
	}
	for i := 0; i < len(run); {
		if run[i] < utf8.RuneSelf {
			sb.WriteByte(run[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(run[i:])
		if r == utf8.RuneError && n <= 1 {
			sb.WriteRune(utf8.RuneError)
			i += invalidUTF8Len(run[i:])
			continue
		}
		sb.Write(run[i : i+n])
		i += n
	}
}

// invalidUTF8Len is the length of the maximal subpart of an ill-formed
// UTF-8 sequence at the start of b, which the WHATWG decoder (Node's)
// replaces with one U+FFFD.
func invalidUTF8Len(b []byte) int {
	lead := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead == 0xED:
		need, hi = 2, 0x9F
	case lead >= 0xE1 && lead <= 0xEF:
		need = 2
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	case lead == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(b) && b[n] >= lo && b[n] <= hi {
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}

// bytesString is b as a string, not copied: b is not written again.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
