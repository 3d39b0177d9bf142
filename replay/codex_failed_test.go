package replay

import (
	"strings"
	"testing"
)

// TestCodexFailed: codexFailed, which tells the failures by their first
// byte, says what the three compares say of each.
func TestCodexFailed(t *testing.T) {
	heads := []string{"exec command rejected by user", "patch rejected by user", "apply_patch verification failed: "}
	cases := []string{"", "e", "p", "a", "x", "apply_patch verification failed: no hunk"}
	for _, h := range heads {
		cases = append(cases, h, h+" ", h[1:], h[:len(h)-1], "x"+h[1:], h[:len(h)-1]+"x", strings.ToUpper(h))
	}
	for _, s := range cases {
		want := s == heads[0] || s == heads[1] || strings.HasPrefix(s, heads[2])
		if got := codexFailed(s); got != want {
			t.Errorf("codexFailed(%q) = %v, want %v", s, got, want)
		}
	}
}
