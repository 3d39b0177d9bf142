package cmd

import (
	"os"
	"strings"
	"testing"
)

// On a terminal a long report goes through $PAGER; --no-pager, a PAGER of
// cat, or a command that does not page write directly.
func TestPager(t *testing.T) {
	t.Setenv("LOOPBREAK_PAGER", "restored after the test")
	os.Unsetenv("LOOPBREAK_PAGER")
	t.Setenv("PAGER", "sed s/^/P:/")
	page := func(args ...string) string {
		ios, _, out, errOut := Test()
		ios.StdoutTTY, ios.Pageable, ios.Width = true, true, 80
		if code := Main(args, ios); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.String()
	}
	paged := page("rules")
	if !strings.HasPrefix(paged, "P: rule") || strings.Contains(paged, "\n ") {
		t.Errorf("rules on a terminal, not through the pager:\n%s", paged)
	}
	if got := page("rules", "--no-pager"); strings.Contains(got, "P:") {
		t.Errorf("--no-pager paged:\n%s", got)
	}
	if got := page("version"); strings.Contains(got, "P:") {
		t.Errorf("version paged: %s", got)
	}
	t.Setenv("PAGER", "cat")
	if got := page("rules"); strings.Contains(got, "P:") || !strings.HasPrefix(got, " rule") {
		t.Errorf("PAGER=cat:\n%s", got)
	}
	// Not Pageable (tests, a pipe): never.
	t.Setenv("PAGER", "sed s/^/P:/")
	ios, _, out, _ := Test()
	ios.StdoutTTY = true
	Main([]string{"rules"}, ios)
	if strings.Contains(out.String(), "P:") {
		t.Error("paged streams that are not the process's terminal")
	}
}
