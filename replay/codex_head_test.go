package replay

import (
	"strings"
	"testing"
)

// TestCodexHasHead holds hasHead to a string compare: each head, with
// every byte changed in turn, cut short, and followed by no byte or by
// some, read from a buffer with no byte past its end.
func TestCodexHasHead(t *testing.T) {
	for _, h := range []struct {
		head  string
		words *headWords
	}{{codexItemHead, &codexItemWords}, {codexCompactedHead, &codexCompactedWords}} {
		var lines []string
		for _, tail := range []string{"", "}", `"type":"message"}}`} {
			lines = append(lines, h.head+tail, h.head[:len(h.head)-1]+tail)
			for i := range len(h.head) {
				b := []byte(h.head + tail)
				b[i] ^= 0x20
				lines = append(lines, string(b))
			}
		}
		for _, l := range lines {
			b := []byte(l)
			want := len(b) > len(h.head) && strings.HasPrefix(l, h.head)
			if got := hasHead(b[:len(b):len(b)], h.words); got != want {
				t.Errorf("hasHead(%q, %q) = %v, want %v", l, h.head, got, want)
			}
		}
	}
}
