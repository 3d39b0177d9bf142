package replay

import (
	"math/bits"
	"strconv"
)

// Response items read as they are validated. A rollout line of a step
// (a call, its output, the assistant's message, a reasoning, a
// compacted history's summary) was validated and indexed whole, then its
// top level and its payload walked from the members the pass noted,
// though what the reader reads of it are strings (a call's arguments and
// output, each validated again when read as JSON: call, outputJSON) and
// short content arrays. Here a line of the shape Codex writes,
// {"timestamp":"...","type":"response_item"|"compacted","payload":{...}}
// with no space, is validated (its payload's objects and arrays alone
// indexed), the payload's members handed to codexItem.set as they
// pass, as skipNoStep passes over the lines of no step; a line it is not
// certain of (an escaped key, a field of a wrong type, NaN or Infinity,
// another shape) goes to readLine, which reads it (and tells why it
// cannot) as before (TestCodexItemSame, FuzzCodexSkip).

// readItem reads raw, a line skipNoStep found opening with a valid
// timestamp whose closing quote is at raw[i-1], as readLine
// does when it is a response item's or a compacted line, and says
// whether it did; recs is what readLine returns for it.
func (c *codexReader) readItem(raw []byte, i int) (recs []stepRecord, ok bool) {
	rest := raw[i:]
	var p int // the payload's opening brace
	compacted := false
	switch {
	case hasHead(rest, &codexItemWords):
		p = i + len(codexItemHead) - 1
	case hasHead(rest, &codexCompactedWords):
		p, compacted = i+len(codexCompactedHead)-1, true
	default:
		return nil, false
	}
	var it codexItem
	ok, indexed := c.payloadItem(raw, p, &it)
	if !ok {
		return nil, false
	}
	if !indexed {
		// Nothing of raw indexed: the content walked (textOf,
		// oneText) is scanned, not read from the last line's index.
		c.ix.reset(raw)
	}
	if compacted {
		return c.pushReady(stepRecord{info: StepInfo{Kind: StepCondensation}, output: c.text(it.val(codexMessage)), hasText: true}), true
	}
	return c.responseItem(&it), true
}

// headWords are the five words of head, a string of 24 to 40 bytes, that
// hasHead compares: at 0, 8 and 16, and the last two (overlapping).
type headWords struct {
	w [5]uint64
	n int // len(head)
}

var (
	codexItemWords      = wordsOfHead(codexItemHead)
	codexCompactedWords = wordsOfHead(codexCompactedHead)
)

func wordsOfHead(head string) headWords {
	b, n := []byte(head), len(head)
	if n < 24 || n > 40 {
		// Shorter, the words would read past the head; longer, bytes 24
		// to n-16 would go uncompared and hasHead say yes to a line
		// differing there. A programmer's error, found at start.
		panic("replay: a Codex head of " + strconv.Itoa(n) + " bytes, not 24 to 40")
	}
	return headWords{[5]uint64{word(b, 0), word(b, 8), word(b, 16), word(b, n-16), word(b, n-8)}, n}
}

// hasHead says b opens with the head h's words hold, and holds a byte
// after it: five compares of words, where a string compare called
// memequal for the line's every response item.
func hasHead(b []byte, h *headWords) bool {
	n := h.n
	return len(b) > n && word(b, 0) == h.w[0] && word(b, 8) == h.w[1] && word(b, 16) == h.w[2] &&
		word(b, n-16) == h.w[3] && word(b, n-8) == h.w[4]
}

// nonFiniteAt says the value raw[v:end], validated by validValue, is NaN
// or Infinity, which validValue takes as tokens: the only values that
// can be (a string, an object or an array told otherwise is none), where
// every value's first byte was tested.
func nonFiniteAt(raw []byte, v, end int) bool {
	switch raw[v] {
	case 'N', 'I', '-':
		return nonFiniteToken(raw[v:end])
	}
	return false
}

// payloadItem validates the payload object at raw[i] of line raw,
// which must end the line with its closing brace, and reads its members
// into it as codexItem.read does: ok is false when it is not valid (with
// no space between its tokens), holds NaN or Infinity, a key with an
// escape, or a field of a wrong type. Its loop is codexSkipPayload's,
// but for a value that is an object or an array (content, a summary, an
// action), validated by the pass into ix, which tells NaN and Infinity
// as it goes, where validValue and two searches for them read it three
// times; each resets ix, which holds the last one's index then
// (indexed), the others walked with no index.
func (c *codexReader) payloadItem(raw []byte, i int, it *codexItem) (ok, indexed bool) {
	const highBits = 0x8080808080808080
	ix := &c.ix
	c.pre.at, c.hint.at = nil, nil
	n := len(raw)
	j := i + 1
	if j < n && raw[j] == '}' {
		return j+2 == n, false
	}
	for {
		if j >= n || raw[j] != '"' {
			return false, false
		}
		// A key Codex writes is told by its words, compared with those
		// of the one key at their hash's slot in codexKeyTable (as
		// codexKnownKey, the tests' reference, reads them: written out
		// here, where a call was not inlined); any other by codexKeyAt.
		f, kEnd := codexOther, -1
		if j+17 <= n {
			w := word(raw, j)
			if e := &codexKeyTable[codexKeyHash(w)]; w == e.w && word(raw, j+8)&e.tmask == e.tail {
				f, kEnd = e.f, j+int(e.colon)
			}
		}
		if kEnd < 0 {
			if f, kEnd = codexKeyAt(raw, j); kEnd < 0 {
				return false, false
			}
		}
		// A string of under shortString bytes (types, call ids, names)
		// is told by its words' first stop, a quote, as the pass tells
		// it; any other value by validValue, or by the pass. A long
		// field's string (a call's value, an output) is read with no
		// such scan first, whatever its length.
		// Such a string with no byte over 0x7f before its quote is its
		// own text (plain), stored as a view (plainView) with no
		// test of its bytes.
		vEnd, v, plain := -1, kEnd+1, false
		if codexLong(f) && v < n && raw[v] == '"' {
			if f == codexOutput {
				if vEnd = c.preOutput(raw, v); vEnd < 0 {
					return false, false
				}
			} else if vEnd = c.memoString(raw, v); vEnd < 0 {
				// A call's value: as a memo slot's, or validated.
				if vEnd = validValue(raw, v); vEnd < 0 {
					return false, false
				}
			}
		} else {
			if v+1+shortString <= n && raw[v] == '"' {
				var high uint64 // the words before the stop's, ORed
				for k, lim := v+1, v+1+shortString; k < lim; k += 8 {
					x := word(raw, k)
					if m := stopMask(x); m != 0 {
						if k += bits.TrailingZeros64(m) / 8; byteAt(raw, k) == '"' {
							vEnd = k + 1
							// The bytes below the stop: its lowest flag
							// is its byte's high bit.
							plain = (high|x&((m&-m)>>7-1))&highBits == 0
						}
						break
					}
					high |= x
				}
			}
			if vEnd >= 0 {
			} else if v < n && (raw[v] == '{' || raw[v] == '[') {
				if vEnd = ix.pass(raw, v); vEnd < 0 || ix.nonFinite {
					return false, false
				}
				indexed = true
			} else if vEnd = validValue(raw, v); vEnd < 0 || nonFiniteAt(raw, v, vEnd) {
				return false, false
			}
		}
		var val rawValue
		setValue(&val, raw, kEnd+1, vEnd) // vEnd > kEnd+1: the value's end
		// it.set(f, val, plain), written out but for a string not plain
		// (a call was not inlined).
		switch {
		case f < codexType:
			it.vals[f&(codexType-1)] = val
		case plain:
			it.views[f&3] = plainView(val)
		default:
			if !it.set(f, val, false) {
				return false, false // readLine tells why
			}
		}
		if vEnd >= n {
			return false, false
		}
		switch raw[vEnd] {
		case ',':
			j = vEnd + 1
		case '}':
			return vEnd+2 == n, indexed
		default:
			return false, false
		}
	}
}

// codexKeyAt reads the key at raw[j], its opening quote, as payloadItem
// reads a key its words do not tell (codexKeyTable): its field, and the index of
// the colon after it, or -1 when it is not valid, holds an escape or has
// no colon after it. A key that ends within its first 16 bytes with no
// escape (most keys) is told by its words' stops, as the validating pass
// tells it (a valid string's first stop is its closing quote); any other
// by validString.
func codexKeyAt(raw []byte, j int) (f codexField, kEnd int) {
	n := len(raw)
	kEnd = -1
	if k := j + 1; k+16 <= n {
		if m := stopMask(word(raw, k)); m != 0 {
			k += bits.TrailingZeros64(m) / 8
		} else if m := stopMask(word(raw, k+8)); m != 0 {
			k += 8 + bits.TrailingZeros64(m)/8
		}
		if byteAt(raw, k) == '"' {
			kEnd = k + 1
		}
	}
	if kEnd < 0 {
		var esc bool
		if kEnd, esc = validString(raw, j); kEnd < 0 || esc {
			return codexOther, -1
		}
	}
	if kEnd >= n || raw[kEnd] != ':' {
		return codexOther, -1
	}
	var key []byte
	setBytes(&key, raw, j+1, kEnd-1) // kEnd-1 > j: the key's closing quote
	return codexFieldOf(key), kEnd
}
