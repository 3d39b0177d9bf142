// Package reporttest holds what the tests of every writer share: the
// hostile payloads of issue 23 and the checks an output must pass.
package reporttest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Payloads is the hostile set every writer is tested with: terminal
// sequences (clear screen, OSC 52 clipboard, OSC 8 link), a forged GitHub
// workflow command, spreadsheet formulas, Markdown (backticks, an image,
// a mention), HTML, bidi and zero-width characters, C0/C1 controls, NUL
// and a byte that is not UTF-8.
var Payloads = []string{
	"\x1b[2J",
	"\x1b]52;c;ZXZpbA==\x07",
	"\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\",
	"\n::error file=src/app.go,line=1::forged",
	"##[error]legacy forged",
	"=cmd|' /C calc'!A0",
	"@SUM(1)",
	"+1",
	"-1",
	"a`b``c```d",
	"`lead",
	"trail`",
	"![img](http://x)",
	"@mention",
	"<script>alert(1)</script>",
	"abc\u202edcb",
	"zero\u200bwidth",
	"nul\x00byte",
	"bad\xffutf8",
	"c1\u009bcsi",
	"cr\rover",
	"tab\tin",
}

// TermSafe returns an error if out, text meant for a terminal or a CI
// log, holds a raw control byte (newlines, and tabs when layout is true,
// aside), a bidi, zero-width or other format character, a C1 control,
// invalid UTF-8, or a line that starts (after blanks) with "::" or holds
// "##[", which a GitHub Actions runner would take for a workflow command.
func TermSafe(out string, layout bool) error {
	for i := 0; i < len(out); {
		c := out[i]
		if c < 0x20 || c == 0x7f {
			if !(c == '\n' || (layout && c == '\t')) {
				return fmt.Errorf("raw control byte %#x at %d: %q", c, i, around(out, i))
			}
		}
		r, n := utf8.DecodeRuneInString(out[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Errorf("invalid UTF-8 at %d: %q", i, around(out, i))
		}
		if r >= 0x80 && !unicode.IsPrint(r) && !unicode.Is(unicode.Zs, r) {
			return fmt.Errorf("unprintable %U at %d: %q", r, i, around(out, i))
		}
		i += n
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
			return fmt.Errorf("a line starts with '::': %q", l)
		}
		if strings.Contains(l, "##[") {
			return fmt.Errorf("a line holds the legacy command '##[': %q", l)
		}
	}
	return nil
}

func around(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}

// StripCodeSpans removes every CommonMark code span from a line: what is
// left is what a Markdown renderer reads as Markdown. A backtick run with
// no closing run of the same length is literal text.
func StripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		closeAt := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				closeAt = j + m
				break
			}
			j += m
		}
		if closeAt < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		b.WriteString("CODE")
		i = closeAt
	}
	return b.String()
}
