//go:build !amd64 || purego

package detect

// asciiBlocks is 0: countRunes' own loops test every byte.
func asciiBlocks(s string) int { return 0 }

// asciiBlocksFrom is past any output's length: asciiBlocks is not called.
const asciiBlocksFrom = 1 << 62

// widenASCII is 0: decodeRunes' own loop writes every code point.
func widenASCII(rs []rune, s string) int { return 0 }
