package report

// The escaping policy, one function per kind of output, applied where
// text leaves the program. Episode ids, room names, actions, file names,
// label notes and configuration keys come from logs and files an agent
// or a pull request wrote: a value must never act on the terminal (ESC
// sequences clear the screen, write the clipboard, plant links), start a
// line of its own (a CI runner executes a stdout line "::error …"), turn
// into a spreadsheet formula or into Markdown (images, links, mentions).
//
//   - Term: terminal text. Control characters (C0, DEL, C1), bidi
//     controls, zero-width and other format characters, line and
//     paragraph separators, private-use and unassigned code points and
//     invalid UTF-8 are written as visible escapes (\x1b, \n, \u202e,
//     \xff); printable text, accents, CJK and emoji, is left as it is.
//     No quotes are added and a backslash is not doubled: the output is
//     for people (JSON is the form for programs), and benign text stays
//     byte for byte what it was.
//     A GitHub workflow command cannot be formed either (defuse): a
//     leading "::" becomes \x3a: and "##[" becomes #\x23[.
//   - TermWriter: the same at the boundary of a text report, for whatever
//     a renderer did not escape itself: it keeps the report's own line
//     breaks and tabs, and its colours (SGR) only when colour is on.
//   - StderrWriter: one message per Write (every stderr print is one
//     Fprintf); only the message's final newline stays a newline.
//   - CSVCell: Term, then a leading = + - @ tab or CR gets a ' (OWASP).
//   - MarkdownCode: a code span that survives any backticks in the value.
//
// HTML is html/template's (contextual escaping) under a strict
// Content-Security-Policy (html.go); JSON, JUnit XML and GitHub workflow
// commands have their own encoders' escaping (check_ci.go).

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// safeASCII marks the bytes that are written as they are: printable
// ASCII. Everything else is looked at.
var safeASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	return t
}()

// safeRun returns the index after the run of 8-byte blocks of printable
// ASCII starting at s[i], tested a word at a time: a report is written
// through the terminal writer in full, and a byte at a time its check
// was a few percent of analysing many small episodes (issue 25).
func safeRun(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(s) {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		del := x ^ ones*0x7f
		// A byte below 0x20, at or above 0x80, or 0x7f (DEL) ends the run.
		if (x|(x-ones*0x20)&^x|(del-ones)&^del)&highs != 0 {
			return i
		}
		i += 8
	}
	return i
}

// printable reports whether r (not ASCII) is shown as it is: letters,
// marks, numbers, punctuation, symbols and spaces. Format characters
// (bidi controls, zero-width, BOM, tags), C1 controls, U+2028/U+2029,
// private-use and unassigned code points are not.
func printable(r rune) bool {
	switch {
	// The blocks reports write most, all printable, decided without a
	// table search: Latin letters past the soft hyphen (U+00AD, a format
	// character), dashes, quotes and the ellipsis, arrows, box drawing.
	case r >= 0xae && r <= 0x2ff, r >= 0x2010 && r <= 0x2027, r >= 0x2190 && r <= 0x21ff, r >= 0x2500 && r <= 0x257f:
		return true
	}
	return unicode.IsPrint(r) || unicode.Is(unicode.Zs, r)
}

// needsEscape reports whether s has a byte or rune Term would rewrite.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		if i = safeRun(s, i); i == len(s) {
			break
		}
		c := s[i]
		if safeASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return true
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !printable(r) {
			return true
		}
		i += n
	}
	return false
}

// Term makes s safe to print on a terminal, on one line, and in a CI
// log: a value that could start a line there is no workflow command.
func Term(s string) string {
	if !needsEscape(s) && !ciCommand(s, true) {
		return s
	}
	return string(defuse(appendTerm(make([]byte, 0, len(s)+16), s, false, false), true))
}

// ciCommand reports whether s holds what a GitHub Actions runner reads as
// a workflow command in a line of a step's output: "::" first on a line
// after blanks (the runner trims them: ActionCommand.TryParseV2 in
// actions/runner, src/Runner.Common/ActionCommand.cs), or the legacy
// "##[", which ActionCommand.TryParse finds anywhere in a line. bol: s
// starts a line (a value is taken to, wherever it is put).
func ciCommand(s string, bol bool) bool {
	if strings.Contains(s, "##[") {
		return true
	}
	for {
		if bol {
			// Blanks trimmed by hand: TrimLeft with a cutset builds its
			// set on every call, for every line of a report.
			j := 0
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if strings.HasPrefix(s[j:], "::") {
				return true
			}
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return false
		}
		s, bol = s[i+1:], true
	}
}

// defuse rewrites what ciCommand finds, visibly: the first ':' of a
// line's leading "::" as \x3a, the second '#' of "##[" as \x23.
func defuse(b []byte, bol bool) []byte {
	if !ciCommand(unsafe.String(unsafe.SliceData(b), len(b)), bol) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); i++ {
		if bol {
			j := i
			for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
				j++
			}
			if j+1 < len(b) && b[j] == ':' && b[j+1] == ':' {
				out = append(out, b[i:j]...)
				out = append(out, `\x3a`...)
				i = j // the second ':' is copied below
				bol = false
				continue
			}
			bol = false
		}
		switch {
		case b[i] == '#' && i+2 < len(b) && b[i+1] == '#' && b[i+2] == '[':
			out = append(out, '#', '\\', 'x', '2', '3')
			i++ // past the second '#'; '[' is copied next
		case b[i] == '\n':
			out = append(out, '\n')
			bol = true
		default:
			out = append(out, b[i])
		}
	}
	return out
}

const hexDigits = "0123456789abcdef"

// appendTerm appends s escaped. keepLines keeps newlines and tabs (the
// layout of a whole report); sgr keeps colour sequences, ESC [ digits
// and semicolons m, and nothing else that starts with ESC.
func appendTerm(dst []byte, s string, keepLines, sgr bool) []byte {
	for i := 0; i < len(s); {
		// Copy a run of bytes that need nothing.
		j := i
		for j < len(s) && safeASCII[s[j]] {
			j++
		}
		dst = append(dst, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		switch {
		case keepLines && (c == '\n' || c == '\t'):
			dst = append(dst, c)
			i++
		case c == 0x1b && sgr && sgrLen(s[i:]) > 0:
			n := sgrLen(s[i:])
			dst = append(dst, s[i:i+n]...)
			i += n
		case c == '\n':
			dst = append(dst, `\n`...)
			i++
		case c == '\r':
			dst = append(dst, `\r`...)
			i++
		case c == '\t':
			dst = append(dst, `\t`...)
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			case printable(r):
				dst = append(dst, s[i:i+n]...)
			case r <= 0xffff:
				dst = append(dst, '\\', 'u')
				for sh := 12; sh >= 0; sh -= 4 {
					dst = append(dst, hexDigits[(r>>sh)&15])
				}
			default:
				dst = append(dst, '\\', 'U')
				for sh := 28; sh >= 0; sh -= 4 {
					dst = append(dst, hexDigits[(r>>sh)&15])
				}
			}
			i += n
		}
	}
	return dst
}

// sgrLen is the length of the colour sequence s starts with (ESC [
// parameters m), or 0: fatih/color writes only these.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s) && i < 32; i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c == ';' || ('0' <= c && c <= '9'):
		default:
			return 0
		}
	}
	return 0
}

// termWriter escapes what a text report writes: see TermWriter.
type termWriter struct {
	w    io.Writer
	sgr  bool
	line bool // StderrWriter: one message per Write
	mid  bool // the last Write did not end a line
}

// TermWriter returns a writer that escapes, in everything written to w,
// what Term escapes, but keeps newlines and tabs (the report's layout)
// and, when color is on, colour sequences. Each Write is escaped on its
// own: a sequence or a UTF-8 character split across two Writes is
// escaped, never completed, so a renderer writes whole strings (every
// fmt.Fprintf does). A value's own newline must be escaped where it is
// put into a line (Term): only the renderer knows which newlines are its.
func TermWriter(w io.Writer, color bool) io.Writer {
	if t, ok := w.(*termWriter); ok && t.sgr == color && !t.line {
		return w
	}
	return &termWriter{w: w, sgr: color}
}

// StderrWriter returns a writer for messages on stderr: each Write is one
// message, and only its final newline is written as a newline; every
// other control character, newline included, is escaped as Term does.
// A message a value broke in two still prints as one line.
func StderrWriter(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok && t.line {
		return w
	}
	return &termWriter{w: w, line: true}
}

// Unwrap returns the writer under a TermWriter or StderrWriter (a progress
// bar writes its own carriage returns and erase sequences; the terminal's
// size is asked of the file), or w itself.
func Unwrap(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok {
		return t.w
	}
	return w
}

func (t *termWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	// Read in place, not copied: a report is written through here in
	// full, and p is neither kept nor changed.
	s := unsafe.String(&p[0], len(p))
	if t.line {
		body, nl := strings.CutSuffix(s, "\n")
		if !needsEscape(body) && !ciCommand(body, true) {
			return t.write(p, len(p))
		}
		// A buffer per escaped message, not one per writer: stderr is
		// written from more than one goroutine.
		b := defuse(appendTerm(make([]byte, 0, len(p)+16), body, false, false), true)
		if nl {
			b = append(b, '\n')
		}
		return t.write(b, len(p))
	}
	bol := !t.mid
	t.mid = p[len(p)-1] != '\n'
	if !needsEscapeKeep(s, t.sgr) && !ciCommand(s, bol) {
		return t.write(p, len(p))
	}
	return t.write(defuse(appendTerm(make([]byte, 0, len(p)+16), s, true, t.sgr), bol), len(p))
}

// write writes b and reports n (the caller's length) on success.
func (t *termWriter) write(b []byte, n int) (int, error) {
	if _, err := t.w.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}

// needsEscapeKeep is needsEscape with newlines, tabs and (sgr) colour
// sequences allowed: the fast path of a report's writer.
func needsEscapeKeep(s string, sgr bool) bool {
	for i := 0; i < len(s); {
		if i = safeRun(s, i); i == len(s) {
			break
		}
		c := s[i]
		switch {
		case safeASCII[c] || c == '\n' || c == '\t':
			i++
		case c == 0x1b && sgr && sgrLen(s[i:]) > 0:
			i += sgrLen(s[i:])
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

// CSVCell makes a text cell safe in a spreadsheet: control characters
// escaped as Term does, and a cell that starts with = + - @ tab or CR
// prefixed with ' so no spreadsheet reads it as a formula (OWASP's CSV
// injection advice). Numbers the program writes are not text cells.
func CSVCell(s string) string {
	if s != "" {
		switch s[0] {
		case '=', '+', '-', '@', '\t', '\r':
			return "'" + Term(s)
		}
	}
	return Term(s)
}

// MarkdownCode writes s as a Markdown code span that no backtick in it
// can close early: fenced by one backtick more than its longest run,
// padded with a space when it starts or ends with a backtick (CommonMark
// strips one space each side). Control characters are escaped as Term
// does, so a value stays on its line. In a table cell the caller still
// escapes "|" (GFM splits cells before it reads code spans).
func MarkdownCode(s string) string {
	s = Term(s)
	if s == "" {
		return "` `"
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s[0] == '`' || s[len(s)-1] == '`' || (s[0] == ' ' && s[len(s)-1] == ' ') {
		s = " " + s + " "
	}
	return fence + s + fence
}
