package replay

import (
	"bytes"
	"testing"
)

// TestCodexKnownKey holds codexKnownKey to the stops' reading of a key
// and codexFieldOf: every key a payload may hold, each byte of it, its
// quotes and colon changed in turn, cut short, written with an escape,
// followed by a string or another value; a key told is the key read,
// the colon where it is said, the field codexFieldOf's; the keys Codex
// writes are told (those of four letters before a string).
func TestCodexKnownKey(t *testing.T) {
	keys := []string{"type", "role", "name", "call_id", "content", "summary", "arguments",
		"input", "output", "action", "message", "status", "encrypted_content", "id", "x",
		"types", "typ", "call_ids", "argument", "argumentss", "outputs", "input_"}
	told := map[string]bool{"type": true, "role": true, "name": true, "call_id": true,
		"content": true, "summary": true, "arguments": true, "input": true, "output": true,
		"action": true, "message": true, "status": true}
	var lines []string
	for _, k := range keys {
		for _, val := range []string{`"v","z":"a longer value"}`, `5,"z":"a longer value"}`, `[1],"z":"a longer value"}`} {
			whole := `"` + k + `":` + val
			lines = append(lines, whole, `"`+k+`" :`+val, `"\u00`+k+`":`+val)
			for i := range len(k) + 3 {
				b := []byte(whole)
				b[i] ^= 0x20
				lines = append(lines, string(b))
				b[i] ^= 0x20 ^ '\\'
				lines = append(lines, string(b))
			}
		}
	}
	for _, l := range lines {
		raw := []byte(l)
		f, kEnd := codexKnownKey(raw, 0)
		if kEnd < 0 {
			if f != codexOther {
				t.Errorf("%q: field %d with no key told", l, f)
			}
			q := bytes.IndexByte(raw[1:], '"') + 1
			// A key of four letters is told only before a string.
			k := string(raw[1:q])
			if raw[0] == '"' && told[k] && raw[q+1] == ':' && (len(k) != 4 || raw[q+2] == '"') {
				t.Errorf("%q: key %q not told", l, k)
			}
			continue
		}
		end, esc := validString(raw, 0)
		if end != kEnd || esc || raw[kEnd] != ':' {
			t.Errorf("%q: colon told at %d, the key ends at %d (escape %v)", l, kEnd, end, esc)
			continue
		}
		if want := codexFieldOf(raw[1 : kEnd-1]); f != want {
			t.Errorf("%q: field %d, want %d", l, f, want)
		}
	}
}

// codexKnownKey is payloadItem's reading of a key by its words, which
// it writes out (the compiler does not inline a call): it tells the key
// at raw[j], its opening quote, when it is one of codexKeys, j+16 <= len(raw): its field and the index of the
// colon after it; kEnd is -1 for any other key, or one written otherwise
// (an escape, a space; a key of four letters before another value than
// a string). A slot no key holds has a w of zero, which no key's word is
// (its opening quote).
func codexKnownKey(raw []byte, j int) (f codexField, kEnd int) {
	w := word(raw, j)
	e := &codexKeyTable[codexKeyHash(w)]
	if w != e.w || word(raw, j+8)&e.tmask != e.tail {
		return codexOther, -1
	}
	return e.f, j + int(e.colon)
}
