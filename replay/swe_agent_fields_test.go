package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestSWEAgentFields holds sweAgentReader.fields, which reads the noted
// members of a step in line, to members' walk of them (the reading it
// stands for): the same action and observation for steps whose keys
// are escaped, repeated, not ASCII or not UTF-8, nested, or near the
// names, compact and pretty-printed.
func TestSWEAgentFields(t *testing.T) {
	steps := []string{
		`{"action": "ls", "observation": "a"}`,
		`{"observation": "o", "action": "a", "thought": "t"}`,
		`{"\u0061ction": "esc", "observ\u0061tion": "esc o"}`,
		`{"action": "first", "action": "last", "observation": 1, "observation": "o2"}`,
		`{"actio": "x", "actions": "y", "Action": "z", "observation ": "w", "": "e"}`,
		`{"q": {"action": "nested", "observation": "n"}, "action": [1, {"action": "deep"}]}`,
		"{\"act\xffion\": \"bad\", \"action\": null, \"\xe9\": 1, \"acti\u00f3n\": 2}",
		"{\"\xff\": \"bad key\", \"observation\": \"o\\n\", \"action\": \"a\\\"b\"}",
		`{"action\u0000": "nul", "action\"": "quote", "\\action": "bs"}`,
		`{"thought": "` + string(bytes.Repeat([]byte("t"), 200)) + `", "action": {"k": "` + string(bytes.Repeat([]byte("v"), 100)) + `"}}`,
		`{}`, `{"a": {}}`,
	}
	for _, step := range steps {
		for _, doc := range []string{step, sweIndented(t, step)} {
			var r sweAgentReader
			js := newJSONStream(bufio.NewReader(bytes.NewReader([]byte(doc))), 0)
			raw, _, err := js.valueIx(&r.ix)
			if err != nil {
				t.Fatalf("%q: %v", doc, err)
			}
			var wa, wo rawValue
			r.ix.members(raw, func(k []byte, esc bool, val rawValue) bool {
				switch string(keyBytes(k, esc)) {
				case "action":
					wa = val
				case "observation":
					wo = val
				}
				return true
			})
			ga, gobs := r.fields(raw)
			if string(ga) != string(wa) || (ga == nil) != (wa == nil) || string(gobs) != string(wo) || (gobs == nil) != (wo == nil) {
				t.Errorf("%q: action %q observation %q, want %q and %q", doc, ga, gobs, wa, wo)
			}
		}
	}
}

// sweIndented is doc as SWE-agent writes a .traj (json.dumps, indent=2).
func sweIndented(t *testing.T, doc string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(doc), "    ", "  "); err != nil {
		t.Fatalf("%q: %v", doc, err)
	}
	return b.String()
}

// TestSWEAgentStepText holds a step's action and output, views of the
// element or of the reader's two scratch buffers (textIn), to Str's
// copies: strings with escapes, \u escapes and surrogates, bytes that
// are not UTF-8, and white space around the action, each unescaped
// while the other is held.
func TestSWEAgentStepText(t *testing.T) {
	texts := []string{`"ls"`, `" ls -la \n"`, `"find_file \"calc.py\""`, `"a\u00e9\ud83d\ude00b\ud800"`, "\"caf\xc3\xa9 \xff\\t\"",
		`"\\\/\b\f\r"`, "\"caf\xc3\xa9 \\n \xe6\x97\xa5\xe6\x9c\xac \\t \xf0\x9f\x98\x80\"", `""`, `"  "`, `"edit 2:2\n    if b == 0:\n        raise ValueError(\"divide by zero\")\nend_of_edit"`}
	var r sweAgentReader
	for _, act := range texts {
		for _, obs := range texts {
			doc := `{"action": ` + act + `, "observation": ` + obs + `}`
			js := newJSONStream(bufio.NewReader(bytes.NewReader([]byte(doc))), 0)
			raw, _, err := js.valueIx(&r.ix)
			if err != nil {
				t.Fatalf("%q: %v", doc, err)
			}
			recs, reason := r.step(raw)
			if reason != "" {
				t.Fatalf("%q: %s", doc, reason)
			}
			wa, _ := rawValue(act).Str()
			wo, _ := rawValue(obs).Str()
			if got := recs[0]; got.action != strings.TrimSpace(wa) || got.canonical != got.action || got.output != wo {
				t.Errorf("%q: action %q output %q, want %q and %q", doc, got.action, got.output, strings.TrimSpace(wa), wo)
			}
		}
	}
}
