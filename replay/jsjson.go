package replay

// JSON as JavaScript reads and writes it, for the Gemini CLI: its chat
// recording is written by JSON.stringify and read back by JSON.parse, and
// its loop detector keys a tool call by JSON.stringify(args). Go's
// encoding/json differs on every point that matters there: it sorts map
// keys, formats numbers its own way and turns a lone surrogate ("\ud800")
// into U+FFFD. jsValue keeps what JavaScript keeps: object members in
// their order (integer keys first, as JavaScript orders properties; a
// repeated key keeps its first place and its last value), numbers as
// doubles, strings as UTF-16 held in WTF-8 (a lone surrogate is its 3-byte
// encoding, which detect.AppendUTF16 reads back).

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsKind is a JSON value's type.
type jsKind uint8

const (
	jsNull jsKind = iota
	jsBool
	jsNumber
	jsString
	jsArray
	jsObject
)

// jsValue is a parsed JSON value.
type jsValue struct {
	kind jsKind
	b    bool
	num  float64
	str  string // a string, WTF-8
	arr  []*jsValue
	obj  []jsMember          // in JavaScript's property order
	keys map[string]struct{} // obj's keys, once it has many
}

type jsMember struct {
	key string // WTF-8
	val *jsValue
}

// get returns an object's member named key, nil when there is none (or v
// is not an object).
func (v *jsValue) get(key string) *jsValue {
	if v == nil || v.kind != jsObject {
		return nil
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// text returns a string value, "" for anything else.
func (v *jsValue) text() (string, bool) {
	if v == nil || v.kind != jsString {
		return "", false
	}
	return v.str, true
}

// jsMaxDepth bounds nesting, so a hostile line costs an error, not the stack.
const jsMaxDepth = 10000

// parseJS parses one JSON text as JSON.parse does after Node's UTF-8
// decoding (an invalid byte sequence is U+FFFD, per maximal subpart).
func parseJS(data []byte) (*jsValue, error) {
	p := &jsParser{b: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.b) {
		return nil, p.errorf("unexpected %q after the JSON value", p.b[p.i])
	}
	return v, nil
}

type jsParser struct {
	b []byte
	i int
}

func (p *jsParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

func (p *jsParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsParser) value(depth int) (*jsValue, error) {
	if depth > jsMaxDepth {
		return nil, p.errorf("nested deeper than %d", jsMaxDepth)
	}
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jsValue{kind: jsString, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return &jsValue{kind: jsBool, b: true}, nil
	case p.literal("false"):
		return &jsValue{kind: jsBool}, nil
	case p.literal("null"):
		return &jsValue{kind: jsNull}, nil
	default:
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *jsParser) literal(word string) bool {
	if strings.HasPrefix(string(p.b[p.i:min(len(p.b), p.i+len(word))]), word) {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jsParser) object(depth int) (*jsValue, error) {
	p.i++ // {
	v := &jsValue{kind: jsObject}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.errorf("expected a member name")
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.errorf("expected ':'")
		}
		p.i++
		p.space()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.set(key, val)
		p.space()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end in an object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return v, nil
		default:
			return nil, p.errorf("expected ',' or '}'")
		}
	}
}

// set adds a member as JavaScript's CreateDataProperty does: a repeated key
// keeps its place and takes the new value; an array index key goes before
// the other keys, in numeric order.
func (v *jsValue) set(key string, val *jsValue) {
	const indexFrom = 32 // a map only for big objects: most have a few keys
	if v.keys == nil && len(v.obj) >= indexFrom {
		v.keys = make(map[string]struct{}, 2*len(v.obj))
		for _, m := range v.obj {
			v.keys[m.key] = struct{}{}
		}
	}
	_, seen := v.keys[key]
	if v.keys == nil || seen {
		for i := range v.obj {
			if v.obj[i].key == key {
				v.obj[i].val = val
				return
			}
		}
	}
	if v.keys != nil {
		v.keys[key] = struct{}{}
	}
	m := jsMember{key: key, val: val}
	if idx, ok := arrayIndex(key); ok {
		at := 0
		for at < len(v.obj) {
			j, isIdx := arrayIndex(v.obj[at].key)
			if !isIdx || j > idx {
				break
			}
			at++
		}
		v.obj = append(v.obj, jsMember{})
		copy(v.obj[at+1:], v.obj[at:])
		v.obj[at] = m
		return
	}
	v.obj = append(v.obj, m)
}

// arrayIndex says key is a canonical array index (0 .. 2^32-2), which
// JavaScript orders before the other property names.
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	// Digits only, read here: strconv.ParseUint's error for every other
	// key (nearly all of them) was an allocation a member.
	var n uint64
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxUint32-1 {
		return 0, false
	}
	return n, true
}

func (p *jsParser) array(depth int) (*jsValue, error) {
	p.i++ // [
	v := &jsValue{kind: jsArray}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		el, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.arr = append(v.arr, el)
		p.space()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end in an array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, nil
		default:
			return nil, p.errorf("expected ',' or ']'")
		}
	}
}

func (p *jsParser) number() (*jsValue, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.errorf("a number without digits")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errorf("no digits after the decimal point")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("no digits in the exponent")
		}
	}
	// Correctly rounded, as JavaScript's; out of range is ±Infinity or 0.
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.errorf("%v", err)
	}
	return &jsValue{kind: jsNumber, num: f}, nil
}

// string reads a JSON string into WTF-8. It goes from one quote,
// backslash or control byte to the next eight bytes at a time (special,
// as validString does) and copies each run between them whole once it is
// valid UTF-8; a string without escapes is its bytes.
func (p *jsParser) string() (string, error) {
	p.i++ // "
	if j := special(p.b, p.i); j < len(p.b) && p.b[j] == '"' && utf8.Valid(p.b[p.i:j]) {
		s := string(p.b[p.i:j])
		p.i = j + 1
		return s, nil
	}
	var sb strings.Builder
	for {
		j := special(p.b, p.i)
		p.writeRun(&sb, p.b[p.i:j])
		p.i = j
		if p.i >= len(p.b) {
			return "", p.errorf("unterminated string")
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c == '\\':
			if err := p.escape(&sb); err != nil {
				return "", err
			}
		default:
			return "", p.errorf("a control character in a string")
		}
	}
}

func (p *jsParser) escape(sb *strings.Builder) error {
	if p.i+1 >= len(p.b) {
		return p.errorf("unterminated escape")
	}
	c := p.b[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		sb.WriteByte(c)
	case 'b':
		sb.WriteByte('\b')
	case 'f':
		sb.WriteByte('\f')
	case 'n':
		sb.WriteByte('\n')
	case 'r':
		sb.WriteByte('\r')
	case 't':
		sb.WriteByte('\t')
	case 'u':
		u, ok := p.hex4()
		if !ok {
			return p.errorf("a bad \\u escape")
		}
		if utf16.IsSurrogate(rune(u)) && u < 0xDC00 && p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
			save := p.i
			p.i += 2
			if lo, ok := p.hex4(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				sb.WriteRune(utf16.DecodeRune(rune(u), rune(lo)))
				return nil
			}
			p.i = save
		}
		writeUnit(sb, u)
	default:
		return p.errorf("a bad escape \\%c", c)
	}
	return nil
}

func (p *jsParser) hex4() (uint16, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return uint16(n), true
}

// writeUnit writes one UTF-16 code unit: a lone surrogate as its 3-byte
// WTF-8 encoding.
func writeUnit(sb *strings.Builder, u uint16) {
	if u >= 0xD800 && u <= 0xDFFF {
		sb.WriteByte(0xED)
		sb.WriteByte(0x80 | byte(u>>6)&0x3F)
		sb.WriteByte(0x80 | byte(u)&0x3F)
		return
	}
	sb.WriteRune(rune(u))
}

// appendJS appends v as JSON.stringify writes it.
func appendJS(dst []byte, v *jsValue) []byte {
	switch v.kind {
	case jsNull:
		return append(dst, "null"...)
	case jsBool:
		return strconv.AppendBool(dst, v.b)
	case jsNumber:
		return appendJSNumber(dst, v.num)
	case jsString:
		return appendJSString(dst, v.str)
	case jsArray:
		dst = append(dst, '[')
		for i, el := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJS(dst, el)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, m := range v.obj {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSString(dst, m.key)
		dst = append(dst, ':')
		dst = appendJS(dst, m.val)
	}
	return append(dst, '}')
}

// appendJSNumber writes f as JSON.stringify does (Number::toString: the
// shortest digits that read back, plain from 1e-6 up to 1e21, else with an
// exponent; -0 is 0; a non-finite number is null).
func appendJSNumber(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// appendJSString quotes a WTF-8 string as JSON.stringify does (well-formed
// JSON.stringify, ES2019: a lone surrogate is escaped, \ud800).
func appendJSString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				dst = appendASCIIEscape(dst, c)
			} else {
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			if i+2 < len(s) && c == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
				u := 0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F)
				dst = append(dst, '\\', 'u', hex[u>>12], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
				i += 3
				continue
			}
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i++
			continue
		}
		dst = append(dst, s[i:i+n]...)
		i += n
	}
	return append(dst, '"')
}
