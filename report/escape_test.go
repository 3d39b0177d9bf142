package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// Payloads is the hostile set every writer is tested with (here and in
// cmd's TestHostileContent): terminal sequences, a forged workflow
// command, spreadsheet formulas, Markdown, HTML, bidi and zero-width
// characters, NUL and a byte that is not UTF-8.
var Payloads = []string{
	"\x1b[2J",                // clear the screen
	"\x1b]52;c;ZXZpbA==\x07", // OSC 52: write the clipboard
	"\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\", // OSC 8: a hyperlink
	"\n::error file=src/app.go,line=1::forged",
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
	"abc\u202edcb", // right-to-left override
	"zero\u200bwidth",
	"nul\x00byte",
	"bad\xffutf8",
	"c1\u009bcsi",
	"cr\rover",
	"tab\tin",
}

// assertTermSafe fails if out has a raw control byte (other than the
// newlines and tabs allowed), a bidi or zero-width character, invalid
// UTF-8, or a line that starts with "::".
func assertTermSafe(t *testing.T, what, out string, allowLayout bool) {
	t.Helper()
	for i := 0; i < len(out); {
		c := out[i]
		if c < 0x20 || c == 0x7f {
			if !(allowLayout && (c == '\n' || c == '\t')) {
				t.Errorf("%s: raw control byte %#x at %d: %q", what, c, i, around(out, i))
				return
			}
		}
		r, n := utf8.DecodeRuneInString(out[i:])
		if r == utf8.RuneError && n == 1 {
			t.Errorf("%s: invalid UTF-8 at %d: %q", what, i, around(out, i))
			return
		}
		if r >= 0x80 && !printable(r) {
			t.Errorf("%s: unprintable %U at %d: %q", what, r, i, around(out, i))
			return
		}
		i += n
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
			t.Errorf("%s: a line starts with '::': %q", what, l)
		}
	}
}

func around(s string, i int) string {
	return s[max(0, i-20):min(len(s), i+20)]
}

func TestTerm(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"café 東京 🙂 naïve", "café 東京 🙂 naïve"}, // ordinary non-ASCII stays
		{"\x1b[2J", `\x1b[2J`},
		{"a\nb", `a\nb`},
		{"a\r\nb", `a\r\nb`},
		{"a\tb", `a\tb`},
		{"nul\x00", `nul\x00`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"bad\xff", `bad\xff`},
		{"\u202eevil", `\u202eevil`},
		{"\u2066\u2069\u200e\u200f\u061c", `\u2066\u2069\u200e\u200f\u061c`},
		{"z\u200b\u200c\u200d\u2060\ufeff", `z\u200b\u200c\u200d\u2060\ufeff`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"tag\U000E0041", `tag\U000e0041`},
		{"nbsp\u00a0ok", "nbsp\u00a0ok"}, // a space, shown as one
		{`back\slash`, `back\slash`},
	} {
		if got := Term(tc.in); got != tc.want {
			t.Errorf("Term(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, p := range Payloads {
		assertTermSafe(t, "Term", Term(p), false)
	}
}

func TestTermWriter(t *testing.T) {
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		w := TermWriter(&b, color)
		w.Write([]byte("head\n\tcol\x1b[1mbold\x1b[0m\n"))
		for _, p := range Payloads {
			w.Write([]byte("  value " + p + "\n"))
		}
		out := b.String()
		if !strings.HasPrefix(out, "head\n\tcol") {
			t.Errorf("layout lost: %q", out)
		}
		if got := strings.Contains(out, "\x1b[1mbold\x1b[0m"); got != color {
			t.Errorf("color %v: SGR kept = %v", color, got)
		}
		// The newline in the forged payload is the report's here (it is
		// written raw): the writer alone cannot tell; Term does that.
		// Everything else must be escaped.
		out = strings.ReplaceAll(out, "\x1b[1m", "")
		out = strings.ReplaceAll(out, "\x1b[0m", "")
		out = strings.ReplaceAll(out, "\n::error", "\n  error")
		assertTermSafe(t, "TermWriter", out, true)
		if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[2J") {
			t.Errorf("an escape sequence passed: %q", out)
		}
	}
}

func TestStderrWriter(t *testing.T) {
	var b bytes.Buffer
	w := StderrWriter(&b)
	for _, p := range Payloads {
		if n, err := w.Write([]byte("loopbreak: " + p + "\n")); err != nil || n != len("loopbreak: "+p+"\n") {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	out := b.String()
	if got := strings.Count(out, "\n"); got != len(Payloads) {
		t.Errorf("%d lines for %d messages:\n%s", got, len(Payloads), out)
	}
	assertTermSafe(t, "StderrWriter", out, true)
	if Unwrap(w) != &b || StderrWriter(w) != w || Unwrap(&b) != &b {
		t.Error("Unwrap or rewrap")
	}
}

func TestCSVCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2025-11-04T09:35:24", "2025-11-04T09:35:24"},
		{"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
		{"@SUM(1)", "'@SUM(1)"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"\t=1", `'\t=1`},
		{"\r=1", `'\r=1`},
		{"a\nb", `a\nb`},
		{"", ""},
	} {
		if got := CSVCell(tc.in); got != tc.want {
			t.Errorf("CSVCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ep-1", "`ep-1`"},
		{"a`b", "``a`b``"},
		{"a`b``c```d", "````a`b``c```d````"},
		{"`lead", "`` `lead ``"},
		{"trail`", "`` trail` ``"},
		{" both ", "`  both  `"},
		{"![img](http://x)", "`![img](http://x)`"},
		{"a\nb", "`a\\nb`"},
		{"", "` `"},
	} {
		got := MarkdownCode(tc.in)
		if got != tc.want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// CommonMark: the span is the fence, the content, the same fence,
		// and the content has no run of backticks as long as the fence.
		fence := got[:strings.IndexFunc(got, func(r rune) bool { return r != '`' })]
		inner := strings.TrimSuffix(strings.TrimPrefix(got, fence), fence)
		if strings.Contains(inner, fence) {
			t.Errorf("MarkdownCode(%q) = %q: the fence occurs inside", tc.in, got)
		}
	}
}

// FuzzTerm: Term's output is always safe and Term is the identity on
// what needs no escaping.
func FuzzTerm(f *testing.F) {
	for _, p := range Payloads {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Term(s)
		assertTermSafe(t, "Term", "value: "+out, false) // a value is never a line's start
		if !needsEscape(s) && out != s {
			t.Errorf("Term changed safe %q to %q", s, out)
		}
		if Term(out) != out {
			t.Errorf("Term not idempotent on %q", s)
		}
		md := MarkdownCode(s)
		if strings.ContainsAny(md, "\n\r") {
			t.Errorf("MarkdownCode(%q) has a line break", s)
		}
	})
}
