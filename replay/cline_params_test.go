package replay

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// clineParamsOld is clineParams as it was (a map of the values, a
// Builder, jsonString a string), the reference FuzzClineParams holds it to.
// It reads <param>value</param> pairs into a JSON object, in the
// order written; a later value of the same param replaces the first.
func clineParamsOld(tool, body string) []byte {
	var keys []string
	vals := map[string]string{}
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
		closing := "</" + name + ">"
		k := strings.Index(val, closing)
		if name == "content" && (tool == "write_to_file" || tool == "new_rule") {
			k = strings.LastIndex(val, closing)
		}
		if k < 0 {
			k = len(val) // a partial value runs to the end
		}
		if _, ok := vals[name]; !ok {
			keys = append(keys, name)
		}
		vals[name] = strings.TrimSpace(val[:k])
		if k+len(closing) > len(val) {
			break
		}
		body = val[k+len(closing):]
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.WriteString(jsonString(vals[k]))
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// FuzzClineParams holds clineParams to clineParamsOld byte for byte, and
// the call's forms it writes to callActionRaw's from the params (the
// reader's way before) and to callAction's (encoding/json), for a valid
// UTF-8 body: the decoded text the reader cuts it from is one.
func FuzzClineParams(f *testing.F) {
	f.Add("write_to_file", "<path>a.go</path>\n<content>x</content>y</content>")
	f.Add("read_file", "<path> a </path><path>b</path><line_1>\"é\\</line_1><x>")
	f.Add("new_rule", "<content>\x00\xff</content")
	f.Add("execute_command", "<a>1</a><b>2</b><c>3</c><d>4</d><e>5</e><f>6</f><g>7</g><h>8</h><i>9</i><a>0</a>")
	f.Add("replace_in_file", "<path>x</path><diff>\n\t<a>\u2028&</diff><zz>\r\n</zz><a_1>\ufffd</a_1><diff>2</diff>")
	f.Add("attempt_completion", "")
	f.Fuzz(func(t *testing.T, tool, body string) {
		action, canonical := clineParams(&scratchText{}, tool, body)
		if !strings.HasPrefix(action, tool+" ") {
			t.Fatalf("clineParams(%q, %q): action %s, not the tool and a space first", tool, body, action)
		}
		got := []byte(action[len(tool)+1:])
		if want := clineParamsOld(tool, body); !bytes.Equal(got, want) {
			t.Fatalf("clineParams(%q, %q) = %s, want %s", tool, body, got, want)
		}
		if !utf8.ValidString(tool) || !utf8.ValidString(body) {
			return
		}
		if a, c := callActionRaw(tool, got); action != a || canonical != c {
			t.Fatalf("clineParams(%q, %q): action %s, canonical %s; callActionRaw %s, %s", tool, body, action, canonical, a, c)
		}
		if a, c := callAction(tool, got); action != a || canonical != c {
			t.Fatalf("clineParams(%q, %q): action %s, canonical %s; callAction %s, %s", tool, body, action, canonical, a, c)
		}
	})
}

// FuzzIndexClosing holds indexClosing and lastIndexClosing to
// strings.Index and strings.LastIndex of the tag they do not build.
func FuzzIndexClosing(f *testing.F) {
	f.Add("a</b></content>x</content>", "content")
	f.Add("<</</a</a>", "a")
	f.Add("</>", "")
	f.Fuzz(func(t *testing.T, s, name string) {
		tag := "</" + name + ">"
		if got, want := indexClosing(s, name), strings.Index(s, tag); got != want {
			t.Fatalf("indexClosing(%q, %q) = %d, want %d", s, name, got, want)
		}
		if got, want := lastIndexClosing(s, name), strings.LastIndex(s, tag); got != want {
			t.Fatalf("lastIndexClosing(%q, %q) = %d, want %d", s, name, got, want)
		}
	})
}
