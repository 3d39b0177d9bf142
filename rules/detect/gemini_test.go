package detect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func (f GeminiFiring) base() Firing { return f.Firing }

// chant is a 42-code-unit sentence: repeated, the chunk at 0 has its 10th
// occurrence at 9·42 = 378, seen once the text reaches 378 + 50 = 428 code
// units, that is with the 11th repetition (462).
const chant = "Let me look at the config file once more. "

// chant39 is chant's first 39 code units: with one more, a message is
// shorter than a chunk, so every chunk holds that unit.
const chant39 = "Let me look at the config file once mor"

func TestChantLength(t *testing.T) {
	if len(chant) != 42 {
		t.Fatalf("len(chant) = %d", len(chant))
	}
}

func TestGemini(t *testing.T) {
	def := DefaultGeminiConfig()
	cfg := func(f func(*GeminiConfig)) GeminiConfig { c := def; f(&c); return c }
	a, b, c := call(`read_file {"path":"a"}`, ""), call(`read_file {"path":"b"}`, ""), call(`grep {"q":"x"}`, "")
	long := func() string { // 300 code units, no 50-unit chunk repeats within it
		r := rand.New(rand.NewPCG(7, 8))
		var sb strings.Builder
		for sb.Len() < 300 {
			sb.WriteByte(byte('a' + r.IntN(26)))
		}
		return sb.String()
	}()
	// around puts a message between 6 and 6 repetitions: without a reset
	// the chunk at 0 has 5 occurrences before the message (the 6th
	// repetition's chunk runs into it) and its 10th at the 5th repetition
	// after it, seen with the 6th.
	around := func(m string) []Step { return cat(repeat(6, msg(chant)), []Step{msg(m)}, repeat(6, msg(chant))) }
	tests := []struct {
		name  string
		cfg   GeminiConfig
		steps []Step
		want  []string
	}{
		// tool_cycle
		{"same call 5 times", def, repeat(5, a), []string{"5:tool_cycle/feedback"}},
		{"same call 4 times", def, repeat(4, a), nil},
		{"the second firing stops the prompt", def, repeat(7, a), []string{"5:tool_cycle/feedback", "6:tool_cycle/stop"}},
		{"a new prompt resets", def, cat(repeat(4, a), prompt(repeat(4, a)...)), nil},
		{"a new prompt resets the count", def, cat(repeat(6, a), prompt(repeat(5, a)...)),
			[]string{"5:tool_cycle/feedback", "6:tool_cycle/stop", "11:tool_cycle/feedback"}},
		{"a new prompt resets the text", def, cat(repeat(9, msg(chant)), prompt(repeat(10, msg(chant))...)), nil},
		{"a new prompt keeps the code block", def, cat([]Step{msg("```go")}, prompt(repeat(12, msg(chant))...)), nil},
		{"AB 5 times", def, repeat(5, a, b), []string{"10:tool_cycle/feedback"}},
		{"AB 4.5 times", def, cat(repeat(4, a, b), []Step{a}), nil},
		{"ABC 5 times", def, repeat(5, a, b, c), []string{"15:tool_cycle/feedback"}},
		{"R 3", cfg(func(c *GeminiConfig) { c.ToolCallLoopThreshold = 3 }), repeat(3, a), []string{"3:tool_cycle/feedback"}},
		{"K 1 misses AB", cfg(func(c *GeminiConfig) { c.ToolCycleMaxLength = 1 }), repeat(5, a, b), nil},
		{"cycle longer than K", def, repeat(5, a, b, c, call("d", ""), call("e", ""), call("f", "")), nil},
		{"messages do not break a tool cycle", def, []Step{a, msg("thinking"), a, a, msg("again"), a, a},
			[]string{"7:tool_cycle/feedback"}},
		{"a blank call is skipped", def, []Step{a, a, call(" ", ""), a, a, a}, []string{"6:tool_cycle/feedback"}},

		// content_chanting
		{"chanting at the 11th repetition", def, repeat(12, msg(chant)),
			[]string{"11:content_chanting/feedback", "12:content_chanting/stop"}},
		{"chanting below", def, repeat(10, msg(chant)), nil},
		{"one message chanting", def, []Step{msg(strings.Repeat(chant, 11))}, []string{"1:content_chanting/feedback"}},
		{"a tool call resets the text", def, cat(repeat(9, msg(chant)), []Step{a}, repeat(10, msg(chant))), nil},
		{"too far apart: 300 > 5·C", def, repeat(12, msg(long)), nil},
		// 250 = 5·C: the 10th occurrence at 9·250, seen from 2300 units.
		{"average distance at 5·C", def, repeat(10, msg(long[:250])), []string{"10:content_chanting/feedback"}},
		{"average distance above 5·C", def, repeat(12, msg(long[:251])), nil},
		// T 5: the 5th occurrence at 4·42 = 168, seen from 218 units.
		{"T 5", cfg(func(c *GeminiConfig) { c.ContentLoopThreshold = 5 }), repeat(6, msg(chant)),
			[]string{"6:content_chanting/feedback"}},
		// C 10: the 10th occurrence at 378, seen from 388 units.
		{"C 10", cfg(func(c *GeminiConfig) { c.ContentChunkSize = 10 }), repeat(10, msg(chant)),
			[]string{"10:content_chanting/feedback"}},
		{"shared prefix, distinct items", def, func() []Step {
			var out []Step
			for i := range 15 {
				out = append(out, msg(fmt.Sprintf("Now checking the deployment status of the service named %c%c%c. ", 'a'+i, 'k'+i, 'c'+i)))
			}
			return out
		}(), nil},
		{"UTF-16 code units", def, repeat(8, msg(strings.Repeat("😀", 5))),
			[]string{"7:content_chanting/feedback", "8:content_chanting/stop"}},
		{"history truncation shifts positions", def, cat([]Step{msg(strings.Repeat(long, 20))}, repeat(11, msg(chant))),
			[]string{"12:content_chanting/feedback"}},

		// Resets and elements
		{"divider OK resets and is not appended", def, around("OK"), nil},
		{"divider 200", def, around("200"), nil},
		{"lower case ok is text", def, around("ok"),
			[]string{"13:content_chanting/feedback"}},
		{"list item - is not a reset", def, around("- x"),
			[]string{"13:content_chanting/feedback"}},
		{"list item * resets", def, around("* x"), nil},
		{"list item + resets", def, around("\n  + x"), nil},
		{"numbered item resets", def, around("1. x"), nil},
		{"heading resets", def, around("## Plan"), nil},
		{"hashtag is text", def, around("#plan"),
			[]string{"13:content_chanting/feedback"}},
		{"quote resets", def, around("> x"), nil},
		{"table resets", def, around("| a | b |"), nil},
		{"table rule resets", def, around("x\n+--+"), nil},
		{"a fence pair resets, not a block", def, cat(repeat(6, msg(chant)), []Step{msg("run `" + "``x``" + "` now")}, repeat(11, msg(chant))),
			[]string{"18:content_chanting/feedback"}},
		{"in a code block nothing is appended", def, cat([]Step{msg("```go")}, repeat(12, msg(chant)), []Step{msg("```")}, repeat(11, msg(chant))),
			[]string{"25:content_chanting/feedback"}},

		// Keys as live hashes them (createHash('sha256').update(chunk):
		// UTF-8, a lone surrogate as U+FFFD), and a chunk whose key holds
		// other code units is not recorded (isActualContentMatch). Those
		// of the default configuration checked against
		// @google/gemini-cli-core 0.61.0 through driver.mjs.
		{"lone surrogates chant as any text", def, repeat(12, msg(chant39+"\xed\xa0\x80")),
			[]string{"11:content_chanting/feedback", "12:content_chanting/stop"}},
		{"after U+FFFD a lone surrogate's chunks are not recorded", def,
			cat([]Step{msg(chant39 + "\ufffd")}, repeat(14, msg(chant39+"\xed\xa0\x80"))), nil},
		{"after one lone surrogate another's chunks are not recorded", def,
			cat([]Step{msg(chant39 + "\xed\xaf\xbf")}, repeat(14, msg(chant39+"\xed\xa0\x80"))), nil},
		{"a chunk's edge cuts a pair: U+FFFD's key", cfg(func(c *GeminiConfig) { c.ContentChunkSize = 1 }),
			cat([]Step{msg("\ufffd")}, repeat(14, msg("😀"))), nil},
		{"a chunk's edge cuts a pair, alone", cfg(func(c *GeminiConfig) { c.ContentChunkSize = 1 }),
			repeat(14, msg("😀")), []string{"10:content_chanting/feedback", "11:content_chanting/stop"}},
		{"a lone surrogate in a tool name is U+FFFD", def,
			[]Step{call("read\xed\xa0\x80:{}", ""), call("read\ufffd:{}", ""), call("read\xed\xb0\x80:{}", ""),
				call("read\xed\xa0\x81:{}", ""), call("read\ufffd:{}", "")},
			[]string{"5:tool_cycle/feedback"}},
		{"a pair in a tool name is its character", def,
			[]Step{call("r\xed\xa0\xbd\xed\xb8\x80", ""), call("r😀", ""), call("r😀", ""), call("r😀", ""), call("r\xed\xa0\xbd\xed\xb8\x80", "")},
			[]string{"5:tool_cycle/feedback"}},

		// Shared count and the recorded LLM verdict.
		{"the count is shared", def, cat(repeat(5, a), repeat(11, msg(chant))),
			[]string{"5:tool_cycle/feedback", "16:content_chanting/stop"}},
		{"an LLM verdict is recorded, not counted", def, cat([]Step{{Kind: KindMessage, Output: "x", LLMLoopVerdict: true}}, repeat(5, a)),
			[]string{"1:llm_loop_check/recorded", "6:tool_cycle/feedback"}},
		{"an LLM verdict with a firing", def, cat(repeat(4, a), []Step{{Kind: KindAction, Action: a.Action, LLMLoopVerdict: true}}),
			[]string{"5:tool_cycle/feedback", "5:llm_loop_check/recorded"}},
	}
	for _, tt := range tests {
		// Once more with every chunk hashing alike: the collision path
		// must decide the same; and the reference must agree.
		for _, clash := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/clash=%v", tt.name, clash), func(t *testing.T) {
				d, err := NewGemini(tt.cfg)
				if err != nil {
					t.Fatal(err)
				}
				if clash {
					d.content.hashMask = 0
				}
				got := run(tt.steps, d.Step)
				if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("got  %v\nwant %v", got, tt.want)
				}
				ref, _ := newRefGemini(tt.cfg)
				if got := run(tt.steps, ref.Step); fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("reference got %v\nwant %v", got, tt.want)
				}
			})
		}
	}
}

// prompt marks the first step as following a new user prompt.
func prompt(steps ...Step) []Step {
	out := slices.Clone(steps)
	out[0].NewPrompt = true
	return out
}

func TestAppendUTF16(t *testing.T) {
	for in, want := range map[string][]uint16{
		"a😀":            {'a', 0xD83D, 0xDE00},
		"\xed\xa0\x80x": {0xD800, 'x'},
		"\xed\xbf\xbf":  {0xDFFF},
		"\xffa":         {0xFFFD, 'a'},
		"é":             {0xE9},
	} {
		if got := AppendUTF16(nil, in); !slices.Equal(got, want) {
			t.Errorf("AppendUTF16(%q) = %x, want %x", in, got, want)
		}
	}
}

// TestAppendUTF16Widen holds appendUTF16's vector widening of a long
// message's ASCII blocks (widenUnits) to refAppendUTF16, a rune at a
// time: texts of every length around the 32-byte block and widenFrom,
// a byte past ASCII (a two-, three- or four-byte character, a lone
// surrogate, an invalid byte) at random places or none, appended to a
// few units already held.
func TestAppendUTF16Widen(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 24))
	others := []string{"é", "中", "😀", "\xed\xa0\x80", "\xff", "\x80"}
	widened := 0
	for range 4000 {
		b := make([]byte, 0, 300)
		for n := rng.IntN(300); len(b) < n; {
			if rng.IntN(200) == 0 {
				b = append(b, others[rng.IntN(len(others))]...)
				continue
			}
			b = append(b, byte(rng.IntN(128)))
		}
		s := string(b)
		k := rng.IntN(3)
		held := make([]uint16, k, k+rng.IntN(400))
		for i := range held {
			held[i] = uint16(i + 1)
		}
		got, _ := appendUTF16(slices.Clone(held), s)
		if want := refAppendUTF16(slices.Clone(held), s); !slices.Equal(got, want) {
			t.Fatalf("appendUTF16(%d units, %q) = %x, reference %x", len(held), s, got, want)
		}
		dst := make([]uint16, len(s))
		if k := widenUnits(dst, s); k%32 != 0 || k > len(s) || !isASCII(s[:k]) {
			t.Fatalf("widenUnits(%q) = %d: not whole ASCII blocks of s", s, k)
		} else if k > 0 {
			widened++
		}
	}
	if widenUnits(make([]uint16, 32), strings.Repeat("a", 32)) == 32 && widened < 1000 {
		// A platform that widens by vector: most texts have a block.
		t.Errorf("%d texts widened by vector: the test does not reach widenUnits", widened)
	}
}

func TestGeminiCycleLength(t *testing.T) {
	a, b := call("a", ""), call("b", "")
	for _, tt := range []struct {
		steps []Step
		want  int
	}{
		{repeat(5, a), 1},
		{repeat(5, a, b), 2},
		{repeat(5, a, a, b), 3},
	} {
		d, _ := NewGemini(DefaultGeminiConfig())
		var last []GeminiFiring
		for i, s := range tt.steps {
			s.N = i + 1
			if fs := d.Step(s); len(fs) > 0 && last == nil {
				last = fs
			}
		}
		if len(last) != 1 || last[0].CycleLength != tt.want {
			t.Errorf("last firing %+v, want cycle_length %d", last, tt.want)
		}
	}
}

func TestGeminiDivider(t *testing.T) {
	for s, want := range map[string]bool{
		"OK": true, "200": true, "---": true, "===": true, "***": true, "A-Z_[]": true, "─────": true, "╔══╗": true,
		"ok": false, "": false, "a": false, "--- x": false, "OK\n": false, "▀": false,
	} {
		if got := isGemDivider(s); got != want || refDividerRe.MatchString(s) != want {
			t.Errorf("divider %q = %v, want %v", s, got, want)
		}
	}
}

// TestGeminiElements pins the union of checkContentLoop's element patterns.
func TestGeminiElements(t *testing.T) {
	for s, want := range map[string]bool{
		"| a | b |": true, "x\n  |a|": true, "a | b |": false, "|": false, "|||": true, "+-+": true,
		"---": true, "x\n---": true, "--": false,
		"* x": true, "+ x": true, "- x": false, "*x": false, "text\n\n* x": true, "\u00a0* x": true, "a\r* x": false,
		"1. x": true, "12.\tx": true, "1.x": false, "a 1. x": false,
		"## h": true, "#h": false, " # h": false, "x\n# h": true,
		"> q": true, " > q": false, ">q": false,
		"plain text, no element": false,
	} {
		if got := hasGemElement(s); got != want || refElementRe.MatchString(s) != want {
			t.Errorf("element %q = %v, want %v", s, got, want)
		}
	}
}

// TestGeminiElementStarts holds hasGemElement to the regular expressions
// for every byte at a line's start, after ASCII and Unicode white space
// and at the text's end, followed by what completes each element: a byte
// that can begin one must not be passed over (elementStart), nor white
// space stop the skip early.
func TestGeminiElementStarts(t *testing.T) {
	tails := []string{"", " x", "\tx", "|", "--", "+", ". x", "5. x", "# x", "\u00a0x"}
	for _, lead := range []string{"", "x\n", "x\n  ", "x\n\t\v\f\r", "x\n\u00a0\u2003", "\n\n", "x\n \n"} {
		for c := range 128 {
			for _, tail := range tails {
				s := lead + string(rune(c)) + tail
				if got, want := hasGemElement(s), refElementRe.MatchString(s); got != want {
					t.Errorf("hasGemElement(%q) = %v, regexp %v", s, got, want)
				}
			}
		}
	}
}

func TestGeminiConfigValidate(t *testing.T) {
	c := DefaultGeminiConfig()
	c.ContentMaxHistory = 10
	if _, err := NewGemini(c); err == nil {
		t.Error("content_max_history below content_chunk_size accepted")
	}
}

// FuzzGeminiContent feeds messages (split at NUL; a leading "!" makes a
// tool call, a leading "?" a new prompt) to a small detector that
// truncates often, and to the reference (gemini_ref_test.go): their
// firings must be the same, and the history stay within its bound.
func FuzzGeminiContent(f *testing.F) {
	f.Add("abcabcabcabc\x00abcabc\x00!x\x00```\x00abc")
	f.Add("😀😀😀😀😀😀😀😀\x00OK\x00- a\x00* b")
	f.Add("abababababababababab\x00?ab\x00abababab")
	// Lone surrogates (WTF-8), U+FFFD and pairs' halves: one key, other units.
	f.Add("a\ufffda\ufffd\x00a\xed\xa0\x80a\xed\xa0\x80a\xed\xb0\x80a\xed\xa0\x80\x00a\xed\xa0\x80a\xed\xa0\x80")
	f.Add("\xed\xa0\xbd\x00\xed\xb8\x80😀😀\ufffd\ufffd😀\x00!x\xed\xa0\x80\x00!x\ufffd\x00!x\xed\xb0\x80")
	f.Fuzz(func(t *testing.T, in string) {
		cfg := GeminiConfig{ToolCallLoopThreshold: 2, ToolCycleMaxLength: 2,
			ContentChunkSize: 3, ContentLoopThreshold: 3, ContentMaxHistory: 20}
		d, err := NewGemini(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(in)%2 == 1 {
			d.content.hashMask = 1 // many collisions
		}
		if len(in)%3 != 0 {
			d.content.renumberAt = 1 + len(in)%60 // entries renumbered often
		}
		ref, _ := newRefGemini(cfg)
		for i, m := range strings.Split(in, "\x00") {
			s := msg(m)
			switch {
			case strings.HasPrefix(m, "!"):
				s = call(m, "")
			case strings.HasPrefix(m, "?"):
				s.NewPrompt = true
			}
			s.N = i + 1
			got, want := d.Step(s), ref.Step(s)
			if !slices.Equal(got, want) {
				t.Fatalf("message %d %q: firings %v, reference %v", i+1, m, got, want)
			}
			if c := &d.content; c.end()-c.base > 20 || c.pos < c.base || c.pos > c.end() {
				t.Fatalf("history [%d, %d), scan at %d", c.base, c.end(), c.pos)
			}
		}
	})
}

// BenchmarkPeers500x10KB replays the fuzzy benchmark's trace, every third
// step turned into a message, through both peer detectors.
func BenchmarkPeers500x10KB(b *testing.B) {
	steps := benchTrace()
	var size int64
	for i := range steps {
		if i%3 == 0 {
			steps[i].Kind = KindMessage
		}
		size += int64(len(steps[i].Action) + len(steps[i].Output))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		g, _ := NewGemini(DefaultGeminiConfig())
		o, _ := NewOpenHands(DefaultOpenHandsConfig())
		for _, s := range steps {
			g.Step(s)
			o.Step(s)
		}
	}
	b.ReportMetric(float64(len(steps))*float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
