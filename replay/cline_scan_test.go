package replay

import (
	"strings"
	"testing"
)

var clineScanSeeds = []string{
	"", "T", "The tool execution failed", "The tool execution faile", "<error>", "<error", "xx<error>x",
	"TThe tool execution failed with the following error:\n<error>x</error>",
	rooRefusal, rooRefusal[:len(rooRefusal)-1], "Tool call repetition limit reached for read_file. Please try a different approach.",
	"TTool call repetition limit reached for x The tool execution failed", "The tool execution failed " + rooRefusal,
	rooRefusal + "The tool execution failed", "Tests: 1 failed\nTypeError: x", "TTT", "[read_file for 'a'] Result:\nThe tool execution failed",
	"[read_file for 'The tool execution failed'] Result:\nok", "[a] Result: <error>", "[a for '<err'] Result:\nor>",
	"[a] Result:The tool execution failed", "[a for 'The tool'] Result: execution failed",
	"[a for '" + rooRefusal + "'] Result:\nok", "[a for '" + rooRefusal + "'] Result:\n" + rooRefusal + "The tool execution failed",
}

// checkClineScan holds clineScan to clineFailed and strings.Contains,
// and, for a result's header, the split user() reads it by.
func checkClineScan(t *testing.T, s string) {
	t.Helper()
	failed, refused := clineScan(s)
	if failed != clineFailed(s) || refused != strings.Contains(s, rooRefusal) {
		t.Fatalf("clineScan(%q) = %v, %v; want %v, %v", s, failed, refused, clineFailed(s), strings.Contains(s, rooRefusal))
	}
	if h := clineResultHeader(s); h >= 0 {
		// user() reads a result's header and body in one scan: a failure
		// in either, a refusal in the body.
		f, r := clineScanAt(s, h)
		wf, wr := clineFailed(s[:h]) || clineFailed(s[h:]), strings.Contains(s[h:], rooRefusal)
		if f != wf || r != wr {
			t.Fatalf("%q read at its header's end %d: %v, %v; want %v, %v", s, h, f, r, wf, wr)
		}
	}
}

// TestClineScanAsRef: the seeds, and each byte inserted at, replacing,
// and cut at each place of texts that hold the words.
func TestClineScanAsRef(t *testing.T) {
	for _, s := range clineScanSeeds {
		checkClineScan(t, s)
	}
	for _, base := range []string{
		"[ab for 'x'] Result: The tool execution failed <error>",
		"[ab] Result:\nTool call repetition limit reached for x",
		"[ab for 'Tool call repetition limit reached for x'] Result: ok",
	} {
		for i := 0; i <= len(base); i++ {
			checkClineScan(t, base[:i])
			checkClineScan(t, base[i:])
			for _, c := range []byte("T<> \n]:xeRr") {
				checkClineScan(t, base[:i]+string([]byte{c})+base[i:])
				if i < len(base) {
					checkClineScan(t, base[:i]+string([]byte{c})+base[i+1:])
				}
			}
		}
	}
}

func FuzzClineScan(f *testing.F) {
	for _, s := range clineScanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkClineScan(t, s) })
}
