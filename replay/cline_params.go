package replay

import (
	"slices"
	"strings"
)

// clineParams reads <param>value</param> pairs into a JSON object, params,
// in the order written; a later value of the same param replaces the
// first. The pairs are kept in a slice (a tool has a few params) and the
// object written with appendGoString. It returns the call's two forms,
// action (the tool, a space and params) and canonical, as
// callActionRaw(tool, params) writes them, one after the other: params holds no white space outside
// its strings, so it is its own compact form (the action's), and a value
// is written as appendGoString writes the string params decodes to (a
// valid UTF-8 value, as the decoded text the reader cuts it from always
// is), the canonical form's value: the canonical object is params'
// members, in their names' order (each name once). Both are written in
// text, held until its reset as the message's other strings are.
func clineParams(text *scratchText, tool, body string) (action, canonical string) {
	type pair struct {
		name, val string
		from, to  int // the member "name":"value" as written in params
	}
	var room [8]pair // more params spill to the heap
	pairs := room[:0]
	for {
		i := strings.IndexByte(body, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(body[i:], '>')
		if j < 0 {
			break
		}
		name := body[i+1 : i+j]
		if !isParamName(name) {
			body = body[i+1:]
			continue
		}
		val := body[i+j+1:]
		var k int
		if name == "content" && (tool == "write_to_file" || tool == "new_rule") {
			k = lastIndexClosing(val, name)
		} else {
			k = indexClosing(val, name)
		}
		if k < 0 {
			k = len(val) // a partial value runs to the end
		}
		v, at := strings.TrimSpace(val[:k]), -1
		for n := range pairs {
			if pairs[n].name == name {
				at = n
				break
			}
		}
		if at < 0 {
			pairs = append(pairs, pair{name: name, val: v})
		} else {
			pairs[at].val = v
		}
		if k+len(name)+3 > len(val) { // "</name>"
			break
		}
		body = val[k+len(name)+3:]
	}
	size := 2
	for _, p := range pairs {
		size += len(p.name) + len(p.val) + 6 // quotes, colon, comma; escapes grow it
	}
	b := text.room(2 * (len(tool) + 1 + size))
	b = append(append(b, tool...), ' ', '{')
	for i := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		pairs[i].from = len(b)
		b = appendGoString(b, pairs[i].name, false)
		b = append(b, ':')
		b = appendGoString(b, pairs[i].val, false)
		pairs[i].to = len(b)
	}
	b = append(b, '}')
	cut := len(b)
	b = slices.Grow(b, cut) // the canonical form is as long as the action
	b = append(append(b, tool...), ' ', '{')
	slices.SortFunc(pairs, func(x, y pair) int { return strings.Compare(x.name, y.name) })
	for i, p := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, b[p.from:p.to]...)
	}
	b = append(b, '}')
	all := text.keep(b)
	return all[:cut], all[cut:]
}

// clineForms is clineParams(text, tool, body), or the forms of the same
// tool use read before, from memo (nil: none). tool is a string of its
// own (clineTagOf's); the forms memo keeps are copied out of text, which is
// written over once reset.
func clineForms(memo *callMemo, text *scratchText, tool, body string) (action, canonical string) {
	if memo == nil {
		return clineParams(text, tool, body)
	}
	raw := stringBytes(body)
	if action, canonical, ok := memo.find('x', tool, raw); ok {
		return action, canonical
	}
	action, canonical = clineParams(text, tool, body)
	if len(raw) <= callMemoMax {
		all := action + canonical // a string of its own
		action, canonical = all[:len(action)], all[len(action):]
		memo.keep('x', tool, raw, action, canonical)
	}
	return action, canonical
}

// clineMemoPrefix finds, for a tool use whose body starts body (the text
// after its opening tag), a body memo kept that body starts with and
// closes right after (n, its length): the tool use is that one, with the
// same forms, and ends there. A body memo keeps was cut at the first
// closing tag (indexTag) or ran to the text's end, so it holds no closing
// tag, and none runs across its end (a closing tag's only '<' is its
// first byte): body's first closing tag is at n, where indexTag would
// find it. write_to_file and new_rule are not sought: their bodies may
// hold the closing tag (their content ends at the last </content>). It
// reports false with no memo (nil) or none found.
func clineMemoPrefix(memo *callMemo, tool, closing, body string) (action, canonical string, n int, ok bool) {
	if memo == nil || tool == "write_to_file" || tool == "new_rule" {
		return "", "", 0, false
	}
	for i := range memo.slots {
		sl := &memo.slots[i]
		n := len(sl.raw)
		// Most slots are another tool's, or of a body whose end is not
		// followed by a '<' in this one.
		if sl.typ != 'x' || len(body)-n < len(closing) || body[n] != '<' || sl.name != tool {
			continue
		}
		if body[n:n+len(closing)] == closing && body[:n] == string(sl.raw) {
			return sl.action, sl.canonical, n, true
		}
	}
	return "", "", 0, false
}

func isParamName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// indexClosing is strings.Index(s, "</"+name+">"), the tag not built
// (a param's name is the writer's: one allocation a param).
func indexClosing(s, name string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], "</")
		if i < 0 {
			return -1
		}
		i += from
		if closesName(s[i+2:], name) {
			return i
		}
		from = i + 1
	}
}

// lastIndexClosing is strings.LastIndex(s, "</"+name+">").
func lastIndexClosing(s, name string) int {
	for to := len(s); ; {
		i := strings.LastIndex(s[:to], "</")
		if i < 0 {
			return -1
		}
		if closesName(s[i+2:], name) {
			return i
		}
		to = i // no "</" starts at i-1: s[i] is '<'
	}
}

// closesName says t, what follows a "</", starts with name and ">".
func closesName(t, name string) bool {
	return len(t) > len(name) && t[len(name)] == '>' && t[:len(name)] == name
}
