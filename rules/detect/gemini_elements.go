package detect

import (
	"strings"
	"unicode/utf8"
)

// checkContentLoop's element patterns, read with JavaScript's meaning of
// \s (Unicode white space and U+FEFF) and `.` (anything but a line
// terminator), as byte scans: a step's message is searched once, with no
// backtracking. The regular expressions they replace are kept in
// gemini_ref_test.go, and FuzzGeminiElements checks they agree.

// jsSpaceAt reports whether s[i:] starts with a JavaScript \s character
// ([\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff])
// and its length. An invalid byte is none.
func jsSpaceAt(s string, i int) (bool, int) {
	if i >= len(s) {
		return false, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return c == ' ' || c >= '\t' && c <= '\r', 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000, r == 0xfeff:
		return true, n
	}
	return false, n
}

func jsSpace(s string, i int) bool { ok, _ := jsSpaceAt(s, i); return ok }

// isGemDivider is the live `^[+-_=*\u2500-\u257F]+$`, where `+-_` is the
// range U+002B..U+005F, which holds digits, upper case letters and most
// punctuation (and `=`); with `*`, U+002A..U+005F.
func isGemDivider(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < '*' || c > '_' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < 0x2500 || r > 0x257f {
			return false
		}
		i += n
	}
	return true
}

// hasGemElement reports whether s holds a table, a list item, a heading or
// a quote, the union of checkContentLoop's
//
//	(^|\n)\s*(\|.*\||[|+-]{3,})   table
//	(^|\n)\s*[*-+]\s               list item ([*-+] is the range *..+: "- " is none)
//	(^|\n)\s*\d+\.\s              numbered list item
//	(^|\n)#+\s                     heading
//	(^|\n)>\s                      quote
//
// \s* can run over line ends: from a line start L it ends at the same q
// as from any line start inside its run, where only q itself can start a
// heading or a quote (the others start with white space), so each run is
// walked once.
//
// Each test is called only when the byte it starts at can begin its
// match (elementStart), and ASCII white space is skipped in line: most
// lines of a message begin none, and the calls cost more than the tests.
func hasGemElement(s string) bool {
	for l := 0; ; {
		if l < len(s) && (s[l] == '#' || s[l] == '>') && headingOrQuoteAt(s, l) {
			return true
		}
		q := l
		for q < len(s) {
			if c := s[q]; c < utf8.RuneSelf {
				if c != ' ' && (c < '\t' || c > '\r') {
					break
				}
				q++
				continue
			}
			ok, n := jsSpaceAt(s, q)
			if !ok {
				break
			}
			q += n
		}
		if q >= len(s) {
			return false // nothing at q, and no line after it
		}
		if c := s[q]; elementStart[c] {
			if q > l && s[q-1] == '\n' && headingOrQuoteAt(s, q) || tableOrItemAt(s, q) {
				return true
			}
		}
		i := strings.IndexByte(s[q:], '\n')
		if i < 0 {
			return false
		}
		l = q + i + 1
	}
}

// elementStart marks the bytes a heading, a quote, a table or a list
// item begins with: # > | + - * and the digits.
var elementStart = func() (t [256]bool) {
	for _, c := range []byte("#>|+-*0123456789") {
		t[c] = true
	}
	return t
}()

// headingOrQuoteAt matches `#+\s` or `>\s` at s[i:].
func headingOrQuoteAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case '#':
		j := i + 1
		for j < len(s) && s[j] == '#' {
			j++
		}
		return jsSpace(s, j)
	case '>':
		return jsSpace(s, i+1)
	}
	return false
}

// tableOrItemAt matches `\|.*\|`, `[|+-]{3,}`, `[*+]\s` or `\d+\.\s` at
// s[i:].
func tableOrItemAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	rule := func(c byte) bool { return c == '|' || c == '+' || c == '-' }
	if i+2 < len(s) && rule(s[i]) && rule(s[i+1]) && rule(s[i+2]) {
		return true
	}
	switch c := s[i]; {
	case c == '|':
		// A second bar before a line terminator: \n, \r, U+2028 or
		// U+2029 (E2 80 A8/A9, whose lead byte is never inside another
		// character).
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '|':
				return true
			case '\n', '\r':
				return false
			case 0xE2:
				if j+2 < len(s) && s[j+1] == 0x80 && (s[j+2] == 0xA8 || s[j+2] == 0xA9) {
					return false
				}
			}
		}
		return false
	case c == '*' || c == '+':
		return jsSpace(s, i+1)
	case c >= '0' && c <= '9':
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j < len(s) && s[j] == '.' && jsSpace(s, j+1)
	}
	return false
}
