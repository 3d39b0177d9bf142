package detect

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The signature matchers as they were before verbSet's pair test and
// appendNorm's copy, kept as the reference FuzzSignatureRef holds the
// new ones to (the regular expressions of signature_test.go remain the
// reference of both).

func refVerbAt(s string, i int, verbs []string) int {
	c := s[i] | 0x20
	for _, v := range verbs {
		if v[0] == c {
			return foldLen(s, i, v)
		}
	}
	return 0
}

var (
	refFileVerbs   = []string{"modified", "changed", "updated", "fixed"}
	refActionVerbs = []string{"added", "removed", "fixed", "updated", "changed"}
)

func refMatchSigFile(s string) (file string, end int, ok bool) {
	for i := 0; i < len(s); i++ {
		n := refVerbAt(s, i, refFileVerbs)
		if n == 0 {
			continue
		}
		q := skipReSpace(s, i+n)
		if q == i+n {
			continue
		}
		e := endNonSpace(s, q)
		for k := e - 3; k > q; k-- {
			if s[k] != '.' {
				continue
			}
			if m := extAt(s, k+1); m > 0 {
				return s[q : k+1+m], k + 1 + m, true
			}
		}
	}
	return "", 0, false
}

func refMatchSigAction(s string) (word string, ok bool) {
	for i := 0; i < len(s); i++ {
		n := refVerbAt(s, i, refActionVerbs)
		if n == 0 {
			continue
		}
		q := skipReSpace(s, i+n)
		if q == i+n {
			continue
		}
		if e := endWord(s, q); e > q {
			return s[q:e], true
		}
	}
	return "", false
}

func refAppendNorm(b []byte, s string) []byte {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(b, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// FuzzSignatureRef holds matchSigFile, matchSigAction and appendNorm to
// the references above.
func FuzzSignatureRef(f *testing.F) {
	for _, s := range []string{
		"Fixed auth.ts - updated validation", "MODIFIED  src/a.go CHANGED x", "modified\n\tx.py uPdAtEd\u212a y",
		"fixed", "f", "addeD removed_x", "  Run_Tests ./Pkg  ", "chan ged modif fix.py", "Ünïcode ACTION",
		"\xffFIXED a.js added \xc5\xbf",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		file, end, ok := matchSigFile(s)
		rfile, rend, rok := refMatchSigFile(s)
		if file != rfile || end != rend || ok != rok {
			t.Fatalf("matchSigFile(%q) = %q %d %v, reference %q %d %v", s, file, end, ok, rfile, rend, rok)
		}
		word, ok := matchSigAction(s)
		rword, rok := refMatchSigAction(s)
		if word != rword || ok != rok {
			t.Fatalf("matchSigAction(%q) = %q %v, reference %q %v", s, word, ok, rword, rok)
		}
		if got, want := string(appendNorm([]byte("x|"), s)), string(refAppendNorm([]byte("x|"), s)); got != want {
			t.Fatalf("appendNorm(%q) = %q, reference %q", s, got, want)
		}
	})
}
