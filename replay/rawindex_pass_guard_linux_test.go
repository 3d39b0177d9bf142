package replay

import (
	"strings"
	"testing"
)

// TestPassAtPageEnd runs the pass over records ending where a page that
// may not be read begins: its words and the bytes after a key's closing
// quote (read with no bounds test, on keyRoom's proof) stay in b. Each
// record is cut at every length, its keys of one to three words and
// past, each spacing, its short strings of every length near the end.
func TestPassAtPageEnd(t *testing.T) {
	g := newGuardPage(t)
	var cases []string
	for n := 0; n <= 30; n++ {
		key := strings.Repeat("k", n)
		for _, sep := range []string{`:`, `: `, ` :`, `:  `} {
			for _, v := range []string{`1`, `"v"`, `{}`, `[1]`, `true`, ``} {
				cases = append(cases, `{"a":1,"`+key+`"`+sep+v+`}`, `{"`+key+`"`+sep+v+`,"b":{"`+key+`"`+sep+v+`}}`)
			}
		}
		cases = append(cases, `{"a":"`+strings.Repeat("s", n+15)+`"}`, `["`+strings.Repeat("s", n+15)+`"]`)
	}
	var ix valueIndex
	for _, c := range cases {
		for end := len(c); end >= 0; end-- {
			b := g.at([]byte(c[:end]))
			if got, want := validValueIx(b, 0, &ix), validValue(b, 0); got != want {
				t.Fatalf("validValueIx(%q) = %d, validValue %d", b, got, want)
			}
		}
	}
}
