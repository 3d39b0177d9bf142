package replay

import (
	"reflect"
	"strings"
	"testing"
)

// parseClineTextRef is parseClineText as it was before it told a text
// holds no <thinking> from the tags it reads for tool uses: each text
// searched for "<thinking>". FuzzClineTextAsRef holds the two to one
// another.
//
// parseClineTextRef cuts an assistant message into text and tool uses, as
// parseAssistantMessageV2 does: <tool> ... </tool> with <param>value</param>
// inside (values trimmed; write_to_file and new_rule content ends at the
// last </content>). A tool use left open at the end is kept (partial).
// Roo Code's <thinking>…</thinking> text is reasoning. The parts are
// appended to out, the actions written in text or taken from memo (nil:
// none).
func parseClineTextRef(out []clinePart, text *scratchText, memo *callMemo, s string) []clinePart {
	add := func(t string, thinking bool) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, clinePart{text: t, thinking: thinking})
		}
	}
	texts := func(t string) {
		for t != "" {
			i := strings.Index(t, "<thinking>")
			if i < 0 {
				add(t, false)
				return
			}
			add(t[:i], false)
			rest := t[i+len("<thinking>"):]
			j := strings.Index(rest, "</thinking>")
			if j < 0 {
				add(rest, true)
				return
			}
			add(rest[:j], true)
			t = rest[j+len("</thinking>"):]
		}
	}
	for {
		start, name, closing := -1, "", ""
		for i := strings.IndexByte(s, '<'); i >= 0; {
			if j := strings.IndexByte(s[i:], '>'); j > 0 {
				if tag, ok := clineTagOf(s[i+1 : i+j]); ok {
					start, name, closing = i, tag.name, tag.closing
					break
				}
			}
			k := strings.IndexByte(s[i+1:], '<')
			if k < 0 {
				break
			}
			i += 1 + k
		}
		if start < 0 {
			texts(s)
			return out
		}
		texts(s[:start])
		body := s[start+len(name)+2:]
		end := indexTag(body, closing)
		rest := ""
		if end >= 0 {
			if (name == "write_to_file" || name == "new_rule") && strings.Contains(body[end:], "</content>") {
				// content may hold the tool's closing tag: it ends at the last </content>.
				if last := strings.LastIndex(body, "</content>"); last >= 0 {
					if e2 := indexTag(body[last:], closing); e2 >= 0 {
						end = last + e2
					}
				}
			}
			rest = body[end+len(name)+3:]
			body = body[:end]
		}
		action, canonical := clineForms(memo, text, name, body)
		out = append(out, clinePart{tool: name, action: action, canonical: canonical})
		if end < 0 {
			return out
		}
		s = rest
	}
}

var clineTextSeeds = []string{
	"", "just text", "<thinking>hmm</thinking>ok", "a <thinking>b</thinking> c <thinking>d",
	"<thinking>x</thinking><read_file><path>a</path></read_file><thinking>y</thinking>z",
	"<thinking >x</thinking>", "<thinkin>x", "<thinking>x<thinking>y</thinking>", "</thinking>",
	"<b><thinking>x</thinking></b><read_file><path>a</path></read_file>", "<<thinking>>", "<thinking",
	"t <read_file><path>a</path></read_file> <thinking>r</thinking> <list_files><path>b</path></list_files> u",
	"<write_to_file><path>x</path><content><thinking>no</thinking></content></write_to_file><thinking>t</thinking>",
	"<execute_command><command>ls</command>", "x<thinking>> y", "<thinking><thinking>",
	" \n ", "<thinking> </thinking> ", " <read_file></read_file> \t", "<thinking>\u2003</thinking>\u00a0",
}

func checkClineText(t *testing.T, s string) {
	t.Helper()
	got := parseClineText(nil, &scratchText{}, nil, s)
	want := parseClineTextRef(nil, &scratchText{}, nil, s)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", s, got, want)
	}
	for _, p := range got {
		// assistantText keeps every text part: none is blank.
		if p.tool == "" && (p.text == "" || strings.TrimSpace(p.text) != p.text) {
			t.Fatalf("%q: text part %q, not trimmed or blank", s, p.text)
		}
	}
}

// TestClineTextAsRef: the seeds, and bytes inserted at, replacing and cut
// at each place of texts with thinking and tool uses.
func TestClineTextAsRef(t *testing.T) {
	for _, s := range clineTextSeeds {
		checkClineText(t, s)
	}
	base := "a<thinking>b</thinking><read_file><path>c</path></read_file>d<thinking>e"
	for i := 0; i <= len(base); i++ {
		checkClineText(t, base[:i])
		checkClineText(t, base[i:])
		for _, c := range []byte("<>/tk x") {
			checkClineText(t, base[:i]+string([]byte{c})+base[i:])
			if i < len(base) {
				checkClineText(t, base[:i]+string([]byte{c})+base[i+1:])
			}
		}
	}
	checkClineText(t, strings.Repeat("<thinking>x</thinking>", 3))
}

func FuzzClineTextAsRef(f *testing.F) {
	for _, s := range clineTextSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkClineText(t, s) })
}

// checkClineTextMemo parses texts in turn with one memo, as the reader
// does (clineMemoPrefix finds a tool use read before by its body), and
// holds each to parseClineTextRef with none.
func checkClineTextMemo(t *testing.T, texts ...string) {
	t.Helper()
	var memo callMemo
	for _, s := range texts {
		got := parseClineText(nil, &scratchText{}, &memo, s)
		want := parseClineTextRef(nil, &scratchText{}, nil, s)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q after %q:\n got %+v\nwant %+v", s, texts, got, want)
		}
	}
}

var clineMemoSeeds = []string{
	"<read_file><path>a</path></read_file>",
	"<read_file><path>a</path></read_file>x",
	"<read_file><path>a</path></read_file><read_file><path>a</path></read_file>",
	"<read_file><path>a</path></read_fil",
	"<read_file><path>a</path>",
	"<read_file><path>a</path></read_file",
	"<read_file><path>a</path></read_file></read_file>",
	"<read_file><path>a</path><x></read_file>",
	"<list_files><path>a</path></list_files>",
	"<read_file><path>ab</path></read_file>",
	"<read_file><path>a</path></path></read_file>",
	"<read_file></read_file>", "<read_file>", "<read_file>a",
	"<write_to_file><path>a</path><content>b</write_to_file>c</content></write_to_file>",
	"<write_to_file><path>a</path><content>b</write_to_file>",
	"<new_rule><content>x</content></new_rule>",
	"<new_rule><content>x</content></new_rule>y</content></new_rule>",
}

// TestClineTextMemoAsRef: every pair of seeds in turn, then each seed
// with bytes inserted at, replacing and cut at each place after a seed.
func TestClineTextMemoAsRef(t *testing.T) {
	for _, a := range clineMemoSeeds {
		for _, b := range clineMemoSeeds {
			checkClineTextMemo(t, a, b, a)
		}
	}
	base := "<read_file><path>a</path></read_file>t"
	for i := 0; i <= len(base); i++ {
		checkClineTextMemo(t, base, base[:i], base)
		checkClineTextMemo(t, base, base[i:])
		for _, c := range []byte("</>ra x") {
			checkClineTextMemo(t, base, base[:i]+string([]byte{c})+base[i:])
			if i < len(base) {
				checkClineTextMemo(t, base, base[:i]+string([]byte{c})+base[i+1:])
			}
		}
	}
}

func FuzzClineTextMemoAsRef(f *testing.F) {
	for i, s := range clineMemoSeeds {
		f.Add(s, clineMemoSeeds[(i+1)%len(clineMemoSeeds)], s)
	}
	f.Fuzz(func(t *testing.T, a, b, c string) { checkClineTextMemo(t, a, b, c) })
}
