package replay

import (
	"math/rand/v2"
	"testing"
)

// The readers' fast paths load eight bytes at a time and slice with no
// bounds test (unsafe.Slice, setBytes), on the code's own proof that the
// loads stay within the line. A result test cannot see a load past a
// slice's end that changes nothing, nor can a slice whose capacity is
// cut: the memory after it is there. Here each input ends where a page
// that may not be read begins, so one byte read past it faults.

// guardVariants are each seed's prefixes and suffixes, and copies of it
// with one to three bytes changed to JSON's structural bytes, an escape,
// a control byte or a byte over 0x7f, whole and cut. Seeds over 2 KB
// (the nesting limit's lines) are left out: their every prefix would
// take minutes, and their loads are a short line's.
func guardVariants(seeds []string, rng *rand.Rand, mutations int) [][]byte {
	const swaps = "\"\\,: }]{[0x\x01\xff"
	var out [][]byte
	for _, s := range seeds {
		if len(s) > 2048 {
			continue
		}
		for n := 0; n <= len(s); n++ {
			out = append(out, []byte(s[:n]), []byte(s[len(s)-n:]))
		}
		for k := 0; k < mutations && len(s) > 0; k++ {
			b := []byte(s)
			for m := rng.IntN(3) + 1; m > 0; m-- {
				b[rng.IntN(len(b))] = swaps[rng.IntN(len(swaps))]
			}
			out = append(out, b[:rng.IntN(len(b)+1)], b)
		}
	}
	return out
}

// TestWordLoadsAtPageEnd runs the fast paths that load words or slice
// unchecked (the Codex payload's keys and values and its heads, the
// Gemini CLI record's members, the Claude Code record, an attempts line
// and its line memo, parseUUID, equalShort) over lines ending at a page
// that may not be read: none may fault.
func TestWordLoadsAtPageEnd(t *testing.T) {
	g := newGuardPage(t)
	rng := rand.New(rand.NewPCG(1, 2))
	mutations := 200
	if testing.Short() {
		mutations = 20
	}
	var codex, gemini, claude []string
	for _, c := range codexSkipCases {
		codex = append(codex, c.line)
	}
	for _, c := range codexItemCases {
		codex = append(codex, c.line)
	}
	codex = append(codex, codexPreCases...)
	for _, c := range geminiTopCases {
		gemini = append(gemini, c.rec)
	}
	for _, c := range claudeCodeTopCases {
		claude = append(claude, c.rec)
	}
	attempts := []string{
		`{"task_id": "auth", "status": "blocked", "blockers": ["missing STRIPE_API_KEY"], "completed_work": [], "session_id": "s1", "timestamp": "2025-11-14T08:00:00Z"}`,
		`{"task_id": "docs", "status": "done", "blockers": [], "completed_work": ["README updated"], "session_id": "s2", "timestamp": 1763107920000}`,
		`{"task_id":"a","status":"s","blockers":[],"completed_work":[],"session_id":"x","timestamp":10}`,
	}

	c := &codexReader{}
	for _, v := range guardVariants(codex, rng, mutations) {
		c.recordRaw(g.at(v), 0)
		hasHead(g.at(v), &codexItemWords)
		hasHead(g.at(v), &codexCompactedWords)
		for i := range v {
			if v[i] == '{' {
				codexSkipPayload(&c.ix, g.at(v), i)
				var it codexItem
				c.payloadItem(g.at(v), i, &it)
			}
		}
	}
	for _, v := range guardVariants(gemini, rng, mutations) {
		gr := &geminiReader{}
		var f geminiFields
		gr.recordTop(g.at(v), &f)
		gr.topMembers(g.at(v), &f)
	}
	cc := newClaudeCodeReader()
	for _, v := range guardVariants(claude, rng, mutations) {
		cc.recordRaw(g.at(v), 0)
	}
	r := newAttemptReader(&Episode{})
	flat, lines := newAttemptFlat(), &attemptLines{}
	vals := make([]rawValue, len(attemptKeys))
	for range 3 { // the second and third time, lines are found in the memo
		for _, v := range guardVariants(attempts, rng, mutations) {
			r.readLine(g.at(v), flat, lines, vals)
		}
	}
	if lines.hits == 0 {
		t.Error("no attempts line was found in the memo: its loads went untested")
	}
	for _, s := range []string{"c0000000-0000-4000-8000-000000000001", "C0000000-0000-4000-8000-00000000000f", "x"} {
		for m := 0; m <= len(s); m++ {
			parseUUID(g.str(s[:m]))
		}
	}
	for n := 0; n <= 24; n++ {
		a := string(make([]byte, n))
		equalShort(g.str(a), a)
		equalShort(a, g.str(a))
	}
}
