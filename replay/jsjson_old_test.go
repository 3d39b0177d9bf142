package replay

// jsParser's string reading before it went by runs (special, utf8.Valid);
// FuzzJSString compares them.

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// stringOld is jsParser.string as it was: a byte at a time.
func (p *jsParser) stringOld() (string, error) {
	p.i++ // "
	var sb strings.Builder
	for {
		if p.i >= len(p.b) {
			return "", p.errorf("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c == '\\':
			if err := p.escape(&sb); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", p.errorf("a control character in a string")
		case c < utf8.RuneSelf:
			j := p.i + 1
			for j < len(p.b) && p.b[j] >= 0x20 && p.b[j] < utf8.RuneSelf && p.b[j] != '"' && p.b[j] != '\\' {
				j++
			}
			sb.Write(p.b[p.i:j])
			p.i = j
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n <= 1 {
				sb.WriteRune(utf8.RuneError)
				p.i += invalidUTF8Len(p.b[p.i:])
				continue
			}
			sb.Write(p.b[p.i : p.i+n])
			p.i += n
		}
	}
}

func FuzzJSString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\nb\ud800"`, "\"\xff\xe0\x80 x\"", "\"a\x01\"", `"unterminated`, "\"\xed\xa0\x80\\u0041\"", `"\ud83d\ude00 é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		po, pn := &jsParser{b: b}, &jsParser{b: b}
		so, eo := po.stringOld()
		sn, en := pn.string()
		if so != sn || (eo == nil) != (en == nil) || eo != nil && eo.Error() != en.Error() || po.i != pn.i {
			t.Fatalf("%q: got %q %v at %d, want %q %v at %d", b, sn, en, pn.i, so, eo, po.i)
		}
	})
}
