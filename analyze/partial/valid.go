package partial

// A JSON check for the merge's first pass that finds a value's end as it
// checks it: one pass over an episode where finding its end by brackets
// (replay.SkipComposite) and then json.Valid took two, json.Valid's
// scanner going a byte at a time through the state machine.

import "github.com/loopbreak/loopbreak/replay"

// Results of validEnd besides an end.
const (
	notJSON = -1 // not JSON (or nested deeper than maxDepth)
	cutJSON = -2 // b ends inside the value
)

// maxDepth bounds the nesting validEnd follows; deeper is left to
// encoding/json (its own limit is 10,000).
const maxDepth = 1000

// validEnd returns the index after the JSON value starting at b[i], or
// notJSON, or cutJSON. What it accepts encoding/json accepts (RFC 8259's
// grammar; like encoding/json it leaves UTF-8 unchecked); what it refuses
// may still be JSON (nesting past maxDepth), to be told by encoding/json.
func validEnd(b []byte, i int) int {
	var stack []byte // '{' or '[' of the open containers
	var room [64]byte
	stack = room[:0]
	for {
		if i >= len(b) {
			return cutJSON
		}
		switch c := b[i]; {
		case c == '"':
			if i = validStr(b, i); i < 0 {
				return i
			}
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return notJSON
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if i = skipSpace(b, i+1); i >= len(b) {
				return cutJSON
			}
			if b[i] == closer {
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i = validKey(b, i); i < 0 {
					return i
				}
			}
			continue
		case c == 't':
			if i = validLit(b, i, "true"); i < 0 {
				return i
			}
		case c == 'f':
			if i = validLit(b, i, "false"); i < 0 {
				return i
			}
		case c == 'n':
			if i = validLit(b, i, "null"); i < 0 {
				return i
			}
		case c == '-' || '0' <= c && c <= '9':
			if i = validNum(b, i); i < 0 {
				return i
			}
		default:
			return notJSON
		}
		// After a value: close containers, or on to the next value.
		for {
			if len(stack) == 0 {
				return i
			}
			if i = skipSpace(b, i); i >= len(b) {
				return cutJSON
			}
			open := stack[len(stack)-1]
			c := b[i]
			if c == ',' {
				i = skipSpace(b, i+1)
				if open == '{' {
					if i = validKey(b, i); i < 0 {
						return i
					}
				}
				break
			}
			if open == '{' && c == '}' || open == '[' && c == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return notJSON
		}
	}
}

// validKey checks `"key" :` at b[i] and returns where its value starts.
func validKey(b []byte, i int) int {
	if i >= len(b) {
		return cutJSON
	}
	if b[i] != '"' {
		return notJSON
	}
	if i = validStr(b, i); i < 0 {
		return i
	}
	if i = skipSpace(b, i); i >= len(b) {
		return cutJSON
	}
	if b[i] != ':' {
		return notJSON
	}
	return skipSpace(b, i+1)
}

// validStr checks the string at b[i] == '"' and returns the index after it.
func validStr(b []byte, i int) int {
	j := i + 1
	for {
		j = replay.StringStop(b, j)
		if j >= len(b) {
			return cutJSON
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1
		case c < 0x20:
			return notJSON
		}
		// A backslash: its escape.
		if j+1 >= len(b) {
			return cutJSON
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if j+6 > len(b) {
				return cutJSON
			}
			for _, h := range b[j+2 : j+6] {
				if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return notJSON
				}
			}
			j += 6
		default:
			return notJSON
		}
	}
}

func validLit(b []byte, i int, lit string) int {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(b) {
			return cutJSON
		}
		if b[i+k] != lit[k] {
			return notJSON
		}
	}
	return i + len(lit)
}

// validNum checks the number at b[i]; one that b ends in is cut (more
// digits may follow).
func validNum(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return cutJSON
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return notJSON
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			if j >= len(b) {
				return cutJSON
			}
			return notJSON
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			if j >= len(b) {
				return cutJSON
			}
			return notJSON
		}
		i = j
	}
	if i >= len(b) {
		return cutJSON
	}
	return i
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
