//go:build amd64 && !purego

package detect

import "golang.org/x/sys/cpu"

// asciiBlocks returns the length of a prefix of s that is ASCII (no byte
// over 0x7f), in whole blocks of 16 or 32 bytes: the longest, unless a
// block after it holds a byte over 0x7f. 128 bytes a step with AVX2 where
// the CPU has it, else 64 with SSE2, the amd64 baseline
// (fuzzy_ascii_amd64.s): some 13 instructions where countRunes' 32-byte
// stride took ten.
func asciiBlocks(s string) int {
	if useAVX2 {
		return asciiBlocksAVX2(s)
	}
	return asciiBlocksSSE2(s)
}

//go:noescape
func asciiBlocksSSE2(s string) int

//go:noescape
func asciiBlocksAVX2(s string) int

// useAVX2 says the CPU and the OS run AVX2 (the 32-byte registers saved).
var useAVX2 = cpu.X86.HasAVX2

// asciiBlocksFrom is the length of output from which countRunes calls
// asciiBlocks: below it, the call's cost is most of what it saves.
const asciiBlocksFrom = 128

// widenASCII writes the code points of an ASCII prefix of s, in whole
// blocks of 32 bytes, to rs (len(rs) >= len(s)) and returns how many:
// the longest, unless a block after it holds a byte over 0x7f. With AVX2
// (fuzzy_ascii_amd64.s) some 17 instructions a block, where decodeRunes'
// eight bytes a step took some 40 a block of eight; without it, none.
func widenASCII(rs []rune, s string) int {
	if useAVX2 && len(rs) >= len(s) {
		return widenASCIIAVX2(rs, s)
	}
	return 0
}

//go:noescape
func widenASCIIAVX2(rs []rune, s string) int
