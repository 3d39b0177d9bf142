package replay

// A record's top level read as it is validated. The validating pass noted
// every member of a record (and of the objects below, to four levels),
// and jsFields walked the record's members again for the nine it reads;
// a gemini message's timestamp, model, tokens (six counts) and thoughts
// were indexed for no one. Here the record's own members are validated
// one by one, the ones the reader reads kept as they pass; a value it
// reads that is an object or an array (content, toolCalls, a "$set") is
// validated and indexed alone by the pass, as recordExtending indexes the
// member it reads, and the others are validated without an index. A
// session document's messages are read so too (messageTop, gemini_doc.go).

import (
	"bytes"
	"math/bits"
	"unsafe"
)

// geminiTopMax bounds the records read here: a value validated alone
// counts its nesting from itself, one level below the record's own
// object, so a value nested maxNesting-1 deep passes alone and not
// within the record; such a value is at least twice that long.
const geminiTopMax = geminiExtendMax

// recordTop validates raw, a record from its opening brace to its
// closing one, reading its members named by geminiRecordKeys into f (the
// last of a repeated name, as jsFields reads them) and indexing into g.ix
// the one of them that is an object or an array. ok is false, and f and
// g.ix hold anything, for a record it does not read as validValueIx and
// jsFields would (invalid JSON, NaN or Infinity, an escaped key, two
// such values to index, a record too long): the caller reads it whole.
func (g *geminiReader) recordTop(raw []byte, f *geminiFields) (ok bool) {
	n := len(raw)
	if n < 2 || n >= geminiTopMax || raw[0] != '{' || raw[n-1] != '}' {
		return false
	}
	return g.topMembers(raw, f) == n
}

// topMembers validates the object at b[0] as recordTop does, and returns
// its end (past its closing brace), or -1 for an object it does not read
// (as recordTop) or that b cuts short; a member named by
// geminiRecordKeys is read into f, and indexed into g.ix
// when it is the one of them that is an object or an array. A value is
// validated alone, its nesting counted from itself: the caller tells an
// object of geminiTopMax bytes or more.
//
// The object's own members are walked here, the values below them by
// validUnread: one loop over every level held the member being read,
// where its value starts, the index's state and the indentation word
// live across the walk of a value's members, and spilled them.
func (g *geminiReader) topMembers(b []byte, f *geminiFields) int {
	n := len(b)
	if n < 2 || b[0] != '{' {
		return -1
	}
	var (
		k       int  // the member being read: its key's index in geminiRecordKeys, or -1
		vs      int  // where its value starts
		indexed bool // a value was indexed into g.ix
		i, end  int
		c       byte
		// sep is the white space before the object's first member and
		// its key's quote, when 8 bytes or fewer, as a word: sepMask
		// its bytes, sepLen the white space's. JSON.stringify indents
		// every member of one object alike ("\n" and six spaces, a
		// session document's message's), so the white space after a
		// comma there is told by one compare, not a call to
		// skipBlankRun. A compact record has none: sepMask 0 and sep
		// 1 match no word.
		sep, sepMask uint64 = 1, 0
		sepLen       int
	)
	if i = 1; b[1] <= ' ' {
		i = skipBlankRun(b, 1)
		if l := i - 1; l < 8 && i < n && b[i] == '"' && n >= 9 {
			sepLen, sepMask = l, 1<<(8*l+8)-1 // 0 - 1 for 7: every byte
			sep = word(b, 1) & sepMask
		}
	}
	if i < n && b[i] == '}' {
		g.ix.reset(b) // {}
		return i + 1
	}

key: // a member's key at b[i]
	// A key spelled as geminiTopSpellings holds it, its colon just
	// after it, is told by its two words: one look-up where the stop
	// scan, geminiTopKey's compares and the colon's test took ~60
	// instructions (a record's own keys are the Gemini CLI's own, one
	// of a dozen names).
	if i+16 <= n {
		w0, w1 := word(b, i), word(b, i+8)
		if e := &geminiTopSpellings[(w0&(1<<40-1))*geminiTopMul>>60]; w0&e.mask[0] == e.word[0] && w1&e.mask[1] == e.word[1] {
			k, i = int(e.k), i+int(e.n)
			goto colon
		}
	}
	if i >= n || b[i] != '"' {
		return -1
	}
	// A key that ends within its first 16 bytes with no escape is told
	// by its words' stops (stopMask: a valid string's first stop is its
	// closing quote), as the validating pass tells it; any other by
	// validString, and one with an escape is read whole by the caller.
	end = -1
	if q := i + 1; q+16 <= n {
		if m := stopMask(word(b, q)); m != 0 {
			q += bits.TrailingZeros64(m) / 8
		} else if m := stopMask(word(b, q+8)); m != 0 {
			q += 8 + bits.TrailingZeros64(m)/8
		}
		if b[q] == '"' {
			end = q + 1
		}
	}
	if end < 0 {
		var esc bool
		if end, esc = validString(b, i); end < 0 || esc {
			return -1
		}
	}
	// b[i+1:end-1], with no bounds tests: the key was just read within
	// b, its quotes at i and end-1.
	k = geminiTopKey(unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i+1)), end-i-2))
	// The colon, most often just after the key's quote: one test.
	if i = end; i >= n || b[i] != ':' {
		if i = skipSpace(b, i); i >= n || b[i] != ':' {
			return -1
		}
	}
	i++
colon: // past the key's colon
	if i < n && b[i] <= ' ' {
		i = skipSpace(b, i)
	}
	if vs = i; i >= n {
		return -1
	}
	switch c = b[i]; {
	case c == '"':
		// A string of under 32 bytes is told by its words' first stop,
		// a quote, as the pass tells it: a message's time (24 bytes)
		// went to validString, which read its first word again and
		// called stringClose.
		if q := i + 1; q+16 <= n {
			m := stopMask(word(b, q))
			if m == 0 {
				q += 8
				if m = stopMask(word(b, q)); m == 0 && q+24 <= n {
					q += 8
					if m = stopMask(word(b, q)); m == 0 {
						q += 8
						m = stopMask(word(b, q))
					}
				}
			}
			if m != 0 {
				if q += bits.TrailingZeros64(m) / 8; b[q] == '"' {
					i = q + 1
					break
				}
			}
		}
		if i, _ = validString(b, i); i < 0 {
			return -1
		}
	case k >= 0 && (c == '{' || c == '['):
		// A value the reader reads the members or elements of.
		if indexed {
			return -1
		}
		indexed = true
		if i = g.ix.pass(b, i); i < 0 || g.ix.nonFinite {
			return -1
		}
	default:
		if i = validUnread(b, i); i < 0 {
			return -1
		}
	}
	if k >= 0 {
		// b[vs:i], its three words set with no bounds check and none
		// of unsafe.Slice's tests: the value was just read within b,
		// and is not empty (as jsFields sets a noted one).
		*(*sliceHeader)(unsafe.Pointer(&f[k])) = sliceHeader{unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), vs), i - vs, i - vs}
	}
	if i >= n {
		return -1
	}
	// The byte after the value, most often its comma or the closing
	// brace: one load; white space before it to skipSpace, the byte
	// loaded again.
	if c = b[i]; c <= ' ' {
		if i = skipSpace(b, i); i >= n {
			return -1
		}
		c = b[i]
	}
	if c == ',' {
		if i++; i < n && b[i] <= ' ' {
			// A session document's indentation, before each member:
			// the object's own members' as its first's.
			if i+8 <= n && word(b, i)&sepMask == sep {
				i += sepLen
				goto key
			}
			i = skipBlankRun(b, i)
		}
		goto key
	}
	if c != '}' {
		return -1
	}
	if !indexed {
		g.ix.reset(b) // nothing of b indexed: not the last record's index
	}
	return i + 1
}

// validUnread validates the value at b[i], a record's member's that the
// reader does not read, as the validating pass does (no NaN or
// infinity), and returns its end, or -1. Its containers are walked here
// to geminiValidDepth levels, deeper ones by validValue.
func validUnread(b []byte, i int) int {
	n := len(b)
	var (
		// The containers open, by their closing bytes: d of them.
		closers [geminiValidDepth]byte
		d       int
		end     int
		c       byte
	)
	goto value

key: // a key at b[i]
	if i >= n || b[i] != '"' {
		return -1
	}
	// A key that ends within its first 16 bytes with no escape is told
	// by its words' first stop, a quote, as the pass tells it; any other
	// by validString.
	end = -1
	if q := i + 1; q+16 <= n {
		if m := stopMask(word(b, q)); m != 0 {
			q += bits.TrailingZeros64(m) / 8
		} else if m := stopMask(word(b, q+8)); m != 0 {
			q += 8 + bits.TrailingZeros64(m)/8
		}
		if b[q] == '"' {
			end = q + 1
		}
	}
	if end < 0 {
		// One with an escape is refused, as topMembers refuses one of
		// the record's own: the caller reads the record whole.
		var esc bool
		if end, esc = validString(b, i); end < 0 || esc {
			return -1
		}
	}
	// The colon, most often just after the key's quote: one test.
	if i = end; i >= n || b[i] != ':' {
		if i = skipSpace(b, i); i >= n || b[i] != ':' {
			return -1
		}
	}
	if i++; i < n && b[i] <= ' ' {
		i = skipSpace(b, i)
	}

value: // a value at b[i]
	if i >= n {
		return -1
	}
	switch c = b[i]; {
	case c == '"':
		// A string of under 16 bytes is told by its two words' first
		// stop, a quote, as the pass tells it.
		if q := i + 1; q+16 <= n {
			m := stopMask(word(b, q))
			if m == 0 {
				q += 8
				m = stopMask(word(b, q))
			}
			if m != 0 {
				if q += bits.TrailingZeros64(m) / 8; b[q] == '"' {
					i = q + 1
					goto after
				}
			}
		}
		if i, _ = validString(b, i); i < 0 {
			return -1
		}
	case '0' <= c && c <= '9':
		// An integer read here, as the pass reads it; a fraction or an
		// exponent by jsonNumber.
		end = i
		if i++; c != '0' {
			for i < n && '0' <= b[i] && b[i] <= '9' {
				i++
			}
		}
		if i < n && (b[i] == '.' || b[i]|0x20 == 'e') {
			if i = jsonNumber(b, end); i < 0 {
				return -1
			}
		}
	case c == '-':
		if i+1 < n && b[i+1] == 'I' {
			return -1 // -Infinity
		}
		if i = jsonNumber(b, i); i < 0 {
			return -1
		}
	case c == 't':
		if i = literal(b, i, "true"); i < 0 {
			return -1
		}
	case c == 'f':
		if i = literal(b, i, "false"); i < 0 {
			return -1
		}
	case c == 'n':
		if i = literal(b, i, "null"); i < 0 {
			return -1
		}
	case c == '{' || c == '[':
		if d == len(closers) {
			// Deeper than the values walked here: validValue.
			end = validValue(b, i)
			if end < 0 || bytes.Contains(b[i:end], []byte("NaN")) || bytes.Contains(b[i:end], []byte("Infinity")) {
				return -1 // perhaps a token, not in a string
			}
			i = end
			goto after
		}
		cl := byte('}')
		if c == '[' {
			cl = ']'
		}
		if i++; i < n && b[i] <= ' ' {
			i = skipSpace(b, i)
		}
		if i < n && b[i] == cl {
			i++
			goto after
		}
		closers[d] = cl
		d++
		if cl == '}' {
			goto key
		}
		goto value
	default:
		return -1 // NaN, Infinity, or no value
	}

after: // after a value
	if d == 0 {
		return i
	}
	if i >= n {
		return -1
	}
	// The byte after the value, most often its comma or a closer: one
	// load; white space before it to skipSpace, the byte loaded again.
	if c = b[i]; c <= ' ' {
		if i = skipSpace(b, i); i >= n {
			return -1
		}
		c = b[i]
	}
	if c == ',' {
		if i++; i < n && b[i] <= ' ' {
			i = skipBlankRun(b, i)
		}
		if closers[d-1] == '}' {
			goto key
		}
		goto value
	}
	if c != closers[d-1] {
		return -1
	}
	i++
	d--
	goto after
}

// geminiValidDepth is how deep recordTop walks the containers below the
// record's object (a tool call's result parts are three levels down):
// deeper, validValue does.
const geminiValidDepth = 8

// geminiTopSpellings holds the keys a Gemini CLI record's own members
// have (geminiRecordKeys and a message's other members), each spelled
// with its quotes and colon as JSON.stringify writes them, in the slot
// of its first five bytes' hash (geminiTopMul, chosen so that no two
// share a slot: TestGeminiTopSpellings); an empty slot's mask and word
// match no bytes.
var geminiTopSpellings = func() (t [16]geminiTopSpelling) {
	for k := range t {
		t[k].word[0] = 1
	}
	for _, name := range append(geminiRecordKeys.names[:len(geminiRecordKeys.names):len(geminiRecordKeys.names)], "timestamp", "thoughts", "tokens", "model") {
		sp := `"` + name + `":`
		var b [24]byte
		copy(b[:], sp)
		if len(sp) > 16 {
			continue // told by the stop scan
		}
		e := &t[(word(b[:], 0)&(1<<40-1))*geminiTopMul>>60]
		if e.n != 0 {
			continue // a slot taken: told by the stop scan
		}
		e.n, e.k = int32(len(sp)), int32(geminiTopKey(name))
		for j := range sp {
			e.mask[j/8] |= 0xff << (8 * (j % 8))
		}
		e.word = [2]uint64{word(b[:], 0) & e.mask[0], word(b[:], 8) & e.mask[1]}
	}
	return t
}()

// geminiTopMul hashes a key's first five bytes (its quote and four
// more) to its slot in geminiTopSpellings, the product's top four bits.
const geminiTopMul = 0xf0dfb4a5d8a064df

// geminiTopSpelling is a key spelled as topMembers reads it: the bytes
// from its opening quote to its colon, n of them (at most 16), as two
// words and their masks, and its index in geminiRecordKeys (or -1).
type geminiTopSpelling struct {
	word, mask [2]uint64
	n, k       int32
}

// geminiTopKey is the index of key, a key's bytes with no escape, in
// geminiRecordKeys, or -1.
func geminiTopKey(key string) int {
	switch len(key) {
	case 2:
		if key == "id" {
			return 1
		}
	case 4:
		switch key {
		case "type":
			return 6
		case "$set":
			return 2
		}
	case 7:
		if key == "content" {
			return 7
		}
	case 8:
		if key == "messages" {
			return 5
		}
	case 9:
		switch key {
		case "toolCalls":
			return 8
		case "sessionId":
			return 3
		case "$rewindTo":
			return 0
		}
	case 11:
		if key == "projectHash" {
			return 4
		}
	}
	return -1
}
