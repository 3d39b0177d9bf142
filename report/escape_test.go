package report

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/report/reporttest"
)

// Payloads are the hostile strings every writer is tested with.
var Payloads = reporttest.Payloads

// assertTermSafe fails if out is not safe on a terminal (reporttest.TermSafe).
func assertTermSafe(t *testing.T, what, out string, layout bool) {
	t.Helper()
	if err := reporttest.TermSafe(out, layout); err != nil {
		t.Errorf("%s: %v", what, err)
	}
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
		// What a CI runner would run: "::" first on a line (blanks
		// trimmed), "##[" anywhere.
		{"::error file=a::forged", `\x3a:error file=a::forged`},
		{"  ::warning::x", `  \x3a:warning::x`},
		{"\n::error::x", `\n::error::x`}, // escaped newline: not a line start
		{"a ##[error]b", `a #\x23[error]b`},
		{"09:35:24 a::b", "09:35:24 a::b"},
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
		// The newline in the forged payload is taken for the report's
		// own here (it is written raw: only Term, where a value is put
		// into a line, knows it is not), but the line it starts is not a
		// workflow command, and everything else is escaped.
		if !strings.Contains(out, "\n\\x3a:error file=src/app.go") {
			t.Errorf("a line starting with '::' passed: %q", out)
		}
		out = strings.ReplaceAll(out, "\x1b[1m", "")
		out = strings.ReplaceAll(out, "\x1b[0m", "")
		assertTermSafe(t, "TermWriter", out, true)
		if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[2J") {
			t.Errorf("an escape sequence passed: %q", out)
		}
	}
}

// TestTermWriterLineStarts: a line start is known across Writes.
func TestTermWriterLineStarts(t *testing.T) {
	var b bytes.Buffer
	w := TermWriter(&b, false)
	for _, s := range []string{"::a\n", "x", "::b\n", "  ::c\n", "d ##[error]e\n"} {
		w.Write([]byte(s))
	}
	want := "\\x3a:a\nx::b\n  \\x3a:c\nd #\\x23[error]e\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
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
		assertTermSafe(t, "Term", out, false)
		if !needsEscape(s) && !ciCommand(s, true) && out != s {
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

// BenchmarkTermWriter: the cost of the boundary on a benign verbose text
// report (nothing to escape: the fast path), written line by line as the
// renderers write it.
func BenchmarkTermWriter(b *testing.B) {
	data, err := os.ReadFile("../testdata/analyze/incident-2025-11-04-verbose.txt")
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	w := TermWriter(io.Discard, false)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			w.Write([]byte(l))
		}
	}
}

// TestGridEscapedWidths: a table measures its cells as they are printed,
// escaped, so its columns stay aligned; no raw control byte is written.
func TestGridEscapedWidths(t *testing.T) {
	g := &Grid{Cols: []Col{{Head: "room", Align: L}, {Head: "turns", Align: R}}}
	for i, p := range Payloads {
		g.Rows = append(g.Rows, []string{p, strings.Repeat("9", i%3+1)})
	}
	g.Footer = []string{"x\u200by", "1"}
	var b bytes.Buffer
	if _, err := g.Render(&b, 0); err != nil {
		t.Fatal(err)
	}
	assertTermSafe(t, "Grid", b.String(), false)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	width := utf8.RuneCountInString(lines[1]) // the rule under the head
	for _, l := range lines[2:] {
		if l != lines[1] && utf8.RuneCountInString(l) != width-1 { // rows end in the number: one blank trimmed
			t.Errorf("row %q is %d wide, the rule %d", l, utf8.RuneCountInString(l), width)
		}
	}
}

// TestPrintableFastPath: the ranges printable accepts without a table
// search agree with the table.
func TestPrintableFastPath(t *testing.T) {
	for r := rune(0x80); r < 0x3000; r++ {
		want := unicode.IsPrint(r) || unicode.Is(unicode.Zs, r)
		if got := printable(r); got != want {
			t.Errorf("printable(%U) = %v, want %v", r, got, want)
		}
	}
}

// needsEscapeRef is needsEscapeKeep a byte at a time (sgr off), as it was
// before safeRun tested eight bytes at once.
func needsEscapeRef(s string, keep bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case safeASCII[c] || keep && (c == '\n' || c == '\t'):
			i++
		case c < utf8.RuneSelf:
			return true
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && n == 1) || !printable(r) {
				return true
			}
			i += n
		}
	}
	return false
}

// FuzzNeedsEscape holds the word-at-a-time checks to the byte-at-a-time
// reference, at every alignment of every byte value.
func FuzzNeedsEscape(f *testing.F) {
	for _, s := range []string{"", "plain text of a report", "12345678\x7f", "1234567\x1f8", "abcdefgh\u202e", "a\tb\nc", "\xff\xfe", "::x", "12345678é"} {
		f.Add(s)
	}
	for c := range 256 {
		for at := range 9 {
			f.Add(strings.Repeat("a", at) + string([]byte{byte(c)}) + "bcdefghij")
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := needsEscape(s), needsEscapeRef(s, false); got != want {
			t.Fatalf("needsEscape(%q) = %v, byte at a time %v", s, got, want)
		}
		if got, want := needsEscapeKeep(s, false), needsEscapeRef(s, true); got != want {
			t.Fatalf("needsEscapeKeep(%q) = %v, byte at a time %v", s, got, want)
		}
	})
}
