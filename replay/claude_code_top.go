package replay

// A Claude Code record's top level read as it is validated, as a Gemini
// CLI record's is (gemini_top.go). The validating pass noted each of a
// record's dozen or so members (parentUuid, sessionId, cwd, version,
// timestamp, toolUseResult...), and recordRaw walked them again for the
// six it reads; the records of no step (system, summary,
// file-history-snapshot) were indexed whole for their type alone. Here
// the record's own members are validated one by one, the ones
// claudeCodeTop.member reads handed to it as they pass, and the message,
// the one value read below the top level, walked likewise, its role and
// content kept (claude_code_msg.go) and the content validated and
// indexed alone by the pass; the other values are validated with no
// index.

import (
	"bytes"
	"math/bits"
)

// claudeCodeTopMax bounds the records read here: a message validated
// alone counts its nesting from itself, one level below the record, so a
// message nested maxNesting-1 deep passes alone and not within the
// record; such a record is at least twice that long (geminiTopMax).
const claudeCodeTopMax = 2 * (maxNesting - 1)

// claudeCodeValidDepth is how deep readTop walks the containers below
// the record's object (a toolUseResult's file is two levels down):
// deeper, validValue does.
const claudeCodeValidDepth = 8

// readTop validates raw, a record from its opening brace to its closing
// one, handing each member claudeCodeTop.member reads to t (in the
// record's order: the last of a repeated name is the one kept), keeping
// the last message object's role and content in c.msg and indexing its
// content into c.ix (c.ix is reset to raw when no content is indexed).
// ok is false, t, c.msg and c.ix then holding anything, for a record it
// does not read as agentRecordIx and the noted members' loop would
// (invalid JSON, NaN or Infinity, an escaped key, white space around the
// record, a record of claudeCodeTopMax bytes or more), or whose message
// it leaves to that reading (a role that is not a string, a content that
// is no string, array or object, a second content array or object, more
// than claudeCodeMsgReads of them): the caller reads it whole. c.hintAt
// is prefetchUUID(b)'s (recordRaw calls it first), or where no value of
// b starts (-1, or a zero reader's 0): the uuid string there is taken as
// the hex digits prefetchUUID parsed.
func (c *claudeCodeReader) readTop(b []byte, t *claudeCodeTop) (ok bool) {
	n := len(b)
	// b's capacity its length (its capacity the same value as n): the
	// slices of b taken need no third bound held through the walk,
	// where the registers are short (a key's stopMask needs three).
	b = b[:n:n]
	if n < 2 || n >= claudeCodeTopMax || b[0] != '{' || b[n-1] != '}' {
		return false
	}
	var (
		// The containers open below the record, by their closing
		// bytes: d of them.
		closers [claudeCodeValidDepth]byte
		d       int
		// key is the record's member being read, when member reads
		// it: where its value starts in b shifted 32 bits, its name's
		// start shifted 8 bits, the name's length below (one
		// register, where a string and an int are three), 0 when none
		// is. b is shorter than 1<<24 bytes (claudeCodeTopMax).
		key     int
		i, j, k int
		end     int
		ch      byte
		// from is where the run being taken starts, -1 when none is,
		// runFirst until the first member's value is read; the members
		// read it holds are counted in c.runNext.n (claude_code_same.go).
		from = runFirst
	)
	c.topIndexed, c.msg.open = false, false
	if p := &c.parent; p.set && n > 52 && word(b, 0) == parentHead0 && word(b, 7) == parentHead1 &&
		word(b, 15) == p.w[0] && word(b, 23) == p.w[1] && word(b, 31) == p.w[2] && word(b, 39) == p.w[3] &&
		word(b, 43) == p.w[4] && byteAt(b, 51) == '"' {
		// A record whose parentUuid is the last uuid taken as hinted
		// (claudeCodeParent): its first member is valid, and not read.
		i = 52
		goto after
	}
	if i = skipSpace(b, 1); i < n && b[i] == '}' {
		c.ix.reset(b)
		return i+1 == n // {}
	}

key: // a key at b[i], of the record's object when d == 0
	if uint(i) >= uint(n) || b[i] != '"' {
		return false
	}
	// A key is told by its words' first stop (stopMask: a valid
	// string's first stop is its closing quote; one with an escape is
	// read whole by the caller, one with a control byte is not valid),
	// and its colon and value's first byte next to it, as the
	// validating pass tells them. With no call here (a longer key went
	// to validString), the walk's state is not stored to the stack at
	// every key for the call's sake.
	if k = i + 1; k+16 <= n {
		// Most keys end within two words.
		if m := stopMask(word(b, k)); m != 0 {
			k += bits.TrailingZeros64(m) / 8
			goto keyStop
		} else if m := stopMask(word(b, k+8)); m != 0 {
			k += 8 + bits.TrailingZeros64(m)/8
			goto keyStop
		}
		k += 16
	}
	for ; k+8 <= n; k += 8 {
		if m := stopMask(word(b, k)); m != 0 {
			k += bits.TrailingZeros64(m) / 8
			goto keyStop
		}
	}
	for k < n && b[k] != '"' && b[k] != '\\' && b[k] >= ' ' {
		k++ // the record's last bytes, fewer than a word
	}
	if k >= n {
		return false
	}
keyStop: // the key's first stop at b[k], k < n
	if byteAt(b, k) != '"' {
		return false
	}
	if end = k + 1; end+1 < n && byteAt(b, end) == ':' && byteAt(b, end+1) > ' ' {
		j = end + 1
		goto member
	}
	// The colon after the key ending at b[end-1], with space about it.
	j = end
	if j < n && b[j] != ':' {
		j = skipSpace(b, j)
	}
	if j >= n || b[j] != ':' {
		return false
	}
	if j++; j < n && b[j] <= ' ' {
		j = skipSpace(b, j)
	}
member: // the key ends at b[end-1], its value starts at b[j]
	if d == 0 {
		// The names member reads, told by their lengths first
		// (claudeCodeTopLens), as recordRaw's loop over noted members.
		key = 0
		if kn := uint(end - i - 2); kn < 64 && claudeCodeTopLens>>kn&1 != 0 {
			key = j<<32 | (i+1)<<8 | int(kn)
			if from >= 0 {
				// The run being taken: ended here, or holding key.
				if isRunEnd(b[i+1 : end-1]) {
					if i-from >= claudeCodeRunMin {
						c.run.bytes = append(c.run.bytes[:0], b[from:i]...)
						c.run.reads, c.run.n = c.runNext.reads, c.runNext.n
					}
					from = -1
				} else if nr := c.runNext.n; nr < claudeCodeRunReads {
					r := &c.runNext.reads[nr]
					r.key, r.keyEnd, r.val = int32(i+1-from), int32(end-1-from), int32(j-from)
					c.runNext.n++
				} else {
					from = -1 // too many to keep
				}
			}
			if j == c.hintAt {
				// The uuid prefetchUUID parsed (the hint stands after
				// `"uuid":"`, so key is "uuid"): 36 hex digits and
				// dashes, a string's body with no escape, read as
				// member reads it once its closing quote is found next.
				if k := j + 37; k < n && byteAt(b, k) == '"' {
					t.uuid, t.uuidVal = bytesString(b[j+1:k]), b[j:k+1]
					c.parent.keep(b[j+1 : k])
					key, i = 0, k+1
					if i+40 == n && from == -1 && word(b, i) == timestampHead0 && word(b, i+6) == timestampHead1 &&
						stopMask(word(b, i+14))|stopMask(word(b, i+22))|stopMask(word(b, i+30)) == 0 && byteAt(b, i+38) == '"' {
						// The record ends with a timestamp of 24 bytes,
						// as Claude Code writes it after the uuid: a
						// string with no stop before its closing quote,
						// the record's '}' after it.
						i = n - 1
					}
					goto after
				}
			}
			if j < n && b[j] == '{' && string(b[i+1:end-1]) == "message" {
				goto message
			}
		}
	} else if d == 1 && c.msg.open {
		// A member of the message: its role and content read.
		m := &c.msg
		if m.keys++; m.keys == 2 {
			// The second key: the message's head when its bytes are
			// the last head's, valid as they were, its role read
			// where it stood (a content read before it is read again
			// after it: the head ends at a content's key).
			if hl := len(m.head); hl > 0 && i+hl <= n && string(b[i:i+hl]) == string(m.head) {
				if r := m.headRole; r[0] >= 0 && !m.add(false, i+int(r[0]), i+int(r[1])) {
					return false
				}
				// It ends after a comma, or in the white space after
				// one: the walk's key is after that white space.
				if i += hl; i < n && b[i] <= ' ' {
					i = skipSpace(b, i)
				}
				goto key
			}
			m.hfrom, m.hrole = i, [2]int32{-1, -1}
		}
		switch msgKey(b, i, end) {
		case "role":
			// A role of another type than a string's: read whole.
			if j >= n || b[j] != '"' {
				return false
			}
			if i, _ = validString(b, j); i < 0 || !m.add(false, j, i) {
				return false
			}
			if m.hfrom >= 0 {
				if m.hrole[0] >= 0 {
					m.hfrom = -1 // a second role: no head kept
				} else {
					m.hrole = [2]int32{int32(j - m.hfrom), int32(i - m.hfrom)}
				}
			}
			m.from = -1
			goto after
		case "content":
			goto content
		}
	}
	i = j

value: // a value at b[i]
	if uint(i) >= uint(n) {
		return false
	}
	switch ch = b[i]; {
	case ch == '"':
		// A string of under shortString bytes (uuids, timestamps) is
		// told by its words' first stop, a quote, as the pass tells it.
		if k := i + 1; k+shortString <= n {
			for lim := k + shortString; k < lim; k += 8 {
				if m := stopMask(word(b, k)); m != 0 {
					if k += bits.TrailingZeros64(m) / 8; byteAt(b, k) == '"' {
						i = k + 1
						goto after
					}
					break
				}
			}
		}
		if i, _ = validString(b, i); i < 0 {
			return false
		}
	case '0' <= ch && ch <= '9':
		// An integer read here, as the pass reads it; a fraction or an
		// exponent by jsonNumber.
		end = i
		if i++; ch != '0' {
			for i < n && '0' <= b[i] && b[i] <= '9' {
				i++
			}
		}
		if i < n && (b[i] == '.' || b[i]|0x20 == 'e') {
			if i = jsonNumber(b, end); i < 0 {
				return false
			}
		}
	case ch == '-':
		if i+1 < n && b[i+1] == 'I' {
			return false // -Infinity
		}
		if i = jsonNumber(b, i); i < 0 {
			return false
		}
	case ch == 't':
		if i+4 > n || string(b[i:i+4]) != "true" {
			return false
		}
		i += 4
	case ch == 'f':
		if i+5 > n || string(b[i:i+5]) != "false" {
			return false
		}
		i += 5
	case ch == 'n':
		if i+4 > n || string(b[i:i+4]) != "null" {
			return false
		}
		i += 4
	case ch == '{' || ch == '[':
		if d == len(closers) {
			// Deeper than the values walked here: validValue.
			end = validValue(b, i)
			if end < 0 || bytes.Contains(b[i:end], []byte("NaN")) || bytes.Contains(b[i:end], []byte("Infinity")) {
				return false // perhaps a token, not in a string
			}
			i = end
			goto after
		}
		cl := byte('}')
		if ch == '[' {
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
		return false // NaN, Infinity, or no value
	}

after: // after a value
	if d == 0 {
		if key != 0 {
			name, vs := b[key>>8&0xffffff:key>>8&0xffffff+key&0xff], key>>32
			t.member(name, b[vs:i])
			if from >= 0 {
				r := &c.runNext.reads[c.runNext.n-1]
				r.end = int32(i - from)
				if r.field, r.on = runField(name, b[vs:i]); r.field == runSkip {
					c.runNext.n-- // not read again: not kept
				}
			}
		}
		if from == runFirst {
			// The first member read: the run after it, when it holds
			// the last run's bytes, valid as they were.
			from = -1
			r := &c.run
			if ln := len(r.bytes); ln > 0 && i+ln <= n && word(b, i) == word(r.bytes, 0) && string(b[i:i+ln]) == string(r.bytes) {
				r.replay(t, b, i)
				i += ln
				goto typed
			}
			from, c.runNext.n = i, 0
		}
	}
	if uint(i) >= uint(n) {
		return false
	}
	if ch = b[i]; ch <= ' ' {
		if i = skipSpace(b, i); i >= n {
			return false
		}
		ch = b[i]
	}
	if ch == ',' {
		if i++; uint(i) < uint(n) && b[i] <= ' ' {
			i = skipSpace(b, i)
		}
		if d == 0 || closers[d-1] == '}' {
			goto key
		}
		goto value
	}
	if d == 0 {
		if ch != '}' || i+1 != n {
			return false
		}
		if !c.topIndexed {
			c.ix.reset(b) // nothing of b indexed: not the last record's index
		}
		return true
	}
	if ch != closers[d-1] {
		return false
	}
	i++
	if d--; d == 0 && c.msg.open {
		c.msg.close(b, i)
		goto closed
	}
	goto after

message: // the message's object opening at b[j], key its name and j
	// The message, whose role and content the reader reads, walked here
	// as the record is (claude_code_msg.go), its content indexed. A
	// message written again is read again: the last is the one read.
	c.msg.start()
	if i = j + 1; i < n && b[i] <= ' ' {
		i = skipSpace(b, i)
	}
	if i < n && b[i] == '}' {
		c.msg.open = false
		i++
		goto after
	}
	closers[0] = '}'
	d = 1
	goto key

content: // the message's content: its key at b[i] (read when a head is taken), its value at b[j]
	{
		m := &c.msg
		if m.hfrom >= 0 && i-m.hfrom >= claudeCodeHeadMin {
			// The head taken: from the second key to this one.
			m.head = append(m.head[:0], b[m.hfrom:i]...)
			m.headRole = m.hrole
		}
		m.hfrom = -1
		switch {
		case j < n && b[j] == '"':
			i, _ = validString(b, j)
		case j < n && (b[j] == '[' || b[j] == '{') && !m.passed:
			m.passed, c.topIndexed = true, true
			if i = c.ix.pass(b, j); c.ix.nonFinite {
				return false
			}
		default:
			return false // another type, or a second content indexed: read whole
		}
		if i < 0 || !m.add(true, j, i) {
			return false
		}
		if tl := len(m.tail); tl > 0 && i+tl <= n && word(b, i) == word(m.tail, 0) && string(b[i:i+tl]) == string(m.tail) {
			// The message's tail: valid as it was, the message
			// closed at its end. (A tail is 16 bytes or more: its
			// first word tells most others with no call.)
			i += tl
			d = 0
			m.open = false
			goto closed
		}
		m.from = i
		goto after
	}

closed: // the message's object, the value of key at b[key>>32:i], closed
	if from != -1 {
		goto after // the record's first member: a run may start after it
	}
	// The message read as member reads an object, and the member Claude
	// Code writes after it (claude_code_typed.go): an assistant's
	// requestId, a string passed as the walk passes a short one, or a
	// user's toolUseResult's key.
	t.msg, t.hasMessage, t.typeAtMessage = b[key>>32:i], true, t.typ
	key = 0
	if i+len(requestIDKey)+shortString <= n && word(b, i) == requestIDWords[0] && word(b, i+6) == requestIDWords[1] {
		for k, lim := i+len(requestIDKey), i+len(requestIDKey)+shortString; k < lim; k += 8 {
			if m := stopMask(word(b, k)); m != 0 {
				if k += bits.TrailingZeros64(m) / 8; byteAt(b, k) != '"' {
					break
				}
				if k+2 < n && byteAt(b, k+1) == ',' && byteAt(b, k+2) == '"' {
					i = k + 2
					goto key
				}
				i = k + 1
				goto after
			}
		}
	} else if i+len(toolUseResultKey) < n && word(b, i) == toolUseResultWords[0] && word(b, i+8) == toolUseResultWords[1] &&
		word(b, i+9) == toolUseResultWords[2] {
		if i += len(toolUseResultKey); b[i] <= ' ' {
			i = skipSpace(b, i)
		}
		goto value
	}
	goto after

typed: // a key at b[i] after a run passed over (claude_code_typed.go)
	{
		// The type and the message's opening Claude Code writes after
		// the run: read as the walk reads them, the message's first
		// member too when it is a user's role and content or an
		// assistant's id.
		var tl int // the type's length
		if i+len(assistantOpen) >= n || word(b, i) != assistantWords[0] {
			goto key
		}
		switch w := word(b, i+8); {
		case w == assistantWords[1] && word(b, i+16) == assistantWords[2] && word(b, i+22) == assistantWords[3]:
			tl = len("assistant")
		case w == userWords[1] && word(b, i+16) == userWords[2] && word(b, i+17) == userWords[3]:
			tl = len("user")
		default:
			goto key
		}
		t.typ = bytesString(b[i+typedType : i+typedType+tl])
		j = i + typedType + tl + typedMessage // the message's '{'
		key = j<<32 | (i+typedType+tl+len(`","`))<<8 | len("message")
		if i = j + 1; i+len(userRoleContent) < n && word(b, i) == roleWords[0] && word(b, i+8) == roleWords[1] && word(b, i+16) == roleWords[2] {
			// {"role":"user","content": as the walk reads it: the role
			// read, the content's key the message's second.
			c.msg.start()
			closers[0], d = '}', 1
			c.msg.add(false, i+typedRole, i+typedRole+len(`"user"`))
			c.msg.keys, c.msg.hrole = 2, [2]int32{-1, -1}
			j = i + len(userRoleContent) // the content's value (content reads no key)
			if b[j] <= ' ' {
				j = skipSpace(b, j)
			}
			goto content
		}
		if i+len(`"id":"`)+shortString <= n && word(b, i)&idMask == idWord {
			// {"id":"...", a string of under shortString bytes told by
			// its words' first stop, a quote, as the walk tells it.
			for k, lim := i+len(`"id":"`), i+len(`"id":"`)+shortString; k < lim; k += 8 {
				if m := stopMask(word(b, k)); m != 0 {
					if k += bits.TrailingZeros64(m) / 8; byteAt(b, k) != '"' {
						break
					}
					c.msg.start()
					closers[0], d = '}', 1
					c.msg.keys = 1
					if k+2 < n && byteAt(b, k+1) == ',' && byteAt(b, k+2) == '"' {
						i = k + 2
						goto key
					}
					i = k + 1
					goto after
				}
			}
		}
		goto message
	}
}
