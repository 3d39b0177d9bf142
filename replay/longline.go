package replay

import (
	"bytes"
	"encoding/json"
)

// A line longer than the read buffer is never held whole: compactor reads
// it chunk by chunk and keeps only the members the turn model reads (see
// wireEvent.fill), top level and under "extras". What remains is a short
// JSON object that the ordinary path (sniffEventType, decodeLine) reads
// as it would have read the whole line. So a multi-MB knowledge-base dump
// costs the read buffer, whatever its length, and parallel readers do not
// multiply it.
//
// A long line is checked for structure (strings, nesting, members) while
// it streams by; the values it skips are not validated.

// MaxFieldBytes bounds one kept value of a long line: the fields the turn
// model reads are short (ids, numbers, actions, room names); a longer one
// makes the line unreadable rather than costing memory.
const MaxFieldBytes = 1 << 20

// keptKeys are the members a compacted line keeps (wireEvent.fill's keys).
var keptKeys = map[string]bool{
	"event_type": true, "episode_id": true, "turn": true, "turn_number": true,
	"agent_action": true, "action": true, "critic_confidence": true,
	"base_confidence": true, "confidence": true, "score": true,
	"location": true, "location_id": true, "location_name": true,
	"from_room_id": true, "from_room": true, "to_room_id": true, "to_room": true,
	"final_score": true, "reason": true, "zork_response": true,
	// the live loop-break system's decisions (live.go)
	"turns_stuck": true, "was_stuck_for": true, "old_score": true, "new_score": true,
	"adjusted_confidence": true, "recent_visits": true,
}

// compactor states, for the object being read (top level or extras).
const (
	cStart    = iota // before the top-level '{'
	cKeyOrEnd        // in an object: a key, ',' or '}'
	cKey             // inside a key string
	cColon           // after a key
	cValue           // before a value
	cInValue         // inside a value (see val*)
	cDone            // after the top-level '}'
	cBroken          // not a JSON object
)

type compactor struct {
	state   int
	inExtra bool // reading the members of the top-level extras object

	key     []byte // the key being read (bounded)
	keyEsc  bool   // the previous key byte was a backslash
	keyLong bool

	// The value being read: its kind ('"', '{' or '[' nesting, or a
	// scalar), whether it is kept, and its string/escape state.
	keep    bool
	nest    int
	inStr   bool
	esc     bool
	scalar  bool
	val     []byte
	tooLong string // a kept field over MaxFieldBytes

	// Kept members by (unescaped) key: a duplicate key keeps its last
	// value, as decodeLine reads it, so a line repeating a kept key cannot
	// grow this beyond one value per key.
	top, extras members
	hasExtras   bool
	first, last byte // first and last non-space bytes of the line
}

func (c *compactor) reset() {
	*c = compactor{key: c.key[:0], val: c.val[:0]}
}

// feed reads the next bytes of the line (line end excluded).
func (c *compactor) feed(b []byte) {
	if t := bytes.TrimRight(b, " \t\r"); len(t) > 0 {
		c.last = t[len(t)-1]
	}
	for i := 0; i < len(b); {
		switch c.state {
		case cStart:
			ch := b[i]
			if ch == ' ' || ch == '\t' || ch == '\r' {
				i++
				continue
			}
			if c.first == 0 && bytes.HasPrefix(b[i:], []byte("\xef\xbb\xbf")) {
				i += 3 // a byte order mark, as trimSpace allows
				continue
			}
			c.first = ch
			if ch != '{' {
				c.state = cBroken
				return
			}
			c.state = cKeyOrEnd
			i++
		case cKeyOrEnd:
			switch ch := b[i]; {
			case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ',':
				i++
			case ch == '"':
				c.state, c.key, c.keyEsc, c.keyLong = cKey, c.key[:0], false, false
				i++
			case ch == '}':
				i++
				if c.inExtra {
					c.inExtra = false
					c.state = cKeyOrEnd
					continue
				}
				c.state = cDone
			default:
				c.state = cBroken
				return
			}
		case cKey:
			for i < len(b) {
				ch := b[i]
				i++
				if c.keyEsc {
					c.keyEsc = false
				} else if ch == '\\' {
					c.keyEsc = true
				} else if ch == '"' {
					c.state = cColon
					break
				}
				if len(c.key) < 256 {
					c.key = append(c.key, ch)
				} else {
					c.keyLong = true
				}
			}
		case cColon:
			switch ch := b[i]; {
			case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n':
				i++
			case ch == ':':
				c.state = cValue
				i++
			default:
				c.state = cBroken
				return
			}
		case cValue:
			ch := b[i]
			if ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' {
				i++
				continue
			}
			key := c.keyName()
			if !c.inExtra && key == "extras" && ch == '{' {
				// Read extras member by member; a later extras object
				// replaces an earlier one, as decodeLine's would.
				c.inExtra, c.hasExtras, c.extras = true, true, nil
				c.state = cKeyOrEnd
				i++
				continue
			}
			c.keep = keptKeys[key]
			c.val = c.val[:0]
			c.nest, c.inStr, c.esc, c.scalar = 0, false, false, false
			switch ch {
			case '"':
				c.inStr = true
			case '{', '[':
				c.nest = 1
			case ',', '}', ']', ':':
				c.state = cBroken
				return
			default:
				c.scalar = true
			}
			c.state = cInValue
			if c.keep {
				c.val = append(c.val, ch)
			}
			i++
		case cInValue:
			i = c.value(b, i)
		case cDone:
			if ch := b[i]; ch != ' ' && ch != '\t' && ch != '\r' {
				c.state = cBroken // bytes after the object
				return
			}
			i++
		case cBroken:
			return
		}
	}
}

// value reads value bytes from b[i:], returning where it stopped.
func (c *compactor) value(b []byte, i int) int {
	start := i
	done := false
	for i < len(b) && !done {
		ch := b[i]
		switch {
		case c.inStr:
			if c.esc {
				c.esc = false
				i++
				continue
			}
			// The bulk of a long line is one string: jump to its closing
			// quote (closingQuote); a chunk ending inside the string
			// carries an odd run of backslashes over as esc.
			j := closingQuote(b, i)
			if j < 0 {
				c.esc = backslashesBefore(b, i, len(b))%2 == 1
				i = len(b)
				continue
			}
			c.inStr = false
			i = j + 1
			done = c.nest == 0
		case c.scalar:
			if ch == ',' || ch == '}' || ch == ']' || ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' {
				done = true // the delimiter is the object's: not consumed
				continue
			}
			i++
		default: // inside an object or array
			switch ch {
			case '"':
				c.inStr = true
			case '{', '[':
				c.nest++
			case '}', ']':
				c.nest--
				done = c.nest == 0
			}
			i++
		}
	}
	if c.keep {
		if len(c.val)+i-start > MaxFieldBytes {
			if c.tooLong == "" {
				c.tooLong = c.keyName()
			}
			c.keep = false
		} else {
			c.val = append(c.val, b[start:i]...)
		}
	}
	if done {
		c.state = cKeyOrEnd
		if c.keep {
			c.member()
		}
	}
	return i
}

func (c *compactor) keyName() string {
	if c.keyLong {
		return ""
	}
	if bytes.IndexByte(c.key, '\\') >= 0 {
		var s string
		if json.Unmarshal(append(append([]byte{'"'}, c.key...), '"'), &s) == nil {
			return s
		}
	}
	return string(c.key)
}

// members are a compacted object's kept members, in first-seen order.
type members []member

type member struct {
	key string
	val []byte
}

func (m *members) set(key string, val []byte) {
	for i := range *m {
		if (*m)[i].key == key {
			(*m)[i].val = append((*m)[i].val[:0], val...)
			return
		}
	}
	*m = append(*m, member{key, append([]byte(nil), val...)})
}

func (m members) appendTo(out []byte) []byte {
	for i, mb := range m {
		if i > 0 {
			out = append(out, ", "...)
		}
		k, _ := json.Marshal(mb.key)
		out = append(append(append(out, k...), ": "...), mb.val...)
	}
	return out
}

// member keeps the value just read under its (unescaped) key.
func (c *compactor) member() {
	if len(c.val) > 0 && c.val[0] != '"' && c.keyName() == "event_type" {
		return // decodeLine ignores an event_type that is no string, even a later one
	}
	if c.inExtra {
		c.extras.set(c.keyName(), c.val)
	} else {
		c.top.set(c.keyName(), c.val)
	}
}

// end returns the compacted line (the members kept so far when the line
// is broken), and ok false when the line is not one JSON object (cut, or
// broken in its structure).
func (c *compactor) end() (line []byte, ok bool) {
	out := c.top.appendTo([]byte{'{'})
	if c.hasExtras {
		if len(c.top) > 0 {
			out = append(out, ", "...)
		}
		out = append(c.extras.appendTo(append(out, `"extras": {`...)), '}')
	}
	return append(out, '}'), c.state == cDone
}
