package replay

// Reading a steps record in place (rawValue), as mapStep read its decoded
// map: the same fields, paths, conversions and reasons, with no
// encoding/json and one pass over the record's top level for every field.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The fields of a steps record, indexes into stepPaths.
const (
	sfStep = iota
	sfAction
	sfOutput
	sfError
	sfKind
	sfScore
	sfLocation
	sfExitCode
	sfLLMLoop
	numStepFields
)

// stepPaths are --field's paths split once: the distinct first names the
// record's top level is read for, and each field's path below its first
// name.
type stepPaths struct {
	first []string
	keys  *jsKeys // first's, for parseFields
	top   [numStepFields]int
	rest  [numStepFields][]string
	vals  []rawValue  // scratch for Fields
	strs  byteStrings // actions and locations, which repeat
	// The last location's text when it is its string's body as it
	// stands (no escape, valid UTF-8): locText.
	lastLoc string
	out     []byte // the last record's output, unescaped (stepOf)
	// copies, when not nil, is where a replay as read keeps the
	// outputs: an output string is read into it (outCopied).
	copies *outputCopies
	// outCopy writes a flat line's output into copies as the line is
	// validated (lineStep).
	outCopy lineCopy
	// flat says every field's path is a name of its own, first[f] for
	// field f (no --field, or one naming another top-level member each):
	// a line's members are then read straight into the fields (lineStep).
	flat bool
	// flatKeys: the names looked up by flatLine, when flat.
	flatKeys *flatKeys
	// numAt, num: the first byte and the number of the step's (0) and
	// the score's (1) value when flatLine read it as 1 to 15 digits,
	// 0 else; stepOf takes the number for a value that starts there
	// (the same bytes of the same line) and clears them. An address as
	// a number: it is only compared with a value's, which holds the
	// line, and is stored with no write barrier.
	numAt [2]uintptr
	num   [2]uint64
	// stepNext: the step number flatLine expects next, one more than
	// the last it read.
	stepNext stepGuess
	// next: the key flatLine read after the line's start (0), after a
	// member of no field (1) and after field f's member (f+2).
	next [16]flatNext
	// members: the member flatLine read whole after each of those, and
	// older the one each replaced (noteMember).
	members [16]flatMember
	older   [16]flatMember
}

func newStepPaths(fields map[string]string) *stepPaths {
	p := &stepPaths{}
	for f, name := range StepFields[:numStepFields] {
		path := name
		if q, ok := fields[name]; ok {
			path = q
		}
		parts := strings.Split(path, ".")
		k := 0
		for k < len(p.first) && p.first[k] != parts[0] {
			k++
		}
		if k == len(p.first) {
			p.first = append(p.first, parts[0])
		}
		p.top[f], p.rest[f] = k, parts[1:]
	}
	p.vals = make([]rawValue, len(p.first))
	p.flat = len(p.first) == numStepFields
	for f := range p.top {
		p.flat = p.flat && p.top[f] == f && len(p.rest[f]) == 0
	}
	p.keys = newJSKeys(p.first...) // distinct
	if p.flat {
		p.flatKeys = newFlatKeys(p.first)
	}
	p.stepNext.none()
	p.outCopy.name = p.first[p.top[sfOutput]]
	p.strs = byteStrings{}
	return p
}

// read fills vals with each field's value (nil when absent or null, as
// lookup's ok).
func (p *stepPaths) read(v rawValue, vals *[numStepFields]rawValue) {
	v.Fields(p.first, p.vals)
	p.below(vals)
}

// below fills vals from p.vals, the record's members named by p.first.
func (p *stepPaths) below(vals *[numStepFields]rawValue) {
	for f := range vals {
		x := p.vals[p.top[f]]
		if len(p.rest[f]) > 0 && x != nil {
			x = x.Path(p.rest[f]...)
		}
		if !x.Present() {
			x = nil
		}
		vals[f] = x
	}
}

// valueStep is mapStep of a record read in place.
func valueStep(v rawValue, p *stepPaths) (stepRecord, string) {
	var vals [numStepFields]rawValue
	p.read(v, &vals)
	return stepOf(&vals, p)
}

// lineStep is valueStep of a line, validated and read in one pass; a
// line that is no JSON object gives parseRecord's reason.
func lineStep(raw []byte, p *stepPaths) (stepRecord, string) {
	var r stepRecord
	reason := lineStepInto(&r, raw, p)
	return r, reason
}

// lineStepInto is lineStep writing the step into *r (stepInto).
func lineStepInto(r *stepRecord, raw []byte, p *stepPaths) string {
	var vals [numStepFields]rawValue
	if p.flat {
		// below's copy through p.vals, by way of top and rest, was a
		// loop of nine fields a record that kept them as they were.
		var cp *lineCopy
		if p.copies != nil && copyStrings {
			cp = &p.outCopy
			cp.c, cp.at = p.copies, nil
		}
		if p.flatKeys.ok {
			if end := p.flatLine(raw, &vals, cp); end >= 0 && flatBlanks(raw, end) == len(raw) {
				return stepInto(r, &vals, p)
			}
		}
		if _, err := parseFieldsCopy(raw, p.keys, vals[:], cp); err != nil {
			p.outCopy.at, p.numAt = nil, [2]uintptr{}
			return err.Error()
		}
		for f, x := range vals {
			// null (scanLine gives NaN and the infinities as null) is
			// absent, as below reads it: !Present, without Kind's switch.
			if len(x) > 0 && x[0] == 'n' {
				vals[f] = nil
			}
		}
		return stepInto(r, &vals, p)
	}
	if _, err := parseFields(raw, p.keys, p.vals); err != nil {
		return err.Error()
	}
	p.below(&vals)
	return stepInto(r, &vals, p)
}

// stepOf reads a step from its fields' values.
func stepOf(vals *[numStepFields]rawValue, p *stepPaths) (stepRecord, string) {
	var r stepRecord
	reason := stepInto(&r, vals, p)
	return r, reason
}

// stepInto is stepOf writing the step into *r, where the step went back
// through two results of 150 bytes (stepOf's, lineStep's) a line.
func stepInto(r *stepRecord, vals *[numStepFields]rawValue, p *stepPaths) string {
	*r = stepRecord{}
	at := p.outCopy.at // this line's, set by lineStep: nil for any other
	p.outCopy.at = nil
	numAt := p.numAt // this line's too (flatLine)
	p.numAt = [2]uintptr{}
	if x := vals[sfStep]; x != nil {
		n, integral := int(p.num[0]), true
		if uintptr(unsafe.Pointer(&x[0])) != numAt[0] {
			n, integral = rawInteger(x)
		}
		if !integral {
			return fmt.Sprintf("step %s is not an integer", x.Text())
		}
		if n < 0 || n > MaxStepNumber {
			return fmt.Sprintf("step %s is out of range (valid: 0 to 2^53)", x.Text())
		}
		r.n, r.hasStep = n, true
	}
	if x := vals[sfAction]; x != nil {
		// plainValue, its words' test in line for an action of 8 to 16
		// bytes (most), where plainValue was a call.
		plain := x.Kind() == '"'
		if n := len(x); plain && n >= 8 && n <= 16 {
			plain = plainWords(x)
		} else if plain {
			plain = plainASCII(x)
		}
		if plain {
			// Its body as it stands, over the line as the output is:
			// add interns it (stepTable.actionSym) before the next line
			// is read, and interning it here too (byteStrings' map) was
			// a second hash of every action.
			r.action = unsafe.String(&x[1], len(x)-2)
		} else {
			r.action = p.strs.text(x)
		}
		r.hasAction = true
	}
	if x := vals[sfOutput]; x != nil {
		r.hasText = true
		if x.Kind() == '"' && p.copies != nil && at == &x[0] {
			r.output, r.outCopied = p.outCopy.keep(), true
		} else if x.Kind() == '"' && p.copies != nil {
			r.output, r.outCopied = p.copies.unescaped(x), true
		} else if x.Kind() == '"' {
			// Over the line, or unescaped into the reader's buffer, and
			// copied from there into the table by add before the next
			// record is read: an output is most of a step, and a string
			// of it was made only to be copied.
			var text []byte
			text, p.out = strText(p.out, x)
			r.output = unsafe.String(unsafe.SliceData(text), len(text))
		} else {
			r.output = x.Text()
		}
	}
	r.info.Kind = StepAction
	if x := vals[sfKind]; x != nil {
		// "action" as written at most steps is told in line, where
		// rawKind was a call (16 instructions) and its word compared
		// after.
		k := "action"
		if string(x) != `"action"` {
			k = rawKind(x)
		}
		switch k {
		case "action", "":
		case "message":
			r.info.Kind = StepMessage
		case "condensation":
			r.info.Kind = StepCondensation
		default:
			return fmt.Sprintf("kind %q is not action, message or condensation", k)
		}
	} else if !r.hasAction {
		r.info.Kind = StepMessage // text without a call is the agent speaking
	}
	if x := vals[sfError]; x != nil {
		// A literal true or false told in line (an error's at every
		// step), where rawTruthy was a call of ~27 instructions.
		if len(x) > 0 && (x[0] == 't' || x[0] == 'f') {
			r.info.Error = x[0] == 't'
		} else {
			r.info.Error = rawTruthy(x)
		}
	}
	if x := vals[sfExitCode]; x != nil {
		if c, ok := rawInt(x); ok {
			r.setExitCode(c)
		}
	}
	if x := vals[sfLLMLoop]; x != nil {
		r.info.LLMLoop = rawTruthy(x)
	}
	if x := vals[sfScore]; x != nil {
		f, ok := float64(p.num[1]), true
		if uintptr(unsafe.Pointer(&x[0])) != numAt[1] {
			f, ok = rawFloat(x)
		}
		if ok {
			r.score, r.hasScore = f, true
		}
	}
	if x := vals[sfLocation]; x != nil {
		// The last location again is told in line as locText tells it
		// first, where locText was a call.
		s := p.lastLoc
		if len(x) < 2 || x[0] != '"' || s == "" || !equalShort(unsafe.String(&x[1], len(x)-2), s) {
			s = p.locText(x)
		}
		if notBlank(s) {
			r.location, r.hasLoc = s, true
		}
	}
	return ""
}

// plainValue is plainASCII of string value x's body (x[1:len(x)-1]),
// told in line from x's two words, which overlap, for a value of 8 to 16
// bytes (an action's body of 6 to 14): the quotes are ASCII and no
// backslash, so x is plain when its body is. plainASCII itself was a
// call of 40 instructions an action.
func plainValue(x rawValue) bool {
	if n := len(x); n >= 8 && n <= 16 {
		return plainWords(x)
	}
	return plainASCII(x)
}

// plainWords is plainValue's test of a value of 8 to 16 bytes by its two
// words (stepInto's in line).
func plainWords(x rawValue) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := len(x)
	a, b := binary.LittleEndian.Uint64(x), binary.LittleEndian.Uint64(x[n-8:])
	return ((a^ones*'\\'-ones)|a|(b^ones*'\\'-ones)|b)&highs == 0
}

// locText is p.strs.text(x) of a location: one that is the last one's,
// byte for byte and without an escape (most steps stay where the step
// before was), is the last one's string, not looked up again. Its body is
// then valid UTF-8 without a backslash, which text returns as it stands.
func (p *stepPaths) locText(x rawValue) string {
	if x.Kind() == '"' && p.lastLoc != "" && equalShort(unsafe.String(&x[1], len(x)-2), p.lastLoc) {
		return p.lastLoc
	}
	s := p.strs.text(x)
	p.lastLoc = ""
	if x.Kind() == '"' && len(s) == len(x)-2 && plainBody(x[1:len(x)-1]) {
		p.lastLoc = s
	}
	return s
}

// notBlank is strings.TrimSpace(s) != "", told at once when s starts
// with an ASCII byte above ' ' (no space of TrimSpace's, so s is not
// blank): an action or a location does, at every step, and TrimSpace
// was a call each.
func notBlank(s string) bool {
	if s != "" && s[0]-'!' < 0x7f-'!' {
		return true
	}
	return strings.TrimSpace(s) != ""
}

// plainBody reports whether body is valid UTF-8 without a backslash:
// a string's body that is its text as it stands.
func plainBody(body []byte) bool {
	return bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body)
}

// parseFields is parseRecord(raw, true) followed by v.Fields(keys.names,
// vals), in one pass: scanLine validates the record as the ZorkGPT path
// does and hands over its top-level members on the way (a short record's
// second walk was a third of its reading). A member is compared with the
// names of its length only (jsKeys), where it was compared with each
// name: most of a record's members are passed over after one test, the
// others after one or two. The errors are parseRecord's.
func parseFields(raw []byte, keys *jsKeys, vals []rawValue) (rawValue, error) {
	return parseFieldsCopy(raw, keys, vals, nil)
}

// parseFieldsCopy is parseFields that, with cp, writes the text of the
// members named cp.name as it validates them (scanLineCopy).
func parseFieldsCopy(raw []byte, keys *jsKeys, vals []rawValue, cp *lineCopy) (rawValue, error) {
	for i := range vals {
		vals[i] = nil
	}
	ok := scanLineCopy(raw, func(key []byte, esc bool, val []byte) {
		if !esc {
			// A key that is a name's bytes is that name when it is valid
			// UTF-8, as an ASCII name's are: the record's members are
			// mostly names sought, and the test of their UTF-8 was most of
			// this function's time. A key of 8 bytes or fewer is compared
			// as one word (keyWord), not by a call to compare strings.
			w, short := keyWord(key)
			for i := keys.first[min(len(key), 63)]; i >= 0; i = keys.next[i] {
				if short && w == keys.word[i] || !short && string(key) == keys.names[i] {
					if keys.ascii>>i&1 != 0 || utf8.Valid(key) {
						vals[i] = val
						return
					}
					break
				}
			}
			if asciiOrUTF8(key) {
				return // read as it stands, and no name's bytes
			}
		}
		// As encoding/json reads the name (Fields): not JSON.parse's
		// reading, which jsFields' setEscaped is.
		if i := slices.Index(keys.names, unquoteKey(key)); i >= 0 {
			vals[i] = val
		}
	}, cp)
	if !ok {
		v, err := parseRecord(raw, true)
		if err != nil {
			return nil, err
		}
		v.Fields(keys.names, vals) // not reached: scanLine accepts what parseRecord does
		return v, nil
	}
	i, j := skipSpace(raw, 0), len(raw)
	for j > i && (raw[j-1] == ' ' || raw[j-1] == '\t' || raw[j-1] == '\n' || raw[j-1] == '\r') {
		j--
	}
	return rawValue(raw[i:j]), nil
}

// keyWord is key's bytes as shortWord makes them of a name, short
// saying key has 8 bytes or fewer; a name's word of the key's length is
// then equal to it exactly when the name is the key. The word is loaded
// at once when key's array holds 8 bytes from its start (a key in a line
// is followed by at least its quote, a colon, a value and a brace, its
// extra bytes masked off), else byte by byte.
func keyWord(key []byte) (w uint64, short bool) {
	if len(key) > 8 {
		return 0, false
	}
	if cap(key) >= 8 {
		return binary.LittleEndian.Uint64(key[:8]) & (1<<(8*len(key)) - 1), true
	}
	for i := len(key) - 1; i >= 0; i-- {
		w = w<<8 | uint64(key[i])
	}
	return w, true
}

// shortWord is keyWord of a name: 0 for one longer than 8 bytes, which
// is compared as a string.
func shortWord(name string) uint64 {
	w, _ := keyWord([]byte(name))
	return w
}

// isASCII says s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiOrUTF8 is utf8.Valid for a key, which is mostly a few bytes of
// ASCII: checked in line, without the call.
func asciiOrUTF8(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// strText is the text of string value x (Str's): its body as it stands
// when it needs no unescaping, else unescaped into buf (returned, to be
// kept for the next).
func strText(buf []byte, x rawValue) (text, _ []byte) {
	body := x[1 : len(x)-1]
	valid := utf8.Valid(body)
	if valid && bytes.IndexByte(body, '\\') < 0 {
		return body, buf
	}
	buf = appendUnescaped(buf[:0], body, valid)
	return buf, buf
}

// location is the Sym of a step's location, its name key (FoldName), and
// records its display name in RoomNames at its first sight. A location
// that is the last one's (most steps stay where the step before was; the
// reader interns locations, so the two are mostly one string) is the
// last one's Sym, not folded and looked up again: FoldName makes three
// strings, and the fold's Sym and RoomNames' entry cannot have changed
// (ep.syms only grows while the table is added to, and RoomNames keeps
// the first name of a key). The one string again is told by its pointer
// in line, where == was a call of memequal at every step.
func (t *stepTable) location(raw string) Sym {
	if l := t.lastLoc; t.hasLastLoc && len(raw) == len(l) && (unsafe.StringData(raw) == unsafe.StringData(l) || raw == l) {
		return t.lastLocSym
	}
	ep := t.ep
	loc := ep.syms.sym(FoldName(raw))
	if ep.RoomNames == nil {
		ep.RoomNames = map[string]string{}
	}
	if _, ok := ep.RoomNames[ep.Str(loc)]; !ok {
		ep.RoomNames[ep.Str(loc)] = strings.TrimSpace(raw)
	}
	t.lastLoc, t.lastLocSym, t.hasLastLoc = raw, loc, true
	return loc
}
