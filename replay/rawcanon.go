package replay

// Writing a value read in place as encoding/json writes its decoded form
// (json.Marshal of decodeObject's values: keys sorted, strings HTML-
// escaped) or as canonicalJSON does (numbers by value, booleans as 1 and
// 0), straight from its bytes: no map, no reflection.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// canonWriter appends values to buf; members is a stack of objects'
// members, each object sorting its own at the top.
type canonWriter struct {
	buf     []byte
	members []canonMember
	// syms, while set, has appendCanon write a string of keyedLen bytes
	// or more as keyMark and its Sym in syms (appendKeyed), and keep in
	// keyed where it read it: an OpenHands V1 event's key is compared only
	// for equality, and its tool output, interned as the step's output
	// anyway, is then hashed and held once, not again inside the key.
	syms    *symtab
	keyed   []keyedString
	scratch []byte // a string's unescaped bytes
	memo    canonMemo
	shapes  shapeMemo // appendCanon's objects' keys (rawcanon_shape.go)
	both    []byte    // appendBoth's second form
}

// keyedString is a string appendKeyed wrote as its Sym: at is where its
// value begins in the record.
type keyedString struct {
	at  *byte
	sym Sym
}

type canonMember struct {
	key []byte // unescaped
	val rawValue
}

// appendValue appends v: canonical (canonicalJSON's form) or as
// json.Marshal writes the decoded value. An absent value is null.
// skip leaves keys of the top-level object out.
func (w *canonWriter) appendValue(v rawValue, canonical bool, skip map[string]bool) {
	switch v.Kind() {
	case 0, 'n':
		w.buf = append(w.buf, "null"...)
	case 't':
		if canonical {
			w.buf = append(w.buf, '1')
		} else {
			w.buf = append(w.buf, "true"...)
		}
	case 'f':
		if canonical {
			w.buf = append(w.buf, '0')
		} else {
			w.buf = append(w.buf, "false"...)
		}
	case '0':
		if canonical {
			w.buf = append(w.buf, canonicalNumber(string(v))...)
		} else {
			w.buf = append(w.buf, v...) // json.Number is written as read
		}
	case '"':
		w.buf = appendStringValue(w.buf, v)
	case '[':
		w.buf = append(w.buf, '[')
		v.Elems(func(i int, e rawValue) bool {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.appendValue(e, canonical, nil)
			return true
		})
		w.buf = append(w.buf, ']')
	case '{':
		w.appendObject(v, canonical, skip)
	}
}

func (w *canonWriter) appendObject(v rawValue, canonical bool, skip map[string]bool) {
	base := len(w.members)
	v.Members(w.keep(skip))
	w.writeMembers(base, canonical)
}

// appendBoth is appendValue(v, true, nil) into buf and appendValue(v,
// false, skip) into both, in one walk: an OpenHands action's args make
// the event's key and the step's action, and a walk each read every
// string twice (goVerbatim), collected and sorted every object's members
// twice. A string is written once and copied; the two forms differ in
// numbers and booleans only.
func (w *canonWriter) appendBoth(v rawValue, skip map[string]bool) {
	switch v.Kind() {
	case '"':
		w.appendStringBoth(v)
	case '[':
		w.buf, w.both = append(w.buf, '['), append(w.both, '[')
		v.Elems(func(i int, e rawValue) bool {
			if i > 0 {
				w.buf, w.both = append(w.buf, ','), append(w.both, ',')
			}
			w.appendBoth(e, nil)
			return true
		})
		w.buf, w.both = append(w.buf, ']'), append(w.both, ']')
	case '{':
		w.appendObjectBoth(v, skip)
	default:
		w.appendScalarBoth(v)
	}
}

// appendStringBoth is appendBoth of a string: written once, copied.
func (w *canonWriter) appendStringBoth(v rawValue) {
	from := len(w.buf)
	w.buf = appendStringValue(w.buf, v)
	w.both = append(w.both, w.buf[from:]...)
}

// appendScalarBoth is appendBoth of a number, a boolean or null: written
// as it is into both, then canonically into buf.
func (w *canonWriter) appendScalarBoth(v rawValue) {
	from := len(w.buf)
	w.appendValue(v, false, nil)
	w.both = append(w.both, w.buf[from:]...)
	w.buf = w.buf[:from]
	w.appendValue(v, true, nil)
}

// appendObjectBoth is appendBoth of an object: its members collected and
// sorted once, each written in both forms but those skip names, left out
// of the second (the first of a skipped key's run is skipped with the
// run: writeMembers keeps the last of each).
func (w *canonWriter) appendObjectBoth(v rawValue, skip map[string]bool) {
	base := len(w.members)
	v.Members(w.keep(nil))
	w.writeMembersBoth(base, skip, false, nil)
}

// writeMembersBoth writes the members collected from base (keep(nil)) as
// appendObjectBoth writes an object's, and lets them go. With canon, each
// value is written as appendCanonBoth(ix) writes it (skipped over with
// the index, which may be nil; long strings keyed), else as appendBoth
// does.
func (w *canonWriter) writeMembersBoth(base int, skip map[string]bool, canon bool, ix *valueIndex) {
	sortMembers(w.members[base:])
	w.buf, w.both = append(w.buf, '{'), append(w.both, '{')
	first, firstBoth := true, true
	for i := base; i < len(w.members); i++ {
		m := &w.members[i] // not used past the value's writing, which may grow w.members
		if i+1 < len(w.members) && bytes.Equal(w.members[i+1].key, m.key) {
			continue
		}
		if !first {
			w.buf = append(w.buf, ',')
		}
		first = false
		from := len(w.buf)
		w.buf = appendKeyColon(w.buf, m.key)
		if skipped(skip, m.key) {
			if canon {
				ix.appendCanon(w, m.val, true, nil)
			} else {
				w.appendValue(m.val, true, nil)
			}
			continue
		}
		if !firstBoth {
			w.both = append(w.both, ',')
		}
		firstBoth = false
		w.both = append(w.both, w.buf[from:]...) // the key as written, and ':'
		if canon {
			w.appendCanonBoth(ix, m.val, nil)
		} else {
			w.appendBoth(m.val, nil)
		}
	}
	w.buf, w.both = append(w.buf, '}'), append(w.both, '}')
	clear(w.members[base:])
	w.members = w.members[:base]
}

// appendCanonBoth is ix.appendCanon(w, v, true, nil) into buf (its long
// strings keyed while w.syms is set) and ix.appendCanon(w, v, false,
// skip) into both (its strings in full), in one walk: appendBoth with
// the index. An OpenHands V1 action makes the event's key and the step's
// action, and a walk each collected and sorted its members twice.
func (w *canonWriter) appendCanonBoth(ix *valueIndex, v rawValue, skip map[string]bool) {
	switch v.Kind() {
	case '[':
		w.buf, w.both = append(w.buf, '['), append(w.both, '[')
		ix.elems(v, func(i int, e rawValue) bool {
			if i > 0 {
				w.buf, w.both = append(w.buf, ','), append(w.both, ',')
			}
			w.appendCanonBoth(ix, e, nil)
			return true
		})
		w.buf, w.both = append(w.buf, ']'), append(w.both, ']')
	case '{':
		// As appendCanon's: an object written before, from the memo.
		var slot *memoSlot
		var tag uint64
		if w.memoizes(v) {
			var hit bool
			if slot, tag, hit = w.memo.find(v, memoBoth, skip); hit {
				w.buf, w.both = append(w.buf, slot.out...), append(w.both, slot.both...)
				return
			}
			w.memo.open++
		}
		from, fromBoth := len(w.buf), len(w.both)
		// appendObjectBoth's members, found and skipped with the index.
		base := len(w.members)
		w.keepAll(ix, v)
		w.writeMembersBoth(base, skip, true, ix)
		if slot != nil {
			w.memo.open--
			slot.keep(tag, v, memoBoth, skip, w.buf[from:], w.both[fromBoth:])
		}
	case '"':
		if w.syms != nil && w.appendKeyed(v) {
			w.both = appendStringValue(w.both, v)
			return
		}
		w.appendStringBoth(v)
	default:
		w.appendScalarBoth(v)
	}
}

// keep returns the visitor that collects an object's members into
// w.members, each key unescaped, but those skip names.
func (w *canonWriter) keep(skip map[string]bool) func(k []byte, esc bool, val rawValue) bool {
	return func(k []byte, esc bool, val rawValue) bool {
		k = keyBytes(k, esc)
		if !skipped(skip, k) {
			w.members = append(w.members, canonMember{k, val})
		}
		return true
	}
}

// skipped is skip[string(k)]: for openHandsVolatile, the skip the
// readers pass, by volatileKey, with no map lookup.
func skipped(skip map[string]bool, k []byte) bool {
	if sameMap(skip, openHandsVolatile) {
		return volatileKey(k)
	}
	return skip != nil && skip[string(k)]
}

// keepAll collects v's members into w.members as ix.members(v,
// w.keep(nil)) does: those the index noted in one loop, where members
// called keep's visitor for each (an OpenHands action's args, and each
// object of an event's key).
func (w *canonWriter) keepAll(ix *valueIndex, v rawValue) {
	if ix != nil && len(ix.objs) > 0 && v.Kind() == '{' {
		if ms, ok := ix.noted(v); ok {
			w.keepNoted(ix, ms)
			return
		}
	}
	ix.members(v, w.keep(nil))
}

// keepNoted is keepAll of an object whose members the index noted (ms).
func (w *canonWriter) keepNoted(ix *valueIndex, ms []ixMember) {
	{
		{
			base := ix.base
			p := unsafe.Pointer(unsafe.SliceData(base))
			// Lengthened once and written in place: an appended literal
			// was built on the stack and copied, its room tested, at
			// each member.
			n := len(w.members)
			w.members = slices.Grow(w.members, len(ms))[:n+len(ms)]
			to := w.members[n:]
			// The pass noted each key and value within base: each is
			// sliced as base[from:to] slices it (its cap to base's end),
			// its header written with no bounds tests, where those of
			// the two slicings and of to[k] took ~20 instructions a
			// member (as jsFields writes the values it finds).
			c := cap(base)
			for k := range ms {
				m := &ms[k]
				d := (*canonMember)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(to)), uintptr(k)*unsafe.Sizeof(canonMember{})))
				// As members: bytes that are not UTF-8 are read as an escape.
				if m.esc || !asciiAt(p, m.key, m.keyEnd) && !keyValid(p, m.key, m.keyEnd, base[m.key:m.keyEnd]) {
					d.key = keyBytes(base[m.key:m.keyEnd], true)
				} else {
					*(*sliceHeader)(unsafe.Pointer(&d.key)) = sliceHeader{unsafe.Add(p, m.key), int(m.keyEnd - m.key), c - int(m.key)}
				}
				*(*sliceHeader)(unsafe.Pointer(&d.val)) = sliceHeader{unsafe.Add(p, m.val), int(m.end - m.val), c - int(m.val)}
			}
		}
	}
}

// writeMembers writes the members collected from base as an object, its
// values by appendValue(val, canonical, nil), and lets them go. A
// repeated key is decoded as its last value: sorted stably, the last of
// each run is kept. (It took the value's writer as a func, a closure
// made for each object and called for each member; every caller but
// appendCanon, which has its own loop, wrote by appendValue.)
func (w *canonWriter) writeMembers(base int, canonical bool) {
	sortMembers(w.members[base:])
	w.buf = append(w.buf, '{')
	first := true
	for i := base; i < len(w.members); i++ {
		m := &w.members[i] // not used past the value's writing, which may grow w.members
		if i+1 < len(w.members) && bytes.Equal(w.members[i+1].key, m.key) {
			continue
		}
		if !first {
			w.buf = append(w.buf, ',')
		}
		first = false
		w.buf = appendKeyColon(w.buf, m.key)
		w.appendValue(m.val, canonical, nil)
	}
	w.buf = append(w.buf, '}')
	clear(w.members[base:])
	w.members = w.members[:base]
}

// sortMembers sorts an object's members by key, stably. The few members
// of an event's objects are sorted by insertion, each comparison inline:
// slices.SortStableFunc, which also sorts by insertion so few, made a
// call through the comparison func, copying both members, for each.
// More go to SortStableFunc, an insertion sort being quadratic.
func sortMembers(ms []canonMember) {
	if len(ms) > 16 {
		slices.SortStableFunc(ms, func(a, b canonMember) int { return bytes.Compare(a.key, b.key) })
		return
	}
	for i := 1; i < len(ms); i++ {
		// A member in order after the one before (most: an object
		// written by a program keeps its order) is neither copied out
		// nor written back.
		if !keyLess(ms[i].key, ms[i-1].key) {
			continue
		}
		m := ms[i]
		ms[i] = ms[i-1]
		j := i - 1
		for ; j > 0 && keyLess(m.key, ms[j-1].key); j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
}

// keyLess is string(a) < string(b), told by the first bytes when they
// differ, as an object's keys mostly do.
func keyLess(a, b []byte) bool {
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		return a[0] < b[0]
	}
	return string(a) < string(b)
}

// appendStringValue appends a string value as json.Marshal writes the
// string it decodes to: from its bytes when it holds no escape and is
// valid UTF-8 (they are then the decoded string).
func appendStringValue(dst []byte, v rawValue) []byte {
	body := v[1 : len(v)-1]
	if goVerbatim(body) {
		return append(dst, v...)
	}
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return appendGoString(dst, []byte(body), true)
	}
	s, _ := v.Str()
	return appendGoString(dst, s, true)
}

// goVerbatim says a validated string's body is already what
// encoding/json writes for the string it decodes to: its escapes only
// those encoding/json writes (\", \\, \b, \f, \n, \r, \t), no
// character it escapes (<, >, &, U+2028, U+2029), valid UTF-8. Words of
// eight bytes holding none of <, >, &, a backslash or a byte over 0x7f
// are passed at once; in a word that holds one, the bytes before the
// first are (verbatimStop); the rest of a run longer than a word is
// verbatimRun's, with a vector scan that passes the escapes itself.
func goVerbatim(body []byte) bool {
	i := 0
	for i < len(body) {
		if i+8 <= len(body) {
			m := verbatimStop(binary.LittleEndian.Uint64(body[i:]))
			switch {
			case m != 0:
				i += bits.TrailingZeros64(m) / 8
			case !vectorStops:
				i += 8
				continue
			default:
				// A run longer than a word: the vector scan's, to a
				// byte it does not pass.
				if i = verbatimRun(body, i+8); i >= len(body) {
					return true
				}
			}
		}
		switch c := body[i]; {
		case c == '\\':
			if i+1 >= len(body) {
				return false
			}
			switch body[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			default:
				return false
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return false
			}
			i += size
		case c == '<' || c == '>' || c == '&':
			return false
		default:
			i++
		}
	}
	return true
}

// appendASCIIEscape appends an ASCII byte a JSON string cannot hold as
// it is, escaped as encoding/json and JSON.stringify both write it:
// \\ and \", the short escapes \b \f \n \r \t, any other as \u00xx.
func appendASCIIEscape(dst []byte, b byte) []byte {
	const hex = "0123456789abcdef"
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
}

// appendGoString appends src as encoding/json writes a string: control
// bytes, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd, and with html
// (json.Marshal's default; an Encoder with SetEscapeHTML(false) writes
// them as they are) < > & as \u003c \u003e \u0026.
func appendGoString[B []byte | string](dst []byte, src B, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!html || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = appendASCIIEscape(append(dst, src[start:i]...), b)
			i++
			start = i
			continue
		}
		n := min(len(src)-i, utf8.UTFMax)
		c, size := utf8.DecodeRuneInString(string(src[i : i+n])) // small: on the stack
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}

// rawText is v.Text() with an object or array written here, not decoded
// into a map and marshalled.
func (w *canonWriter) text(v rawValue) string {
	switch v.Kind() {
	case '{', '[':
		w.buf = w.buf[:0]
		w.appendValue(v, false, nil)
		return string(w.buf)
	}
	return v.Text()
}

// appendText appends v as asText reads its decoded value: a string's
// content, null or absent as nothing, anything else as json.Marshal
// writes it.
func (w *canonWriter) appendText(v rawValue) {
	switch v.Kind() {
	case 0, 'n':
	case '"':
		// plainASCII first, in one pass (a tool's name, a command): two
		// calls and two passes told it (1.4 M of a V1 log).
		body := v[1 : len(v)-1]
		if plainASCII(body) || bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			w.buf = append(w.buf, body...)
		} else {
			s, _ := v.Str()
			w.buf = append(w.buf, s...)
		}
	default:
		w.appendValue(v, false, nil)
	}
}
