package replay

// A tool call's key, the text Gemini CLI's loop detector hashes for it:
// from a parsed call (GeminiToolKey, geminiKey) and from a validated
// record's bytes (geminiKeyRaw, appendJSRaw).

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// GeminiToolKey is the text Gemini CLI's loop detector hashes for a tool
// call (LoopDetectionService.getToolCallKey, 0.61.0): name + ":" +
// JSON.stringify(args), args as JSON.parse read them from the model's
// JSON (args is that JSON text; empty or null is {}, as Turn's
// handlePendingFunctionCall defaults it). The name is trimmed, a blank one
// "generic_tool", as handlePendingFunctionCall names it.
func GeminiToolKey(name string, args []byte) (string, error) {
	v := &jsValue{kind: jsObject}
	if len(strings.TrimSpace(string(args))) > 0 {
		parsed, err := parseJS(args)
		if err != nil {
			return "", err
		}
		if parsed.kind != jsNull && !(parsed.kind == jsBool && !parsed.b) && !(parsed.kind == jsNumber && parsed.num == 0) &&
			!(parsed.kind == jsString && parsed.str == "") {
			v = parsed
		}
	}
	return geminiKey(name, v), nil
}

func geminiKey(name string, args *jsValue) string {
	name = strings.TrimFunc(name, jsSpace)
	if name == "" {
		name = "generic_tool"
	}
	return string(appendJS(append([]byte(name), ':'), args))
}

// jsSpace is JavaScript's white space and line terminators, what
// String.prototype.trim removes (Go's unicode.IsSpace differs on U+0085
// and U+FEFF).
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// geminiKeyRaw is geminiKey on a validated call's args (nil: absent):
// written from its bytes when appendJSRaw can, else through parseJS.
func geminiKeyRaw(ix *valueIndex, name string, args rawValue) string {
	return string(appendGeminiKeyRaw(ix, nil, name, args))
}

// appendGeminiKeyRaw appends geminiKeyRaw's key to dst.
func appendGeminiKeyRaw(ix *valueIndex, dst []byte, name string, args rawValue) []byte {
	name = strings.TrimFunc(name, jsSpace)
	if name == "" {
		name = "generic_tool"
	}
	dst = append(append(dst, name...), ':')
	if !jsTruthyRaw(args) {
		return append(dst, "{}"...)
	}
	if out, ok := appendJSRaw(ix, dst, args, 0); ok {
		return out
	}
	v, _ := parseJS(args) // validated: parses
	return appendJS(dst, v)
}

// appendJSRaw appends a validated value as JSON.stringify(JSON.parse(v))
// writes it, for the usual tool arguments: objects whose keys are
// distinct, hold no escape and are not array indices (so JavaScript keeps
// them in their order, each once), a few levels deep. ok is false for
// any other value (dst then holds a part of it): parseJS reads those.
func appendJSRaw(ix *valueIndex, dst []byte, v rawValue, depth int) (out []byte, ok bool) {
	const maxDepth, maxKeys = 16, 32
	switch v.Kind() {
	case '"':
		body := v[1 : len(v)-1]
		if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			return append(dst, v...), true // JSON.stringify writes it back as it is
		}
		s, _ := jsUnquote(v)
		return appendJSString(dst, s), true
	case '0':
		// Correctly rounded, as JavaScript's; out of range is ±Infinity or 0.
		f, _ := strconv.ParseFloat(string(v), 64)
		return appendJSNumber(dst, f), true
	case 't', 'f':
		return append(dst, v...), true
	case 'n':
		if v[0] != 'n' {
			return dst, false // NaN or an infinity: not reached, validated as JSON
		}
		return append(dst, "null"...), true
	case '[':
		if depth >= maxDepth {
			return dst, false
		}
		dst, ok = append(dst, '['), true
		ix.elems(v, func(i int, el rawValue) bool {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst, ok = appendJSRaw(ix, dst, el, depth+1)
			return ok
		})
		return append(dst, ']'), ok
	case '{':
		if depth >= maxDepth {
			return dst, false
		}
		// The keys met, for the test that each is new: most arguments
		// have a few, held on the stack, where an array of maxKeys
		// (768 bytes) was zeroed at every object.
		var few [4][]byte
		keys := few[:0]
		dst, ok = append(dst, '{'), true
		ix.members(v, func(k []byte, esc bool, val rawValue) bool {
			n := len(keys)
			if esc || n == maxKeys {
				ok = false
				return false
			}
			if _, index := arrayIndex(string(k)); index {
				ok = false
				return false
			}
			for _, seen := range keys {
				if string(seen) == string(k) {
					ok = false
					return false
				}
			}
			keys = append(keys, k)
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(append(dst, '"'), k...), '"', ':')
			dst, ok = appendJSRaw(ix, dst, val, depth+1)
			return ok
		})
		return append(dst, '}'), ok
	}
	return dst, false
}
