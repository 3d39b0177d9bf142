package replay

// What the agents' JSONL readers (Claude Code, Codex, Cline and Roo Code)
// share, read from a rawValue: a field's value with encoding/json's typing
// (a string field takes a string or null, anything else is a wrong type),
// content blocks, a tool call's arguments compacted and in their sorted
// form, content blocks' text. Each gives what encoding/json gave these
// readers byte for byte (the fuzz targets of rawagent_test.go compare them
// with the readers they replaced), without its reflection and without a
// second validating pass.
//
// Where this reading departs from encoding/json on purpose: a key is
// matched exactly (encoding/json also takes "Type" for "type"), and a
// repeated key's last value is the value (encoding/json merges a repeated
// object into the first). That is how the agents themselves read their
// logs (JSON.parse, Python's json), and no agent writes either.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// agentRecordIx is parseRecord(raw, true) as the readers that decoded
// into structs saw a record: null is an empty record (json.Unmarshal of
// null into a struct leaves it as it is), and a value other than an
// object followed by a stray ']' or '}' is "not a JSON object"
// (decodeObject's decoder stops before those). raw is validated and
// indexed into ix in one pass (validValueIx), so that the reader steps
// over the record's long values with the index rather than scanning them
// at every level; nonFinite is what hasNonFinite(raw) says, known from
// that pass (valueIndex.nonFinite) without a second search of the
// record. agentRecordRef (rawagent_test.go) is the reading it replaced.
func agentRecordIx(raw []byte, ix *valueIndex) (v rawValue, nonFinite bool, err error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		ix.reset(nil)
		return rawValue("{}"), false, nil
	}
	i := skipSpace(raw, 0)
	end := validValueIx(raw, i, ix)
	if end < 0 {
		return nil, false, errRecordInvalid
	}
	if j := skipSpace(raw, end); j != len(raw) {
		// parseRecord's "two values", or agentRecord's "not an object".
		if raw[i] != '{' && (raw[j] == ']' || raw[j] == '}') {
			return nil, false, errRecordNotObject
		}
		return nil, false, errRecordTwoValues
	}
	v = rawValue(raw[i:end])
	if v.Kind() != '{' {
		return nil, false, errRecordNotObject
	}
	return v, ix.nonFinite, nil
}

// lineDropper is a rawStepReader that keeps nothing of a line once it
// has read it: its strings are copied out of the line, and what it reads
// as views of the line is compared, or copied, before the next line.
type lineDropper interface{ dropsLines() }

func (*codexReader) dropsLines()      {}
func (*claudeCodeReader) dropsLines() {}

// keepsNoLine says sr keeps nothing of a line once read (a
// valueStepReader or a lineDropper), so that readSteps reads its lines
// in place (recordSource.reuse), not each into a new buffer.
func keepsNoLine(sr stepReader) bool {
	_, value := sr.(valueStepReader)
	_, drops := sr.(lineDropper)
	return value || drops
}

// rawString reads a field decoded into a Go string: a string, or null or
// absent as ""; ok is false for another kind of value.
func rawString(v rawValue) (s string, ok bool) {
	switch v.Kind() {
	case 0, 'n':
		return "", true
	case '"':
		return v.Str()
	}
	return "", false
}

// rawStringView is rawString not copied when the string is its bytes
// (strView): a view of the record, for a value only compared, or copied,
// while the record is read.
func rawStringView(v rawValue) (s string, ok bool) {
	if v.Kind() == '"' {
		return strView(v)
	}
	return rawString(v)
}

// wordView is rawStringView for a block's type or a message's role: the
// words the agents write there are matched as written, quotes and all,
// and given as strings of the program's own; any other value is
// rawStringView's, where strView read each for a backslash and bytes
// that are not ASCII (some 100 instructions a value, 50,622 values on
// Cline's small log).
func wordView(v rawValue) (string, bool) {
	switch string(v) {
	case `"text"`:
		return "text", true
	case `"user"`:
		return "user", true
	case `"assistant"`:
		return "assistant", true
	case `"tool_use"`:
		return "tool_use", true
	case `"tool_result"`:
		return "tool_result", true
	case `"thinking"`:
		return "thinking", true
	}
	return rawStringView(v)
}

// idView is rawStringView for a block's id, name or tool_use_id: a
// string of 8 to 16 bytes, quotes included (the ids and tool names the
// bench's logs hold), is its body when neither of the two words that
// cover it (overlapping) holds a backslash or a byte over 0x7f, as
// plainASCII tests a body's words, with no call (strView and plainASCII
// took some 100 instructions a value: a Claude Code tool use's three).
// The quotes are neither. Any other value is rawStringView's.
func idView(v rawValue) (string, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if n := len(v); n >= 8 && n <= 16 && v[0] == '"' {
		// A string validated: its last byte is its closing quote.
		x, y := word(v, 0), word(v, n-8)
		if ((x^ones*'\\'-ones)|x|(y^ones*'\\'-ones)|y)&highs == 0 {
			return bytesString(v[1 : n-1]), true
		}
	}
	return rawStringView(v)
}

// rawBool reads a field decoded into a Go bool: true or false, or null or
// absent as false; ok is false for another kind of value.
func rawBool(v rawValue) (b, ok bool) {
	switch v.Kind() {
	case 0, 'n':
		return false, true
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// keyBytes is a key unescaped: k itself when written without escapes,
// so `switch string(keyBytes(k, esc))` allocates nothing.
func keyBytes(k []byte, esc bool) []byte {
	if esc {
		return []byte(unquoteKey(k))
	}
	return k
}

// hasNonFinite says a record holds NaN or an infinity outside its strings:
// validValue reads them (Python writes them), encoding/json refuses them,
// and the readers that decoded with it skipped such a record. Its first
// test is two vectorised searches; only a record holding the words is
// checked with json.Valid.
func hasNonFinite(raw []byte) bool {
	if !bytes.Contains(raw, []byte("NaN")) && !bytes.Contains(raw, []byte("Infinity")) {
		return false
	}
	return !json.Valid(raw)
}

// contentBlock is an Anthropic Messages API content block as the agents
// log it (text, thinking, tool_use, tool_result...). Type and ToolUseID
// are views of the record when written without escapes (strView): the
// readers compare them, and look a result's call up by its id, while
// the record is read, and keep neither (a call's ID is kept: copied).
// Read with blockViews, ID and Name are such views too, and Thinking is
// the thinking as written (quotes and escapes: a view of the record, ""
// when absent), its type checked, not decoded: a field of its own for
// that grew the block by a slice, 24 bytes zeroed at each block
// appended (Cline's 0.65 M).
type contentBlock struct {
	Type, Text, Thinking, ID, Name, ToolUseID string
	Input, Content                            rawValue // nil when absent; null is "null"
	IsError                                   bool
	// TextRaw is the text as written (nil when absent): read with
	// readBlocksRawText, Text is not decoded (its type still checked).
	TextRaw rawValue
}

// blockMode says how a content block's strings are read.
type blockMode uint8

const (
	// blockRawText leaves a text as written (TextRaw), not decoded.
	blockRawText blockMode = 1 << iota
	// blockViews reads a tool use's ID and Name as views of the record
	// (rawStringView) and leaves a thinking as written (in Thinking),
	// for a reader that copies what it keeps of them (Claude Code: a
	// call's id is copied by stepQueue.push, its name on a memo miss,
	// a thinking unescaped into the outputs' block), where each was
	// decoded into a string of its own (an allocation a tool use).
	blockViews
)

// readBlock reads one content block into b, a zero block: an object, or
// null (b left zero); bad names the first field of a wrong type ("" when
// none). A text is not decoded with blockRawText (readBlocksRawText).
// The block is written in place: returned, it was copied twice on its
// way into the caller's slice (176 bytes, at each block of a record).
func readBlock(ix *valueIndex, v rawValue, mode blockMode, b *contentBlock) (bad string) {
	switch v.Kind() {
	case 'n':
		return ""
	case '{':
	default:
		return "a content block that is not an object"
	}
	if ms, ok := ix.notedIn(v); ok {
		return readNotedBlock(ix, ms, mode, b)
	}
	ix.members(v, func(k []byte, esc bool, val rawValue) bool {
		b.member(keyBytes(k, esc), val, mode, &bad)
		return true
	})
	return bad
}

// readNotedBlock is readBlock of a block whose members ms the validating
// pass noted in ix: read in a loop with no closure a member (a block is
// three levels down a Claude Code record: noted); a key that is not
// UTF-8 is none of the names compared, read either way.
func readNotedBlock(ix *valueIndex, ms []ixMember, mode blockMode, b *contentBlock) (bad string) {
	p := unsafe.Pointer(unsafe.SliceData(ix.base))
	for k := range ms {
		m := &ms[k]
		key, val := notedMember(p, m)
		if m.esc {
			key = []byte(unquoteKey(key))
		} else if len(key) == 4 {
			// A block's type, and a text left as written: nearly every
			// member of a Cline message's blocks, read here as member
			// reads them, with no call of it.
			switch string(key) {
			case "type":
				var ok bool
				if b.Type, ok = wordView(val); !ok && bad == "" {
					bad = `a content block whose "type" is not a string`
				}
				continue
			case "text":
				if mode&blockRawText != 0 {
					b.TextRaw = val
					if k := val.Kind(); k != 0 && k != 'n' && k != '"' && bad == "" {
						bad = `a content block whose "text" is not a string` // as rawString
					}
					continue
				}
			}
		}
		b.member(key, val, mode, &bad)
	}
	return bad
}

// member reads a block's member, its key unescaped, into b; bad is set
// to name the first field of a wrong type.
func (b *contentBlock) member(name []byte, val rawValue, mode blockMode, bad *string) {
	var dst, view *string // view: a view of the record (contentBlock)
	switch string(name) {
	case "type":
		var ok bool
		if b.Type, ok = wordView(val); !ok && *bad == "" {
			*bad = `a content block whose "type" is not a string`
		}
		return
	case "text":
		b.TextRaw = val
		if mode&blockRawText == 0 {
			dst = &b.Text
		} else if k := val.Kind(); k != 0 && k != 'n' && k != '"' && *bad == "" {
			*bad = `a content block whose "text" is not a string` // as rawString
		}
	case "thinking":
		if mode&blockViews == 0 {
			dst = &b.Thinking
			break
		}
		b.Thinking = bytesString(val)
		if k := val.Kind(); k != 0 && k != 'n' && k != '"' && *bad == "" {
			*bad = `a content block whose "thinking" is not a string` // as rawString
		}
	case "id":
		dst = &b.ID
		if mode&blockViews != 0 {
			dst, view = nil, &b.ID
		}
	case "name":
		dst = &b.Name
		if mode&blockViews != 0 {
			dst, view = nil, &b.Name
		}
	case "tool_use_id":
		view = &b.ToolUseID
	case "input":
		b.Input = val
	case "content":
		b.Content = val
	case "is_error":
		var ok bool
		if b.IsError, ok = rawBool(val); !ok && *bad == "" {
			*bad = `a content block whose "is_error" is not a boolean`
		}
	}
	var ok bool
	switch {
	case dst != nil:
		*dst, ok = rawString(val)
	case view != nil:
		*view, ok = idView(val)
	default:
		return
	}
	if !ok && *bad == "" {
		*bad = `a content block whose "` + string(name) + `" is not a string`
	}
}

// notedMember is noted member m's key and value, views of the record at
// p (its base): the validating pass noted both within it, so they are
// sliced with no bounds check (each member's two slicings of ix.base
// cost 20-40 instructions in the readers' loops). Each is sliced from an
// array of 1<<32 bytes by a uint32 length, a slicing the compiler knows
// is in range, where unsafe.Slice tested each length for a negative and
// an overflow (four tests a member the pass's noting makes moot); no
// byte past the view is read, and checkptr (-race) accepts the array's
// type as it does one built for unsafe.Slice. Each loop unescapes an
// escaped key (m.esc) itself: a helper doing both (cost 97) is over the
// inlining budget, a call a member.
func notedMember(p unsafe.Pointer, m *ixMember) (key []byte, val rawValue) {
	kn, vn := uint32(m.keyEnd-m.key), uint32(m.end-m.val)
	return (*[1 << 32]byte)(unsafe.Add(p, m.key))[:kn:kn], (*[1 << 32]byte)(unsafe.Add(p, m.val))[:vn:vn]
}

// notedIn is ix.noted(v) of an index that may be nil (a Cline element
// read with none: not noted).
func (ix *valueIndex) notedIn(v rawValue) ([]ixMember, bool) {
	if ix == nil {
		return nil, false
	}
	return ix.noted(v)
}

// readBlocksRawText reads content (a string, one text block, or an array
// of blocks) leaving each block's text as written (TextRaw, Text empty),
// for a reader that decodes only the texts it keeps: a Cline user
// message's <environment_details>, a quarter of a task's bytes, is read
// and dropped. set is false for null or absent content; kindBad for
// content of another kind; bad names a block of a wrong shape.
func readBlocksRawText(ix *valueIndex, v rawValue, blocks []contentBlock) (out []contentBlock, set, kindBad bool, bad string) {
	return readBlocksText(ix, v, blocks, blockRawText)
}

// readBlocksViews is readBlocksRawText with blockViews: a tool use's id
// and name views of the record, a thinking left as written.
func readBlocksViews(ix *valueIndex, v rawValue, blocks []contentBlock) (out []contentBlock, set, kindBad bool, bad string) {
	return readBlocksText(ix, v, blocks, blockRawText|blockViews)
}

// readBlocksText is readBlocksRawText that, without blockRawText, also
// decodes each block's text (Text).
func readBlocksText(ix *valueIndex, v rawValue, blocks []contentBlock, mode blockMode) (out []contentBlock, set, kindBad bool, bad string) {
	switch v.Kind() {
	case 0, 'n':
		return blocks, false, false, ""
	case '"':
		if mode&blockRawText != 0 {
			return append(blocks, contentBlock{Type: "text", TextRaw: v}), true, false, ""
		}
		s, _ := v.Str()
		return append(blocks, contentBlock{Type: "text", Text: s, TextRaw: v}), true, false, ""
	case '[':
	default:
		return blocks, false, true, ""
	}
	// The blocks in a loop of valueIndex.elems' own, with no closure an
	// element (the closure's call, and blocks and bad kept in memory
	// for it). A block the validating pass noted (an object of the
	// record's first memberDepth levels) is read from ix.objs: its end
	// and its members, where ix.skip searched the spans for its end and
	// readBlock's notedIn sought it from the record's first object. The
	// pass notes objects in the order they open, so one cursor, k, walks
	// them from block to block, each object passed once.
	var objs []ixObject // ix.objs, when v is within the record indexed
	off := 0            // v's offset in the record
	if ix != nil && len(ix.objs) > 0 {
		if off = offsetIn(ix.base, v); off >= 0 && off <= len(ix.base)-len(v) {
			objs = ix.objs
		}
	}
	k := 0
	for i := skipSpace(v, 1); i < len(v) && v[i] != ']'; {
		blocks = append(blocks, contentBlock{})
		b := &blocks[len(blocks)-1]
		at := int32(off + i)
		for k < len(objs) && objs[k].start < at {
			k++
		}
		var end int
		var why string
		if k < len(objs) && objs[k].start == at {
			o := &objs[k]
			end = int(o.end) - off
			why = readNotedBlock(ix, ix.mems[o.depth][o.first:o.last], mode, b)
		} else {
			end = ix.skip(v, i)
			why = readBlock(ix, v[i:end], mode, b)
		}
		if why != "" && bad == "" {
			bad = why
		}
		if i = skipSpace(v, end); i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
	return blocks, true, false, bad
}

// appendCompact appends a valid value with the space between its tokens
// left out, as json.Compact writes it.
func appendCompact(dst []byte, v []byte) []byte {
	for i := 0; i < len(v); {
		switch c := v[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			end := skipString(v, i)
			dst = append(dst, v[i:end]...)
			i = end
		default:
			j := i + 1
			for j < len(v) {
				if d := v[j]; d == ' ' || d == '\t' || d == '\n' || d == '\r' || d == '"' {
					break
				}
				j++
			}
			dst = append(dst, v[i:j]...)
			i = j
		}
	}
	return dst
}

// compactText is a valid value's compact JSON (compactRaw's result).
func compactText(v rawValue) string {
	if !bytes.ContainsAny(v, " \t\r\n") {
		return string(v)
	}
	return string(appendCompact(make([]byte, 0, len(v)), v))
}

// textOf reads a tool's output as joinTexts does: a string as it is,
// content blocks' texts joined (a block without text as "[type]"),
// anything else as its compact JSON; null or absent is "".
func textOf(ix *valueIndex, v rawValue) string {
	switch v.Kind() {
	case 0, 'n':
		return ""
	case '"':
		s, _ := v.Str()
		return s
	case '[':
	default:
		return compactText(v)
	}
	// Content is mostly one block: its text, already a string of its
	// own, is the whole, not copied again into a Builder.
	var b strings.Builder
	var first string
	n := 0
	add := func(s string) {
		switch n {
		case 0:
			first = s
		case 1:
			b.WriteString(first)
			fallthrough
		default:
			b.WriteString(s)
		}
		n++
	}
	ok := true
	ix.elems(v, func(_ int, el rawValue) bool {
		typ, text, hasText, good := textBlock(ix, el)
		switch {
		case !good:
			ok = false
		case hasText:
			add(text)
		case typ != "":
			add("[" + typ + "]") // an image's bytes are no output to compare
		default:
			ok = false // not content blocks
		}
		return ok
	})
	if !ok {
		return compactText(v)
	}
	if n == 1 {
		return first
	}
	return b.String()
}

// textBlock reads a block as joinTexts decodes it: good is false when
// encoding/json would refuse it (not an object nor null, a type or text
// that is not a string).
func textBlock(ix *valueIndex, el rawValue) (typ, text string, hasText, good bool) {
	switch el.Kind() {
	case 'n':
		return "", "", false, true
	case '{':
	default:
		return "", "", false, false
	}
	good = true
	ix.members(el, func(k []byte, esc bool, val rawValue) bool {
		switch string(keyBytes(k, esc)) {
		case "type":
			var ok bool
			if typ, ok = rawString(val); !ok {
				good = false
			}
		case "text":
			switch val.Kind() {
			case 'n':
				text, hasText = "", false
			case '"':
				text, _ = val.Str()
				hasText = true
			default:
				good = false
			}
		}
		return good
	})
	return typ, text, hasText, good
}

// callActionRaw is callAction of arguments already validated (no NaN):
// the compact form is the bytes less their spaces, the sorted form is
// written from them, without decoding into a map.
func callActionRaw(name string, args rawValue) (action, canonical string) {
	return callActionRawIx(nil, name, args)
}

// callActionRawIx is callActionRaw of arguments within the record ix
// indexed (or not: nil), walked with it (appendCanonicalIx).
func callActionRawIx(ix *valueIndex, name string, args rawValue) (action, canonical string) {
	if len(args) == 0 {
		return name, name
	}
	buf := make([]byte, 0, 2*(len(name)+1+len(args)))
	buf = append(append(buf, name...), ' ')
	buf = appendCompact(buf, args)
	cut := len(buf)
	buf = append(append(buf, name...), ' ')
	buf = appendCanonicalIx(buf, args, ix)
	all := unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is not written again: no copy
	return all[:cut], all[cut:]
}

// appendCanonicalIx appends a valid value as encoding/json writes it once
// decoded into an any with UseNumber: objects' keys sorted (the last of a
// repeated key), strings re-encoded (no HTML escapes), numbers as written.
// With ix (nil walks v itself) it reads the members its validating pass
// noted and skips long values by its index: the value is walked once
// more to write it.
func appendCanonicalIx(dst []byte, v rawValue, ix *valueIndex) []byte {
	switch v.Kind() {
	case '"':
		body := v[1 : len(v)-1]
		if plainGoString(body) {
			return append(dst, v...)
		}
		s, _ := v.Str()
		return appendGoString(dst, s, false)
	case '[':
		dst = append(dst, '[')
		ix.elems(v, func(i int, el rawValue) bool {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonicalIx(dst, el, ix)
			return true
		})
		return append(dst, ']')
	case '{':
		type member struct {
			key string
			val rawValue
		}
		var stack [16]member
		ms := stack[:0]
		ix.members(v, func(k []byte, esc bool, val rawValue) bool {
			key := ""
			if esc {
				key = unquoteKey(k)
			} else {
				key = bytesString(k) // a view: only compared and copied out below
			}
			for i := range ms {
				if ms[i].key == key {
					ms[i].val = val // a map keeps the last
					return true
				}
			}
			ms = append(ms, member{key, val})
			return true
		})
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendGoString(dst, m.key, false)
			dst = append(dst, ':')
			dst = appendCanonicalIx(dst, m.val, ix)
		}
		return append(dst, '}')
	}
	return append(dst, v...) // numbers and literals as written
}

// plainGoString says a string's raw body is what encoding/json writes for
// it: no escape, valid UTF-8, no U+2028 or U+2029 (which it escapes).
func plainGoString(body []byte) bool {
	if bytes.IndexByte(body, '\\') >= 0 {
		return false
	}
	for i := 0; i < len(body); i++ {
		if body[i] >= utf8.RuneSelf {
			return utf8.Valid(body[i:]) && !bytes.Contains(body[i:], []byte("\u2028")) && !bytes.Contains(body[i:], []byte("\u2029"))
		}
	}
	return true
}
