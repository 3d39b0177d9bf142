package detect

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// GeminiConfig configures the Gemini CLI LoopDetectionService replay.
type GeminiConfig struct {
	ToolCallLoopThreshold int // tool_call_loop_threshold (R)
	ToolCycleMaxLength    int // tool_cycle_max_length (K)
	ContentChunkSize      int // content_chunk_size (C)
	ContentLoopThreshold  int // content_loop_threshold (T)
	ContentMaxHistory     int // content_max_history
}

// GeminiParams declares the Gemini CLI detector's keys.
var GeminiParams = []Param{
	{Key: "tool_call_loop_threshold", Type: TypeInt, Default: 5, Min: bound(2), Max: bound(100),
		Doc: "tool_cycle: how many times a cycle of tool calls repeats"},
	{Key: "tool_cycle_max_length", Type: TypeInt, Default: 5, Min: bound(1), Max: bound(50),
		Doc: "tool_cycle: the longest cycle of tool calls looked for"},
	{Key: "content_chunk_size", Type: TypeInt, Default: 50, Min: bound(1), Max: bound(10000),
		Doc: "content_chanting: chunk length in UTF-16 code units"},
	{Key: "content_loop_threshold", Type: TypeInt, Default: 10, Min: bound(2), Max: bound(1000),
		Doc: "content_chanting: occurrences of a chunk, close together, that make a loop"},
	{Key: "content_max_history", Type: TypeInt, Default: 5000, Min: bound(1), Max: bound(1e7),
		Doc: "content_chanting: text kept, in UTF-16 code units"},
}

// DefaultGeminiConfig is LoopDetectionService's hard-coded setting.
func DefaultGeminiConfig() GeminiConfig {
	return GeminiConfig{ToolCallLoopThreshold: 5, ToolCycleMaxLength: 5, ContentChunkSize: 50,
		ContentLoopThreshold: 10, ContentMaxHistory: 5000}
}

// Validate checks the configuration against GeminiParams.
func (c GeminiConfig) Validate() error {
	if err := checkAll(GeminiParams, c.values()); err != nil {
		return err
	}
	if c.ContentMaxHistory < c.ContentChunkSize {
		return fmt.Errorf("content_max_history = %d: must be >= content_chunk_size (%d)", c.ContentMaxHistory, c.ContentChunkSize)
	}
	return nil
}

func (c GeminiConfig) values() map[string]float64 {
	return map[string]float64{
		"tool_call_loop_threshold": float64(c.ToolCallLoopThreshold),
		"tool_cycle_max_length":    float64(c.ToolCycleMaxLength),
		"content_chunk_size":       float64(c.ContentChunkSize),
		"content_loop_threshold":   float64(c.ContentLoopThreshold),
		"content_max_history":      float64(c.ContentMaxHistory),
	}
}

// The Gemini CLI rules.
const (
	RuleToolCycle       = "tool_cycle"
	RuleContentChanting = "content_chanting"
	RuleLLMLoopCheck    = "llm_loop_check"
)

// GeminiFiring is one firing of the Gemini CLI detector.
type GeminiFiring struct {
	Firing
	// CycleLength is tool_cycle's least repeating cycle length, 0 for the
	// other rules.
	CycleLength int `json:"cycle_length,omitempty"`
}

// Gemini replays Gemini CLI's LoopDetectionService (RULES.md §11;
// @google/gemini-cli-core 0.61.0 dist/src/services/loopDetectionService.js)
// as core/client.js feeds it: a step with NewPrompt first resets it
// (LoopDetectionService.reset, called by GeminiClient.sendMessageStream
// when the prompt_id changes: tool history, text, chunk table, scan
// position and the firing count go; "in a code block" stays), then an
// action step is a ToolCallRequest (a blank one is skipped) and a message
// step one Content event (addAndCheck). tool_cycle and content_chanting
// share the prompt's count of firings: the first is kind feedback (live,
// _recoverFromLoop calls clearDetection and sends a recovery prompt under
// the same prompt_id, the state kept), the second stop (live, the prompt
// ends: the detector sees nothing more until the next prompt, so neither
// does the replay). A step's logged LLM verdict is reported as
// llm_loop_check, kind recorded, outside that count.
type Gemini struct {
	cfg     GeminiConfig
	fired   int  // firings in the current prompt (detectedCount)
	stopped bool // the prompt ended with a stop firing

	keys ring[string] // the last K·R tool call keys
	runs []int        // by k ≤ K, the equal pairs of keys k apart ending at the newest (toolCycle)
	// eq has bit k set when the newest key equals the key k before it,
	// for the active ks: runs[k] > 0 (toolCycle; K ≤ 50 < 64); within
	// has the bits of the active ks.
	eq, within uint64
	// calls counts the prompt's calls until active, the ks whose runs are
	// counted (those with k·R ≤ calls), reaches K.
	calls, active int
	// lastKey is the last call's key as given, lastJS its jsUTF8 (jsKey).
	lastKey, lastJS string

	content chunkScan // streamed content and its chunks
	inBlock bool      // inside a code block
}

// NewGemini returns a detector with no history.
func NewGemini(c GeminiConfig) (*Gemini, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("gemini-cli: %w", err)
	}
	return &Gemini{
		cfg:     c,
		keys:    newRing[string](c.ToolCallLoopThreshold * c.ToolCycleMaxLength),
		runs:    make([]int, c.ToolCycleMaxLength+1),
		content: newChunkScan(c.ContentChunkSize, c.ContentLoopThreshold, c.ContentMaxHistory),
	}, nil
}

// Step processes one step and returns its firings.
func (d *Gemini) Step(s Step) []GeminiFiring { return d.AppendStep(nil, &s) }

// AppendStep is Step appending the firings to fs, for a caller that
// reuses its list (Step's made one at each firing) and holds the step.
func (d *Gemini) AppendStep(fs []GeminiFiring, s *Step) []GeminiFiring {
	if s.NewPrompt {
		d.reset()
	}
	rule, cycle := "", 0
	switch {
	case d.stopped:
	case s.Kind == KindAction && !s.noCall():
		// Chanting happens within one stream. A history nothing was
		// added to since its last reset (a call after a call, most) is
		// not reset: that changes nothing (chunkScan.empty).
		if !d.content.empty() {
			d.resetContent()
		}
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
//
// That is k·(R−1) pairs of keys k apart, the newest ending at the new
// key, all equal: runs[k] counts the equal pairs k apart ending at the
// newest key, so a key is compared once with each of the keys k before
// it, where the window was compared again for each k at every call (a
// steps log's calls repeat often: each repeat compared up to K·(R−1)
// pairs). runs[k] is counted only from the call that makes k·R keys
// (counting back over them; k is then active), as the window was looked
// at only from there: most prompts of the agents' sessions make fewer
// than R calls.
//
// A key's equality with the keys k before it is mostly told without a
// compare, by the last key's (eq; keys are equal as strings, an
// equivalence): the key k before the new one, when the last key
// equalled it, equals the new key exactly when the last does, and the
// others differ from the new key when it equals the last. So the new key
// is compared with the last, and only when they differ with the keys
// that differ from the last: a loop of one call compares once a call,
// where it compared K times. The runs are then touched only where a bit
// of eq is set or was (a run that grows or ends), by the bits' loops,
// where a loop over every active k tested each k's bit and held its
// values across the compares' calls of memequal, on the stack.
// TestGeminiToolCycleAsWindow holds it to the window (it fails with the
// keys the last equalled taken as unequal, and with the first count of
// a k's runs left out of eq).
func (d *Gemini) toolCycle(key string) int {
	d.keys.push(d.jsKey(key))
	enter := 0 // the k whose k·R-th key this is
	if d.active < d.cfg.ToolCycleMaxLength {
		if d.calls++; d.calls == (d.active+1)*d.cfg.ToolCallLoopThreshold {
			d.active++
			enter = d.active
		}
	}
	within := d.within // the ks active before this key
	if within == 0 && enter == 0 {
		return 0
	}
	keys := d.keys.buf
	n := len(keys)
	x := keys[n-1] // n ≥ k·R > k for every active k
	// The bits of the ks within whose key equals x.
	eq := uint64(0)
	if within != 0 {
		if sameString(keys[n-2], x) {
			// The keys k before x that the last key equalled (the
			// last's bit k-1) equal x, the others differ from it.
			eq = (d.eq<<1 | 2) & within
		} else {
			// Those the last key equalled differ from x; the others
			// are compared.
			for c := within &^ (d.eq<<1 | 2); c != 0; c &= c - 1 {
				if k := bits.TrailingZeros64(c); sameString(keys[n-1-k], x) {
					eq |= 1 << k
				}
			}
		}
	}
	// The runs: those that end (their bit in d.eq, not in eq) go to 0,
	// those of eq grow, from the least k, the cycle's.
	r1, runs, cycle := d.cfg.ToolCallLoopThreshold-1, d.runs, 0
	for c := d.eq &^ eq; c != 0; c &= c - 1 {
		runs[bits.TrailingZeros64(c)] = 0
	}
	for c := eq; c != 0; c &= c - 1 {
		k := bits.TrailingZeros64(c)
		runs[k]++
		if cycle == 0 && runs[k] >= k*r1 {
			cycle = k
		}
	}
	if k := enter; k > 0 {
		// The first k·R keys (all in the ring: k·R ≤ K·R), counted back.
		need, c := k*r1, 0
		for j := n - 1; j >= k && c < need && sameString(keys[j-k], keys[j]); j-- {
			c++
		}
		runs[k] = c
		if c > 0 {
			eq |= 1 << k
		}
		if c >= need && cycle == 0 {
			cycle = k
		}
		d.within |= 1 << k
	}
	d.eq = eq
	return cycle
}

// sameString is a == b, told at once for one string read twice (a loop's
// calls are often the same interned string): Go's == calls memequal once
// the lengths agree.
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// jsKey is jsUTF8(key), the last call's taken again without checking
// its UTF-8 when key is the same string (the same bytes at the same
// place: a loop of one call).
func (d *Gemini) jsKey(key string) string {
	if len(key) == len(d.lastKey) && unsafe.StringData(key) == unsafe.StringData(d.lastKey) {
		return d.lastJS
	}
	js := jsUTF8(key)
	d.lastKey, d.lastJS = key, js
	return js
}

// reset is LoopDetectionService.reset at a new prompt.
func (d *Gemini) reset() {
	d.keys.buf, d.calls, d.active = d.keys.buf[:0], 0, 0
	d.eq, d.within = 0, 0
	d.resetContent()
	d.fired, d.stopped = 0, false
}

func (d *Gemini) resetContent() { d.content.reset() }

// contentLoop is checkContentLoop for one message.
func (d *Gemini) contentLoop(content string) bool {
	fences := strings.Count(content, "```")
	divider := isGemDivider(content)
	// A reset of a history nothing was added to since the last changes
	// nothing (chunkScan.empty): the elements are not looked for, as
	// after most tool calls.
	if fences > 0 || divider || !d.content.empty() && hasGemElement(content) {
		d.resetContent()
	}
	was := d.inBlock
	if fences%2 == 1 {
		d.inBlock = !d.inBlock
	}
	if was || d.inBlock || divider {
		return false
	}
	return d.content.add(content)
}

// jsUTF8 returns the UTF-8 that Node's createHash(...).update(str) hashes
// for the JavaScript string s stands for (WTF-8, read as AppendUTF16
// reads it): a lone surrogate becomes U+FFFD, so a tool name holding one
// has the key of the name holding U+FFFD (getToolCallKey compares the
// digests). Valid UTF-8 holds no surrogate and is returned as it is.
func jsUTF8(s string) string {
	// isASCII first: a key is short and most are ASCII, which
	// ValidString reads a byte at a time until eight are left past it.
	if isASCII(s) || utf8.ValidString(s) {
		return s
	}
	return string(utf16.Decode(AppendUTF16(nil, s))) // Decode: an unpaired surrogate is U+FFFD
}

// AppendUTF16 appends s's UTF-16 code units to dst, as a JavaScript string
// holds them. s is WTF-8: a lone surrogate (which a JavaScript string can
// hold and JSON can escape, "\ud800") is its 3-byte encoding, ED A0 80 to
// ED BF BF, and becomes that one code unit; any other invalid byte becomes
// U+FFFD, as Node's UTF-8 decoder reads it.
func AppendUTF16(dst []uint16, s string) []uint16 {
	dst, _ = appendUTF16(dst, s)
	return dst
}

// widenFrom is the length from which appendUTF16 widens a message's
// ASCII blocks by vector (widenUnits): a shorter one has at most one
// block, its call's cost.
const widenFrom = 64

// appendUTF16 is AppendUTF16, also reporting whether it appended a
// surrogate (a character past U+FFFF or a lone surrogate): only the
// branches that write one say so, so ASCII pays nothing.
func appendUTF16(dst []uint16, s string) (_ []uint16, surrogates bool) {
	dst = slices.Grow(dst, len(s)) // never more code units than bytes
	i := 0
	if len(s) >= widenFrom {
		// A long message's leading ASCII blocks by vector, written in
		// the room grown above (widenUnits).
		n := len(dst)
		i = widenUnits(dst[n:n+len(s)], s)
		dst = dst[:n+i]
	}
	for i < len(s) {
		// Eight ASCII bytes at a time (most of a message), written in
		// the room grown above.
		if i+8 <= len(s) {
			if b := s[i : i+8]; (b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7])&0x80 == 0 {
				n := len(dst)
				dst = dst[:n+8]
				d := dst[n : n+8 : n+8]
				d[0], d[1], d[2], d[3] = uint16(b[0]), uint16(b[1]), uint16(b[2]), uint16(b[3])
				d[4], d[5], d[6], d[7] = uint16(b[4]), uint16(b[5]), uint16(b[6]), uint16(b[7])
				i += 8
				continue
			}
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, uint16(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
				dst = append(dst, 0xD000|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F))
				surrogates = true
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
			surrogates = true
		} else {
			dst = append(dst, uint16(r))
		}
		i += n
	}
	return dst, surrogates
}
