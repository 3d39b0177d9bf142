package replay

import (
	"bytes"
	"math/bits"
)

// Rollout lines that hold no step, passed over once validated. A quarter
// of a session's bytes are lines the reader takes nothing from, or one
// flag (the bench's log: the event messages repeating the response items
// for the UI, the turn contexts, the user's messages as response items),
// and each was validated and indexed, then walked twice (the line, its
// payload) by recordRaw: here the line is matched against the shape Codex
// writes, {"timestamp": ..., "type": ..., "payload": {...}} with no
// space, and validated without an index, the payload's members read as
// they pass. A line of any other shape, or one whose reading is not
// certain here (an escaped or non-string field recordRaw reads, NaN or
// Infinity, which JSON does not have), goes to recordRaw, which reads it
// (and tells why it cannot) as before: what is passed over here reads
// the same there (TestCodexSkipSame, FuzzCodexSkip).

// codexSkipMax bounds the lines passed over here (and read by
// readItem): a payload's value validated alone counts its nesting from
// itself, two levels below the line's object, so one nested
// maxNesting-2 deep passes alone and not within the line; such a value
// is at least twice that long, and a line of codexSkipMax bytes or fewer
// holds none (the bound was maxNesting/2, which sent a Codex log's
// longest lines, 1 in 130 and 12% of its bytes, to readLine).
const codexSkipMax = 2*(maxNesting-2) - 1

// codexHead opens a rollout line as Codex writes it; codexItemHead and
// codexCompactedHead follow its timestamp in a response item's line and
// in a compacted line, up to the payload's opening brace.
const (
	codexHead          = `{"timestamp":"`
	codexItemHead      = `,"type":"response_item","payload":{`
	codexCompactedHead = `,"type":"compacted","payload":{`
	// codexStampLen is the length of a timestamp's body as Codex
	// writes it, 2026-11-20T11:00:00.100Z.
	codexStampLen = 24
)

// codexSkipItem is what a payload's members say, read as codexItem.read
// reads them: the last type and role, and bad when a type, role, name or
// call_id is neither a string nor null.
type codexSkipItem struct {
	typ, role rawValue
	bad       bool
}

// skipNoStep says raw is a line that holds no step, valid JSON as
// agentRecordIx reads it, of no NaN or Infinity, and that it did what
// recordRaw does with it (an event_msg user_message marks the next step
// Prompt); recs is what recordRaw returns for it. Otherwise it did
// nothing, and recordRaw reads the line: item is then, for a response
// item of another kind or a compacted line, where its timestamp ends
// (readItem), else 0. Either way the timestamp, the line's first member,
// is a valid string when item is not 0 or ok is true.
func (c *codexReader) skipNoStep(raw []byte) (recs []stepRecord, ok bool, item int) {
	const head = codexHead
	n := len(raw)
	if n > codexSkipMax || n < len(head)+2 || raw[n-1] != '}' || string(raw[:len(head)]) != head {
		return nil, false, 0
	}
	// The timestamp's end: its first stop (a quote, a backslash, a
	// control byte), found a word at a time, is its closing quote when
	// it is a valid string of no escape, as every timestamp Codex writes
	// is; any other (an escape, a control byte, a line too short for
	// the words) goes to readLine. Nothing else of it is tested: a
	// string's validity is told by its stops alone.
	i := len(head)
	if i+codexStampLen+1 <= n && stopMask(word(raw, i))|stopMask(word(raw, i+8))|stopMask(word(raw, i+16)) == 0 &&
		byteAt(raw, i+codexStampLen) == '"' {
		// A timestamp of 24 bytes, as Codex writes every one
		// (2026-11-20T11:00:00.100Z): three words of no stop, then
		// its closing quote, with no loop.
		i += codexStampLen
		goto stamped
	}
	for {
		if i+8 > n {
			return nil, false, 0
		}
		if m := stopMask(word(raw, i)); m != 0 {
			i += bits.TrailingZeros64(m) / 8
			break
		}
		i += 8
	}
	if byteAt(raw, i) != '"' {
		return nil, false, 0
	}
stamped:
	i++
	const (
		typeKey = `,"type":"`
		// Each head is compared in parts of at most 16 bytes, which the
		// compiler compares by loads of words in line, where
		// bytes.HasPrefix called memequal.
		event1, event2       = `,"type":"event_m`, `sg","payload":{`
		event                = event1 + event2 // ,"type":"event_msg","payload":{
		turn1, turn2, turn3  = `,"type":"turn_co`, `ntext","payload"`, `:{`
		turn                 = turn1 + turn2 + turn3 // ,"type":"turn_context","payload":{
		response1, response2 = `,"type":"respons`, `e_item","payload`
		response3, response4 = `":{"type":"messa`, `ge","role":"`
		response             = response1 + response2 + response3 + response4 // ,"type":"response_item","payload":{"type":"message","role":"
		itemType             = len(`,"type":"response_item","payload":{"type":"`)
	)
	rest := raw[i:]
	if len(rest) <= len(typeKey) || string(rest[:len(typeKey)]) != typeKey {
		return nil, false, 0
	}
	// The type's first letter, then the payload's type's and role's,
	// tell most lines of steps from these at once.
	switch rest[len(typeKey)] {
	case 'e':
		if len(rest) < len(event) || string(rest[:16]) != event1 || string(rest[16:len(event)]) != event2 {
			return nil, false, 0
		}
		it, ok := codexSkipPayload(&c.ix, raw, i+len(event)-1)
		if !ok {
			return nil, false, 0
		}
		if !it.bad {
			switch {
			case it.typ.Kind() != '"':
			case bytes.IndexByte(it.typ, '\\') >= 0:
				return nil, false, 0 // read by recordRaw: its escape decoded
			case string(it.typ) == `"user_message"`:
				c.q.prompt = true
			}
		}
		return nil, true, 0
	case 't':
		if len(rest) < len(turn) || string(rest[:16]) != turn1 || string(rest[16:32]) != turn2 ||
			string(rest[32:len(turn)]) != turn3 {
			return nil, false, 0
		}
		_, ok := codexSkipPayload(&c.ix, raw, i+len(turn)-1)
		return nil, ok, 0
	case 'r':
		if len(rest) <= len(response) || rest[itemType] != 'm' || rest[len(response)] == 'a' ||
			string(rest[:16]) != response1 || string(rest[16:32]) != response2 ||
			string(rest[32:48]) != response3 || string(rest[48:len(response)]) != response4 {
			// An assistant's message, or an item of another type:
			// read by readItem when the line opens as it should.
			return nil, false, i
		}
		// A message of the user's (or the system's): no step. One of
		// another type or role after all (a key written twice) is read
		// by recordRaw, as is any escape in them.
		it, ok := codexSkipPayload(&c.ix, raw, i+len(`,"type":"response_item","payload":`))
		if !ok || it.bad || string(it.typ) != `"message"` ||
			it.role.Kind() == '"' && (bytes.IndexByte(it.role, '\\') >= 0 || string(it.role) == `"assistant"`) {
			return nil, false, 0
		}
		return c.q.ready(false), true, 0
	case 'c':
		return nil, false, i // perhaps a compacted line: readItem
	}
	return nil, false, 0
}

// codexSkipPayload validates the payload object at raw[i] of line raw,
// which must end the line with its closing brace, and reads its members:
// ok is false when it is not valid (with no space between its tokens),
// holds NaN or Infinity, or a key with an escape. A value that is an
// object or an array is validated by the pass into ix, the line's index,
// which tells NaN and Infinity as it goes: nothing reads that index of a
// line passed over, and readItem and readLine reset it.
func codexSkipPayload(ix *valueIndex, raw []byte, i int) (it codexSkipItem, ok bool) {
	n := len(raw)
	j := i + 1
	if j < n && raw[j] == '}' {
		return it, j+2 == n
	}
	for {
		if j >= n || raw[j] != '"' {
			return it, false
		}
		// A key, and a short string value, told by their words' stops
		// as payloadItem tells them. The key's reading is codexKeyAt's,
		// written out: a shared codexKeyEnd is not inlined, and its call
		// cost Codex 1.15 M (209.03 -> 210.18 M).
		kEnd := -1
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
				return it, false
			}
		}
		if kEnd >= n || raw[kEnd] != ':' {
			return it, false
		}
		var key []byte
		setBytes(&key, raw, j+1, kEnd-1) // kEnd-1 > j: the key's closing quote
		vEnd, v := -1, kEnd+1
		if v+1+shortString <= n && raw[v] == '"' {
			for k, lim := v+1, v+1+shortString; k < lim; k += 8 {
				if m := stopMask(word(raw, k)); m != 0 {
					if k += bits.TrailingZeros64(m) / 8; byteAt(raw, k) == '"' {
						vEnd = k + 1
					}
					break
				}
			}
		}
		if vEnd >= 0 {
		} else if v < n && (raw[v] == '{' || raw[v] == '[') {
			// The pass tells NaN and Infinity as it validates, where
			// two searches read the value again (and took a string
			// holding either for them).
			if vEnd = ix.pass(raw, v); vEnd < 0 || ix.nonFinite {
				return it, false
			}
		} else if vEnd = validValue(raw, v); vEnd < 0 || nonFiniteAt(raw, v, vEnd) {
			return it, false
		}
		var val rawValue
		setValue(&val, raw, kEnd+1, vEnd) // vEnd > kEnd+1: the value's end
		switch string(key) {
		case "type":
			it.typ = val
		case "role":
			it.role = val
		}
		switch string(key) {
		case "type", "role", "name", "call_id":
			if k := val.Kind(); k != '"' && k != 'n' {
				it.bad = true
			}
		}
		if vEnd >= n {
			return it, false
		}
		switch raw[vEnd] {
		case ',':
			j = vEnd + 1
		case '}':
			return it, vEnd+2 == n
		default:
			return it, false
		}
	}
}
