package replay

import "testing"

// TestHistoryStrAsTable holds HistoryStr's inline answer for Sym 0 to the
// table's (historyStr): "" in the episode's table and in a streamed
// history's, as for the Syms past it, which are the table's.
func TestHistoryStrAsTable(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		e := &Episode{streamed: streamed}
		tab := e.history()
		var syms []Sym
		for _, s := range []string{"", "a", "ls -la", "a"} {
			syms = append(syms, tab.sym(s))
		}
		for _, s := range append(syms, 0, Sym(len(syms)+5)) {
			if got, want := e.HistoryStr(s), e.historyStr(s); got != want {
				t.Errorf("streamed %v, Sym %d: %q, the table's %q", streamed, s, got, want)
			}
		}
		if got := e.HistoryStr(0); got != "" {
			t.Errorf("streamed %v: Sym 0 is %q", streamed, got)
		}
	}
}
