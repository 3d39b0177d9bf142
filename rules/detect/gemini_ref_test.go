package detect

// The Gemini CLI detector as it was before its content scan was made
// allocation-free (commit 645adfd): regular expressions for the element
// resets, a map of chunk keys to position slices, positions shifted at
// every truncation. Kept as the reference the fast one is checked
// against (TestGeminiMatchesReference, FuzzGeminiMatchesReference), with
// live's keys since: a chunk's and a tool call's key is its UTF-8
// encoding, lone surrogates as U+FFFD (what createHash(...).update
// hashes), and a chunk whose key holds other code units is not recorded
// (isLoopDetectedForChunk's isActualContentMatch).

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// The content element patterns of checkContentLoop, with JavaScript's
// meaning of \s (Unicode white space and U+FEFF) and `.` (anything but a
// line terminator) spelt out, since Go's differ.
const (
	refJSSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`
	refJSDot   = `[^\n\r\x{2028}\x{2029}]`
)

// refElementRe finds a table, a list item, a heading or a quote: the union,
// searched in one pass, of checkContentLoop's
//
//	(^|\n)\s*(\|.*\||[|+-]{3,})   table
//	(^|\n)\s*[*-+]\s               list item ([*-+] is the range *..+: "- " is none)
//	(^|\n)\s*\d+\.\s              numbered list item
//	(^|\n)#+\s                     heading
//	(^|\n)>\s                      quote
var refElementRe = regexp.MustCompile(`(?:^|\n)(?:` +
	refJSSpace + `*(?:\|` + refJSDot + `*\||[|+-]{3,}|[*+]` + refJSSpace + `|\d+\.` + refJSSpace + `)` +
	`|#+` + refJSSpace + `|>` + refJSSpace + `)`)

// refDividerRe is the live `^[+-_=*\u2500-\u257F]+$`, where `+-_` is the
// range U+002B..U+005F, which holds digits, upper case letters and most
// punctuation.
var refDividerRe = regexp.MustCompile(`^[\x{2b}-\x{5f}=*\x{2500}-\x{257f}]+$`)

// refGemini is the old Gemini.
type refGemini struct {
	cfg     GeminiConfig
	fired   int  // firings in the current prompt (detectedCount)
	stopped bool // the prompt ended with a stop firing

	keys ring[string] // the last K·R tool call keys

	text     []uint16         // streamed content, UTF-16 code units
	chunks   map[string][]int // chunk key (UTF-8) → positions where it starts
	pos      int              // scan position
	inBlock  bool             // inside a code block
	chunkBuf []byte
}

// refUTF8 is Node's UTF-8 encoding of a JavaScript string's code units:
// an unpaired surrogate is U+FFFD.
func refUTF8(units []uint16) string { return string(utf16.Decode(units)) }

func newRefGemini(c GeminiConfig) (*refGemini, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("gemini-cli: %w", err)
	}
	return &refGemini{
		cfg:    c,
		keys:   newRing[string](c.ToolCallLoopThreshold * c.ToolCycleMaxLength),
		chunks: make(map[string][]int),
	}, nil
}

// Step processes one step and returns its firings.
func (d *refGemini) Step(s Step) []GeminiFiring {
	var fs []GeminiFiring
	if s.NewPrompt {
		d.reset()
	}
	rule, cycle := "", 0
	switch {
	case d.stopped:
	case s.Kind == KindAction && !s.noCall():
		d.resetContent() // chanting happens within one stream
		if cycle = d.toolCycle(s.Action); cycle > 0 {
			rule = RuleToolCycle
		}
	case s.Kind == KindMessage && s.Output != "": // empty text is no Content event (Turn.run)
		if d.contentLoop(s.Output) {
			rule = RuleContentChanting
		}
	}
	if rule != "" {
		d.fired++
		kind := KindStop
		if d.fired == 1 {
			kind = KindFeedback
		} else {
			d.stopped = true
		}
		fs = append(fs, GeminiFiring{Firing: Firing{Step: s.N, Rule: rule, Kind: kind, Origin: OriginGemini}, CycleLength: cycle})
	}
	if s.LLMLoopVerdict {
		fs = append(fs, GeminiFiring{Firing: Firing{Step: s.N, Rule: RuleLLMLoopCheck, Kind: KindRecorded, Origin: OriginGemini}})
	}
	return fs
}

// toolCycle adds a tool call's key and returns the least k <= K such that
// the last k·R keys are the last k repeated R times, 0 when there is none.
func (d *refGemini) toolCycle(key string) int {
	r, kmax := d.cfg.ToolCallLoopThreshold, d.cfg.ToolCycleMaxLength
	d.keys.push(refUTF8(refAppendUTF16(nil, key)))
	keys := d.keys.buf
	n := len(keys)
	for k := 1; k <= kmax && k*r <= n; k++ {
		cyclic := true
		for i := n - k*r; i < n-k && cyclic; i++ {
			cyclic = keys[i] == keys[i+k]
		}
		if cyclic {
			return k
		}
	}
	return 0
}

// reset is LoopDetectionService.reset at a new prompt.
func (d *refGemini) reset() {
	d.keys.buf = d.keys.buf[:0]
	d.resetContent()
	d.fired, d.stopped = 0, false
}

func (d *refGemini) resetContent() {
	d.text = d.text[:0]
	clear(d.chunks)
	d.pos = 0
}

// contentLoop is checkContentLoop for one message.
func (d *refGemini) contentLoop(content string) bool {
	fences := strings.Count(content, "```")
	divider := refDividerRe.MatchString(content)
	if fences > 0 || divider || refElementRe.MatchString(content) {
		d.resetContent()
	}
	was := d.inBlock
	if fences%2 == 1 {
		d.inBlock = !d.inBlock
	}
	if was || d.inBlock || divider {
		return false
	}
	d.text = refAppendUTF16(d.text, content)
	d.truncate()
	return d.scan()
}

// truncate keeps the last content_max_history code units, shifting the
// positions and dropping those that fall off.
func (d *refGemini) truncate() {
	cut := len(d.text) - d.cfg.ContentMaxHistory
	if cut <= 0 {
		return
	}
	d.text = append(d.text[:0], d.text[cut:]...)
	d.pos = max(0, d.pos-cut)
	refShiftPositions(d.chunks, cut)
}

func refShiftPositions[K comparable](m map[K][]int, cut int) {
	for k, idx := range m {
		kept := idx[:0]
		for _, p := range idx {
			if p-cut >= 0 {
				kept = append(kept, p-cut)
			}
		}
		if len(kept) == 0 {
			delete(m, k)
		} else {
			m[k] = kept
		}
	}
}

// bytes returns the code units of text[from:to] as bytes, in a buffer
// reused by the next call.
func (d *refGemini) bytes(from, to int) []byte {
	d.chunkBuf = d.chunkBuf[:0]
	for _, u := range d.text[from:to] {
		d.chunkBuf = append(d.chunkBuf, byte(u), byte(u>>8))
	}
	return d.chunkBuf
}

// record is isLoopDetectedForChunk's bookkeeping: it appends p to the
// positions of the chunk's key and returns them, or returns nil when the
// key's first position holds other code units (isActualContentMatch).
func (d *refGemini) record(p int) []int {
	c := d.cfg.ContentChunkSize
	key := refUTF8(d.text[p : p+c])
	idx, ok := d.chunks[key]
	if !ok {
		d.chunks[key] = []int{p}
		return d.chunks[key]
	}
	if !slices.Equal(d.text[idx[0]:idx[0]+c], d.text[p:p+c]) {
		return nil
	}
	idx = append(idx, p)
	d.chunks[key] = idx
	return idx
}

// scan is analyzeContentChunksForLoop: it stays at the position where a
// loop is found, so the next message finds it again.
func (d *refGemini) scan() bool {
	c, t := d.cfg.ContentChunkSize, d.cfg.ContentLoopThreshold
	for ; d.pos+c <= len(d.text); d.pos++ {
		idx := d.record(d.pos)
		if len(idx) < t {
			continue
		}
		recent := idx[len(idx)-t:]
		// The average distance (last − first)/(T−1) must be at most 5·C.
		if recent[t-1]-recent[0] > 5*c*(t-1) {
			continue
		}
		periods := make(map[string]struct{}, t)
		for i := range t - 1 {
			periods[string(d.bytes(recent[i], recent[i+1]))] = struct{}{}
		}
		if len(periods) <= t/2 {
			return true
		}
	}
	return false
}

// refAppendUTF16 is the old AppendUTF16, a rune at a time.
func refAppendUTF16(dst []uint16, s string) []uint16 {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
				dst = append(dst, 0xD000|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F))
				i += 3
				continue
			}
			dst = append(dst, 0xFFFD)
			i++
			continue
		}
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			dst = append(dst, uint16(r1), uint16(r2))
		} else {
			dst = append(dst, uint16(r))
		}
		i += n
	}
	return dst
}

// randomGeminiSteps is a session of n steps whose messages repeat pieces
// of a few sentences (so chunks recur near and far), with list items,
// fences, dividers, surrogates, tool calls and new prompts among them.
func randomGeminiSteps(r *rand.Rand, n int) []Step {
	pieces := []string{"Let me look at the config file once more. ", "ab", "abc", "x", "😀", "é",
		"\xed\xa0\x80", "\xff", "the same line\n", "* item\n", "1. first\n", "## Plan\n", "> q\n",
		"| a | b |\n", "```", "OK", "---", "\u2028", "\u00a0* y", "  + z\n", "word ", "zz",
		// Lone surrogates, U+FFFD (the same key) and the halves of 😀
		// (D83D DE00), which pair when they meet.
		"\ufffd", "\xed\xb0\x80", "\xed\xa0\xbd", "\xed\xb8\x80", "\ufffd\ufffd", "\xed\xa0\x80\ufffd"}
	actions := []string{"tool 0", "tool 1", "tool \xed\xa0\x80", "tool \ufffd", "tool \xed\xb0\x80"}
	var steps []Step
	for i := range n {
		var s Step
		switch k := r.IntN(20); {
		case k == 0:
			s = Step{Kind: KindAction, Action: actions[r.IntN(len(actions))]}
		case k == 1:
			s = Step{Kind: KindAction, Action: " "}
		default:
			var b strings.Builder
			reps := 1 + r.IntN(8)
			if r.IntN(10) == 0 {
				reps = 50 + r.IntN(300)
			}
			unit := pieces[r.IntN(len(pieces))]
			if r.IntN(3) == 0 {
				unit += pieces[r.IntN(len(pieces))] + fmt.Sprint(r.IntN(4))
			}
			for range reps {
				b.WriteString(unit)
				if r.IntN(6) == 0 {
					b.WriteString(pieces[r.IntN(len(pieces))])
				}
			}
			s = Step{Kind: KindMessage, Output: b.String()}
		}
		s.N = i + 1
		s.NewPrompt = r.IntN(40) == 0
		s.LLMLoopVerdict = r.IntN(100) == 0
		steps = append(steps, s)
	}
	return steps
}

// TestGeminiMatchesReference replays random sessions through the detector
// and the reference, under random configurations (small histories truncate
// at nearly every message; a collision mask sends chunks down the slow
// path): the firings must be the same, step by step.
func TestGeminiMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 1))
	sessions := 300
	if testing.Short() {
		sessions = 60
	}
	chanting := 0
	for i := range sessions {
		cfg := DefaultGeminiConfig()
		if i%2 == 1 {
			cfg.ContentChunkSize = 1 + r.IntN(60)
			cfg.ContentLoopThreshold = 2 + r.IntN(12)
			cfg.ContentMaxHistory = cfg.ContentChunkSize + r.IntN(40*cfg.ContentChunkSize)
		}
		d, err := NewGemini(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			d.content.hashMask = 3
		}
		if i%3 == 0 {
			d.content.renumberAt = 1 + i%41*9 // entries renumbered often
		}
		ref, _ := newRefGemini(cfg)
		for _, s := range randomGeminiSteps(r, 150) {
			got, want := d.Step(s), ref.Step(s)
			if !slices.Equal(got, want) {
				t.Fatalf("session %d %+v, step %d: firings %v, reference %v", i, cfg, s.N, got, want)
			}
			for _, f := range got {
				chanting += b2i(f.Rule == RuleContentChanting)
			}
		}
	}
	// The sessions must reach the scan's decisions, not only its resets.
	if chanting < sessions {
		t.Errorf("%d content_chanting firings in %d sessions", chanting, sessions)
	}
	t.Logf("%d sessions, %d content_chanting firings", sessions, chanting)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzGeminiElements checks the byte scans against the regular
// expressions they replace.
func FuzzGeminiElements(f *testing.F) {
	for _, s := range []string{"| a | b |", "x\n  |a|", "\u00a0* x", "a\r* x", "12.\tx", "x\n# h", "> q",
		"\n\n\n", "|\u2028|", "|\u2029x|", "-+|", "OK", "─────", "╔══╗", "\xed\xa0\x80", "#\ufeff", "1.\u3000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hasGemElement(s), refElementRe.MatchString(s); got != want {
			t.Errorf("hasGemElement(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := isGemDivider(s), refDividerRe.MatchString(s); got != want {
			t.Errorf("isGemDivider(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := AppendUTF16(nil, s), refAppendUTF16(nil, s); !slices.Equal(got, want) {
			t.Errorf("AppendUTF16(%q) = %x, reference %x", s, got, want)
		}
	})
}
